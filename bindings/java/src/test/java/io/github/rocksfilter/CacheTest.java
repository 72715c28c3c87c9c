package io.github.rocksfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BloomFilter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Cache} and the opens with {@link SstOptions} (both backends): handles opened with a small
 * cache answer exactly as handles that hold their whole filter, on partitioned files RocksJava
 * writes with hundreds of partitions, by path and through a {@link RangeReader}, single, batch and
 * arena queries, from one thread and from many while the cache stays within its capacity; a
 * reader that fails after the open makes queries answer "may match" and is counted; the reader is
 * kept while the handle lives and released exactly once; closing the cache first is harmless;
 * misuse fails with the library's message.
 */
class CacheTest {
    static final int STEP = RocksJavaInteropTest.STEP;
    static final int N = 200_000;
    static final byte[][] KEYS = TestKeys.sorted(N, STEP);
    static final byte[][] ABSENT = TestKeys.absent(N, STEP);
    /** The cache of most tests: 16 KiB, far less than the filters (about 250 KB per file). */
    static final long SMALL = 16 << 10;

    @TempDir
    static Path tmp;
    static Path bloom;
    static Path ribbon;
    static Path fullSmall;
    static Path fullLarge;
    static Path prefixOnly;
    static final List<String> SUMMARY = new ArrayList<>();

    @BeforeAll
    static void writeFiles() throws Exception {
        RocksDB.loadLibrary();
        try (Options b = RocksJavaInteropTest.partitionedOptions(new RocksJavaInteropTest.Partitioned(
                "partitioned-bloom10", () -> new BloomFilter(10), null, 5));
             Options r = RocksJavaInteropTest.partitionedOptions(new RocksJavaInteropTest.Partitioned(
                     "partitioned-ribbon10", null, "ribbonfilter:10", 7));
             Options full = SstSourceTest.bloomOptions()) {
            bloom = RocksJavaInteropTest.writeSst(tmp, "partitioned-bloom10-200k", b, KEYS);
            ribbon = RocksJavaInteropTest.writeSst(tmp, "partitioned-ribbon10-200k", r, KEYS);
            fullSmall = RocksJavaInteropTest.writeSst(tmp, "full-bloom10-2000", full, TestKeys.sorted(2000, STEP));
            fullLarge = RocksJavaInteropTest.writeSst(tmp, "full-bloom10-20k", full, TestKeys.sorted(20_000, STEP));
        }
        prefixOnly = SstBatchTest.write(SstBatchTest.configs().filter(c -> c.prefixOnly()).findFirst().orElseThrow(), tmp);
    }

    @AfterAll
    static void summary() {
        System.out.println("==== Sst opened with a Cache ====");
        SUMMARY.forEach(System.out::println);
    }

    static void log(String line) {
        System.out.println(line);
        synchronized (SUMMARY) {
            SUMMARY.add(line);
        }
    }

    /** Absent and present keys interleaved in no order, so that consecutive queries need different partitions. */
    static byte[][] scattered(int n, long seed) {
        Random rnd = new Random(seed);
        byte[][] p = new byte[n][];
        for (int i = 0; i < n; i++) {
            p[i] = (i % 2 == 0 ? ABSENT : KEYS)[rnd.nextInt(N)];
        }
        return p;
    }

