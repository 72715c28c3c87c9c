package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); the constants mirror the real enum. */
public enum Kind {
    ALWAYS_FALSE(0),
    ALWAYS_TRUE(1),
    FAST_LOCAL_BLOOM(2),
    STANDARD128_RIBBON(3),
    LEGACY_BLOOM(4);

    private final int code;

    Kind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Kind fromCode(int code) {
        for (Kind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return ALWAYS_TRUE;
    }
}
