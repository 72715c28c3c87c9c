package io.github.rocksfilter;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Benchmarks only (src/jmh, JDK 22+): the C packed call made on a {@link Filter}'s or an
 * {@link Sst}'s native handle with nothing of the binding around it, one critical downcall on the
 * heap arrays. {@code BindingsBenchmark.cPacked} times it in the same JVM, on the same handle and
 * the same key arenas as {@code arena} ({@code mayMatchPacked}), so that "arena / C packed" compares
 * the binding with the C call it makes, not two processes' caches and heaps.
 *
 * <p>It works with either backend: the handle is the owner's ({@code handle()}, the C pointer both
 * backends hold), and the downcall is its own, bound to the library
 * {@code -Drocksfilter.library.path} names (the one either backend loaded: the dynamic linker
 * gives the same copy), or else to the libraries this class loader loaded.
 */
public final class RawPacked {
    private final MemorySegment handle;
    private final MethodHandle packed;
    private final long[] err = new long[1];

    private RawPacked(long handle, MethodHandle packed) {
        this.handle = MemorySegment.ofAddress(handle);
        this.packed = packed;
    }

    /** The raw call on {@code filter}'s handle (which must stay open while this is used). */
    public static RawPacked of(Filter filter) {
        return new RawPacked(filter.handle(), Calls.FILTER);
    }

    /** The raw call on {@code sst}'s handle (which must stay open while this is used). */
    public static RawPacked of(Sst sst) {
        return new RawPacked(sst.handle(), Calls.SST);
    }

    /**
     * {@code rocksfilter_*_may_match_packed} over keys {@code keys[offsets[i] .. offsets[i + 1]]},
     * {@code i < offsets.length - 1}, answers into {@code results} (C {@code bool}s).
     */
    public void call(byte[] keys, long[] offsets, byte[] results) {
        try {
            int st = (int) packed.invokeExact(handle, MemorySegment.ofArray(keys), (long) keys.length,
                    MemorySegment.ofArray(offsets), (long) (offsets.length - 1), MemorySegment.ofArray(results),
                    MemorySegment.ofArray(err));
            if (st != 0) {
                throw new IllegalStateException("rocksfilter_*_may_match_packed returned " + st);
            }
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** The two packed calls, bound on first use. */
    private static final class Calls {
        static final MethodHandle FILTER = packed("rocksfilter_filter_may_match_packed");
        static final MethodHandle SST = packed("rocksfilter_sst_may_match_packed");

        /** {@code int (*)(void *, const uint8_t *, size_t, const size_t *, size_t, bool *, char **)}, critical. */
        @SuppressWarnings("restricted") // binding the library's packed calls directly is what this benchmark measures
        private static MethodHandle packed(String name) {
            String explicit = System.getProperty("rocksfilter.library.path");
            SymbolLookup lookup = SymbolLookup.loaderLookup();
            if (explicit != null && !explicit.isBlank()) {
                Path p = Path.of(explicit);
                lookup = SymbolLookup.libraryLookup(Files.isDirectory(p) ? p.resolve(System.mapLibraryName("rocksfilter")) : p,
                        Arena.global());
            }
            MemorySegment symbol = lookup.find(name).orElseThrow(() -> new IllegalStateException(
                    name + " not found (set -Drocksfilter.library.path to the library the binding loads)"));
            return Linker.nativeLinker().downcallHandle(symbol,
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS),
                    Linker.Option.critical(true));
        }
    }
}
