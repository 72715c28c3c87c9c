package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A loaded, immutable RocksDB filter block ({@code rocksfilter_filter}).
 *
 * <p>{@code mayMatch} answers {@code false} only for keys that were certainly not added;
 * {@code true} may be a false positive.
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

    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    /** Memory the native filter borrows (kept reachable as long as this filter is). */
    @SuppressWarnings({"unused", "FieldCanBeLocal"})
    private final Object keepAlive;

    Filter(MemorySegment handle, Object keepAlive) {
        this.ref = new NativeRef(handle, Native.FILTER_FREE, "Filter");
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(Math.max(1, block.length));
            MemorySegment.copy(block, 0, data, JAVA_BYTE, 0, block.length);
            return load(Native.FILTER_LOAD, data, block.length, arena, null);
        }
    }

    /**
     * Loads a filter block <em>without copying it</em>. The native filter reads {@code block}
     * directly, so the caller must keep the segment's memory alive and unmodified until this filter
     * is closed: do not close its arena before closing the filter. (The filter keeps a reference to
     * the segment, so memory of an {@link Arena#ofAuto() automatic} arena stays alive as long as the
     * filter is reachable.) A confined arena's segment may be used, but its memory must still outlive
     * the filter.
     *
     * @param block a native segment holding exactly the block
     * @throws IllegalArgumentException if {@code block} is a heap segment (heap memory can move)
     */
    public static Filter loadBorrowed(MemorySegment block) {
        Objects.requireNonNull(block, "block");
        if (!block.isNative()) {
            throw new IllegalArgumentException("loadBorrowed needs a native segment; use load(byte[]) for heap data");
        }
        if (!block.scope().isAlive()) {
            throw new IllegalStateException("the segment's arena is already closed");
        }
        try (Arena arena = Arena.ofConfined()) {
            return load(Native.FILTER_LOAD_BORROWED, block, block.byteSize(), arena, block);
        }
    }

    private static Filter load(java.lang.invoke.MethodHandle fn, MemorySegment data, long len, Arena arena,
                               Object keepAlive) {
        try {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) fn.invokeExact(data, len, out, err);
            Native.check(st, err);
            return new Filter(out.get(ADDRESS, 0), keepAlive);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** May {@code key} have been added? */
    public boolean mayMatch(byte[] key) {
        Objects.requireNonNull(key, "key");
        return mayMatchSegment(MemorySegment.ofArray(key));
    }

    /** May the key between the buffer's position and limit have been added? The position is not moved. */
    public boolean mayMatch(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        return mayMatchSegment(MemorySegment.ofBuffer(key));
    }

    /** May the key held in {@code key} (all its bytes; heap or native) have been added? */
    public boolean mayMatch(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        return mayMatchSegment(key);
    }

    private boolean mayMatchSegment(MemorySegment key) {
        MemorySegment f = ref.get();
        try {
            return (boolean) Native.FILTER_MAY_MATCH.invokeExact(f, key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Query by a precomputed {@link RocksFilter#hash64(byte[])}. On a {@link Kind#LEGACY_BLOOM}
     * filter (built from a different hash) this always answers {@code true}.
     */
    public boolean mayMatchHash(long hash) {
        MemorySegment f = ref.get();
        try {
            return (boolean) Native.FILTER_MAY_MATCH_HASH.invokeExact(f, hash);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Batch query: {@code result[i]} answers {@code keys[i]}. Uses the native batch path, which
     * hashes and prefetches ahead (faster per key than single queries on large filters).
     */
    public boolean[] mayMatchBatch(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        return mayMatchBatchPacked(keys);
    }

    /**
     * {@code rocksfilter_filter_may_match_packed} with heap arrays passed straight to a critical
     * downcall: keys are packed into one {@code byte[]}, offsets into a {@code long[]}, and results
     * land in a {@code byte[]} (C {@code bool} is one byte). No native allocation.
     */
    boolean[] mayMatchBatchPacked(byte[][] keys) {
        ref.get(); // closed: IllegalStateException, even for an empty batch
        try {
            // Two call sites (here and in Sst), so that each method handle is a constant the JIT inlines.
            return PackedBatch.query(keys, (buf, len, offsets, n, results, err) -> {
                try {
                    // errptr is a heap long[1] (a char * slot), as the call is critical: no native allocation.
                    int st = (int) Native.FILTER_MAY_MATCH_PACKED.invokeExact(ref.get(), MemorySegment.ofArray(buf),
                            (long) len, MemorySegment.ofArray(offsets), (long) n, MemorySegment.ofArray(results),
                            MemorySegment.ofArray(err));
                    if (st != 0) {
                        throw Native.exception(st, MemorySegment.ofAddress(err[0]));
                    }
                } catch (Throwable t) {
                    throw Native.rethrow(t);
                }
            }, this::mayMatch);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The kind of block loaded. */
    public Kind kind() {
        MemorySegment f = ref.get();
        try {
            return Kind.fromCode((int) Native.FILTER_KIND.invokeExact(f));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The filter's geometry. */
    public FilterInfo info() {
        MemorySegment f = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            // Zeroed: fields past the struct_size the library reports filling read as 0.
            MemorySegment s = arena.allocate(Native.FILTER_INFO_EX);
            INFO_STRUCT_SIZE.set(s, 0L, (int) Native.FILTER_INFO_EX.byteSize());
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.FILTER_GET_INFO_EX.invokeExact(f, s, err);
            Native.check(st, err);
            return new FilterInfo(
                    Kind.fromCode((int) INFO_KIND.get(s, 0L)),
                    (long) INFO_BYTES.get(s, 0L),
                    (int) INFO_NUM_PROBES.get(s, 0L),
                    (int) INFO_NUM_LINES.get(s, 0L),
                    (int) INFO_LINE_BYTES.get(s, 0L),
                    (int) INFO_NUM_BLOCKS.get(s, 0L),
                    (int) INFO_SEED.get(s, 0L),
                    (int) INFO_LOWER_NUM_COLUMNS.get(s, 0L),
                    (int) INFO_UPPER_START_BLOCK.get(s, 0L));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private static final VarHandle INFO_STRUCT_SIZE = Native.member(Native.FILTER_INFO_EX, "struct_size");
    private static final VarHandle INFO_KIND = Native.member(Native.FILTER_INFO_EX, "kind");
    private static final VarHandle INFO_BYTES = Native.member(Native.FILTER_INFO_EX, "bytes");
    private static final VarHandle INFO_NUM_PROBES = Native.member(Native.FILTER_INFO_EX, "num_probes");
    private static final VarHandle INFO_NUM_LINES = Native.member(Native.FILTER_INFO_EX, "num_lines");
    private static final VarHandle INFO_LINE_BYTES = Native.member(Native.FILTER_INFO_EX, "line_bytes");
    private static final VarHandle INFO_NUM_BLOCKS = Native.member(Native.FILTER_INFO_EX, "num_blocks");
    private static final VarHandle INFO_SEED = Native.member(Native.FILTER_INFO_EX, "seed");
    private static final VarHandle INFO_LOWER_NUM_COLUMNS = Native.member(Native.FILTER_INFO_EX, "lower_num_columns");
    private static final VarHandle INFO_UPPER_START_BLOCK = Native.member(Native.FILTER_INFO_EX, "upper_start_block");

    /**
     * RocksDB's estimate of the false-positive rate of this filter if it holds {@code keys} keys
     * (0.0 for {@link Kind#ALWAYS_FALSE}, 1.0 for {@link Kind#ALWAYS_TRUE}).
     */
    public double estimatedFpRate(long keys) {
        if (keys < 0) {
            throw new IllegalArgumentException("keys must be >= 0: " + keys);
        }
        MemorySegment f = ref.get();
        try {
            return (double) Native.FILTER_ESTIMATED_FP_RATE.invokeExact(f, keys);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A copy of the filter's block bytes (its 5-byte metadata trailer included). */
    public byte[] bytes() {
        MemorySegment f = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.FILTER_DATA_EX.invokeExact(f, data, len, err);
            Native.check(st, err);
            long n = len.get(JAVA_LONG, 0);
            if (n == 0) {
                return new byte[0];
            }
            return data.get(ADDRESS, 0).reinterpret(n).toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The live native handle ({@link IllegalStateException} once closed), for calls the public
     * methods do not make (the test sources' benchmark helpers). The caller keeps this filter
     * reachable while it uses the handle.
     */
    MemorySegment handle() {
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
