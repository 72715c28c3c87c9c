package io.github.rocksfilter;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public final class BuilderOptions {
    public BuilderOptions(Policy policy) {
        throw JdkCheck.unsupported();
    }

    public BuilderOptions withBitsPerKey(double bitsPerKey) {
        throw JdkCheck.unsupported();
    }

    public BuilderOptions withFpRate(double fpRate) {
        throw JdkCheck.unsupported();
    }

    public BuilderOptions withMaxBytes(long maxBytes) {
        throw JdkCheck.unsupported();
    }

    public BuilderOptions withRibbonFailureOneIn(int oneIn) {
        throw JdkCheck.unsupported();
    }

    public Policy policy() {
        throw JdkCheck.unsupported();
    }

    public double bitsPerKey() {
        throw JdkCheck.unsupported();
    }

    public double fpRate() {
        throw JdkCheck.unsupported();
    }

    public long maxBytes() {
        throw JdkCheck.unsupported();
    }

    public int ribbonFailureOneIn() {
        throw JdkCheck.unsupported();
    }
}