    static byte[][] concat(byte[][] a, byte[][] b) {
        byte[][] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    static boolean[] single(Sst sst, byte[][] keys) {
        boolean[] out = new boolean[keys.length];
        for (int i = 0; i < keys.length; i++) {
            out[i] = sst.mayMatch(keys[i]);
        }
        return out;
    }

    /** The keys packed into one array with their offsets, for {@link Sst#mayMatchPacked}. */
    static boolean[] arena(Sst sst, byte[][] keys) {
        long[] offsets = new long[keys.length + 1];
        int total = 0;
        for (int i = 0; i < keys.length; i++) {
            total += keys[i].length;
            offsets[i + 1] = total;
        }
        byte[] buf = new byte[total + 7];
        // Start at 7: the first offset need not be 0.
        for (int i = 0; i < keys.length; i++) {
            System.arraycopy(keys[i], 0, buf, 7 + (int) offsets[i], keys[i].length);
        }
        for (int i = 0; i <= keys.length; i++) {
            offsets[i] += 7;
        }
        boolean[] out = new boolean[keys.length];
        sst.mayMatchPacked(buf, offsets, out);
        return out;
    }

    /** A reader over a channel that counts its calls and how many run at once, and fails on demand. */
    static final class TestReader implements RangeReader {
        enum Mode { READ, THROW_IO, THROW_RUNTIME, THROW_ERROR, FILL_NOTHING, FILL_HALF }

        final RangeReader file;
        volatile Mode mode = Mode.READ;
        final AtomicLong calls = new AtomicLong();
        final AtomicInteger active = new AtomicInteger();
        final AtomicInteger maxActive = new AtomicInteger();

        TestReader(FileChannel ch) {
            this.file = Readers.reader(ch);
        }

        @Override
        public void readFully(long offset, ByteBuffer dst) throws IOException {
            calls.incrementAndGet();
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            try {
                switch (mode) {
                    case READ:
                        file.readFully(offset, dst);
                        break;
                    case THROW_IO:
                        throw new IOException("test: read of " + dst.remaining() + " bytes at " + offset + " fails");
                    case THROW_RUNTIME:
                        throw new IllegalStateException("test: a bug in the reader");
                    case THROW_ERROR:
                        throw new AssertionError("test: an Error from the reader");
                    case FILL_NOTHING:
                        break;
                    case FILL_HALF:
                        dst.limit(dst.limit() / 2);
                        file.readFully(offset, dst);
                        break;
                    default:
                        throw new AssertionError(mode);
                }
            } finally {
                active.decrementAndGet();
            }
        }
    }

    /** Every way a query can go: single, batch, arena, in key order and scattered: all equal {@code want}'s. */
    static void assertSameAnswers(String what, Sst want, Sst got, byte[][] scattered) {
        assertEquals(want.filterType(), got.filterType(), what);
        assertEquals(want.properties(), got.properties(), what);
        for (byte[][] keys : new byte[][][] {KEYS, ABSENT}) {
            boolean[] expected = want.mayMatchBatch(keys);
            assertArrayEquals(expected, single(got, keys), what + ": single queries in key order");
            assertArrayEquals(expected, got.mayMatchBatch(keys), what + ": one batch in key order");
        }
        boolean[] expected = single(want, scattered);
        assertArrayEquals(expected, single(got, scattered), what + ": single queries, scattered");
        assertArrayEquals(expected, got.mayMatchBatch(scattered), what + ": batch, scattered");
        assertArrayEquals(expected, arena(got, scattered), what + ": arena batch, scattered");
        for (int size : new int[] {1, 17, 4096, 4097}) {
            for (int off = 0; off + size <= scattered.length; off += size * 5 + 1) {
                byte[][] part = Arrays.copyOfRange(scattered, off, off + size);
                assertArrayEquals(Arrays.copyOfRange(expected, off, off + size), got.mayMatchBatch(part),
                        what + ": batch of " + size + " at " + off);
            }
        }
    }

    @Test
    void smallCacheAnswersAsUncached() throws Exception {
        byte[][] scattered = scattered(20_000, 1);
        for (Path path : List.of(bloom, ribbon)) {
            try (Sst whole = Sst.open(path); FileChannel ch = FileChannel.open(path)) {
                int partitions = whole.properties().numPartitions();
                assertTrue(partitions >= 300, path + ": " + partitions + " partitions");
                for (String how : List.of("path", "reader", "reader+cacheFullFilters")) {
                    try (Cache cache = new Cache(SMALL)) {
                        SstOptions opts = new SstOptions().withCache(cache).withCacheFullFilters(how.endsWith("Filters"));
                        TestReader reader = new TestReader(ch);
                        try (Sst cached = how.equals("path") ? Sst.open(path, opts) : Sst.open(reader, ch.size(), opts)) {
                            SstOpenStats open = cached.openStats();
                            // Its separators and their lookup tables, not the partitions.
                            assertTrue(open.bytesHeld() > 0 && open.bytesHeld() < whole.openStats().bytesHeld(),
                                    "the handle keeps the partition index only: " + open + " vs " + whole.openStats());
                            assertEquals(0, cache.bytesHeld(), "nothing is read before a query needs it");
                            assertSameAnswers(path.getFileName() + " " + how, whole, cached, scattered);
                            CacheStats st = cache.stats();
                            assertEquals(SMALL, st.capacity());
                            assertEquals(SMALL, cache.capacity());
                            assertTrue(st.bytesHeld() <= SMALL && st.bytesHeld() > 0, st.toString());
                            assertEquals(st.bytesHeld(), cache.bytesHeld());
                            assertTrue(st.misses() >= partitions && st.hits() > st.misses(), st.toString());
                            assertTrue(st.reads() > 0 && st.evictions() > 0 && st.entries() > 0, st.toString());
                            assertEquals(0, st.readErrors(), st.toString());
                            assertEquals(0, st.badBlocks(), st.toString());
                            if (!how.equals("path")) {
                                assertEquals(st.reads() + open.reads(), reader.calls.get(),
                                        "each block read is one reader call, from the querying thread");
                            }
                            log(String.format("%-31s %-24s %d partitions, handle holds %6d bytes (uncached: %6d): %s",
                                    path.getFileName(), how, partitions, open.bytesHeld(), whole.openStats().bytesHeld(), st));
                        }
                    }
                }
            }
        }
    }

    @Test
    void fullFiltersAndPrefixes() throws Exception {
        try (Cache cache = new Cache(SMALL)) {
            // A full filter that fits goes to the cache with cacheFullFilters (else the handle keeps it).
            try (Sst whole = Sst.open(fullSmall);
                 Sst kept = Sst.open(fullSmall, new SstOptions().withCache(cache));
                 Sst cached = Sst.open(fullSmall, new SstOptions().withCache(cache).withCacheFullFilters(true))) {
                assertEquals(whole.openStats(), kept.openStats(), "without cacheFullFilters a full filter is read at open");
                assertTrue(cached.openStats().bytesHeld() < whole.openStats().bytesHeld(), cached.openStats().toString());
                byte[][] probes = concat(TestKeys.sorted(2000, STEP), TestKeys.absent(2000, STEP));
                boolean[] want = single(whole, probes);
                assertArrayEquals(want, single(kept, probes));
                assertArrayEquals(want, single(cached, probes));
                assertArrayEquals(want, cached.mayMatchBatch(probes));
                assertEquals(1, cache.stats().entries(), cache.stats().toString());
                try (Filter a = whole.fullFilter().orElseThrow(); Filter b = cached.fullFilter().orElseThrow()) {
                    assertArrayEquals(a.bytes(), b.bytes(), "the full filter is read through the cache and copied");
                }
            }
            // One larger than the cache is read by each query that needs it, never cached.
            try (Sst whole = Sst.open(fullLarge);
                 Sst cached = Sst.open(fullLarge, new SstOptions().withCache(cache).withCacheFullFilters(true))) {
                long uncached = cache.stats().uncached();
                byte[][] probes = concat(TestKeys.sorted(20_000, STEP), TestKeys.absent(20_000, STEP));
                assertArrayEquals(whole.mayMatchBatch(probes), cached.mayMatchBatch(probes));
                byte[][] few = Arrays.copyOfRange(probes, 19_900, 20_100);
                assertArrayEquals(single(whole, few), single(cached, few));
                assertTrue(cache.stats().uncached() >= uncached + 201, cache.stats().toString());
                assertTrue(cache.bytesHeld() <= SMALL);
            }
        }
        // Prefix queries (a prefix-only partitioned file) read partitions too.
        try (Cache cache = new Cache(4 << 10); Sst whole = Sst.open(prefixOnly);
             Sst cached = Sst.open(prefixOnly, new SstOptions().withCache(cache))) {
            assertEquals(SstFilterType.PARTITIONED, cached.filterType());
            for (byte[] k : concat(SstBatchTest.KEYS, SstBatchTest.ABSENT)) {
                byte[] prefix = Arrays.copyOf(k, 11);
                assertEquals(whole.prefixMayMatch(prefix), cached.prefixMayMatch(prefix));
                assertEquals(whole.mayMatch(k), cached.mayMatch(k));
            }
            RocksFilterException e = assertThrows(RocksFilterException.class, () -> cached.prefixMayMatch(new byte[3]));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertEquals(assertThrows(RocksFilterException.class, () -> whole.prefixMayMatch(new byte[3])).getMessage(),
                    e.getMessage());
            assertTrue(cache.stats().misses() > 0 && cache.bytesHeld() <= 4 << 10, cache.stats().toString());
        }
        // A mapping (no cache) answers as a read file.
        try (Sst whole = Sst.open(bloom); Sst mapped = Sst.open(bloom, new SstOptions().withMmap(true))) {
            // The filter's bytes are the mapping's; the handle holds its
            // separators and their lookup tables, not the partitions.
            assertTrue(mapped.openStats().bytesHeld() > 0
                    && mapped.openStats().bytesHeld() < whole.openStats().bytesHeld(),
                    mapped.openStats() + " vs " + whole.openStats());
            byte[][] probes = scattered(5000, 2);
            assertArrayEquals(single(whole, probes), single(mapped, probes));
            assertArrayEquals(whole.mayMatchBatch(probes), mapped.mayMatchBatch(probes));
        }
    }

    @Test
    void readerFailingAfterTheOpenAnswersMayMatch() throws Exception {
        byte[][] sample = new byte[N / 20][];
        byte[][] absentSample = new byte[N / 20][];
        for (int i = 0; i < sample.length; i++) {
            sample[i] = KEYS[i * 20];
            absentSample[i] = ABSENT[i * 20];
        }
        try (Sst whole = Sst.open(bloom); FileChannel ch = FileChannel.open(bloom)) {
            for (TestReader.Mode mode : TestReader.Mode.values()) {
                if (mode == TestReader.Mode.READ) {
                    continue;
                }
                try (Cache cache = new Cache(SMALL)) {
                    TestReader reader = new TestReader(ch);
                    try (Sst sst = Sst.open(reader, ch.size(), new SstOptions().withCache(cache))) {
                        reader.mode = mode;
                        long before = reader.calls.get();
                        for (byte[] k : sample) {
                            assertTrue(sst.mayMatch(k), mode + ": a key in the file answered absent");
                        }
                        boolean[] all = sst.mayMatchBatch(KEYS);
                        for (int i = 0; i < N; i++) {
                            assertTrue(all[i], mode + ": a key in the file answered absent in a batch");
                        }
                        // Nothing could be read: every absent key may match too.
                        for (byte[] k : absentSample) {
                            assertTrue(sst.mayMatch(k), mode.toString());
                        }
                        CacheStats st = cache.stats();
                        assertTrue(st.readErrors() > 0, mode + ": " + st);
                        assertEquals(reader.calls.get() - before, st.readErrors(), mode + ": each failed read is counted");
                        assertEquals(0, st.entries(), mode + ": nothing cached: " + st);
                        // The reader recovers: reads are asked again, the answers are the file's.
                        reader.mode = TestReader.Mode.READ;
                        assertArrayEquals(whole.mayMatchBatch(absentSample), sst.mayMatchBatch(absentSample), mode.toString());
                        assertArrayEquals(single(whole, absentSample), single(sst, absentSample), mode.toString());
                        assertEquals(st.readErrors(), cache.stats().readErrors());
                        log(String.format("reader failing after the open (%s): %s", mode, st));
                    }
                }
            }
        }
    }

    /** A handle opened through a reader no one else references; the weak reference tells when the library drops it. */
    record Kept(Sst sst, WeakReference<RangeReader> reader) {
    }

    static Kept openKept(FileChannel ch, SstOptions opts) throws IOException {
        RangeReader reader = new TestReader(ch);
        return new Kept(Sst.open(reader, ch.size(), opts), new WeakReference<>(reader));
    }

    static boolean clearedAfterGc(WeakReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 200 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        return ref.get() == null;
    }

    static long released() {
        return Readers.Call.RELEASED.get();
    }

    @Test
    void readerIsKeptWhileTheHandleLivesAndReleasedOnce() throws Exception {
        assertEquals(0, Readers.Call.RELEASED_AGAIN.get());
        try (Cache cache = new Cache(SMALL); FileChannel ch = FileChannel.open(ribbon)) {
            SstOptions opts = new SstOptions().withCache(cache);
            long r0 = released();
            List<Kept> kept = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                kept.add(openKept(ch, opts));
            }
            assertEquals(r0, released(), "a handle with a cache keeps its reader");
            for (int i = 0; i < 5; i++) {
                System.gc();
            }
            for (Kept k : kept) {
                assertNotNull(k.reader().get(), "the library holds the reader while the handle is open");
                assertTrue(k.sst().mayMatchBatch(KEYS)[N - 1]);
            }
            for (int i = 0; i < kept.size(); i++) {
                kept.get(i).sst().close();
                kept.get(i).sst().close(); // idempotent
                assertEquals(r0 + i + 1, released(), "closing the handle releases its reader, once");
            }
            for (Kept k : kept) {
                assertTrue(clearedAfterGc(k.reader()), "the library no longer references a released reader");
            }
            // Without a cache, and when the open fails, the reader is released before the open returns.
            long r1 = released();
            try (Sst plain = Sst.open(new TestReader(ch), ch.size(), new SstOptions())) {
                assertEquals(r1 + 1, released());
                assertTrue(plain.mayMatch(KEYS[0]));
            }
            TestReader failing = new TestReader(ch);
            failing.mode = TestReader.Mode.THROW_IO;
            RocksFilterException e = assertThrows(RocksFilterException.class, () -> Sst.open(failing, ch.size(), opts));
            assertEquals(Status.IO_ERROR, e.status());
            assertInstanceOf(IOException.class, e.getCause());
            assertEquals(r1 + 2, released());
            assertThrows(RocksFilterException.class,
                    () -> Sst.open(new TestReader(ch), ch.size(), new SstOptions().withCacheFullFilters(true)));
            assertEquals(r1 + 3, released(), "a refused open releases the reader too");
            // A handle never closed: the Cleaner frees it, which releases the reader.
            leak(ch, opts);
            for (int i = 0; i < 500 && released() != r1 + 4; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertEquals(r1 + 4, released(), "a leaked handle's reader is released when the Cleaner frees it");
        }
        assertEquals(0, Readers.Call.RELEASED_AGAIN.get(), "no reader released twice");
    }

    private static void leak(FileChannel ch, SstOptions opts) throws IOException {
        Kept k = openKept(ch, opts);
        assertTrue(k.sst().mayMatch(KEYS[1]));
    }

    @Test
    void concurrentQueriesStayWithinTheBudget() throws Exception {
        int threads = 8;
        List<Path> paths = List.of(bloom, ribbon);
        byte[][] probes = scattered(8000, 3);
        List<boolean[]> want = new ArrayList<>();
        for (Path p : paths) {
            try (Sst whole = Sst.open(p)) {
                want.add(single(whole, probes));
            }
        }
        try (Cache cache = new Cache(SMALL); FileChannel ch0 = FileChannel.open(bloom); FileChannel ch1 = FileChannel.open(ribbon)) {
            SstOptions opts = new SstOptions().withCache(cache);
            TestReader r0 = new TestReader(ch0);
            TestReader r1 = new TestReader(ch1);
            List<Sst> handles = List.of(Sst.open(bloom, opts), Sst.open(ribbon, opts), Sst.open(r0, ch0.size(), opts),
                    Sst.open(r1, ch1.size(), opts));
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong maxHeld = new AtomicLong();
            AtomicLong samples = new AtomicLong();
            Thread monitor = new Thread(() -> {
                while (!done.get()) {
                    maxHeld.accumulateAndGet(cache.bytesHeld(), Math::max);
                    samples.incrementAndGet();
                    LockSupport.parkNanos(20_000);
                }
            });
            monitor.start();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int seed = t;
                    futures.add(pool.submit(() -> {
                        Random rnd = new Random(seed);
                        for (int round = 0; round < 3; round++) {
                            int h = rnd.nextInt(handles.size());
                            Sst sst = handles.get(h);
                            boolean[] expected = want.get(h % 2);
                            int from = rnd.nextInt(probes.length / 2);
                            int to = from + probes.length / 2;
                            for (int i = from; i < to; i++) {
                                assertEquals(expected[i], sst.mayMatch(probes[i]), "probe " + i);
                            }
                            assertArrayEquals(Arrays.copyOfRange(expected, from, to),
                                    sst.mayMatchBatch(Arrays.copyOfRange(probes, from, to)));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get();
                }
            } finally {
                pool.shutdown();
                done.set(true);
                monitor.join();
            }
            CacheStats st = cache.stats();
            assertTrue(maxHeld.get() <= SMALL, "bytes held peaked at " + maxHeld.get());
            assertTrue(st.evictions() > 0 && st.readErrors() == 0, st.toString());
            log(String.format("%d threads on 4 handles sharing a %d-byte cache: bytesHeld peaked at %d (%d samples);"
                            + " reader calls at once: at most %d; %s", threads, SMALL, maxHeld.get(), samples.get(),
                    Math.max(r0.maxActive.get(), r1.maxActive.get()), st));
            for (Sst h : handles) {
                h.close();
            }
        }
    }

    @Test
    void closingTheCacheFirstIsHarmless() throws Exception {
        byte[][] probes = scattered(5000, 4);
        try (Sst whole = Sst.open(bloom); FileChannel ch = FileChannel.open(bloom)) {
            boolean[] want = single(whole, probes);
            Cache cache = new Cache(SMALL);
            SstOptions opts = new SstOptions().withCache(cache);
            Sst byPath = Sst.open(bloom, opts);
            Sst byReader = Sst.open(new TestReader(ch), ch.size(), opts);
            assertArrayEquals(want, single(byPath, probes));
            cache.close();
            cache.close();
            assertTrue(cache.isClosed());
            assertThrows(IllegalStateException.class, cache::bytesHeld);
            assertThrows(IllegalStateException.class, cache::stats);
            assertThrows(IllegalStateException.class, cache::capacity);
            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> Sst.open(bloom, opts));
            assertEquals("Cache is closed", closed.getMessage());
            assertThrows(IllegalStateException.class, () -> Sst.open(new TestReader(ch), ch.size(), opts));
            // The handles keep the cache alive: they go on reading into it and answering.
            assertArrayEquals(want, single(byPath, probes));
            assertArrayEquals(want, byReader.mayMatchBatch(probes));
            assertArrayEquals(want, single(byReader, probes));
            byPath.close();
            assertArrayEquals(want, byReader.mayMatchBatch(probes));
            byReader.close();
            assertThrows(IllegalStateException.class, () -> byReader.mayMatch(KEYS[0]));
        }
    }

    @Test
    void misuse() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new Cache(-1));
        try (Cache empty = new Cache(0); Sst whole = Sst.open(bloom); Sst none = Sst.open(bloom, new SstOptions().withCache(empty))) {
            // A cache of 0 bytes holds nothing: every query reads.
            byte[][] probes = scattered(500, 5);
            assertArrayEquals(single(whole, probes), single(none, probes));
            assertEquals(0, empty.bytesHeld());
            assertTrue(empty.stats().uncached() > 0, empty.stats().toString());
        }
        try (Cache cache = new Cache(SMALL); FileChannel ch = FileChannel.open(bloom)) {
            RocksFilterException fullNoCache = assertThrows(RocksFilterException.class,
                    () -> Sst.open(bloom, new SstOptions().withCacheFullFilters(true)));
            assertEquals(Status.INVALID_ARGUMENT, fullNoCache.status());
            assertEquals("invalid argument: ROCKSFILTER_SST_CACHE_FULL_FILTERS needs a cache (rocksfilter_sst_options.cache is NULL)",
                    fullNoCache.getMessage());
            assertEquals(fullNoCache.getMessage(), fullNoCache.nativeMessage());
            RocksFilterException readerFullNoCache = assertThrows(RocksFilterException.class,
                    () -> Sst.open(new TestReader(ch), ch.size(), new SstOptions().withCacheFullFilters(true)));
            assertEquals(Status.INVALID_ARGUMENT, readerFullNoCache.status());
            assertEquals(fullNoCache.getMessage(), readerFullNoCache.getMessage());
            assertNull(readerFullNoCache.getCause(), "the reader was not called");
            RocksFilterException mmapCache = assertThrows(RocksFilterException.class,
                    () -> Sst.open(bloom, new SstOptions().withCache(cache).withMmap(true)));
            assertEquals(Status.INVALID_ARGUMENT, mmapCache.status());
            assertEquals("invalid argument: a cache and a memory-mapped file exclude each other: a mapping's pages are the"
                    + " page cache's, not the filter cache's", mmapCache.getMessage());
            RocksFilterException mmapReader = assertThrows(RocksFilterException.class,
                    () -> Sst.open(new TestReader(ch), ch.size(), new SstOptions().withMmap(true)));
            assertEquals(Status.INVALID_ARGUMENT, mmapReader.status());
            assertTrue(mmapReader.getMessage().startsWith("invalid argument: flags 0x2 apply only to"), mmapReader.getMessage());
            // The same misuse through a missing file: the options are refused first.
            Path missing = tmp.resolve("missing.sst");
            assertEquals(mmapCache.getMessage(), assertThrows(RocksFilterException.class,
                    () -> Sst.open(missing, new SstOptions().withCache(cache).withMmap(true))).getMessage());
            RocksFilterException io = assertThrows(RocksFilterException.class, () -> Sst.open(missing, new SstOptions().withCache(cache)));
            assertEquals(Status.IO_ERROR, io.status());
            assertThrows(NullPointerException.class, () -> Sst.open(bloom, (SstOptions) null));
            assertThrows(NullPointerException.class, () -> Sst.open((RangeReader) null, 1, new SstOptions()));
            assertThrows(IllegalArgumentException.class, () -> Sst.open(new TestReader(ch), -1, new SstOptions().withCache(cache)));
            // Bad offsets of an arena batch: the same status and message as a handle without a cache.
            try (Sst whole = Sst.open(bloom); Sst cached = Sst.open(bloom, new SstOptions().withCache(cache))) {
                for (long[] offsets : new long[][] {{0, 13, 5}, {0, 13, 99}, {-1, 13}, {20, 10, 30}}) {
                    byte[] keys = Arrays.copyOf(KEYS[0], 40);
                    boolean[] a = new boolean[offsets.length - 1];
                    boolean[] b = new boolean[offsets.length - 1];
                    RocksFilterException want = assertThrows(RocksFilterException.class, () -> whole.mayMatchPacked(keys, offsets, a));
                    RocksFilterException got = assertThrows(RocksFilterException.class, () -> cached.mayMatchPacked(keys, offsets, b));
                    assertEquals(Status.INVALID_ARGUMENT, got.status());
                    assertEquals(want.getMessage(), got.getMessage());
                    assertArrayEquals(a, b, "every answer true");
                }
            }
            // Unverified opens with a cache answer the same (the file is intact).
            try (Sst whole = Sst.open(bloom);
                 Sst unverified = Sst.open(bloom, new SstOptions().withCache(cache).withVerifyChecksums(false))) {
                byte[][] probes = scattered(2000, 6);
                assertArrayEquals(single(whole, probes), single(unverified, probes));
            }
            SstOptions o = new SstOptions().withCache(cache).withCacheFullFilters(true).withVerifyChecksums(false);
            assertSame(cache, o.cache());
            assertTrue(o.cacheFullFilters() && !o.verifyChecksums() && !o.mmap());
            assertFalse(new SstOptions().cacheFullFilters());
            assertNull(new SstOptions().cache());
        }
    }

