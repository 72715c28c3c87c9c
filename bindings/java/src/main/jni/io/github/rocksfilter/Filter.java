package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A loaded, immutable RocksDB filter block ({@code rocksfilter_filter}).
 *
 * <p>{@code mayMatch} answers {@code false} only for keys that were certainly not added;
 * {@code true} may be a false positive.
 *
 * <p><b>Threads:</b> queries may run from any number of threads at once. {@link #close()} is
 * idempotent and thread-safe, and queries after it throw {@link IllegalStateException}; but, as in
 * the C API, {@code close()} must not run while another thread is still inside a query on the same
 * filter. A leaked filter is freed by a {@link Cleaner}.
 *
 * <p>This is the JNI backend's class (JDK 11 to 21); JDK 22+ loads the FFM one, which adds
 * {@code loadBorrowed(MemorySegment)} and {@code mayMatch(MemorySegment)} (zero-copy calls on
 * native memory, which do not exist without the FFM API).
 */
public final class Filter implements AutoCloseable {
    private final JniRef ref;
    private final Cleaner.Cleanable cleanable;

    Filter(long handle) {
        this.ref = new JniRef(handle, JniNative::filterFree, "Filter");
        this.cleanable = JniRef.CLEANER.register(this, ref);
    }

    /**
     * Loads a filter block, copying it (the array may be reused right after).
     *
     * @throws RocksFilterException {@link Status#CORRUPTION} when the block's declared geometry
     *                              does not fit its length. Blocks of 5 bytes or fewer load as
     *                              {@link Kind#ALWAYS_FALSE}; unknown formats as {@link Kind#ALWAYS_TRUE}.
     */
    public static Filter load(byte[] block) {
        Objects.requireNonNull(block, "block");
        JniNative.load();
        return new Filter(JniNative.filterLoad(block));
    }

    /** May the filter hold {@code key}? {@code false} is definite. */
    public boolean mayMatch(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return JniNative.filterMayMatch(ref.get(), key);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** As {@link #mayMatch(byte[])} for the bytes from {@code key}'s position to its limit (copied). */
    public boolean mayMatch(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        return mayMatch(RocksFilter.remaining(key));
    }

    /** Query by a precomputed {@link RocksFilter#hash64} (FastLocalBloom and Ribbon). */
    public boolean mayMatchHash(long hash) {
        try {
            return JniNative.filterMayMatchHash(ref.get(), hash);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Batch query: {@code result[i]} answers {@code keys[i]}, through the native batch path (one
     * call per 4096 keys, which hashes and prefetches ahead).
     *
     * @throws NullPointerException if {@code keys} or one of its elements is null
     */
    public boolean[] mayMatchBatch(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        try {
            long h = ref.get(); // closed: IllegalStateException, even for an empty batch
            return PackedBatch.query(keys, (buf, len, offsets, n, results, err) ->
                    JniNative.filterMayMatchPacked(h, buf, offsets, n, results), this::mayMatch);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The kind of block loaded. */
    public Kind kind() {
        try {
            return Kind.fromCode(JniNative.filterKind(ref.get()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The block's geometry ({@code rocksfilter_filter_get_info_ex}). */
    public FilterInfo info() {
        try {
            long[] i = JniNative.filterInfo(ref.get());
            return new FilterInfo(Kind.fromCode((int) i[0]), i[1], (int) i[2], (int) i[3], (int) i[4], (int) i[5],
                    (int) i[6], (int) i[7], (int) i[8]);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * RocksDB's estimate of the false-positive rate of this filter if it holds {@code keys} keys
     * (0.0 for {@link Kind#ALWAYS_FALSE}, 1.0 for {@link Kind#ALWAYS_TRUE}).
     */
    public double estimatedFpRate(long keys) {
        if (keys < 0) {
            throw new IllegalArgumentException("keys must be >= 0: " + keys);
        }
        try {
            return JniNative.filterEstimatedFpRate(ref.get(), keys);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A copy of the filter's block bytes (its 5-byte metadata trailer included). */
    public byte[] bytes() {
        try {
            return JniNative.filterBytes(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return ref.isClosed();
    }

    /** Frees the native filter. Idempotent and thread-safe; no query may be running on it. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
