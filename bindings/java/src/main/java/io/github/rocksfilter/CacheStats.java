package io.github.rocksfilter;

import java.util.Objects;

/**
 * A {@link Cache}'s occupancy and counters ({@link Cache#stats()}, mirroring
 * {@code rocksfilter_cache_stats}). Counters count since the cache was made, over every handle
 * opened with it.
 *
 * <p>A value class (equal when every component is; {@code toString} as a record's), written
 * as a class rather than a record so that the same class serves JDK 11 (the JNI backend).
 */
public final class CacheStats {
    private final long capacity;
    private final long bytesHeld;
    private final long entries;
    private final long hits;
    private final long misses;
    private final long reads;
    private final long bytesRead;
    private final long readErrors;
    private final long badBlocks;
    private final long evictions;
    private final long uncached;
    private final long openFiles;

    /** A value with these components (see the accessors). */
    public CacheStats(long capacity, long bytesHeld, long entries, long hits, long misses, long reads, long bytesRead,
            long readErrors, long badBlocks, long evictions, long uncached, long openFiles) {
        this.capacity = capacity;
        this.bytesHeld = bytesHeld;
        this.entries = entries;
        this.hits = hits;
        this.misses = misses;
        this.reads = reads;
        this.bytesRead = bytesRead;
        this.readErrors = readErrors;
        this.badBlocks = badBlocks;
        this.evictions = evictions;
        this.uncached = uncached;
        this.openFiles = openFiles;
    }

    /** @return the capacity in bytes */
    public long capacity() {
        return capacity;
    }

    /** @return bytes held now: filter blocks and their entries (128 bytes each); at most {@link #capacity()} */
    public long bytesHeld() {
        return bytesHeld;
    }

    /** @return blocks held now */
    public long entries() {
        return entries;
    }

    /** @return block lookups that found the block (one per partition a single query consults; one per partition per batch) */
    public long hits() {
        return hits;
    }

    /** @return block lookups that did not (and read the block, or found it unreadable) */
    public long misses() {
        return misses;
    }

    /** @return reads of a file or {@link RangeReader} for blocks */
    public long reads() {
        return reads;
    }

    /** @return bytes those reads returned */
    public long bytesRead() {
        return bytesRead;
    }

    /**
     * @return reads that failed (the reader threw or left its buffer unfilled, the file was replaced, truncated or
     * deleted): each such query answered "may match" and nothing was cached
     */
    public long readErrors() {
        return readErrors;
    }

    /** @return blocks read whose bytes are no filter RocksDB would use (bad checksum or geometry): cached as "may match" */
    public long badBlocks() {
        return badBlocks;
    }

    /** @return blocks evicted to make room */
    public long evictions() {
        return evictions;
    }

    /** @return blocks read but not cached (larger than a shard's share of the capacity, or every block of the shard in use) */
    public long uncached() {
        return uncached;
    }

    /** @return files kept open now for the handles opened by path (at most the cache's {@code maxOpenFiles}) */
    public long openFiles() {
        return openFiles;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CacheStats)) {
            return false;
        }
        CacheStats x = (CacheStats) o;
        return capacity == x.capacity
                && bytesHeld == x.bytesHeld
                && entries == x.entries
                && hits == x.hits
                && misses == x.misses
                && reads == x.reads
                && bytesRead == x.bytesRead
                && readErrors == x.readErrors
                && badBlocks == x.badBlocks
                && evictions == x.evictions
                && uncached == x.uncached
                && openFiles == x.openFiles;
    }

    @Override
    public int hashCode() {
        return Objects.hash(capacity, bytesHeld, entries, hits, misses, reads, bytesRead, readErrors, badBlocks,
                evictions, uncached, openFiles);
    }

    @Override
    public String toString() {
        return "CacheStats[capacity=" + capacity
                + ", bytesHeld=" + bytesHeld
                + ", entries=" + entries
                + ", hits=" + hits
                + ", misses=" + misses
                + ", reads=" + reads
                + ", bytesRead=" + bytesRead
                + ", readErrors=" + readErrors
                + ", badBlocks=" + badBlocks
                + ", evictions=" + evictions
                + ", uncached=" + uncached
                + ", openFiles=" + openFiles + "]";
    }

    /** The value of {@code rocksfilter_cache_stats}' fields after its header, in declaration order. */
    static CacheStats of(long[] v) {
        return new CacheStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]);
    }
}
