package io.github.rocksfilter;

import java.nio.ByteBuffer;

/** Stand-in for JDK &lt; 22 (see {@link JdkCheck}). */
public final class Filter implements AutoCloseable {
    private Filter() {
    }

    public static Filter load(byte[] block) {
        throw JdkCheck.unsupported();
    }

    public boolean mayMatch(byte[] key) {
        throw JdkCheck.unsupported();
    }

    public boolean mayMatch(ByteBuffer key) {
        throw JdkCheck.unsupported();
    }

    public boolean mayMatchHash(long hash) {
        throw JdkCheck.unsupported();
    }

    public boolean[] mayMatchBatch(byte[][] keys) {
        throw JdkCheck.unsupported();
    }

    public Kind kind() {
        throw JdkCheck.unsupported();
    }

    public FilterInfo info() {
        throw JdkCheck.unsupported();
    }

    public double estimatedFpRate(long keys) {
        throw JdkCheck.unsupported();
    }

    public byte[] bytes() {
        throw JdkCheck.unsupported();
    }

    public boolean isClosed() {
        throw JdkCheck.unsupported();
    }

    public void close() {
        throw JdkCheck.unsupported();
    }
}
