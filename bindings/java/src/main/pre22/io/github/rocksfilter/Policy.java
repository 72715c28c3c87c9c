package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); the constants mirror the real enum. */
public enum Policy {
    BLOOM(1),
    RIBBON(2),
    LEGACY_BLOOM(3);

    private final int code;

    Policy(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
