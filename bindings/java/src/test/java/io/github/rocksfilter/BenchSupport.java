package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The alternatives {@link MicroBenchmark} measures the bindings' choices against (normal instead of
 * critical downcalls, the pointer-array batch call instead of the packed one). Test sources only:
 * the library itself never makes these calls.
 */
final class BenchSupport {
    private BenchSupport() {
    }

    /** {@code rocksfilter_filter_may_match} through a normal (non-critical) downcall. */
    static final MethodHandle FILTER_MAY_MATCH_NONCRITICAL = Native.downcall("rocksfilter_filter_may_match",
            FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, ADDRESS, Native.SIZE_T));
    /** {@code rocksfilter_hash64} through a normal (non-critical) downcall. */
    static final MethodHandle HASH64_NONCRITICAL = Native.downcall("rocksfilter_hash64",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, Native.SIZE_T));
    /** {@code rocksfilter_filter_may_match_batch}: arrays of key pointers and lengths. */
    static final MethodHandle FILTER_MAY_MATCH_BATCH = Native.downcall("rocksfilter_filter_may_match_batch",
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, Native.SIZE_T, ADDRESS));

    /** {@link Segments#mayMatch(Filter, MemorySegment)} through a normal downcall; {@code nativeKey} is native memory. */
    static boolean mayMatchNonCritical(Filter filter, MemorySegment nativeKey) {
        try {
            return (boolean) FILTER_MAY_MATCH_NONCRITICAL.invokeExact(MemorySegment.ofAddress(filter.handle()), nativeKey, nativeKey.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(filter);
        }
    }

    /** {@link Segments#hash64(MemorySegment)} through a normal downcall. */
    static long hash64NonCritical(MemorySegment nativeKey) {
        try {
            return (long) HASH64_NONCRITICAL.invokeExact(nativeKey, nativeKey.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@link Filter#mayMatchBatch(byte[][])} through {@code rocksfilter_filter_may_match_batch}: the
     * keys are copied into native memory of a confined arena per call.
     */
    static boolean[] mayMatchBatchPointers(Filter filter, byte[][] keys) {
        int n = keys.length;
        boolean[] out = new boolean[n];
        if (n == 0) {
            filter.handle();
            return out;
        }
        long total = 0;
        for (byte[] k : keys) {
            total += k.length;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, total));
            MemorySegment ptrs = arena.allocate(ADDRESS, n);
            MemorySegment lens = arena.allocate(JAVA_LONG, n);
            MemorySegment res = arena.allocate(n);
            long pos = 0;
            for (int i = 0; i < n; i++) {
                byte[] k = keys[i];
                MemorySegment.copy(k, 0, buf, JAVA_BYTE, pos, k.length);
                ptrs.setAtIndex(ADDRESS, i, buf.asSlice(pos));
                lens.setAtIndex(JAVA_LONG, i, k.length);
                pos += k.length;
            }
            try {
                FILTER_MAY_MATCH_BATCH.invokeExact(MemorySegment.ofAddress(filter.handle()), ptrs, lens, (long) n, res);
            } finally {
                Reference.reachabilityFence(filter);
            }
            for (int i = 0; i < n; i++) {
                out[i] = res.get(JAVA_BYTE, i) != 0;
            }
            return out;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
