package io.github.rocksfilter;

/** Result codes of the native library ({@code rocksfilter_status}). */
public enum Status {
    /** Success. */
    OK(0),
    /** The caller passed something unusable: bad bits per key, bad key, bad policy, bad offsets. */
    INVALID_ARGUMENT(1),
    /** The bytes are not a valid block or file; the message says where. */
    CORRUPTION(2),
    /** Valid input this version does not handle; the message says which. */
    NOT_SUPPORTED(3),
    /** An I/O error (e.g. opening or reading a file; a {@link RangeReader} or channel that failed). */
    IO_ERROR(4),
    /** Something asked for is absent (e.g. a full filter in a partitioned file). */
    NOT_FOUND(5),
    /** A bug in rocksfilter (a caught panic). */
    INTERNAL(6);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C value of this status. */
    public int code() {
        return code;
    }

    /** The status for a C value; unknown values map to {@link #INTERNAL}. */
    public static Status fromCode(int code) {
        // A loop rather than a switch expression: this class is also compiled for Java 11 (JniNative).
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return INTERNAL;
    }
}
