package io.github.rocksfilter;

import java.util.Arrays;
import java.util.function.Supplier;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JNI backend ({@link JniNative}, {@code src/jni.rs}) against the FFM backend (the public
 * classes) in one JVM: the same blocks, answers, statuses and messages.
 */
class JniBackendTest {
    @BeforeAll
    static void load() {
        JniNative.load();
    }

    @Test
    void versionAndHashes() {
        assertEquals(RocksFilter.version(), JniNative.version());
        for (byte[] k : TestKeys.sorted(500, 7)) {
            assertEquals(RocksFilter.hash64(k), JniNative.hash64(k));
            assertEquals(RocksFilter.legacyHash32(k), JniNative.legacyHash32(k));
        }
        assertEquals(RocksFilter.hash64(new byte[0]), JniNative.hash64(new byte[0]));
    }

    @Test
    void buildsTheSameBlocksAndAnswersTheSame() {
        byte[][] keys = TestKeys.sorted(3000, 3);
        byte[][] absent = TestKeys.absent(3000, 3);
        for (Policy policy : Policy.values()) {
            for (double bpk : new double[] {1.0, 5.5, 10.0, 16.0}) {
                String what = policy + " bpk " + bpk;
                byte[] ffmBlock;
                try (FilterBuilder b = new FilterBuilder(policy, bpk)) {
                    for (byte[] k : keys) {
                        b.add(k);
                    }
                    if (policy != Policy.LEGACY_BLOOM) {
                        b.addHash(12345L);
                    }
                    ffmBlock = b.finish();
                }
                long jb = JniNative.builderNew(policy.code(), bpk);
                byte[] jniBlock;
                try {
                    for (byte[] k : keys) {
                        JniNative.builderAddKey(jb, k);
                    }
                    if (policy != Policy.LEGACY_BLOOM) {
                        JniNative.builderAddHash(jb, 12345L);
                    }
                    assertEquals(keys.length + (policy != Policy.LEGACY_BLOOM ? 1 : 0), JniNative.builderNumEntries(jb), what);
                    jniBlock = JniNative.builderFinish(jb);
                    assertEquals(0, JniNative.builderNumEntries(jb), what + ": emptied by finish");
                    assertEquals(0, JniNative.builderFinish(jb).length, what + ": no keys, empty block");
                } finally {
                    JniNative.builderFree(jb);
                }
                assertArrayEquals(ffmBlock, jniBlock, what);

                byte[][] probes = concat(keys, absent);
                try (Filter f = Filter.load(ffmBlock)) {
                    long jf = JniNative.filterLoad(jniBlock);
                    try {
                        assertEquals(f.kind().code(), JniNative.filterKind(jf), what);
                        assertEquals(f.estimatedFpRate(keys.length), JniNative.filterEstimatedFpRate(jf, keys.length), what);
                        assertArrayEquals(f.bytes(), JniNative.filterBytes(jf), what);
                        boolean[] ffm = f.mayMatchBatch(probes);
                        byte[] packed = packed(jf, probes);
                        for (int i = 0; i < probes.length; i++) {
                            assertEquals(ffm[i], JniNative.filterMayMatch(jf, probes[i]), what + " key " + i);
                            assertEquals(ffm[i], packed[i] == 1, what + " packed key " + i);
                            long h = RocksFilter.hash64(probes[i]);
                            assertEquals(f.mayMatchHash(h), JniNative.filterMayMatchHash(jf, h), what + " hash " + i);
                        }
                        for (int i = 0; i < keys.length; i++) {
                            assertTrue(ffm[i], what + ": added key " + i + " must match");
                        }
                    } finally {
                        JniNative.filterFree(jf);
                    }
                }
            }
        }
    }

