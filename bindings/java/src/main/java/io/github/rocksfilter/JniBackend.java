package io.github.rocksfilter;

import java.nio.ByteBuffer;

/**
 * The {@link Backend} of JDKs without the Foreign Function &amp; Memory API (11 to 21, and any JDK
 * that reads only the jar's base classes): {@link JniNative}'s entry points ({@code src/jni.rs}).
 * Byte arrays are read in place (JNI critical regions) except by the queries of a handle that may
 * read while it answers, which copy them first; a {@link ByteBuffer} key is copied into an array.
 * The calls that make something ({@code *New}, {@code *Load}, {@code *Open*}) and the library-wide
 * ones load the library first, so that a missing library throws its explanation.
 */
final class JniBackend implements Backend {
    @Override
    public String name() {
        return "jni";
    }

    @Override
    public String load() {
        return JniNative.load();
    }

    @Override
    public String version() {
        JniNative.load();
        return JniNative.version();
    }

    @Override
    public long hash64(byte[] key) {
        JniNative.load();
        return JniNative.hash64(key);
    }

    @Override
    public int legacyHash32(byte[] key) {
        JniNative.load();
        return JniNative.legacyHash32(key);
    }

    /** The bytes from {@code key}'s position to its limit, copied (its position is unchanged). */
    private static byte[] remaining(ByteBuffer key) {
        byte[] b = new byte[key.remaining()];
        key.duplicate().get(b);
        return b;
    }

    // ---- builder ----
    @Override
    public long builderNew(int policy, double bitsPerKey) {
        JniNative.load();
        return JniNative.builderNew(policy, bitsPerKey);
    }

    @Override
    public long builderNew(BuilderOptions o) {
        JniNative.load();
        return JniNative.builderNewWithOptions(o.policy().code(), o.bitsPerKey(), o.fpRate(), o.maxBytes(),
                o.ribbonFailureOneIn());
    }

    @Override
    public void builderAdd(long builder, byte[] key) {
        JniNative.builderAddKey(builder, key);
    }

    @Override
    public void builderAdd(long builder, ByteBuffer key) {
        JniNative.builderAddKey(builder, remaining(key));
    }

    @Override
    public void builderAddKeyAndAlt(long builder, byte[] key, byte[] alt) {
        JniNative.builderAddKeyAndAlt(builder, key, alt);
    }

    @Override
    public void builderAddHash(long builder, long hash) {
        JniNative.builderAddHash(builder, hash);
    }

    @Override
    public long builderNumEntries(long builder) {
        return JniNative.builderNumEntries(builder);
    }

    @Override
    public byte[] builderFinish(long builder) {
        return JniNative.builderFinish(builder);
    }

    @Override
    public void builderFree(long builder) {
        JniNative.builderFree(builder);
    }

    // ---- filter ----
    @Override
    public long filterLoad(byte[] block) {
        JniNative.load();
        return JniNative.filterLoad(block);
    }

    @Override
    public boolean filterMayMatch(long filter, byte[] key) {
        return JniNative.filterMayMatch(filter, key);
    }

    @Override
    public boolean filterMayMatch(long filter, ByteBuffer key) {
        return JniNative.filterMayMatch(filter, remaining(key));
    }

    @Override
    public boolean filterMayMatchHash(long filter, long hash) {
        return JniNative.filterMayMatchHash(filter, hash);
    }

    @Override
    public void filterMayMatchPacked(long filter, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results, long[] err) {
        JniNative.filterMayMatchPacked(filter, buf, offsets, first, n, results);
    }

    @Override
    public int filterKind(long filter) {
        return JniNative.filterKind(filter);
    }

    @Override
    public FilterInfo filterInfo(long filter) {
        long[] i = JniNative.filterInfo(filter);
        return new FilterInfo(Kind.fromCode((int) i[0]), i[1], (int) i[2], (int) i[3], (int) i[4], (int) i[5],
                (int) i[6], (int) i[7], (int) i[8]);
    }

    @Override
    public double filterEstimatedFpRate(long filter, long keys) {
        return JniNative.filterEstimatedFpRate(filter, keys);
    }

