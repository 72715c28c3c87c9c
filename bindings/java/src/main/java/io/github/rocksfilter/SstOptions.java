package io.github.rocksfilter;

/**
 * How {@link Sst#open(java.nio.file.Path, SstOptions)} and
 * {@link Sst#open(RangeReader, long, SstOptions)} open a file ({@code rocksfilter_sst_options}):
 * checksum verification, a memory mapping, and a {@link Cache} that keeps the filter's memory
 * within a budget. Immutable; each {@code with...} method returns a copy.
 *
 * <pre>{@code
 * try (Cache cache = new Cache(64 << 20)) {
 *     SstOptions opts = new SstOptions().withCache(cache);
 *     try (Sst sst = Sst.open(path, opts)) { ... }
 * }
 * }</pre>
 *
 * <p><b>With a cache</b>, a handle keeps only the top-level index of a partitioned filter and reads
 * each partition into the cache when a query first needs it (with {@link #withCacheFullFilters}
 * also whole full filters, which are otherwise read at open and kept by the handle outside the
 * budget). The cache evicts under its capacity, so the filters of many files share one budget.
 * A miss costs a read in the querying thread: a file opened by path is reopened (and read with
 * {@code pread}) for each query or batch that misses, so it must stay in place; a
 * {@link RangeReader} is kept for the handle's life and called from the querying threads, so it
 * must be thread-safe. A read that fails (the file replaced, truncated or deleted; the reader
 * throwing) answers "may match" for that query and is counted ({@link CacheStats#readErrors()}):
 * queries never throw for it.
 */
public final class SstOptions {
    /** {@code ROCKSFILTER_SST_SKIP_CHECKSUMS}. */
    static final int SKIP_CHECKSUMS = 1;
    /** {@code ROCKSFILTER_SST_MMAP}. */
    static final int MMAP = 2;
    /** {@code ROCKSFILTER_SST_CACHE_FULL_FILTERS}. */
    static final int CACHE_FULL_FILTERS = 4;

    private final boolean verifyChecksums;
    private final boolean mmap;
    private final Cache cache;
    private final boolean cacheFullFilters;

    /** The defaults, as {@link Sst#open(java.nio.file.Path)} opens: checksums verified, no mapping, no cache. */
    public SstOptions() {
        this(true, false, null, false);
    }

    private SstOptions(boolean verifyChecksums, boolean mmap, Cache cache, boolean cacheFullFilters) {
        this.verifyChecksums = verifyChecksums;
        this.mmap = mmap;
        this.cache = cache;
        this.cacheFullFilters = cacheFullFilters;
    }

    /** {@code false} skips the verification of block checksums (the default verifies them). */
    public SstOptions withVerifyChecksums(boolean verifyChecksums) {
        return new SstOptions(verifyChecksums, mmap, cache, cacheFullFilters);
    }

    /**
     * Memory-maps the file instead of reading its filter (paths only; not with a cache). It saves
     * the copy of the filter at open, and it risks the JVM: queries then read the mapping, so a
     * file truncated while the handle is open (RocksDB's DeleteScheduler truncates files it deletes
     * in steps) or an I/O error on a mapped page raises {@code SIGBUS} inside a query, which kills
     * the process, and a file rewritten in place is queried unverified (so does a
     * {@link Sst#fullFilter()} of such a handle, which reads the mapping too). Each handle also
     * holds one of the process's memory mappings ({@code vm.max_map_count}). Prefer the default, or
     * a cache.
     */
    public SstOptions withMmap(boolean mmap) {
        return new SstOptions(verifyChecksums, mmap, cache, cacheFullFilters);
    }

    /**
     * Filter blocks go to {@code cache} (shared by any number of handles, and kept alive by them:
     * closing it before them is harmless), read when a query first needs them; {@code null}: no
     * cache, everything is read at open and kept by the handle. See the class comment.
     */
    public SstOptions withCache(Cache cache) {
        return new SstOptions(verifyChecksums, mmap, cache, cacheFullFilters);
    }

    /**
     * With a cache: whole full filters go to the cache too, read on first use, so that many small
     * files also live within the budget (a full filter larger than its shard's share of the
     * capacity, see {@link Cache}, is then read by every query that needs it). Without a cache the
     * open fails with {@link Status#INVALID_ARGUMENT}.
     */
    public SstOptions withCacheFullFilters(boolean cacheFullFilters) {
        return new SstOptions(verifyChecksums, mmap, cache, cacheFullFilters);
    }

    /** Whether block checksums are verified. */
    public boolean verifyChecksums() {
        return verifyChecksums;
    }

    /** Whether a file opened by path is memory-mapped. */
    public boolean mmap() {
        return mmap;
    }

    /** The cache, or {@code null} for none. */
    public Cache cache() {
        return cache;
    }

    /** Whether whole full filters go to the cache too. */
    public boolean cacheFullFilters() {
        return cacheFullFilters;
    }

    /** The C flags. */
    int flags() {
        return (verifyChecksums ? 0 : SKIP_CHECKSUMS) | (mmap ? MMAP : 0) | (cacheFullFilters ? CACHE_FULL_FILTERS : 0);
    }

    /**
     * Whether a handle opened with these options may read (or page in a mapping) while it answers:
     * its queries then avoid the calls that must not block or call back into Java (critical
     * downcalls, JNI critical regions).
     */
    boolean queriesRead() {
        return cache != null || mmap;
    }

    @Override
    public String toString() {
        return "SstOptions[verifyChecksums=" + verifyChecksums + ", mmap=" + mmap + ", cache=" + cache
                + ", cacheFullFilters=" + cacheFullFilters + "]";
    }
}