    @Test
    void damagedBlocksLoadOrFailAlike() {
        byte[] block;
        try (FilterBuilder b = new FilterBuilder(Policy.RIBBON, 10.0)) {
            for (byte[] k : TestKeys.sorted(2000, 1)) {
                b.add(k);
            }
            block = b.finish();
        }
        java.util.Set<String> outcomes = new java.util.TreeSet<>();
        byte[] body = Arrays.copyOf(block, block.length - 5);
        byte[] trailer = Arrays.copyOfRange(block, block.length - 5, block.length);
        for (int cut = 0; cut <= body.length; cut += 61) {
            for (int flip = 0; flip <= 5; flip++) {
                // The body shortened by `cut` bytes under the original trailer, one trailer byte changed.
                byte[] bad = Arrays.copyOf(Arrays.copyOfRange(body, cut, body.length), body.length - cut + 5);
                System.arraycopy(trailer, 0, bad, body.length - cut, 5);
                if (flip > 0) {
                    bad[bad.length - flip] ^= (byte) (0x5a * flip);
                }
                String ffm = outcome(() -> {
                    try (Filter f = Filter.load(bad)) {
                        return f.kind().name();
                    }
                });
                String jni = outcome(() -> {
                    long jf = JniNative.filterLoad(bad);
                    try {
                        return Kind.fromCode(JniNative.filterKind(jf)).name();
                    } finally {
                        JniNative.filterFree(jf);
                    }
                });
                assertEquals(ffm, jni, "cut " + cut + " flip " + flip);
                outcomes.add(ffm);
            }
        }
        // RocksDB reads most damage as another geometry or "always true" rather than refusing it.
        assertTrue(outcomes.size() >= 2, "the damage changes what loads: " + outcomes);
    }

    @Test
    void errorsCarryTheSameStatusAndMessage() {
        for (double bpk : new double[] {0.3, Double.NaN, -1}) {
            RocksFilterException ffm = assertThrows(RocksFilterException.class, () -> new FilterBuilder(Policy.BLOOM, bpk));
            RocksFilterException jni = assertThrows(RocksFilterException.class, () -> JniNative.builderNew(Policy.BLOOM.code(), bpk));
            assertEquals(Status.INVALID_ARGUMENT, jni.status(), "bpk " + bpk);
            assertEquals(ffm.getMessage(), jni.getMessage(), "bpk " + bpk);
        }
        long legacy = JniNative.builderNew(Policy.LEGACY_BLOOM.code(), 10);
        try {
            JniNative.builderAddHash(legacy, 1);
            RocksFilterException finish = assertThrows(RocksFilterException.class, () -> JniNative.builderFinish(legacy));
            assertEquals(Status.INVALID_ARGUMENT, finish.status());
            assertTrue(finish.getMessage().contains("add_hash on a legacy Bloom builder"), finish.getMessage());
        } finally {
            JniNative.builderFree(legacy);
        }
        RocksFilterException jni = assertThrows(RocksFilterException.class, () -> JniNative.builderNew(99, 10));
        assertEquals(Status.INVALID_ARGUMENT, jni.status());
        long jf = JniNative.filterLoad(new byte[0]);
        try {
            assertEquals(Kind.ALWAYS_FALSE.code(), JniNative.filterKind(jf));
            RocksFilterException bad = assertThrows(RocksFilterException.class,
                    () -> JniNative.filterMayMatchPacked(jf, new byte[4], new long[] {0, 5}, 0, 1, new byte[1]));
            assertEquals(Status.INVALID_ARGUMENT, bad.status());
            assertThrows(RocksFilterException.class, () -> JniNative.filterMayMatch(jf, null));
        } finally {
            JniNative.filterFree(jf);
        }
        assertEquals(Status.INTERNAL, JniNative.exception(42, "x").status());
        assertEquals("unknown status code 42: x", JniNative.exception(42, "x").getMessage());
    }

