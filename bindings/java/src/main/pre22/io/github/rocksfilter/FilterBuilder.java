package io.github.rocksfilter;

import java.nio.ByteBuffer;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public final class FilterBuilder implements AutoCloseable {
    public FilterBuilder(Policy policy, double bitsPerKey) {
        throw JdkCheck.unsupported();
    }

    public FilterBuilder(BuilderOptions options) {
        throw JdkCheck.unsupported();
    }

    public Policy policy() {
        throw JdkCheck.unsupported();
    }

    public FilterBuilder add(byte[] key) {
        throw JdkCheck.unsupported();
    }

    public FilterBuilder add(ByteBuffer key) {
        throw JdkCheck.unsupported();
    }

    public FilterBuilder addKeyAndAlt(byte[] key, byte[] alt) {
        throw JdkCheck.unsupported();
    }

    public FilterBuilder addHash(long hash) {
        throw JdkCheck.unsupported();
    }

    public long numEntries() {
        throw JdkCheck.unsupported();
    }

    public byte[] finish() {
        throw JdkCheck.unsupported();
    }

    public void close() {
        throw JdkCheck.unsupported();
    }
}
