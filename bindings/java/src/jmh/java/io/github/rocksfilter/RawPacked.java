package io.github.rocksfilter;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;

/**
 * Benchmarks only (src/jmh, FFM classes): the C packed call made on a {@link Filter}'s or an
 * {@link Sst}'s native handle with nothing of the binding around it, one critical downcall on the
 * heap arrays. {@code BindingsBenchmark.cPacked} times it in the same JVM, on the same handle and
 * the same key arenas as {@code arena} ({@code mayMatchPacked}), so that "arena / C packed" compares
 * the binding with the C call it makes, not two processes' caches and heaps.
 */
public final class RawPacked {
    private final MemorySegment handle;
    private final boolean sst;
    private final long[] err = new long[1];

    private RawPacked(Object owner, boolean sst) throws ReflectiveOperationException {
        Field f = owner.getClass().getDeclaredField("ref");
        f.setAccessible(true);
        this.handle = ((NativeRef) f.get(owner)).get();
        this.sst = sst;
    }

    /** The raw call on {@code filter}'s handle (which must stay open while this is used). */
    public static RawPacked of(Filter filter) throws ReflectiveOperationException {
        return new RawPacked(filter, false);
    }

    /** The raw call on {@code sst}'s handle (which must stay open while this is used). */
    public static RawPacked of(Sst sst) throws ReflectiveOperationException {
        return new RawPacked(sst, true);
    }

    /**
     * {@code rocksfilter_*_may_match_packed} over keys {@code keys[offsets[i] .. offsets[i + 1]]},
     * {@code i < offsets.length - 1}, answers into {@code results} (C {@code bool}s).
     */
    public void call(byte[] keys, long[] offsets, byte[] results) {
        try {
            int st = sst
                    ? (int) Native.SST_MAY_MATCH_PACKED.invokeExact(handle, MemorySegment.ofArray(keys), (long) keys.length,
                            MemorySegment.ofArray(offsets), (long) (offsets.length - 1), MemorySegment.ofArray(results),
                            MemorySegment.ofArray(err))
                    : (int) Native.FILTER_MAY_MATCH_PACKED.invokeExact(handle, MemorySegment.ofArray(keys), (long) keys.length,
                            MemorySegment.ofArray(offsets), (long) (offsets.length - 1), MemorySegment.ofArray(results),
                            MemorySegment.ofArray(err));
            if (st != 0) {
                throw new IllegalStateException("rocksfilter_*_may_match_packed returned " + st);
            }
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }
}