    @Test
    void sstFilesAnswerTheSame() throws Exception {
        SstBatchTest.loadRocksDb();
        SstBatchTest.tmp = tmp;
        byte[][] probes = SstBatchTest.probes();
        for (SstBatchTest.Config c : (Iterable<SstBatchTest.Config>) SstBatchTest.configs()::iterator) {
            java.nio.file.Path path = SstBatchTest.write(c);
            try (Sst sst = Sst.open(path)) {
                long js = JniNative.sstOpen(path.toString(), 0);
                try {
                    assertEquals(sst.filterType().code(), JniNative.sstFilterType(js), c.name());
                    boolean[] ffm = sst.mayMatchBatch(probes);
                    byte[] packed = packed(js, probes, JniNative::sstMayMatchPacked);
                    for (int i = 0; i < probes.length; i++) {
                        assertEquals(ffm[i], JniNative.sstMayMatch(js, probes[i]), c.name() + " key " + i);
                        assertEquals(ffm[i], packed[i] == 1, c.name() + " packed key " + i);
                        if (probes[i].length >= 11) {
                            byte[] prefix = Arrays.copyOf(probes[i], 11);
                            assertEquals(outcome(() -> String.valueOf(sst.prefixMayMatch(prefix))),
                                    outcome(() -> String.valueOf(JniNative.sstPrefixMayMatch(js, prefix))), c.name() + " prefix " + i);
                        }
                    }
                    SstOpenStats st = sst.openStats();
                    assertArrayEquals(new long[] {st.reads(), st.bytesRead(), st.bytesHeld()}, JniNative.sstOpenStats(js), c.name());
                    assertArrayEquals(sst.property("rocksdb.comparator").orElseThrow(), JniNative.sstProperty(js, "rocksdb.comparator"), c.name());
                    assertEquals(null, JniNative.sstProperty(js, "no.such.property"), c.name());
                    long jf = JniNative.sstFullFilter(js);
                    try {
                        assertEquals(sst.fullFilter().map(f -> {
                            try (f) {
                                return Arrays.toString(f.bytes());
                            }
                        }).orElse("none"), jf == 0 ? "none" : Arrays.toString(JniNative.filterBytes(jf)), c.name());
                    } finally {
                        if (jf != 0) {
                            JniNative.filterFree(jf);
                        }
                    }
                } finally {
                    JniNative.sstFree(js);
                }
            }
        }
        java.nio.file.Path missing = tmp.resolve("missing.sst");
        RocksFilterException ffm = assertThrows(RocksFilterException.class, () -> Sst.open(missing));
        RocksFilterException jni = assertThrows(RocksFilterException.class, () -> JniNative.sstOpen(missing.toString(), 0));
        assertEquals(Status.IO_ERROR, jni.status());
        assertEquals(ffm.getMessage(), jni.getMessage());
        java.nio.file.Path garbage = tmp.resolve("garbage.sst");
        byte[] sevens = new byte[100];
        Arrays.fill(sevens, (byte) 7);
        java.nio.file.Files.write(garbage, sevens);
        RocksFilterException ffmBad = assertThrows(RocksFilterException.class, () -> Sst.open(garbage));
        RocksFilterException jniBad = assertThrows(RocksFilterException.class, () -> JniNative.sstOpen(garbage.toString(), 0));
        assertEquals(Status.CORRUPTION, jniBad.status());
        assertEquals(ffmBad.getMessage(), jniBad.getMessage());
    }

