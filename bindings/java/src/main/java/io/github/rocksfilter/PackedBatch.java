package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The batch queries of {@link Filter} and {@link Sst}: {@code rocksfilter_filter_may_match_packed}
 * and {@code rocksfilter_sst_may_match_packed} (the same signature) with heap arrays passed
 * straight to a critical downcall. Keys are packed into one {@code byte[]}, offsets into a
 * {@code long[]}, and results land in a {@code byte[]} (C {@code bool} is one byte), in chunks of
 * {@link #CHUNK} keys. No native allocation; the scratch arrays are the thread's, reused.
 */
final class PackedBatch {
    /** Keys per native batch call: bounds the scratch arrays and the time spent in one critical call. */
    static final int CHUNK = 4096;

    /** Packing buffers up to this size are kept for the thread's next batch (as the Go binding's pool does). */
    static final int MAX_CACHED_BUF = 1 << 20;

    /** Per-thread scratch arrays, reused from batch to batch: a batch allocates only its result. */
    static final class Scratch {
        final long[] offsets = new long[CHUNK + 1];
        final byte[] results = new byte[CHUNK];
        final long[] err = new long[1];
        byte[] buf = new byte[64 * 1024];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private PackedBatch() {
    }

    /**
     * {@code result[i]} answers {@code keys[i]}, from {@code rocksfilter_sst_may_match_packed} if
     * {@code isSst}, else {@code rocksfilter_filter_may_match_packed}; {@code ref} is the handle
     * (its {@code get()} throws {@link IllegalStateException} once closed); {@code owner} is kept
     * reachable during each call; {@code single} answers one key (for chunks of keys too large to
     * pack into one array).
     */
    static boolean[] query(boolean isSst, NativeRef ref, Object owner, byte[][] keys, Predicate<byte[]> single) {
        Objects.requireNonNull(keys, "keys");
        int n = keys.length;
        boolean[] out = new boolean[n];
        if (n == 0) {
            ref.get();
            return out;
        }
        Scratch scratch = SCRATCH.get();
        long[] offsets = scratch.offsets;
        byte[] results = scratch.results;
        byte[] buf = scratch.buf;
        long[] err = scratch.err;
        int chunk = CHUNK;
        for (int start = 0; start < n; start += chunk) {
            int m = Math.min(chunk, n - start);
            long total = 0;
            for (int i = 0; i < m; i++) {
                byte[] k = keys[start + i];
                if (k == null) {
                    // (Not Objects.requireNonNull(k, "keys[" + i + "]"): that builds the message for every key.)
                    throw new NullPointerException("keys[" + (start + i) + "]");
                }
                total += k.length;
            }
            if (total > Integer.MAX_VALUE - 16) {
                // Pathologically large keys: fall back to single queries for this chunk.
                for (int i = 0; i < m; i++) {
                    out[start + i] = single.test(keys[start + i]);
                }
                continue;
            }
            if (buf.length < total) {
                buf = new byte[(int) Math.max(total, Math.min(Integer.MAX_VALUE - 16, (long) buf.length * 2))];
                if (buf.length <= MAX_CACHED_BUF) {
                    scratch.buf = buf;
                }
            }
            int pos = 0;
            offsets[0] = 0;
            for (int i = 0; i < m; i++) {
                byte[] k = keys[start + i];
                System.arraycopy(k, 0, buf, pos, k.length);
                pos += k.length;
                offsets[i + 1] = pos;
            }
            MemorySegment h = ref.get();
            err[0] = 0;
            try {
                // errptr is a heap long[1] (a char * slot), as the call is critical: no native allocation.
                // Two call sites, so that each method handle is a constant the JIT inlines.
                int st = isSst
                        ? (int) Native.SST_MAY_MATCH_PACKED.invokeExact(h, MemorySegment.ofArray(buf), (long) pos,
                                MemorySegment.ofArray(offsets), (long) m, MemorySegment.ofArray(results),
                                MemorySegment.ofArray(err))
                        : (int) Native.FILTER_MAY_MATCH_PACKED.invokeExact(h, MemorySegment.ofArray(buf), (long) pos,
                                MemorySegment.ofArray(offsets), (long) m, MemorySegment.ofArray(results),
                                MemorySegment.ofArray(err));
                if (st != 0) {
                    throw Native.exception(st, MemorySegment.ofAddress(err[0]));
                }
            } catch (Throwable t) {
                throw Native.rethrow(t);
            } finally {
                java.lang.ref.Reference.reachabilityFence(owner);
            }
            for (int i = 0; i < m; i++) {
                out[start + i] = results[i] != 0;
            }
        }
        return out;
    }
}
