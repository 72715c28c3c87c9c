package io.github.rocksfilter;

/** Which filter a {@link FilterBuilder} writes, named after RocksDB's policies ({@code rocksfilter_policy}). */
public enum Policy {
    /** {@code NewBloomFilterPolicy(bpk)} at format_version &gt;= 5: FastLocalBloom. */
    BLOOM(1),
    /** {@code NewRibbonFilterPolicy(bpk, -1)}: Standard128Ribbon, with RocksDB's Bloom fallbacks. */
    RIBBON(2),
    /** {@code NewBloomFilterPolicy(bpk)} at format_version &lt; 5: legacy Bloom. */
    LEGACY_BLOOM(3);

    private final int code;

    Policy(int code) {
        this.code = code;
    }

    /** The C value of this policy. */
    public int code() {
        return code;
    }
}
