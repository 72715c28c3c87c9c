package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An opened RocksDB block-based SST file's filter ({@code rocksfilter_sst}; {@code Sst} in Rust,
 * {@code SST} in Go): full or partitioned, whole-key or prefix.
 *
 * <p><b>Opening:</b> {@link #open(Path)} for a local file (at most two {@code pread}s, the file closed
 * before it returns); {@link #open(SeekableByteChannel)} for a channel the application already
 * has; {@link #open(RangeReader, long)} for bytes that are not a local file (an object store's
 * ranged GETs, an engine's own file layer); {@link #openMemory} and {@link #openBytes} for a file
 * already in memory. Except for {@link #openMemory}, the handle owns the bytes its queries read,
 * so nothing of the file is needed once {@code open} returns. {@link #openStats()} tells what an
 * open read and what the handle keeps. With {@link SstOptions}, a path or a reader can instead be
 * opened with a {@link Cache}: the handle then reads filter partitions when queries need them,
 * into the cache, within its capacity.
 *
 * <p><b>Threads:</b> immutable; queries may run from any number of threads at once.
 * {@link #close()} is idempotent and thread-safe, must not run while another thread is inside a
 * query on this object, and queries after it throw {@link IllegalStateException}. A leaked handle
 * is freed by a {@link Cleaner}.
 */
@SuppressWarnings("deprecation") // permits the deprecated alias SstFilter
public sealed class Sst implements AutoCloseable permits SstFilter {
    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    /** For {@link #openMemory}: the file's bytes, which the native handle and its filters borrow. */
    private final MemorySegment memory;
    /**
     * Whether queries may read while they answer (opened with a cache, or a mapping): they then use
     * normal downcalls on native copies of their arguments, never critical ones (see
     * {@link Native#SST_MAY_MATCH_READING}).
     */
    private final boolean reads;

    Sst(MemorySegment handle, MemorySegment memory) {
        this(handle, memory, false);
    }

    Sst(MemorySegment handle, MemorySegment memory, boolean reads) {
        this.ref = new NativeRef(handle, Native.SST_FREE, "Sst");
        this.memory = memory;
        this.reads = reads;
        this.cleanable = NativeRef.CLEANER.register(this, ref);
    }

    /**
     * Opens the SST file at {@code path}: reads the blocks its filter needs ({@code pread}, at
     * most two reads for a file with a full or partitioned filter) into native memory the handle owns,
     * verifying the footer and the checksum of every block read, and closes the file before
     * returning. Queries read only that memory: truncating, rewriting or deleting the file while
     * the handle is open changes no answer.
     *
     * @throws RocksFilterException {@link Status#IO_ERROR}, {@link Status#CORRUPTION} (what and at
     *                              which offset) or {@link Status#NOT_SUPPORTED} (e.g. PlainTable)
     */
    public static Sst open(Path path) {
        return new Sst(openPath(path, true), null);
    }

    /** As {@link #open(Path)}; {@code verifyChecksums=false} skips block checksum verification. */
    public static Sst open(Path path, boolean verifyChecksums) {
        return new Sst(openPath(path, verifyChecksums), null);
    }

    /**
     * Opens the SST file at {@code path} with {@code options} ({@code rocksfilter_sst_open_ex}).
     * Without a cache, as {@link #open(Path, boolean)} (or a mapping: {@link SstOptions#withMmap}).
     * With a cache, the handle keeps the path, not the file (no file descriptor is held), and a
     * partitioned filter's top-level index: each query or batch that needs a partition the cache
     * lacks reopens the file and reads it, in the querying thread. The file must stay in place: if
     * it is replaced, truncated or deleted, the queries that need to read answer {@code true} and
     * the cache counts a read error.
     *
     * @throws RocksFilterException  as {@link #open(Path)}; {@link Status#INVALID_ARGUMENT} for a
     *                               cache with a mapping, or {@code cacheFullFilters} without a cache
     * @throws IllegalStateException if the options' cache is closed
     */
    public static Sst open(Path path, SstOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        Cache cache = options.cache();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path.toString(), StandardCharsets.UTF_8);
            MemorySegment opts = options(arena, options);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_EX.invokeExact(cpath, opts, out, err);
            Native.check(st, err);
            return new Sst(out.get(ADDRESS, 0), null, options.queriesRead());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(cache);
        }
    }

    /**
     * Opens an SST file through {@code reader} with {@code options}
     * ({@code rocksfilter_sst_open_source_ex}). Without a cache, as {@link #open(RangeReader, long)}:
     * the reader is called only during this call. <b>With a cache, the handle keeps the reader</b>
     * until it is closed and calls it whenever a query needs a filter partition the cache lacks,
     * from the querying thread, so from many threads at once: the reader must then be thread-safe
     * (a {@link java.nio.channels.FileChannel}'s positional reads are; a channel's
     * {@code position}-then-{@code read} is not). A read that fails in a query (the reader throws,
     * or leaves bytes unfilled) never reaches the caller: that query answers {@code true}, and the
     * cache counts a read error ({@link CacheStats#readErrors()}). The handle drops its reference to
     * the reader when it is closed.
     *
     * @throws RocksFilterException     as {@link #open(RangeReader, long)};
     *                                  {@link Status#INVALID_ARGUMENT} for a mapping (paths only),
     *                                  or {@code cacheFullFilters} without a cache
     * @throws IllegalArgumentException if {@code size} is negative
     * @throws IllegalStateException    if the options' cache is closed
     */
    public static Sst open(RangeReader reader, long size, SstOptions options) {
        Objects.requireNonNull(options, "options");
        Cache cache = options.cache();
        try {
            return new Sst(SstSource.open(reader, size, options.flags(), cache == null ? null : cache.handle(), true),
                    null, options.queriesRead());
        } finally {
            Reference.reachabilityFence(cache);
        }
    }

    /** A rocksfilter_sst_options for {@code options} in {@code arena}. */
    private static MemorySegment options(Arena arena, SstOptions options) {
        Cache cache = options.cache();
        MemorySegment opts = arena.allocate(Native.SST_OPTIONS);
        O_STRUCT_SIZE.set(opts, 0L, Native.SST_OPTIONS.byteSize());
        O_FLAGS.set(opts, 0L, options.flags());
        O_CACHE.set(opts, 0L, cache == null ? MemorySegment.NULL : cache.handle());
        return opts;
    }

    private static final VarHandle O_STRUCT_SIZE = Native.member(Native.SST_OPTIONS, "struct_size");
    private static final VarHandle O_FLAGS = Native.member(Native.SST_OPTIONS, "flags");
    private static final VarHandle O_CACHE = Native.member(Native.SST_OPTIONS, "cache");

    /**
     * Opens an SST file through {@code reader}, e.g. ranged GETs of an object in an object store:
     * the library asks for the file's last 64 KiB, then at most one more range for a full or
     * partitioned filter (see {@link RangeReader}), all during this call and on this thread, and
     * keeps what it queries in native memory of its own, as {@link #open(Path)} does (same answers,
     * same errors). Nothing keeps {@code reader} after this returns.
     *
     * @param reader reads of the file (called only during this call)
     * @param size   the file's length in bytes (e.g. an object's Content-Length)
     * @throws RocksFilterException     {@link Status#IO_ERROR} when a read fails: the library's
     *                                  message names the offset and length, and the
     *                                  exception's {@linkplain Throwable#getCause() cause} is what
     *                                  the reader threw (an {@link java.io.EOFException} when it
     *                                  returned with bytes of {@code dst} unfilled); an
     *                                  {@link Error} the reader threw is rethrown as it is. Else as
     *                                  {@link #open(Path)}.
     * @throws IllegalArgumentException if {@code size} is negative
     */
    public static Sst open(RangeReader reader, long size) {
        return open(reader, size, true);
    }

    /** As {@link #open(RangeReader, long)}; {@code verifyChecksums=false} skips block checksums. */
    public static Sst open(RangeReader reader, long size, boolean verifyChecksums) {
        return new Sst(SstSource.open(reader, size, verifyChecksums ? 0 : Native.SST_SKIP_CHECKSUMS, null, false), null);
    }

    /**
     * Opens the SST file {@code channel} reads, as {@link #open(RangeReader, long)} with the
     * channel's {@link SeekableByteChannel#size() size()}: a {@link java.nio.channels.FileChannel}
     * is read with positional reads (its position is unchanged), any other channel with
     * {@code position(offset)} and {@code read} (its position afterwards is unspecified). The
     * channel stays open; close it when done (the handle does not need it).
     *
     * @throws RocksFilterException {@link Status#IO_ERROR} when {@code size()} or a read fails, the
     *                              channel's exception as the cause (an
     *                              {@link java.io.EOFException} when the channel ends early); else
     *                              as {@link #open(Path)}
     */
    public static Sst open(SeekableByteChannel channel) {
        return open(channel, true);
    }

    /** As {@link #open(SeekableByteChannel)}; {@code verifyChecksums=false} skips block checksums. */
    public static Sst open(SeekableByteChannel channel, boolean verifyChecksums) {
        RangeReader reader = Readers.reader(channel);
        return new Sst(SstSource.open(reader, Readers.size(channel), verifyChecksums ? 0 : Native.SST_SKIP_CHECKSUMS,
                null, false), null);
    }

    /**
     * Reads an SST file held in native memory <em>without copying</em>. The segment's memory must
     * stay alive and unmodified until this handle and every {@link #fullFilter()} obtained from it
     * are closed (both keep a reference to the segment, which keeps an
     * {@link Arena#ofAuto() automatic} arena's memory alive).
     *
     * @throws IllegalArgumentException if {@code file} is a heap segment
     */
    public static Sst openMemory(MemorySegment file) {
        return new Sst(openSegment(file, true), file);
    }

    /** As {@link #openMemory(MemorySegment)}; {@code verifyChecksums=false} skips block checksums. */
    public static Sst openMemory(MemorySegment file, boolean verifyChecksums) {
        return new Sst(openSegment(file, verifyChecksums), file);
    }

    /** Reads an SST file from a byte array, copying it once into native memory owned by the handle. */
    public static Sst openBytes(byte[] file) {
        MemorySegment copy = nativeCopy(file);
        return new Sst(openSegment(copy, true), copy);
    }

    /** {@code rocksfilter_sst_open_opts}: the new native handle. */
    static MemorySegment openPath(Path path, boolean verifyChecksums) {
        Objects.requireNonNull(path, "path");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpath = arena.allocateFrom(path.toString(), StandardCharsets.UTF_8);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_OPTS.invokeExact(cpath, verifyChecksums ? 0 : Native.SST_SKIP_CHECKSUMS, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code rocksfilter_sst_open_memory_opts} on a native segment: the new native handle. */
    static MemorySegment openSegment(MemorySegment file, boolean verifyChecksums) {
        Objects.requireNonNull(file, "file");
        if (!file.isNative()) {
            throw new IllegalArgumentException("openMemory needs a native segment; use openBytes(byte[]) for heap data");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_OPEN_MEMORY_OPTS.invokeExact(file, file.byteSize(),
                    verifyChecksums ? 0 : Native.SST_SKIP_CHECKSUMS, out, err);
            Native.check(st, err);
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** A copy of {@code file} in native memory of an automatic arena (for {@link #openBytes}). */
    static MemorySegment nativeCopy(byte[] file) {
        Objects.requireNonNull(file, "file");
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, file.length));
        MemorySegment.copy(file, 0, copy, JAVA_BYTE, 0, file.length);
        return copy.asSlice(0, file.length);
    }

    /**
     * Can the file hold this key? {@code false} is definite. Answers as RocksDB's Get consults the
     * filter: the whole key, or its prefix when the file was written without whole-key filtering.
     * Files without a readable filter answer {@code true}.
     */
    public boolean mayMatch(byte[] key) {
        Objects.requireNonNull(key, "key");
        return mayMatchSegment(MemorySegment.ofArray(key));
    }

    /** As {@link #mayMatch(byte[])} for the key held in {@code key} (all its bytes; heap or native). */
    public boolean mayMatch(MemorySegment key) {
        Objects.requireNonNull(key, "key");
        return mayMatchSegment(key);
    }

    private boolean mayMatchSegment(MemorySegment key) {
        MemorySegment s = ref.get();
        try {
            if (reads) {
                return mayMatchReading(s, key);
            }
            return (boolean) Native.SST_MAY_MATCH.invokeExact(s, key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #mayMatchSegment} through a normal downcall, the key in native memory. */
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

    /**
     * One packed call through a normal downcall (see {@link PackedBatch.Call}): the bytes the keys
     * span and the rebased offsets copied to native memory (an arena batch passes its whole array
     * for every chunk), or, for offsets the C call refuses, a zeroed buffer of {@code len} bytes and
     * the offsets unchanged, for the same message.
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

    /**
     * Batch query: {@code result[i]} answers {@code keys[i]}, exactly as {@link #mayMatch(byte[])}
     * would. One native call per 4096 keys ({@code rocksfilter_sst_may_match_packed}), which groups
     * the keys by filter partition and hashes and prefetches each group before probing: faster per
     * key than single queries.
     *
     * @throws NullPointerException  if {@code keys} or one of its elements is null
     * @throws IllegalStateException if this handle is closed
     */
    public boolean[] mayMatchBatch(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        ref.get(); // closed: IllegalStateException, even for an empty batch
        try {
            return PackedBatch.query(keys, (buf, len, offsets, first, n, results, err) -> {
                try {
                    if (reads) {
                        packedReading(ref.get(), buf, len, offsets, first, n, results);
                        return;
                    }
                    int st = (int) Native.SST_MAY_MATCH_PACKED.invokeExact(ref.get(), MemorySegment.ofArray(buf),
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
        ref.get();
        try {
            PackedBatch.arena(keys, offsets, out, (buf, len, offs, first, n, results, err) -> {
                try {
                    if (reads) {
                        packedReading(ref.get(), buf, len, offs, first, n, results);
                        return;
                    }
                    int st = (int) Native.SST_MAY_MATCH_PACKED.invokeExact(ref.get(), MemorySegment.ofArray(buf),
                            (long) len, MemorySegment.ofArray(offs).asSlice(first * 8L), (long) n,
                            MemorySegment.ofArray(results), MemorySegment.ofArray(err));
                    if (st != 0) {
                        throw Native.exception(st, MemorySegment.ofAddress(err[0]));
                    }
                } catch (Throwable t) {
                    throw Native.rethrow(t);
                }
            });
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Can the file hold a key with this prefix (exactly as the file's prefix extractor produces it)?
     *
     * @throws RocksFilterException {@link Status#NOT_SUPPORTED} when the file has no prefix filter;
     *                              {@link Status#INVALID_ARGUMENT} when the prefix cannot come from
     *                              the file's extractor (e.g. wrong length for FixedPrefix.N)
     */
    public boolean prefixMayMatch(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        MemorySegment s = ref.get();
        if (reads) {
            try {
                return prefixMayMatchReading(s, prefix);
            } catch (Throwable t) {
                throw Native.rethrow(t);
            } finally {
                Reference.reachabilityFence(this);
            }
        }
        // Heap out-parameters passed straight to the critical downcall: no native allocation.
        byte[] answer = new byte[1];
        long[] err = new long[1];
        int st;
        try {
            st = (int) Native.SST_PREFIX_MAY_MATCH.invokeExact(s, MemorySegment.ofArray(prefix), (long) prefix.length,
                    MemorySegment.ofArray(answer), MemorySegment.ofArray(err));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
        if (st != 0) {
            throw Native.exception(st, MemorySegment.ofAddress(err[0]));
        }
        return answer[0] != 0;
    }

    /** {@link #prefixMayMatch} through a normal downcall, the prefix in native memory. */
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

    /**
     * The file's full filter as a {@link Filter} sharing the handle's bytes (no copy). For files
     * opened by path, channel or {@link RangeReader} (whose bytes the handle owns) it stays valid
     * after this handle is closed; for {@link #openMemory} the segment must outlive it. Close it
     * independently.
     *
     * @return empty when the filter is partitioned or absent
     * @throws RocksFilterException {@link Status#NOT_SUPPORTED} for a filter this library cannot read
     */
    public Optional<Filter> fullFilter() {
        MemorySegment s = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_FULL_FILTER.invokeExact(s, out, err);
            if (st == Status.NOT_FOUND.code()) {
                MemorySegment msg = err.get(ADDRESS, 0);
                if (!MemorySegment.NULL.equals(msg)) {
                    Native.STRING_FREE.invokeExact(msg);
                }
                return Optional.empty();
            }
            Native.check(st, err);
            return Optional.of(new Filter(out.get(ADDRESS, 0), memory));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The kind of filter the file holds. */
    public SstFilterType filterType() {
        MemorySegment s = ref.get();
        try {
            return SstFilterType.fromCode((int) Native.SST_FILTER_TYPE.invokeExact(s));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The file's format and table properties. */
    public SstProperties properties() {
        MemorySegment s = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocate(Native.SST_PROPERTIES);
            MemorySegment err = Native.errSlot(arena);
            int st = (int) Native.SST_GET_PROPERTIES_EX.invokeExact(s, p, err);
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
        } finally {
            Reference.reachabilityFence(this);
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

    /**
     * The raw bytes of table property {@code name}, e.g. "rocksdb.num.entries" (a varint) or
     * "rocksdb.comparator" (a string); empty when absent.
     */
    public Optional<byte[]> property(String name) {
        Objects.requireNonNull(name, "name");
        MemorySegment s = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name, StandardCharsets.UTF_8);
            MemorySegment len = arena.allocate(JAVA_LONG);
            MemorySegment data = (MemorySegment) Native.SST_PROPERTY.invokeExact(s, cname, len);
            if (MemorySegment.NULL.equals(data)) {
                return Optional.empty();
            }
            long n = len.get(JAVA_LONG, 0);
            return Optional.of(n == 0 ? new byte[0] : data.reinterpret(n).toArray(JAVA_BYTE));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * What opening the file read ({@code reads}, {@code bytesRead}: 0 for {@link #openMemory} and
     * {@link #openBytes}) and the native bytes the handle keeps for its queries
     * ({@code rocksfilter_sst_get_open_stats}).
     */
    public SstOpenStats openStats() {
        MemorySegment s = ref.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(Native.SST_OPEN_STATS);
            S_STRUCT_SIZE.set(st, 0L, (int) Native.SST_OPEN_STATS.byteSize());
            MemorySegment err = Native.errSlot(arena);
            Native.check((int) Native.SST_GET_OPEN_STATS.invokeExact(s, st, err), err);
            // Fields past the struct_size the library reports filled stay 0.
            return new SstOpenStats((long) S_READS.get(st, 0L), (long) S_BYTES_READ.get(st, 0L),
                    (long) S_BYTES_HELD.get(st, 0L));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private static final VarHandle S_STRUCT_SIZE = Native.member(Native.SST_OPEN_STATS, "struct_size");
    private static final VarHandle S_READS = Native.member(Native.SST_OPEN_STATS, "reads");
    private static final VarHandle S_BYTES_READ = Native.member(Native.SST_OPEN_STATS, "bytes_read");
    private static final VarHandle S_BYTES_HELD = Native.member(Native.SST_OPEN_STATS, "bytes_held");

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return ref.isClosed();
    }

    /** Frees the native handle. Idempotent and thread-safe; no query may be running on it. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
