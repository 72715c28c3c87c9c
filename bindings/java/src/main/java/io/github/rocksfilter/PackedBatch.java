package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The batch queries of {@link Filter} and {@link Sst}: {@code rocksfilter_filter_may_match_packed}
 * and {@code rocksfilter_sst_may_match_packed} (the same signature) with heap arrays passed
 * straight to a critical downcall. Keys are packed into one {@code byte[]}, offsets into a
 * {@code long[]}, and results land in a {@code byte[]} (C {@code bool} is one byte), in chunks of
 * {@link #CHUNK} keys. No native allocation.
 */
final class PackedBatch {
    /** Keys per native batch call: bounds the scratch arrays and the time spent in one critical call. */
    static final int CHUNK = 4096;

    private PackedBatch() {
    }

    /**
     * {@code result[i]} answers {@code keys[i]}. {@code packed} is the critical downcall
     * {@code (handle, buf, buf_len, offsets, n, results, errptr) -> status}; {@code ref} the handle
     * (its {@code get()} throws {@link IllegalStateException} once closed); {@code owner} is kept
     * reachable during each call; {@code single} answers one key (for chunks of keys too large to
     * pack into one array).
     */
    static boolean[] query(MethodHandle packed, NativeRef ref, Object owner, byte[][] keys, Predicate<byte[]> single) {
        Objects.requireNonNull(keys, "keys");
        int n = keys.length;
        boolean[] out = new boolean[n];
        if (n == 0) {
            ref.get();
            return out;
        }
        int chunk = Math.min(n, CHUNK);
        long[] offsets = new long[chunk + 1];
        byte[] results = new byte[chunk];
        byte[] buf = new byte[0];
        long[] err = new long[1];
        for (int start = 0; start < n; start += chunk) {
            int m = Math.min(chunk, n - start);
            long total = 0;
            for (int i = 0; i < m; i++) {
                total += Objects.requireNonNull(keys[start + i], "keys[" + (start + i) + "]").length;
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
                int st = (int) packed.invokeExact(h, MemorySegment.ofArray(buf), (long) pos,
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
