package io.github.rocksfilter;

/** The kind of filter an SST file holds ({@code ROCKSFILTER_SST_FILTER_*}). */
public enum SstFilterType {
    /** The file has no filter: every key may match. */
    NONE(0),
    /** One full filter block. */
    FULL(1),
    /** A partitioned filter. */
    PARTITIONED(2),
    /** A filter this library cannot read (custom policy) or that RocksDB would not use either: every key may match. */
    UNSUPPORTED(3),
    /**
     * The obsolete block-based filter of RocksDB &lt; 7.0: a small filter per 2 KiB of data-block offsets,
     * looked up through the table's index; {@code mayMatch} and {@code prefixMayMatch} answer from it.
     */
    BLOCK_BASED(4);

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
        switch (code) {
            case 0:
                return NONE;
            case 1:
                return FULL;
            case 2:
                return PARTITIONED;
            case 4:
                return BLOCK_BASED;
            default:
                return UNSUPPORTED;
        }
    }
}
