package io.github.rocksfilter;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * The batch queries of {@link Filter} and {@link Sst}, both backends: keys packed into one
 * {@code byte[]}, offsets into a {@code long[]}, results in a {@code byte[]} (C {@code bool} is one
 * byte), in chunks of {@link #CHUNK} keys, each chunk answered by one native packed call
 * ({@code rocksfilter_filter_may_match_packed} or {@code rocksfilter_sst_may_match_packed}: a
 * critical FFM downcall on the heap arrays, or a JNI call reading them in place). No native
 * allocation; the scratch arrays are the thread's, reused. Java 11 code, shared by both backends.
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

    /** One native packed call: answers keys {@code buf[offsets[i] .. offsets[i + 1]]}, {@code i < n}. */
    interface Call {
        /**
         * Fills {@code results[0 .. n)} (1 = may match); {@code err} is a one-slot scratch for the
         * C call's message pointer. Throws the call's {@link RocksFilterException}, or
         * {@link IllegalStateException} once the handle is closed.
         */
        void answer(byte[] buf, int len, long[] offsets, int n, byte[] results, long[] err);
    }

    /**
     * {@code result[i]} answers {@code keys[i]}, each chunk through {@code call}; {@code single}
     * answers one key (for chunks of keys too large to pack into one array). The caller checks that
     * its handle is open (an empty batch makes no call) and keeps its owner reachable.
     */
    static boolean[] query(byte[][] keys, Call call, Predicate<byte[]> single) {
        Objects.requireNonNull(keys, "keys");
        int n = keys.length;
        boolean[] out = new boolean[n];
        if (n == 0) {
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
            err[0] = 0;
            call.answer(buf, pos, offsets, m, results, err);
            for (int i = 0; i < m; i++) {
                out[start + i] = results[i] != 0;
            }
        }
        return out;
    }
}
