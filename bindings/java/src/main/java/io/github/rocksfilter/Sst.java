package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * An opened RocksDB block-based SST file's filter ({@code rocksfilter_sst}; {@code Sst} in Rust,
 * {@code SST} in Go): full, partitioned or the pre-7.0 block-based one, whole keys or prefixes.
 *
 * <p><b>Opening:</b> {@link #open(Path)} for a local file (at most two {@code pread}s, the file closed
 * before it returns); {@link #open(SeekableByteChannel)} for a channel the application already
 * has; {@link #open(RangeReader, long)} for bytes that are not a local file (an object store's
 * ranged GETs, an engine's own file layer); {@link #openBytes} for a file already in a
 * {@code byte[]} (on JDK 22+, {@code Segments.openMemory(MemorySegment)} for one in native memory,
 * without a copy). The handle owns the bytes its queries read, so nothing of the file is needed
 * once {@code open} returns. {@link #openStats()} tells what an open read and what the handle
 * keeps. With {@link SstOptions}, a path or a reader can instead be opened with a {@link Cache}:
 * the handle then reads filter partitions when queries need them, into the cache, within its
 * capacity.
 *
 * <p><b>Threads:</b> immutable; queries may run from any number of threads at once.
 * {@link #close()} is idempotent and thread-safe, must not run while another thread is inside a
 * query on this object, and queries after it throw {@link IllegalStateException}. A leaked handle
 * is freed by a {@link Cleaner}.
 */
public class Sst implements AutoCloseable {
    private static final LongConsumer FREE = Backends.BACKEND::sstFree;

    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    /** Memory the native handle and its full filters borrow, or {@code null} (kept reachable as long as this is). */
    private final Object keepAlive;
    /**
     * Whether queries may read while they answer (opened with a cache, or a mapping): the backend
     * then makes calls that may wait for a read and call a reader back (see {@link Backend#sstMayMatch}).
     */
    private final boolean reads;

    Sst(long handle, Object keepAlive, boolean reads) {
        this.ref = new NativeRef(handle, FREE, "Sst");
        this.keepAlive = keepAlive;
        this.reads = reads;
        this.cleanable = NativeRef.CLEANER.register(this, ref);
    }

    Sst(Backend.Opened opened) {
        this(opened.handle, opened.borrowed, false);
    }

    static int flags(boolean verifyChecksums) {
        return verifyChecksums ? 0 : SstOptions.SKIP_CHECKSUMS;
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
        return new Sst(openPath(path, true), null, false);
    }

    /** As {@link #open(Path)}; {@code verifyChecksums=false} skips block checksum verification. */
    public static Sst open(Path path, boolean verifyChecksums) {
        return new Sst(openPath(path, verifyChecksums), null, false);
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
        try {
            long h = Backends.BACKEND.sstOpen(path.toString(), options.flags(), cache == null ? 0 : cache.handle());
            return new Sst(h, null, options.queriesRead());
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
     * the reader when it is closed. A query's reads fill a heap buffer that the library then copies.
     *
     * @throws RocksFilterException     as {@link #open(RangeReader, long)};
     *                                  {@link Status#INVALID_ARGUMENT} for a mapping (paths only),
     *                                  or {@code cacheFullFilters} without a cache
     * @throws IllegalArgumentException if {@code size} is negative
     * @throws IllegalStateException    if the options' cache is closed
     */
    public static Sst open(RangeReader reader, long size, SstOptions options) {
        Objects.requireNonNull(options, "options");
        checkReader(reader, size);
        Cache cache = options.cache();
        try {
            long h = Backends.BACKEND.sstOpenReader(reader, size, options.flags(), cache == null ? 0 : cache.handle());
            return new Sst(h, null, options.queriesRead());
        } finally {
            Reference.reachabilityFence(cache);
        }
    }

    /**
     * Opens an SST file through {@code reader}, e.g. ranged GETs of an object in an object store:
     * the library asks for the file's last 64 KiB, then at most one more range for a full or
     * partitioned filter (see {@link RangeReader}), all during this call and on this thread, and
     * keeps what it queries in native memory of its own, as {@link #open(Path)} does (same answers,
     * same errors). Nothing keeps {@code reader} after this returns. {@code dst} is, on the FFM
     * backend, a direct buffer over the library's memory, and on the JNI backend a heap buffer that
     * the library copies; either is valid only during the call.
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
        return new Sst(openReader(reader, size, verifyChecksums), null, false);
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
        return new Sst(openReader(reader, Readers.size(channel), verifyChecksums), null, false);
    }

    /**
     * Reads an SST file from a byte array. The FFM backend copies the array once into native
     * memory the handle owns (the open then reads nothing: {@link #openStats()} counts no read);
     * the JNI backend reads the array in place during the call, and the handle copies only what it
     * queries ({@link #openStats()} counts those reads, as for a file).
     */
    public static Sst openBytes(byte[] file) {
        return new Sst(openArray(file));
    }

    /** {@code rocksfilter_sst_open_opts}: the new native handle. */
    static long openPath(Path path, boolean verifyChecksums) {
        Objects.requireNonNull(path, "path");
        return Backends.BACKEND.sstOpen(path.toString(), flags(verifyChecksums));
    }

    /** {@link #openBytes}' open, checksums verified. */
    static Backend.Opened openArray(byte[] file) {
        Objects.requireNonNull(file, "file");
        return Backends.BACKEND.sstOpenBytes(file, 0);
    }

    /** {@code rocksfilter_sst_open_source}: the new native handle. */
    static long openReader(RangeReader reader, long size, boolean verifyChecksums) {
        checkReader(reader, size);
        return Backends.BACKEND.sstOpenReader(reader, size, flags(verifyChecksums));
    }

    private static void checkReader(RangeReader reader, long size) {
        Objects.requireNonNull(reader, "reader");
        if (size < 0) {
            throw new IllegalArgumentException("size is " + size + ": a file's length cannot be negative");
        }
    }

    /**
     * Can the file hold this key? {@code false} is definite. Answers as RocksDB's Get consults the
     * filter: the whole key, or its prefix when the file was written without whole-key filtering.
     * Files without a readable filter answer {@code true}.
     */
    public boolean mayMatch(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return Backends.BACKEND.sstMayMatch(ref.get(), key, reads);
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
        try {
            long h = ref.get(); // closed: IllegalStateException, even for an empty batch
            return PackedBatch.query(keys, (buf, len, offsets, first, n, results, err) ->
                    Backends.BACKEND.sstMayMatchPacked(h, reads, buf, len, offsets, first, n, results, err), this::mayMatch);
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
        try {
            long h = ref.get();
            PackedBatch.arena(keys, offsets, out, (buf, len, offs, first, n, results, err) ->
                    Backends.BACKEND.sstMayMatchPacked(h, reads, buf, len, offs, first, n, results, err));
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
        try {
            return Backends.BACKEND.sstPrefixMayMatch(ref.get(), prefix, reads);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The file's full filter as a {@link Filter} sharing the handle's bytes (no copy). For files
     * opened by path, channel, {@link RangeReader} or array (whose bytes the handle owns) it stays
     * valid after this handle is closed; for a file opened in native memory
     * ({@code Segments.openMemory}) the segment must outlive it. Close it independently.
     *
     * @return empty when the filter is partitioned or absent
     * @throws RocksFilterException {@link Status#NOT_SUPPORTED} for a filter this library cannot read
     */
    public Optional<Filter> fullFilter() {
        try {
            long f = Backends.BACKEND.sstFullFilter(ref.get());
            return f == 0 ? Optional.empty() : Optional.of(new Filter(f, keepAlive));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The kind of filter the file holds. */
    public SstFilterType filterType() {
        try {
            return SstFilterType.fromCode(Backends.BACKEND.sstFilterType(ref.get()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The file's format and table properties. */
    public SstProperties properties() {
        try {
            return Backends.BACKEND.sstProperties(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The raw bytes of table property {@code name}, e.g. "rocksdb.num.entries" (a varint) or
     * "rocksdb.comparator" (a string); empty when absent.
     */
    public Optional<byte[]> property(String name) {
        Objects.requireNonNull(name, "name");
        try {
            return Optional.ofNullable(Backends.BACKEND.sstProperty(ref.get(), name));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * What opening the file read ({@code reads}, {@code bytesRead}: 0 for a file in native memory,
     * and for {@link #openBytes} on the FFM backend) and the native bytes the handle keeps for its
     * queries ({@code rocksfilter_sst_get_open_stats}).
     */
    public SstOpenStats openStats() {
        try {
            return Backends.BACKEND.sstOpenStats(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The live native handle ({@link IllegalStateException} once closed), for {@code Segments}. The
     * caller keeps this handle reachable while it uses the native one.
     */
    long handle() {
        return ref.get();
    }

    /** Whether queries may read while they answer (opened with a cache, or a mapping). */
    boolean reads() {
        return reads;
    }

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
