package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}); the constants mirror the real enum. */
public enum Status {
    OK(0),
    INVALID_ARGUMENT(1),
    CORRUPTION(2),
    NOT_SUPPORTED(3),
    IO_ERROR(4),
    NOT_FOUND(5),
    INTERNAL(6);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Status fromCode(int code) {
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return INTERNAL;
    }
}
