package io.github.rocksfilter;

import java.nio.ByteBuffer;

/**
 * The native calls the public classes make, behind which the two ways of calling the library sit:
 * {@code FfmBackend} (the Foreign Function &amp; Memory API, JDK 22+, in the jar's
 * {@code META-INF/versions/22/}) and {@link JniBackend} ({@link JniNative}, every JDK). The public
 * classes exist once, in Java 11, and call {@link Backends#BACKEND}, the one picked when the
 * bindings are first used.
 *
 * <p>Handles are the C ABI's pointers as {@code long}s. A caller keeps a handle open for the whole
 * call ({@link NativeRef}) and frees it once. A failed call throws {@link RocksFilterException}
 * with the library's status and message, the same on both backends; a library that could not be
 * loaded makes every call throw {@link UnsatisfiedLinkError}.
 */
interface Backend {
    /** {@code "ffm"} or {@code "jni"} ({@link RocksFilter#backend()}). */
    String name();

    /** Loads the library if it is not loaded yet, and says where it came from. @throws UnsatisfiedLinkError if it cannot be used */
    String load();

    String version();

    long hash64(byte[] key);

    int legacyHash32(byte[] key);

    // ---- builder ----
    long builderNew(int policy, double bitsPerKey);

    long builderNew(BuilderOptions options);

    void builderAdd(long builder, byte[] key);

    /** Adds the bytes from {@code key}'s position to its limit (its position is unchanged). */
    void builderAdd(long builder, ByteBuffer key);

    void builderAddKeyAndAlt(long builder, byte[] key, byte[] alt);

    void builderAddHash(long builder, long hash);

    long builderNumEntries(long builder);

    /** The block (empty when no key was added); the builder is empty afterwards. */
    byte[] builderFinish(long builder);

    void builderFree(long builder);

    // ---- filter ----
    /** Loads a copy of {@code block}. */
    long filterLoad(byte[] block);

    boolean filterMayMatch(long filter, byte[] key);

    /** Queries the bytes from {@code key}'s position to its limit (its position is unchanged). */
    boolean filterMayMatch(long filter, ByteBuffer key);

    boolean filterMayMatchHash(long filter, long hash);

    /** One {@code rocksfilter_filter_may_match_packed} call: a {@link PackedBatch.Call} on {@code filter}. */
    void filterMayMatchPacked(long filter, byte[] buf, int len, long[] offsets, int first, int n, byte[] results,
            long[] err);

    int filterKind(long filter);

    FilterInfo filterInfo(long filter);

    double filterEstimatedFpRate(long filter, long keys);

    /** A copy of the filter's block bytes. */
    byte[] filterBytes(long filter);

    void filterFree(long filter);

    // ---- sst ----
    /** {@code rocksfilter_sst_open_opts}; {@code flags} as {@link SstOptions#flags()}. */
    long sstOpen(String path, int flags);

    /** {@code rocksfilter_sst_open_ex}; {@code cache} 0 for none. */
    long sstOpen(String path, int flags, long cache);

    /** The SST file held in {@code file}: a handle, and what it borrows. */
    Opened sstOpenBytes(byte[] file, int flags);

    /**
     * {@code rocksfilter_sst_open_source} through {@code reader}, called only during this call: a
     * read's failure is the cause of the open's {@link RocksFilterException} (an {@link Error} is
     * rethrown, the open's exception suppressed in it).
     */
    long sstOpenReader(RangeReader reader, long size, int flags);

    /**
     * {@code rocksfilter_sst_open_source_ex} through {@code reader} ({@code cache} 0 for none): with a
     * cache, the handle keeps the reader and calls it from the querying threads until it is freed.
     */
    long sstOpenReader(RangeReader reader, long size, int flags, long cache);

    /**
     * {@code reads}: the handle may read while it answers (opened with a cache or a mapping), so
     * the call must not hold off the GC or forbid upcalls (no critical call or region).
     */
    boolean sstMayMatch(long sst, byte[] key, boolean reads);

    /** One {@code rocksfilter_sst_may_match_packed} call: a {@link PackedBatch.Call} on {@code sst}. */
    void sstMayMatchPacked(long sst, boolean reads, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results, long[] err);

    boolean sstPrefixMayMatch(long sst, byte[] prefix, boolean reads);

    /** The full filter as a new filter handle, or 0 when the filter is partitioned or absent. */
    long sstFullFilter(long sst);

    int sstFilterType(long sst);

    SstProperties sstProperties(long sst);

    /** The raw bytes of table property {@code name}, or {@code null} when absent. */
    byte[] sstProperty(long sst, String name);

    SstOpenStats sstOpenStats(long sst);

    void sstFree(long sst);

    // ---- filter cache ----
    /**
     * {@code rocksfilter_cache_new}, or {@code _new_with_open_files} when {@code maxOpenFiles >= 0};
     * {@code capacity} is not negative.
     */
    long cacheNew(long capacity, long maxOpenFiles);

    long cacheBytesHeld(long cache);

    CacheStats cacheStats(long cache);

    void cacheFree(long cache);

    /**
     * An open's handle and the memory it borrows, or {@code null}: the memory must stay reachable
     * while the handle or a filter taken from it ({@link #sstFullFilter}) is in use.
     */
    final class Opened {
        final long handle;
        final Object borrowed;

        Opened(long handle, Object borrowed) {
            this.handle = handle;
            this.borrowed = borrowed;
        }
    }
}
