package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The {@link Backend} of JDK 22+: the C ABI through the Foreign Function &amp; Memory API
 * ({@link Native}'s downcall handles), no glue code. Compiled for Java 22 into the jar's
 * {@code META-INF/versions/22/}, where {@link Backends} finds it by name.
 *
 * <p>Short queries are critical downcalls on heap segments of the caller's arrays (no copy, no
 * allocation; see {@link Native}); the queries of an SST handle that may read while it answers
 * ({@code reads}) are normal downcalls on native copies of their arguments ({@link NativeScratch}),
 * since they may wait for a read or call a {@link RangeReader} back ({@link SstSource}). The
 * methods taking a {@link MemorySegment} serve the FFM-only public API ({@link Segments}).
 */
final class FfmBackend implements Backend {
    @Override
    public String name() {
        return "ffm";
    }

    @Override
    public String load() {
        return Native.source();
    }

    @Override
    public String version() {
        try {
            MemorySegment s = (MemorySegment) Native.VERSION.invokeExact();
            return s.getString(0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public long hash64(byte[] key) {
        return hash64(MemorySegment.ofArray(key));
    }

    /** {@code rocksfilter_hash64} of all bytes of {@code key} (heap or native). */
    long hash64(MemorySegment key) {
        try {
            return (long) Native.HASH64.invokeExact(key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public int legacyHash32(byte[] key) {
        try {
            return (int) Native.LEGACY_HASH32.invokeExact(MemorySegment.ofArray(key), (long) key.length);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** A handle as the segment the downcalls take. */
    private static MemorySegment at(long handle) {
        return MemorySegment.ofAddress(handle);
    }

    // ---- builder ----
    @Override
    public long builderNew(int policy, double bitsPerKey) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_NEW.invokeExact(policy, bitsPerKey, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public long builderNew(BuilderOptions o) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(Native.BUILDER_OPTIONS); // zeroed
            OPT_STRUCT_SIZE.set(s, 0L, (int) Native.BUILDER_OPTIONS.byteSize());
            OPT_POLICY.set(s, 0L, o.policy().code());
            OPT_BITS_PER_KEY.set(s, 0L, o.bitsPerKey());
            OPT_FP_RATE.set(s, 0L, o.fpRate());
            OPT_MAX_BYTES.set(s, 0L, o.maxBytes());
            OPT_RIBBON_FAILURE.set(s, 0L, o.ribbonFailureOneIn());
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_NEW_WITH_OPTIONS.invokeExact(s, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle OPT_STRUCT_SIZE = Native.member(Native.BUILDER_OPTIONS, "struct_size");
    private static final VarHandle OPT_POLICY = Native.member(Native.BUILDER_OPTIONS, "policy");
    private static final VarHandle OPT_BITS_PER_KEY = Native.member(Native.BUILDER_OPTIONS, "bits_per_key");
    private static final VarHandle OPT_FP_RATE = Native.member(Native.BUILDER_OPTIONS, "fp_rate");
    private static final VarHandle OPT_MAX_BYTES = Native.member(Native.BUILDER_OPTIONS, "max_bytes");
    private static final VarHandle OPT_RIBBON_FAILURE = Native.member(Native.BUILDER_OPTIONS, "ribbon_failure_one_in");

    @Override
    public void builderAdd(long builder, byte[] key) {
        builderAdd(builder, MemorySegment.ofArray(key));
    }

    @Override
    public void builderAdd(long builder, ByteBuffer key) {
        builderAdd(builder, MemorySegment.ofBuffer(key));
    }

    /** Adds all bytes of {@code key} (heap or native; a native segment's arena must be accessible from this thread). */
    void builderAdd(long builder, MemorySegment key) {
        try {
            Native.BUILDER_ADD_KEY.invokeExact(at(builder), key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public void builderAddKeyAndAlt(long builder, byte[] key, byte[] alt) {
        try {
            Native.BUILDER_ADD_KEY_AND_ALT.invokeExact(at(builder), MemorySegment.ofArray(key), (long) key.length,
                    MemorySegment.ofArray(alt), (long) alt.length);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public void builderAddHash(long builder, long hash) {
        try {
            Native.BUILDER_ADD_HASH.invokeExact(at(builder), hash);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public long builderNumEntries(long builder) {
        try {
            return (long) Native.BUILDER_NUM_ENTRIES.invokeExact(at(builder));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    @SuppressWarnings("restricted") // reinterpret: the length the library returned with the pointer
    public byte[] builderFinish(long builder) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment outData = arena.allocate(ADDRESS);
            MemorySegment outLen = arena.allocate(JAVA_LONG);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.BUILDER_FINISH.invokeExact(at(builder), outData, outLen, err);
            Native.check(st, err);
            long len = outLen.get(JAVA_LONG, 0);
            MemorySegment data = outData.get(ADDRESS, 0);
            if (len == 0 || MemorySegment.NULL.equals(data)) {
                Native.BYTES_FREE.invokeExact(data, len);
                return new byte[0];
            }
            try {
                return data.reinterpret(len).toArray(JAVA_BYTE);
            } finally {
                Native.BYTES_FREE.invokeExact(data, len);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public void builderFree(long builder) {
        free(Native.BUILDER_FREE, builder);
    }

    private static void free(MethodHandle fn, long handle) {
        try {
            fn.invokeExact(at(handle));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    // ---- filter ----
    @Override
    public long filterLoad(byte[] block) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(Math.max(1, block.length));
            MemorySegment.copy(block, 0, data, JAVA_BYTE, 0, block.length);
            return filterLoad(Native.FILTER_LOAD, data, block.length, arena);
        }
    }

    /** {@code rocksfilter_filter_load_borrowed}: the filter reads {@code block} (native, alive) in place. */
    long filterLoadBorrowed(MemorySegment block) {
        try (Arena arena = Arena.ofConfined()) {
            return filterLoad(Native.FILTER_LOAD_BORROWED, block, block.byteSize(), arena);
        }
    }

    private static long filterLoad(MethodHandle fn, MemorySegment data, long len, Arena arena) {
        try {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) fn.invokeExact(data, len, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public boolean filterMayMatch(long filter, byte[] key) {
        return filterMayMatch(filter, MemorySegment.ofArray(key));
    }

    @Override
    public boolean filterMayMatch(long filter, ByteBuffer key) {
        return filterMayMatch(filter, MemorySegment.ofBuffer(key));
    }

    /** Queries all bytes of {@code key} (heap or native). */
    boolean filterMayMatch(long filter, MemorySegment key) {
        try {
            return (boolean) Native.FILTER_MAY_MATCH.invokeExact(at(filter), key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public boolean filterMayMatchHash(long filter, long hash) {
        try {
            return (boolean) Native.FILTER_MAY_MATCH_HASH.invokeExact(at(filter), hash);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * The heap arrays passed straight to a critical downcall (C {@code bool} is one byte; the
     * errptr is the heap {@code long[1]}, a {@code char *} slot): no native allocation.
     */
    @Override
    public void filterMayMatchPacked(long filter, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results, long[] err) {
        try {
            // Its own call site (sstMayMatchPacked has the other), so that each method handle is a
            // constant the JIT inlines.
            int st = (int) Native.FILTER_MAY_MATCH_PACKED.invokeExact(at(filter), MemorySegment.ofArray(buf),
                    (long) len, MemorySegment.ofArray(offsets).asSlice(first * 8L), (long) n,
                    MemorySegment.ofArray(results), MemorySegment.ofArray(err));
            if (st != 0) {
                throw Native.exception(st, MemorySegment.ofAddress(err[0]));
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public int filterKind(long filter) {
        try {
            return (int) Native.FILTER_KIND.invokeExact(at(filter));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public FilterInfo filterInfo(long filter) {
        try (Arena arena = Arena.ofConfined()) {
            // Zeroed: fields past the struct_size the library reports filling read as 0.
            MemorySegment s = arena.allocate(Native.FILTER_INFO_EX);
            INFO_STRUCT_SIZE.set(s, 0L, (int) Native.FILTER_INFO_EX.byteSize());
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.FILTER_GET_INFO_EX.invokeExact(at(filter), s, err);
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

    @Override
    public double filterEstimatedFpRate(long filter, long keys) {
        try {
            return (double) Native.FILTER_ESTIMATED_FP_RATE.invokeExact(at(filter), keys);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    @SuppressWarnings("restricted") // reinterpret: the length the library returned with the pointer
    public byte[] filterBytes(long filter) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.FILTER_DATA_EX.invokeExact(at(filter), data, len, err);
            Native.check(st, err);
            long n = len.get(JAVA_LONG, 0);
            if (n == 0) {
                return new byte[0];
            }
            return data.get(ADDRESS, 0).reinterpret(n).toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public void filterFree(long filter) {
        free(Native.FILTER_FREE, filter);
    }

    // ---- sst ----
    @Override
    public long sstOpen(String path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path, StandardCharsets.UTF_8);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_OPTS.invokeExact(cpath, flags, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public long sstOpen(String path, int flags, long cache) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path, StandardCharsets.UTF_8);
            MemorySegment opts = arena.allocate(Native.SST_OPTIONS);
            O_STRUCT_SIZE.set(opts, 0L, Native.SST_OPTIONS.byteSize());
            O_FLAGS.set(opts, 0L, flags);
            O_CACHE.set(opts, 0L, at(cache));
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_EX.invokeExact(cpath, opts, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle O_STRUCT_SIZE = Native.member(Native.SST_OPTIONS, "struct_size");
    private static final VarHandle O_FLAGS = Native.member(Native.SST_OPTIONS, "flags");
    private static final VarHandle O_CACHE = Native.member(Native.SST_OPTIONS, "cache");

    /**
     * A copy of {@code file} in native memory of an automatic arena, opened without a further copy:
     * the copy is what the handle borrows, freed once neither the {@link Sst} nor a full filter of
     * it is reachable.
     */
    @Override
    public Opened sstOpenBytes(byte[] file, int flags) {
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, file.length));
        MemorySegment.copy(file, 0, copy, JAVA_BYTE, 0, file.length);
        copy = copy.asSlice(0, file.length);
        return new Opened(sstOpenMemory(copy, flags), copy);
    }

    /** {@code rocksfilter_sst_open_memory_opts} on a native segment, which the handle borrows. */
    long sstOpenMemory(MemorySegment file, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_MEMORY_OPTS.invokeExact(file, file.byteSize(), flags, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public long sstOpenReader(RangeReader reader, long size, int flags) {
        return SstSource.open(reader, size, flags, null, false).address();
    }

    @Override
    public long sstOpenReader(RangeReader reader, long size, int flags, long cache) {
        return SstSource.open(reader, size, flags, cache == 0 ? null : at(cache), true).address();
    }

    @Override
    public boolean sstMayMatch(long sst, byte[] key, boolean reads) {
        return sstMayMatch(sst, MemorySegment.ofArray(key), reads);
    }

    /** Queries all bytes of {@code key} (heap or native). */
    boolean sstMayMatch(long sst, MemorySegment key, boolean reads) {
        try {
            if (reads) {
                return mayMatchReading(at(sst), key);
            }
            return (boolean) Native.SST_MAY_MATCH.invokeExact(at(sst), key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@link #sstMayMatch} through a normal downcall, the key in native memory. */
    private static boolean mayMatchReading(MemorySegment s, MemorySegment key) throws Throwable {
        long n = key.byteSize();
        if (key.isNative()) {
            return (boolean) Native.SST_MAY_MATCH_READING.invokeExact(s, key, n);
        }
        try (NativeScratch scratch = NativeScratch.of(n)) {
            MemorySegment copy = scratch.memory.asSlice(0, n);
            copy.copyFrom(key);
            return (boolean) Native.SST_MAY_MATCH_READING.invokeExact(s, copy, n);
        }
    }

    @Override
    public void sstMayMatchPacked(long sst, boolean reads, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results, long[] err) {
        try {
            if (reads) {
                packedReading(at(sst), buf, len, offsets, first, n, results);
                return;
            }
            int st = (int) Native.SST_MAY_MATCH_PACKED.invokeExact(at(sst), MemorySegment.ofArray(buf), (long) len,
                    MemorySegment.ofArray(offsets).asSlice(first * 8L), (long) n, MemorySegment.ofArray(results),
                    MemorySegment.ofArray(err));
            if (st != 0) {
                throw Native.exception(st, MemorySegment.ofAddress(err[0]));
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * One packed call through a normal downcall: the bytes the keys span and the rebased offsets
     * copied to native memory (an arena batch passes its whole array for every chunk), or, for
     * offsets the C call refuses, a zeroed buffer of {@code len} bytes and the offsets unchanged,
     * for the same message.
     */
    private static void packedReading(MemorySegment s, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results) throws Throwable {
        long lo = offsets[first];
        long hi = offsets[first + n];
        boolean valid = 0 <= lo && hi <= len;
        for (int i = first; valid && i < first + n; i++) {
            valid = offsets[i] <= offsets[i + 1];
        }
        long base = valid ? lo : 0;
        long span = valid ? hi - lo : len;
        long offsetsAt = (span + 7) & ~7L;
        long resultsAt = offsetsAt + 8L * (n + 1);
        long errAt = (resultsAt + n + 7) & ~7L;
        try (NativeScratch scratch = NativeScratch.of(errAt + 8)) {
            MemorySegment mem = scratch.memory;
            MemorySegment keys = mem.asSlice(0, span);
            if (valid) {
                MemorySegment.copy(buf, (int) base, keys, JAVA_BYTE, 0, (int) span);
            } else {
                keys.fill((byte) 0);
            }
            MemorySegment offs = mem.asSlice(offsetsAt, 8L * (n + 1));
            for (int i = 0; i <= n; i++) {
                offs.setAtIndex(JAVA_LONG, i, offsets[first + i] - base);
            }
            MemorySegment answers = mem.asSlice(resultsAt, n);
            MemorySegment err = mem.asSlice(errAt, 8);
            err.set(ADDRESS, 0, MemorySegment.NULL);
            int st = (int) Native.SST_MAY_MATCH_PACKED_READING.invokeExact(s, keys, span, offs, (long) n, answers, err);
            if (st != 0) {
                throw Native.exception(st, err.get(ADDRESS, 0));
            }
            MemorySegment.copy(answers, JAVA_BYTE, 0, results, 0, n);
        }
    }

    @Override
    public boolean sstPrefixMayMatch(long sst, byte[] prefix, boolean reads) {
        if (reads) {
            try {
                return prefixMayMatchReading(at(sst), prefix);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            }
        }
        // Heap out-parameters passed straight to the critical downcall: no native allocation.
        byte[] answer = new byte[1];
        long[] err = new long[1];
        int st;
        try {
            st = (int) Native.SST_PREFIX_MAY_MATCH.invokeExact(at(sst), MemorySegment.ofArray(prefix),
                    (long) prefix.length, MemorySegment.ofArray(answer), MemorySegment.ofArray(err));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (st != 0) {
            throw Native.exception(st, MemorySegment.ofAddress(err[0]));
        }
        return answer[0] != 0;
    }

    /** {@link #sstPrefixMayMatch} through a normal downcall, the prefix in native memory. */
    private static boolean prefixMayMatchReading(MemorySegment s, byte[] prefix) throws Throwable {
        long n = prefix.length;
        long errAt = (n + 1 + 7) & ~7L;
        try (NativeScratch scratch = NativeScratch.of(errAt + 8)) {
            MemorySegment mem = scratch.memory;
            MemorySegment p = mem.asSlice(0, n);
            MemorySegment.copy(prefix, 0, p, JAVA_BYTE, 0, prefix.length);
            MemorySegment answer = mem.asSlice(n, 1);
            MemorySegment err = mem.asSlice(errAt, 8);
            err.set(ADDRESS, 0, MemorySegment.NULL);
            int st = (int) Native.SST_PREFIX_MAY_MATCH_READING.invokeExact(s, p, n, answer, err);
            if (st != 0) {
                throw Native.exception(st, err.get(ADDRESS, 0));
            }
            return answer.get(JAVA_BYTE, 0) != 0;
        }
    }

    @Override
    public long sstFullFilter(long sst) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_FULL_FILTER.invokeExact(at(sst), out, err);
            if (st == Status.NOT_FOUND.code()) {
                MemorySegment msg = err.get(ADDRESS, 0);
                if (!MemorySegment.NULL.equals(msg)) {
                    Native.STRING_FREE.invokeExact(msg);
                }
                return 0;
            }
            Native.check(st, err);
            return out.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public int sstFilterType(long sst) {
        try {
            return (int) Native.SST_FILTER_TYPE.invokeExact(at(sst));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public SstProperties sstProperties(long sst) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocate(Native.SST_PROPERTIES);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_GET_PROPERTIES_EX.invokeExact(at(sst), p, err);
            Native.check(st, err);
            return new SstProperties(
                    (int) P_FORMAT_VERSION.get(p, 0L),
                    (int) P_CHECKSUM_TYPE.get(p, 0L),
                    SstFilterType.fromCode((int) P_FILTER_TYPE.get(p, 0L)),
                    (int) P_NUM_PARTITIONS.get(p, 0L),
                    (boolean) P_WHOLE_KEY_FILTERING.get(p, 0L),
                    (boolean) P_HAS_PREFIX_FILTER.get(p, 0L),
                    (long) P_NUM_ENTRIES.get(p, 0L),
                    (long) P_NUM_FILTER_ENTRIES.get(p, 0L),
                    (long) P_FILTER_SIZE.get(p, 0L),
                    (long) P_CREATION_TIME.get(p, 0L),
                    (long) P_FILE_CREATION_TIME.get(p, 0L),
                    Native.string((MemorySegment) P_FILTER_POLICY.get(p, 0L)),
                    Native.string((MemorySegment) P_COMPARATOR.get(p, 0L)),
                    Native.string((MemorySegment) P_PREFIX_EXTRACTOR.get(p, 0L)),
                    Native.string((MemorySegment) P_FILTER_BLOCK_NAME.get(p, 0L)));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle P_FORMAT_VERSION = Native.member(Native.SST_PROPERTIES, "format_version");
    private static final VarHandle P_CHECKSUM_TYPE = Native.member(Native.SST_PROPERTIES, "checksum_type");
    private static final VarHandle P_FILTER_TYPE = Native.member(Native.SST_PROPERTIES, "filter_type");
    private static final VarHandle P_NUM_PARTITIONS = Native.member(Native.SST_PROPERTIES, "num_partitions");
    private static final VarHandle P_WHOLE_KEY_FILTERING = Native.member(Native.SST_PROPERTIES, "whole_key_filtering");
    private static final VarHandle P_HAS_PREFIX_FILTER = Native.member(Native.SST_PROPERTIES, "has_prefix_filter");
    private static final VarHandle P_NUM_ENTRIES = Native.member(Native.SST_PROPERTIES, "num_entries");
    private static final VarHandle P_NUM_FILTER_ENTRIES = Native.member(Native.SST_PROPERTIES, "num_filter_entries");
    private static final VarHandle P_FILTER_SIZE = Native.member(Native.SST_PROPERTIES, "filter_size");
    private static final VarHandle P_CREATION_TIME = Native.member(Native.SST_PROPERTIES, "creation_time");
    private static final VarHandle P_FILE_CREATION_TIME = Native.member(Native.SST_PROPERTIES, "file_creation_time");
    private static final VarHandle P_FILTER_POLICY = Native.member(Native.SST_PROPERTIES, "filter_policy");
    private static final VarHandle P_COMPARATOR = Native.member(Native.SST_PROPERTIES, "comparator");
    private static final VarHandle P_PREFIX_EXTRACTOR = Native.member(Native.SST_PROPERTIES, "prefix_extractor");
    private static final VarHandle P_FILTER_BLOCK_NAME = Native.member(Native.SST_PROPERTIES, "filter_block_name");

    @Override
    @SuppressWarnings("restricted") // reinterpret: the length the library returned with the pointer
    public byte[] sstProperty(long sst, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name, StandardCharsets.UTF_8);
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment data = (MemorySegment) Native.SST_PROPERTY.invokeExact(at(sst), cname, len);
            if (MemorySegment.NULL.equals(data)) {
                return null;
            }
            long n = len.get(JAVA_LONG, 0);
            return n == 0 ? new byte[0] : data.reinterpret(n).toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public SstOpenStats sstOpenStats(long sst) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(Native.SST_OPEN_STATS);
            S_STRUCT_SIZE.set(st, 0L, (int) Native.SST_OPEN_STATS.byteSize());
            MemorySegment err = Native.errSlot(arena);
            Native.check((int) Native.SST_GET_OPEN_STATS.invokeExact(at(sst), st, err), err);
            // Fields past the struct_size the library reports filled stay 0.
            return new SstOpenStats((long) S_READS.get(st, 0L), (long) S_BYTES_READ.get(st, 0L),
                    (long) S_BYTES_HELD.get(st, 0L));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle S_STRUCT_SIZE = Native.member(Native.SST_OPEN_STATS, "struct_size");
    private static final VarHandle S_READS = Native.member(Native.SST_OPEN_STATS, "reads");
    private static final VarHandle S_BYTES_READ = Native.member(Native.SST_OPEN_STATS, "bytes_read");
    private static final VarHandle S_BYTES_HELD = Native.member(Native.SST_OPEN_STATS, "bytes_held");

    @Override
    public void sstFree(long sst) {
        free(Native.SST_FREE, sst);
    }

    // ---- filter cache ----
    @Override
    public long cacheNew(long capacity, long maxOpenFiles) {
        MemorySegment handle;
        try {
            handle = maxOpenFiles < 0
                    ? (MemorySegment) Native.CACHE_NEW.invokeExact(capacity)
                    : (MemorySegment) Native.CACHE_NEW_WITH_OPEN_FILES.invokeExact(capacity, maxOpenFiles);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (MemorySegment.NULL.equals(handle)) {
            throw new RocksFilterException(Status.INTERNAL,
                    "internal error: rocksfilter_cache_new(" + capacity + ") returned NULL");
        }
        return handle.address();
    }

    @Override
    public long cacheBytesHeld(long cache) {
        try {
            return (long) Native.CACHE_BYTES_HELD.invokeExact(at(cache));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    @Override
    public CacheStats cacheStats(long cache) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(Native.CACHE_STATS);
            C_STRUCT_SIZE.set(st, 0L, (int) Native.CACHE_STATS.byteSize());
            MemorySegment err = Native.errSlot(arena);
            Native.check((int) Native.CACHE_GET_STATS.invokeExact(at(cache), st, err), err);
            // Fields past the struct_size the library reports filled stay 0.
            long[] v = new long[C_FIELDS.length];
            for (int i = 0; i < v.length; i++) {
                v[i] = (long) C_FIELDS[i].get(st, 0L);
            }
            return CacheStats.of(v);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static final VarHandle C_STRUCT_SIZE = Native.member(Native.CACHE_STATS, "struct_size");
    private static final VarHandle[] C_FIELDS = {
        Native.member(Native.CACHE_STATS, "capacity"),
        Native.member(Native.CACHE_STATS, "bytes_held"),
        Native.member(Native.CACHE_STATS, "entries"),
        Native.member(Native.CACHE_STATS, "hits"),
        Native.member(Native.CACHE_STATS, "misses"),
        Native.member(Native.CACHE_STATS, "reads"),
        Native.member(Native.CACHE_STATS, "bytes_read"),
        Native.member(Native.CACHE_STATS, "read_errors"),
        Native.member(Native.CACHE_STATS, "bad_blocks"),
        Native.member(Native.CACHE_STATS, "evictions"),
        Native.member(Native.CACHE_STATS, "uncached"),
        Native.member(Native.CACHE_STATS, "open_files"),
    };

    @Override
    public void cacheFree(long cache) {
        free(Native.CACHE_FREE, cache);
    }
}