    @Test
    void fileReplacedUnderAHandleAnswersMayMatch() throws Exception {
        Path copy = tmp.resolve("replaced.sst");
        Files.copy(bloom, copy);
        try (Cache cache = new Cache(SMALL); Sst sst = Sst.open(copy, new SstOptions().withCache(cache))) {
            Files.delete(copy);
            boolean[] all = sst.mayMatchBatch(ABSENT);
            for (boolean b : all) {
                assertTrue(b, "nothing can be read: every key may match");
            }
            assertTrue(cache.stats().readErrors() > 0, cache.stats().toString());
        }
    }

    @Test
    void filesKeptOpenAnswerAsOpenedAfterADelete() throws Exception {
        for (long maxOpenFiles : new long[] {128, 0}) {
            Path copy = tmp.resolve("kept-" + maxOpenFiles + ".sst");
            Files.copy(bloom, copy);
            try (Cache cache = new Cache(SMALL, maxOpenFiles); Sst sst = Sst.open(copy, new SstOptions().withCache(cache));
                    Sst loaded = Sst.open(bloom)) {
                sst.mayMatch(ABSENT[0]);
                assertEquals(maxOpenFiles > 0 ? 1 : 0, cache.stats().openFiles(), cache.stats().toString());
                Files.delete(copy);
                boolean[] got = sst.mayMatchBatch(ABSENT);
                boolean[] want = loaded.mayMatchBatch(ABSENT);
                if (maxOpenFiles > 0) {
                    // The file kept open is the one opened: the old answers, no errors.
                    assertArrayEquals(want, got);
                    assertEquals(0, cache.stats().readErrors(), cache.stats().toString());
                } else {
                    // What was cached before the delete answers as opened; the rest may match.
                    for (int i = 0; i < got.length; i++) {
                        assertTrue(got[i] || !want[i], "key " + i + ": absent here, may match when loaded");
                    }
                    assertTrue(cache.stats().readErrors() > 0, cache.stats().toString());
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new Cache(SMALL, -1));
    }
}