    @Test
    void cachedSstFilesAnswerTheSame() throws Exception {
        SstBatchTest.loadRocksDb();
        SstBatchTest.tmp = tmp;
        byte[][] probes = SstBatchTest.probes();
        for (SstBatchTest.Config c : (Iterable<SstBatchTest.Config>) SstBatchTest.configs()::iterator) {
            java.nio.file.Path path = SstBatchTest.write(c);
            long jc = JniNative.cacheNew(8 << 10, -1);
            try (Cache cache = new Cache(8 << 10); Sst sst = Sst.open(path, new SstOptions().withCache(cache))) {
                long js = JniNative.sstOpenEx(path.toString(), 0, jc);
                try {
                    assertArrayEquals(statsArray(cache.stats()), JniNative.cacheStats(jc), c.name());
                    for (int i = 0; i < probes.length; i++) {
                        assertEquals(sst.mayMatch(probes[i]), JniNative.sstMayMatchCopy(js, probes[i]), c.name() + " key " + i);
                        if (probes[i].length >= 11 && i % 7 == 0) {
                            byte[] prefix = Arrays.copyOf(probes[i], 11);
                            assertEquals(outcome(() -> String.valueOf(sst.prefixMayMatch(prefix))),
                                    outcome(() -> String.valueOf(JniNative.sstPrefixMayMatchCopy(js, prefix))), c.name() + " prefix " + i);
                        }
                    }
                    boolean[] ffm = sst.mayMatchBatch(probes);
                    byte[] packed = packed(js, probes, JniNative::sstMayMatchPackedCopy);
                    for (int i = 0; i < probes.length; i++) {
                        assertEquals(ffm[i], packed[i] == 1, c.name() + " packed key " + i);
                    }
                    // The same queries in the same order: the same cache traffic.
                    assertArrayEquals(statsArray(cache.stats()), JniNative.cacheStats(jc), c.name());
                    assertEquals(cache.bytesHeld(), JniNative.cacheBytesHeld(jc));
                    RocksFilterException bad = assertThrows(RocksFilterException.class,
                            () -> JniNative.sstMayMatchPackedCopy(js, new byte[4], new long[] {0, 5}, 0, 1, new byte[1]));
                    RocksFilterException badFfm = assertThrows(RocksFilterException.class,
                            () -> sst.mayMatchPacked(new byte[4], new long[] {0, 5}, new boolean[1]));
                    assertEquals(badFfm.getMessage(), bad.getMessage());
                } finally {
                    JniNative.sstFree(js);
                }
            } finally {
                JniNative.cacheFree(jc);
            }
        }
        // Misuse: the same statuses and messages.
        java.nio.file.Path path = SstBatchTest.write(SstBatchTest.configs().findFirst().orElseThrow());
        long jc = JniNative.cacheNew(1 << 20, -1);
        try (Cache cache = new Cache(1 << 20)) {
            for (SstOptions o : new SstOptions[] {new SstOptions().withCacheFullFilters(true),
                    new SstOptions().withCache(cache).withMmap(true)}) {
                RocksFilterException ffm = assertThrows(RocksFilterException.class, () -> Sst.open(path, o));
                RocksFilterException jni = assertThrows(RocksFilterException.class,
                        () -> JniNative.sstOpenEx(path.toString(), o.flags(), o.cache() == null ? 0 : jc));
                assertEquals(Status.INVALID_ARGUMENT, jni.status());
                assertEquals(ffm.getMessage(), jni.getMessage());
            }
            long released = Readers.Call.RELEASED.get();
            RocksFilterException ffm = assertThrows(RocksFilterException.class,
                    () -> Sst.open((offset, dst) -> { }, 100, new SstOptions().withMmap(true)));
            RocksFilterException jni = assertThrows(RocksFilterException.class,
                    () -> JniNative.sstOpenReaderEx(new Readers.Call((offset, dst) -> { }), 100, SstOptions.MMAP, 0));
            assertEquals(ffm.getMessage(), jni.getMessage());
            assertEquals(released + 2, Readers.Call.RELEASED.get(), "each refused open released its reader");
        } finally {
            JniNative.cacheFree(jc);
        }
    }

    private static long[] statsArray(CacheStats s) {
        return new long[] {s.capacity(), s.bytesHeld(), s.entries(), s.hits(), s.misses(), s.reads(), s.bytesRead(),
            s.readErrors(), s.badBlocks(), s.evictions(), s.uncached(), s.openFiles()};
    }

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path tmp;

    /** A packed batch call: {@link JniNative#filterMayMatchPacked} or {@link JniNative#sstMayMatchPacked}. */
    interface PackedCall {
        void call(long handle, byte[] buf, long[] offsets, int first, int n, byte[] results);
    }

    private static String outcome(Supplier<String> load) {
        try {
            return load.get();
        } catch (RocksFilterException e) {
            return e.status() + ": " + e.getMessage();
        }
    }

    private static byte[] packed(long filter, byte[][] keys) {
        return packed(filter, keys, JniNative::filterMayMatchPacked);
    }

    private static byte[] packed(long handle, byte[][] keys, PackedCall call) {
        long[] offsets = new long[keys.length + 1];
        int total = 0;
        for (int i = 0; i < keys.length; i++) {
            offsets[i] = total;
            total += keys[i].length;
        }
        offsets[keys.length] = total;
        byte[] buf = new byte[total];
        for (int i = 0; i < keys.length; i++) {
            System.arraycopy(keys[i], 0, buf, (int) offsets[i], keys[i].length);
        }
        byte[] results = new byte[keys.length];
        call.call(handle, buf, offsets, 0, keys.length, results);
        return results;
    }

    private static byte[][] concat(byte[][] a, byte[][] b) {
        byte[][] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
