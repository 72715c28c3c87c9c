package io.github.rocksfilter;

import java.util.Objects;

/**
 * How a {@link FilterBuilder} sizes its blocks beyond RocksDB's bits/key ({@code
 * rocksfilter_builder_options}): a target FP rate or a byte budget, and for Ribbon the chance that
 * a seed fails to solve. Immutable; each {@code with...} method returns a copy. Zero means "not
 * set" for the FP rate, the budget and the failure chance; with only a policy and bits/key the
 * builder writes RocksDB's blocks.
 *
 * <pre>{@code
 * try (FilterBuilder b = new FilterBuilder(new BuilderOptions(Policy.RIBBON).withFpRate(0.01))) { ... }
 * }</pre>
 */
public final class BuilderOptions {
    private final Policy policy;
    private final double bitsPerKey;
    private final double fpRate;
    private final long maxBytes;
    private final int ribbonFailureOneIn;

    /** {@code policy} at 10 bits/key, no FP target or budget, Ribbon failure 1 in 20. */
    public BuilderOptions(Policy policy) {
        this(Objects.requireNonNull(policy, "policy"), 10.0, 0, 0, 0);
    }

    private BuilderOptions(Policy policy, double bitsPerKey, double fpRate, long maxBytes, int ribbonFailureOneIn) {
        this.policy = policy;
        this.bitsPerKey = bitsPerKey;
        this.fpRate = fpRate;
        this.maxBytes = maxBytes;
        this.ribbonFailureOneIn = ribbonFailureOneIn;
    }

    /** RocksDB's bits/key (used only when neither an FP rate nor a budget is set). */
    public BuilderOptions withBitsPerKey(double bitsPerKey) {
        return new BuilderOptions(policy, bitsPerKey, fpRate, maxBytes, ribbonFailureOneIn);
    }

    /**
     * A target FP rate strictly between 0 and 1 (0: not set): for Bloom the smallest block whose
     * RocksDB estimate meets it, for Ribbon RocksDB's column split for that rate. Not for the legacy
     * Bloom, nor together with a budget.
     */
    public BuilderOptions withFpRate(double fpRate) {
        return new BuilderOptions(policy, bitsPerKey, fpRate, maxBytes, ribbonFailureOneIn);
    }

    /** A byte budget, the 5-byte trailer included, at least 69 (0: not set): the most accurate block that fits. */
    public BuilderOptions withMaxBytes(long maxBytes) {
        return new BuilderOptions(policy, bitsPerKey, fpRate, maxBytes, ribbonFailureOneIn);
    }

    /** Ribbon: slots for a 1-in-N chance that a seed fails to solve: 2, 20 (RocksDB's, and 0) or 1000. */
    public BuilderOptions withRibbonFailureOneIn(int oneIn) {
        return new BuilderOptions(policy, bitsPerKey, fpRate, maxBytes, oneIn);
    }

    /** The policy. */
    public Policy policy() {
        return policy;
    }

    /** RocksDB's bits/key setting. */
    public double bitsPerKey() {
        return bitsPerKey;
    }

    /** The target FP rate, 0 when not set. */
    public double fpRate() {
        return fpRate;
    }

    /** The byte budget, 0 when not set. */
    public long maxBytes() {
        return maxBytes;
    }

    /** Ribbon's failure chance as 1 in N, 0 for RocksDB's 20. */
    public int ribbonFailureOneIn() {
        return ribbonFailureOneIn;
    }
}
