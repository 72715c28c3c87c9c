package io.github.rocksfilter;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.function.LongConsumer;

/**
 * A cache of filter blocks with a byte budget, shared by the SST handles opened with it
 * ({@code rocksfilter_cache}; {@link SstOptions#withCache}): they keep only a partitioned filter's
 * top-level index and read each partition into the cache when a query first needs it, so that the
 * filter memory of any number of files stays within one capacity.
 *
 * <p>The capacity bounds the blocks held and their entries (128 bytes each), in memory the native
 * library maps for the cache, not its malloc heap: {@link #bytesHeld()} never exceeds it. The cache is split into shards of at least 8 MiB (at most 16; one below
 * 16 MiB): a block larger than its shard's share is read by each query that needs it and never
 * cached ({@link CacheStats#uncached()}). Eviction is by recency (CLOCK: a hit marks the block, an
 * insertion sweeps); hits take no lock.
 *
 * <p><b>Threads:</b> thread-safe. {@link #close()} frees this reference: handles opened with the
 * cache keep it alive until they are closed too, so closing it first is harmless (its counters can
 * then no longer be read). Do not close it while another thread is opening a handle with it. A
 * leaked cache is freed by a {@link Cleaner}.
 */
public final class Cache implements AutoCloseable {
    private static final LongConsumer FREE = Backends.BACKEND::cacheFree;

    private final NativeRef ref;
    private final Cleaner.Cleanable cleanable;
    private final long capacity;

    /**
     * A cache holding at most {@code capacityBytes} of filter blocks.
     *
     * @throws IllegalArgumentException if {@code capacityBytes} is negative
     */
    public Cache(long capacityBytes) {
        this(capacityBytes, -1, true);
    }

    /**
     * A cache holding at most {@code capacityBytes} of filter blocks, whose handles opened by path keep at most
     * {@code maxOpenFiles} files open between queries, the least recently used closed first (RocksDB's
     * {@code max_open_files}; {@code rocksfilter_cache_new_with_open_files}). 0 keeps none: every query that misses
     * opens its file. {@link #Cache(long)} keeps 128. A file kept open answers as opened even after it is deleted or
     * renamed over; one reopened must be the file opened (device, inode, length), or its queries answer "may match"
     * and count {@link CacheStats#readErrors()}.
     *
     * @throws IllegalArgumentException if either is negative
     */
    public Cache(long capacityBytes, long maxOpenFiles) {
        this(capacityBytes, checkOpenFiles(maxOpenFiles), true);
    }

    private static long checkOpenFiles(long maxOpenFiles) {
        if (maxOpenFiles < 0) {
            throw new IllegalArgumentException("maxOpenFiles is " + maxOpenFiles + ": it cannot be negative");
        }
        return maxOpenFiles;
    }

    private Cache(long capacityBytes, long maxOpenFiles, boolean unused) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacityBytes is " + capacityBytes + ": a capacity cannot be negative");
        }
        long handle = Backends.BACKEND.cacheNew(capacityBytes, maxOpenFiles);
        this.capacity = capacityBytes;
        this.ref = new NativeRef(handle, FREE, "Cache");
        this.cleanable = NativeRef.CLEANER.register(this, ref);
    }

    /** The native handle, for an open (which takes its own reference). @throws IllegalStateException once closed */
    long handle() {
        return ref.get();
    }

    /** The capacity in bytes. @throws IllegalStateException once closed */
    public long capacity() {
        ref.get();
        return capacity;
    }

    /** Bytes held now (blocks and their entries); at most {@link #capacity()}. @throws IllegalStateException once closed */
    public long bytesHeld() {
        try {
            return Backends.BACKEND.cacheBytesHeld(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The occupancy and counters ({@code rocksfilter_cache_get_stats}). @throws IllegalStateException once closed */
    public CacheStats stats() {
        try {
            return Backends.BACKEND.cacheStats(ref.get());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return ref.isClosed();
    }

    /** Frees this reference to the cache (handles opened with it keep theirs). Idempotent and thread-safe. */
    @Override
    public void close() {
        cleanable.clean();
    }

    @Override
    public String toString() {
        return "Cache[capacity=" + capacity + (isClosed() ? ", closed]" : "]");
    }
}
