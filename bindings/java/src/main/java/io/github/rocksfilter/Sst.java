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
 * open read and what the handle keeps.
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

    Sst(MemorySegment handle, MemorySegment memory) {
        this.ref = new NativeRef(handle, Native.SST_FREE, "Sst");
        this.memory = memory;
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
        return new Sst(SstSource.open(reader, size, true), null);
    }

    /** As {@link #open(RangeReader, long)}; {@code verifyChecksums=false} skips block checksums. */
    public static Sst open(RangeReader reader, long size, boolean verifyChecksums) {
        return new Sst(SstSource.open(reader, size, verifyChecksums), null);
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
        return new Sst(SstSource.open(reader, Readers.size(channel), verifyChecksums), null);
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
            return (boolean) Native.SST_MAY_MATCH.invokeExact(s, key, key.byteSize());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
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
            return PackedBatch.query(keys, (buf, len, offsets, n, results, err) -> {
                try {
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
     * Can the file hold a key with this prefix (exactly as the file's prefix extractor produces it)?
     *
     * @throws RocksFilterException {@link Status#NOT_SUPPORTED} when the file has no prefix filter;
     *                              {@link Status#INVALID_ARGUMENT} when the prefix cannot come from
     *                              the file's extractor (e.g. wrong length for FixedPrefix.N)
     */
    public boolean prefixMayMatch(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        MemorySegment s = ref.get();
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
