package io.github.rocksfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FilterTest {
    static final int N = 10_000;
    static final byte[][] KEYS = TestKeys.sorted(N, 3);
    static final byte[][] ABSENT = TestKeys.absent(50_000, 3);

    static byte[] build(Policy p, double bpk, byte[][] keys) {
        try (FilterBuilder b = new FilterBuilder(p, bpk)) {
            for (byte[] k : keys) {
                b.add(k);
            }
            assertEquals(keys.length, b.numEntries());
            return b.finish();
        }
    }

    static Kind expectedKind(Policy p) {
        return switch (p) {
            case BLOOM -> Kind.FAST_LOCAL_BLOOM;
            case RIBBON -> Kind.STANDARD128_RIBBON;
            case LEGACY_BLOOM -> Kind.LEGACY_BLOOM;
        };
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void roundTrip(Policy policy) {
        byte[] block = build(policy, 10, KEYS);
        try (Filter f = Filter.load(block)) {
            assertEquals(expectedKind(policy), f.kind());
            assertArrayEquals(block, f.bytes());
            FilterInfo info = f.info();
            assertEquals(f.kind(), info.kind());
            assertEquals(block.length, info.bytes());
            switch (policy) {
                case BLOOM -> {
                    assertTrue(info.numProbes() > 0);
                    assertEquals(64, info.lineBytes());
                }
                case LEGACY_BLOOM -> {
                    assertTrue(info.numProbes() > 0);
                    assertTrue(info.numLines() > 0);
                    assertTrue(info.lineBytes() > 0);
                }
                case RIBBON -> {
                    assertEquals(0, info.numProbes());
                    assertEquals(0, info.lineBytes());
                    assertTrue(info.numBlocks() > 0);
                    assertTrue(info.seed() >= 0 && info.seed() <= 255);
                    assertTrue(info.lowerNumColumns() > 0);
                }
            }
            int matched = 0;
            for (byte[] k : KEYS) {
                if (f.mayMatch(k)) {
                    matched++;
                }
            }
            assertEquals(N, matched, "no false negatives");
            int fp = 0;
            for (byte[] k : ABSENT) {
                if (f.mayMatch(k)) {
                    fp++;
                }
            }
            double rate = fp / (double) ABSENT.length;
            double est = f.estimatedFpRate(N);
            System.out.printf("roundTrip %s: %d bytes, %d keys matched, FP %d/%d = %.4f (estimated %.4f)%n",
                    policy, block.length, matched, fp, ABSENT.length, rate, est);
            assertTrue(rate < 0.03, "FP rate at 10 bits/key: " + rate);
            assertTrue(est > 0 && est < 0.03, "estimate " + est);
        }
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void keyInputKindsAgree(Policy policy) {
        byte[] fromArrays = build(policy, 8.5, KEYS);
        byte[] fromBuffers;
        try (FilterBuilder b = new FilterBuilder(policy, 8.5)) {
            for (int i = 0; i < KEYS.length; i++) {
                byte[] k = KEYS[i];
                // Alternate heap and direct buffers, with a non-zero position.
                ByteBuffer bb = (i % 2 == 0) ? ByteBuffer.allocate(k.length + 3) : ByteBuffer.allocateDirect(k.length + 3);
                bb.put(new byte[3]).put(k).flip().position(3);
                b.add(bb);
                assertEquals(3, bb.position());
            }
            fromBuffers = b.finish();
        }
        assertArrayEquals(fromArrays, fromBuffers);
        try (Filter f = Filter.load(fromArrays)) {
            for (byte[] k : ABSENT) {
                boolean expected = f.mayMatch(k);
                assertEquals(expected, f.mayMatch(ByteBuffer.wrap(k)));
                assertEquals(expected, f.mayMatch(ByteBuffer.wrap(k).asReadOnlyBuffer()));
                ByteBuffer padded = ByteBuffer.allocate(k.length + 8).put(new byte[4]).put(k);
                assertEquals(expected, f.mayMatch(padded.flip().position(4).slice()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void batchEqualsSingle(Policy policy) {
        byte[][] mixed = new byte[KEYS.length + ABSENT.length + 2][];
        System.arraycopy(ABSENT, 0, mixed, 0, ABSENT.length);
        System.arraycopy(KEYS, 0, mixed, ABSENT.length, KEYS.length);
        mixed[mixed.length - 2] = new byte[0];
        mixed[mixed.length - 1] = new byte[5000];
        try (Filter f = Filter.load(build(policy, 10, KEYS))) {
            boolean[] single = new boolean[mixed.length];
            for (int i = 0; i < mixed.length; i++) {
                single[i] = f.mayMatch(mixed[i]);
            }
            assertArrayEquals(single, f.mayMatchBatch(mixed));
            assertEquals(0, f.mayMatchBatch(new byte[0][]).length);
            int trues = 0;
            for (boolean b : single) {
                trues += b ? 1 : 0;
            }
            System.out.printf("batch %s: %d keys, batch == single, %d may-match%n", policy, mixed.length, trues);
            assertTrue(trues >= KEYS.length);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Policy.class, names = {"BLOOM", "RIBBON"})
    void addHashEqualsAdd(Policy policy) {
        byte[] byKey = build(policy, 10, KEYS);
        byte[] byHash;
        try (FilterBuilder b = new FilterBuilder(policy, 10)) {
            for (byte[] k : KEYS) {
                b.addHash(RocksFilter.hash64(k));
            }
            byHash = b.finish();
        }
        assertArrayEquals(byKey, byHash);
        try (Filter f = Filter.load(byKey)) {
            for (byte[] k : ABSENT) {
                assertEquals(f.mayMatch(k), f.mayMatchHash(RocksFilter.hash64(k)));
            }
        }
    }

    @Test
    void addHashOnLegacyBloomFailsAtFinish() {
        try (FilterBuilder b = new FilterBuilder(Policy.LEGACY_BLOOM, 10)) {
            b.add(TestKeys.utf8("a")).addHash(42);
            RocksFilterException e = assertThrows(RocksFilterException.class, b::finish);
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertNotNull(e.nativeMessage());
            // The builder was emptied and is reusable.
            b.add(TestKeys.utf8("a"));
            try (Filter f = Filter.load(b.finish())) {
                assertEquals(Kind.LEGACY_BLOOM, f.kind());
                assertTrue(f.mayMatch(TestKeys.utf8("a")));
                assertTrue(f.mayMatchHash(12345), "legacy Bloom answers true by hash");
            }
        }
    }

    @Test
    void hash64() {
        assertEquals(0x5342c3010fe1dd04L, RocksFilter.hash64(new byte[0]));
        assertTrue(RocksFilter.hash64(TestKeys.utf8("a")) != RocksFilter.hash64(TestKeys.utf8("b")));
        assertTrue(RocksFilter.legacyHash32(TestKeys.utf8("a")) != RocksFilter.legacyHash32(TestKeys.utf8("b")));
    }

    @Test
    void version() {
        assertEquals(RocksFilter.BINDING_VERSION, RocksFilter.version());
    }

    @Test
    void invalidBitsPerKey() {
        for (double bpk : new double[] {0.3, Double.NaN, -1}) {
            RocksFilterException e = assertThrows(RocksFilterException.class, () -> new FilterBuilder(Policy.BLOOM, bpk));
            assertEquals(Status.INVALID_ARGUMENT, e.status(), "bpk " + bpk);
            assertNotNull(e.nativeMessage(), "native message for bpk " + bpk);
            // The message is the library's, unchanged: the status once, in its words, then the detail.
            assertEquals(e.nativeMessage(), e.getMessage());
            assertStatusNamedOnce(e, "invalid argument");
        }
        // Sanitised, not rejected.
        assertDoesNotThrow(() -> new FilterBuilder(Policy.BLOOM, 0.5).close());
        assertDoesNotThrow(() -> new FilterBuilder(Policy.RIBBON, Double.POSITIVE_INFINITY).close());
    }

    static byte[] build(BuilderOptions o, byte[][] keys) {
        try (FilterBuilder b = new FilterBuilder(o)) {
            for (byte[] k : keys) {
                b.add(k);
            }
            return b.finish();
        }
    }

    @Test
    void builderOptions() {
        // Only a policy and bits/key: the constructor's bytes (RocksDB's).
        for (Policy p : Policy.values()) {
            assertArrayEquals(build(p, 7.5, KEYS), build(new BuilderOptions(p).withBitsPerKey(7.5), KEYS), p.name());
        }
        // A target FP rate (1-in-1000 banding for Ribbon) and a byte budget.
        for (Policy p : new Policy[] {Policy.BLOOM, Policy.RIBBON}) {
            BuilderOptions o = new BuilderOptions(p).withFpRate(0.01).withRibbonFailureOneIn(1000);
            try (Filter f = Filter.load(build(o, KEYS))) {
                assertTrue(f.estimatedFpRate(N) <= 0.01 * 1.001, p + ": " + f.estimatedFpRate(N));
                for (byte[] k : KEYS) {
                    assertTrue(f.mayMatch(k));
                }
            }
            byte[] block = build(new BuilderOptions(p).withMaxBytes(4096), KEYS);
            assertTrue(block.length <= 4096 && block.length > 4096 - 64, p + ": " + block.length);
        }
        // Refused combinations, with the library's message.
        for (BuilderOptions o : new BuilderOptions[] {
                new BuilderOptions(Policy.BLOOM).withFpRate(0.01).withMaxBytes(4096),
                new BuilderOptions(Policy.BLOOM).withFpRate(1.5),
                new BuilderOptions(Policy.LEGACY_BLOOM).withFpRate(0.01),
                new BuilderOptions(Policy.RIBBON).withRibbonFailureOneIn(100)}) {
            RocksFilterException e = assertThrows(RocksFilterException.class, () -> new FilterBuilder(o));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertNotNull(e.nativeMessage());
        }
    }

    @Test
    void degenerateBlocksLoadAsRocksDbReadsThem() {
        // A FastLocalBloom shorter than a cache line and a legacy Bloom with
        // 0 cache lines: RocksDB's reader answers "may match" to everything.
        byte[] bloom = new byte[32 + 5];
        System.arraycopy(new byte[] {(byte) 0xff, 0, 6, 0, 0}, 0, bloom, 32, 5);
        byte[] legacy = new byte[64 + 5];
        System.arraycopy(new byte[] {6, 0, 0, 0, 0}, 0, legacy, 64, 5);
        for (byte[] odd : new byte[][] {bloom, legacy}) {
            try (Filter f = Filter.load(odd)) {
                assertEquals(Kind.ALWAYS_TRUE, f.kind());
                assertTrue(f.mayMatch("anything".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
        }
    }

    @Test
    void corruptionNamesItsStatusOnce() {
        byte[] garbage = new byte[100];
        java.util.Arrays.fill(garbage, (byte) 7);
        RocksFilterException e = assertThrows(RocksFilterException.class, () -> Sst.openBytes(garbage));
        assertEquals(Status.CORRUPTION, e.status());
        assertEquals(e.nativeMessage(), e.getMessage());
        assertStatusNamedOnce(e, "corruption");
        RocksFilterException io = assertThrows(RocksFilterException.class,
                () -> Sst.open(java.nio.file.Path.of("/nonexistent/rocksfilter/missing.sst")));
        assertEquals(Status.IO_ERROR, io.status());
        assertStatusNamedOnce(io, "I/O error");
        System.out.println("exception messages: \"" + e.getMessage() + "\", \"" + io.getMessage() + "\"");
    }

    @Test
    void exceptionWithoutNativeMessageStillNamesItsStatus() {
        RocksFilterException e = new RocksFilterException(Status.NOT_FOUND, null);
        assertEquals(Status.NOT_FOUND, e.status());
        assertNull(e.nativeMessage());
        assertEquals("NOT_FOUND (the native library gave no message)", e.getMessage());
        assertEquals("not found: x", new RocksFilterException(Status.NOT_FOUND, "not found: x").getMessage());
    }

    /** The message starts with the status in the library's words and names no status a second time. */
    static void assertStatusNamedOnce(RocksFilterException e, String words) {
        String m = e.getMessage();
        assertTrue(m.startsWith(words + ": "), m);
        assertFalse(m.substring(words.length()).toLowerCase(java.util.Locale.ROOT).contains(words.toLowerCase(java.util.Locale.ROOT) + ":"), m);
        for (Status s : Status.values()) {
            assertFalse(m.contains(s.name() + ":"), m);
        }
    }

    @Test
    void specialBlocks() {
        try (Filter f = Filter.load(new byte[0])) {
            assertEquals(Kind.ALWAYS_FALSE, f.kind());
            assertFalse(f.mayMatch(TestKeys.utf8("x")));
            assertEquals(0.0, f.estimatedFpRate(10));
            assertEquals(0, f.bytes().length);
        }
        try (FilterBuilder b = new FilterBuilder(Policy.RIBBON, 10)) {
            assertEquals(0, b.finish().length, "no keys: RocksDB's empty filter");
        }
        // A reserved format marker: always true.
        byte[] reserved = new byte[64 + 5];
        System.arraycopy(new byte[] {(byte) 0xff, 0x7f, 6, 0, 0}, 0, reserved, 64, 5);
        try (Filter f = Filter.load(reserved)) {
            assertEquals(Kind.ALWAYS_TRUE, f.kind());
            assertTrue(f.mayMatch(TestKeys.utf8("x")));
        }
    }

    @Test
    void duplicatesAndKeyAndAlt() {
        try (FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10)) {
            b.add(TestKeys.utf8("a")).add(TestKeys.utf8("a")).add(TestKeys.utf8("b")).add(TestKeys.utf8("a"));
            assertEquals(3, b.numEntries(), "adjacent duplicates collapse");
            b.finish();
            assertEquals(0, b.numEntries());
            b.addKeyAndAlt(TestKeys.utf8("abc1"), TestKeys.utf8("abc"));
            b.addKeyAndAlt(TestKeys.utf8("abc2"), TestKeys.utf8("abc"));
            assertEquals(3, b.numEntries(), "repeated alt not added again");
            try (Filter f = Filter.load(b.finish())) {
                assertTrue(f.mayMatch(TestKeys.utf8("abc")));
                assertTrue(f.mayMatch(TestKeys.utf8("abc1")));
                assertTrue(f.mayMatch(TestKeys.utf8("abc2")));
            }
        }
    }

    @Test
    void closeTwiceAndUseAfterClose() {
        FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10);
        b.add(TestKeys.utf8("k"));
        byte[] block = b.finish();
        b.close();
        b.close();
        assertThrows(IllegalStateException.class, () -> b.add(TestKeys.utf8("k")));
        assertThrows(IllegalStateException.class, () -> b.addHash(1));
        assertThrows(IllegalStateException.class, b::finish);
        assertThrows(IllegalStateException.class, b::numEntries);

        Filter f = Filter.load(block);
        f.close();
        f.close();
        assertTrue(f.isClosed());
        assertThrows(IllegalStateException.class, () -> f.mayMatch(TestKeys.utf8("k")));
        assertThrows(IllegalStateException.class, () -> f.mayMatchHash(1));
        assertThrows(IllegalStateException.class, () -> f.mayMatchBatch(new byte[][] {TestKeys.utf8("k")}));
        assertThrows(IllegalStateException.class, f::kind);
        assertThrows(IllegalStateException.class, f::info);
        assertThrows(IllegalStateException.class, f::bytes);
        assertThrows(IllegalStateException.class, () -> f.estimatedFpRate(1));
    }

    @Test
    void concurrentCloseFreesOnce() throws Exception {
        // close() from many threads at once: exactly one free (a double free would crash the JVM).
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 200; round++) {
                Filter f = Filter.load(build(Policy.BLOOM, 10, new byte[][] {TestKeys.utf8("k")}));
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    fs.add(pool.submit(f::close));
                }
                for (Future<?> x : fs) {
                    x.get();
                }
                assertTrue(f.isClosed());
            }
        } finally {
            pool.shutdown();
        }
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void eightThreadsQueryOneFilter(Policy policy) throws Exception {
        try (Filter f = Filter.load(build(policy, 10, KEYS))) {
            int expectedFp = 0;
            for (byte[] k : ABSENT) {
                expectedFp += f.mayMatch(k) ? 1 : 0;
            }
            final int fpSingle = expectedFp;
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Callable<int[]>> tasks = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    final int seed = t;
                    tasks.add(() -> {
                        int hits = 0;
                        int fp = 0;
                        for (int rep = 0; rep < 3; rep++) {
                            for (int i = 0; i < KEYS.length; i++) {
                                byte[] k = KEYS[(i + seed * 977) % KEYS.length];
                                hits += (seed % 2 == 0 ? f.mayMatch(k) : f.mayMatchHash(RocksFilter.hash64(k))
                                        || policy == Policy.LEGACY_BLOOM) ? 1 : 0;
                            }
                            for (byte[] k : ABSENT) {
                                fp += f.mayMatch(k) ? 1 : 0;
                            }
                            boolean[] batch = f.mayMatchBatch(KEYS);
                            for (boolean x : batch) {
                                hits += x ? 1 : 0;
                            }
                        }
                        return new int[] {hits, fp};
                    });
                }
                int totalQueries = 0;
                for (Future<int[]> r : pool.invokeAll(tasks)) {
                    int[] v = r.get();
                    assertEquals(3 * 2 * KEYS.length, v[0], "every key matched in every thread");
                    assertEquals(3 * fpSingle, v[1], "same answers as single-threaded");
                    totalQueries += 3 * (2 * KEYS.length + ABSENT.length);
                }
                System.out.printf("8 threads on one %s filter: %d queries, all consistent%n", policy, totalQueries);
                assertEquals(8 * 3 * (2 * KEYS.length + ABSENT.length), totalQueries);
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void leakedHandlesAreCleaned() throws Exception {
        // No assertion on GC timing: this exercises the Cleaner path (a double free would crash).
        for (int i = 0; i < 1000; i++) {
            Filter.load(build(Policy.BLOOM, 10, new byte[][] {TestKeys.utf8("k" + i)}));
            new FilterBuilder(Policy.RIBBON, 10).add(TestKeys.utf8("x"));
        }
        System.gc();
        Thread.sleep(50);
        // Still fully usable afterwards.
        try (Filter f = Filter.load(build(Policy.BLOOM, 10, KEYS))) {
            assertTrue(Arrays.stream(KEYS).allMatch(f::mayMatch));
        }
    }
}
