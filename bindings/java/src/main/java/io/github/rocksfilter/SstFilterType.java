package io.github.rocksfilter;

/** The kind of filter an SST file holds ({@code ROCKSFILTER_SST_FILTER_*}). */
public enum SstFilterType {
    /** The file has no filter: every key may match. */
    NONE(0),
    /** One full filter block. */
    FULL(1),
    /** A partitioned filter. */
    PARTITIONED(2),
    /** A filter this library cannot read (custom policy or obsolete block-based filter): every key may match. */
    UNSUPPORTED(3);

    private final int code;

    SstFilterType(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /** The type for a C value; unknown values map to {@link #UNSUPPORTED}. */
    public static SstFilterType fromCode(int code) {
        return switch (code) {
            case 0 -> NONE;
            case 1 -> FULL;
            case 2 -> PARTITIONED;
            default -> UNSUPPORTED;
        };
    }
}
