package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * A loaded, immutable RocksDB filter block ({@code rocksfilter_filter}).
 *
 * <p>{@code mayMatch} answers {@code false} only for keys that were certainly not added;
 * {@code true} may be a false positive. On JDK 22+, {@code Segments.loadBorrowed(MemorySegment)}
 * loads a block in native memory without copying it and {@code Segments.mayMatch(Filter,
 * MemorySegment)} queries a key in a segment.
 *
 * <p><b>Threads:</b> queries may run from any number of threads at once. {@link #close()} is
 * idempotent and thread-safe, and queries after it throw {@link IllegalStateException}; but, as in
 * the C API, {@code close()} must not run while another thread is still inside a query on the same
 * filter (close it after the querying threads are done, e.g. after joining them or shutting down
 * their executor). A leaked filter is freed by a {@link Cleaner}.
 */
public final class Filter implements AutoCloseable {
    /** Keys per native batch call: bounds the scratch arrays and the time spent in one critical call. */
    static final int BATCH_CHUNK = PackedBatch.CHUNK;

    private static final LongConsumer FREE = Backends.BACKEND::filterFree;

    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    /** Memory the native filter borrows, or {@code null} (kept reachable as long as this filter is). */
    @SuppressWarnings({"unused", "FieldCanBeLocal"})
    private final Object keepAlive;

    Filter(long handle, Object keepAlive) {
        this.ref = new NativeRef(handle, FREE, "Filter");
        this.keepAlive = keepAlive;
        this.cleanable = NativeRef.CLEANER.register(this, ref);
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
        return new Filter(Backends.BACKEND.filterLoad(block), null);
    }

    /** May {@code key} have been added? */
    public boolean mayMatch(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return Backends.BACKEND.filterMayMatch(ref.get(), key);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * May the key between the buffer's position and limit have been added? The position is not
     * moved. (The FFM backend reads the buffer in place; the JNI backend copies the key.)
     */
    public boolean mayMatch(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        try {
            return Backends.BACKEND.filterMayMatch(ref.get(), key);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Query by a precomputed {@link RocksFilter#hash64(byte[])}. On a {@link Kind#LEGACY_BLOOM}
     * filter (built from a different hash) this always answers {@code true}.
     */
    public boolean mayMatchHash(long hash) {
        try {
            return Backends.BACKEND.filterMayMatchHash(ref.get(), hash);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Batch query: {@code result[i]} answers {@code keys[i]}. Uses the native batch path (one call
     * per 4096 keys), which hashes and prefetches ahead (faster per key than single queries on large
     * filters).
     *
     * @throws NullPointerException if {@code keys} or one of its elements is null
     */
    public boolean[] mayMatchBatch(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        try {
            long h = ref.get(); // closed: IllegalStateException, even for an empty batch
            return PackedBatch.query(keys, (buf, len, offsets, first, n, results, err) ->
                    Backends.BACKEND.filterMayMatchPacked(h, buf, len, offsets, first, n, results, err), this::mayMatch);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Batch query over keys that already lie in one array, as an engine's key arena holds them: key
     * {@code i} is {@code keys[offsets[i] .. offsets[i + 1]]} ({@code offsets} holds one entry more
     * than there are keys; {@code offsets[0]} need not be 0), and {@code out[i]} answers it exactly as
     * {@code mayMatch} would. The arrays go to the native call as they are (4096 keys per call): no
     * key is copied and nothing is allocated, so this is the cheapest batch when the keys are in one
     * array already ({@link #mayMatchBatch} packs a {@code byte[][]} into one first).
     *
     * @throws IllegalArgumentException if {@code offsets} is empty or {@code out} has fewer than
     *                                  {@code offsets.length - 1} entries
     * @throws RocksFilterException     {@link Status#INVALID_ARGUMENT} when offsets decrease or pass
     *                                  {@code keys.length}; every answer in {@code out} is then
     *                                  {@code true}
     * @throws IllegalStateException    if this handle is closed
     */
    public void mayMatchPacked(byte[] keys, long[] offsets, boolean[] out) {
        try {
            long h = ref.get();
            PackedBatch.arena(keys, offsets, out, (buf, len, offs, first, n, results, err) ->
                    Backends.BACKEND.filterMayMatchPacked(h, buf, len, offs, first, n, results, err));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The kind of block loaded. */
    public Kind kind() {
        try {
            return Kind.fromCode(Backends.BACKEND.filterKind(ref.get()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The filter's geometry ({@code rocksfilter_filter_get_info_ex}). */
    public FilterInfo info() {
        try {
            return Backends.BACKEND.filterInfo(ref.get());
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
            return Backends.BACKEND.filterEstimatedFpRate(ref.get(), keys);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A copy of the filter's block bytes (its 5-byte metadata trailer included). */
    public byte[] bytes() {
        try {
            return Backends.BACKEND.filterBytes(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The live native handle ({@link IllegalStateException} once closed), for the calls the methods
     * here do not make ({@code Segments}, the test sources' benchmark helpers). The caller keeps
     * this filter reachable while it uses the handle.
     */
    long handle() {
        return ref.get();
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
