package io.github.rocksfilter;

/** What a loaded filter block holds ({@code rocksfilter_kind}). */
public enum Kind {
    /** 5 bytes or fewer: no keys; every query answers false. */
    ALWAYS_FALSE(0),
    /** A reserved or future format: every query answers true (RocksDB's rule). */
    ALWAYS_TRUE(1),
    /** FastLocalBloom (format_version &gt;= 5). */
    FAST_LOCAL_BLOOM(2),
    /** Standard128Ribbon. */
    STANDARD128_RIBBON(3),
    /** Legacy Bloom (format_version &lt; 5). */
    LEGACY_BLOOM(4);

    private final int code;

    Kind(int code) {
        this.code = code;
    }

    /** The C value of this kind. */
    public int code() {
        return code;
    }

    /** The kind for a C value; unknown values map to {@link #ALWAYS_TRUE} (the safe answer). */
    public static Kind fromCode(int code) {
        switch (code) {
            case 0:
                return ALWAYS_FALSE;
            case 2:
                return FAST_LOCAL_BLOOM;
            case 3:
                return STANDARD128_RIBBON;
            case 4:
                return LEGACY_BLOOM;
            default:
                return ALWAYS_TRUE;
        }
    }
}