    @Override
    public byte[] filterBytes(long filter) {
        return JniNative.filterBytes(filter);
    }

    @Override
    public void filterFree(long filter) {
        JniNative.filterFree(filter);
    }

    // ---- sst ----
    @Override
    public long sstOpen(String path, int flags) {
        JniNative.load();
        return JniNative.sstOpen(path, flags);
    }

    @Override
    public long sstOpen(String path, int flags, long cache) {
        JniNative.load();
        return JniNative.sstOpenEx(path, flags, cache);
    }

    /** The array is read in place during the call; the handle copies only what it queries. */
    @Override
    public Opened sstOpenBytes(byte[] file, int flags) {
        JniNative.load();
        return new Opened(JniNative.sstOpenBytes(file, flags), null);
    }

    @Override
    public long sstOpenReader(RangeReader reader, long size, int flags) {
        JniNative.load();
        Readers.Call call = new Readers.Call(reader);
        try {
            return JniNative.sstOpenReader(call, size, flags);
        } catch (RocksFilterException e) {
            throw Readers.rethrowWithCause(e, call.failure);
        }
    }

    @Override
    public long sstOpenReader(RangeReader reader, long size, int flags, long cache) {
        JniNative.load();
        Readers.Call call = new Readers.Call(reader);
        try {
            return JniNative.sstOpenReaderEx(call, size, flags, cache);
        } catch (RocksFilterException e) {
            throw Readers.rethrowWithCause(e, call.failure);
        } finally {
            call.opened();
        }
    }

    @Override
    public boolean sstMayMatch(long sst, byte[] key, boolean reads) {
        return reads ? JniNative.sstMayMatchCopy(sst, key) : JniNative.sstMayMatch(sst, key);
    }

    @Override
    public void sstMayMatchPacked(long sst, boolean reads, byte[] buf, int len, long[] offsets, int first, int n,
            byte[] results, long[] err) {
        if (reads) {
            JniNative.sstMayMatchPackedCopy(sst, buf, offsets, first, n, results);
        } else {
            JniNative.sstMayMatchPacked(sst, buf, offsets, first, n, results);
        }
    }

    @Override
    public boolean sstPrefixMayMatch(long sst, byte[] prefix, boolean reads) {
        return reads ? JniNative.sstPrefixMayMatchCopy(sst, prefix) : JniNative.sstPrefixMayMatch(sst, prefix);
    }

    @Override
    public long sstFullFilter(long sst) {
        return JniNative.sstFullFilter(sst);
    }

    @Override
    public int sstFilterType(long sst) {
        return JniNative.sstFilterType(sst);
    }

    @Override
    public SstProperties sstProperties(long sst) {
        long[] n = JniNative.sstPropertyNumbers(sst);
        String[] s = JniNative.sstPropertyStrings(sst);
        return new SstProperties((int) n[0], (int) n[1], SstFilterType.fromCode((int) n[2]), (int) n[3],
                n[4] != 0, n[5] != 0, n[6], n[7], n[8], n[9], n[10], s[0], s[1], s[2], s[3]);
    }

    @Override
    public byte[] sstProperty(long sst, String name) {
        return JniNative.sstProperty(sst, name);
    }

    @Override
    public SstOpenStats sstOpenStats(long sst) {
        long[] st = JniNative.sstOpenStats(sst);
        return new SstOpenStats(st[0], st[1], st[2]);
    }

    @Override
    public void sstFree(long sst) {
        JniNative.sstFree(sst);
    }

    // ---- filter cache ----
    @Override
    public long cacheNew(long capacity, long maxOpenFiles) {
        JniNative.load();
        return JniNative.cacheNew(capacity, maxOpenFiles);
    }

    @Override
    public long cacheBytesHeld(long cache) {
        return JniNative.cacheBytesHeld(cache);
    }

    @Override
    public CacheStats cacheStats(long cache) {
        return CacheStats.of(JniNative.cacheStats(cache));
    }

    @Override
    public void cacheFree(long cache) {
        JniNative.cacheFree(cache);
    }
}
