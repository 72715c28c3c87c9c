package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); the constants mirror the real enum. */
public enum SstFilterType {
    NONE(0),
    FULL(1),
    PARTITIONED(2),
    UNSUPPORTED(3),
    BLOCK_BASED(4);

    private final int code;

    SstFilterType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static SstFilterType fromCode(int code) {
        for (SstFilterType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return UNSUPPORTED;
    }
}
