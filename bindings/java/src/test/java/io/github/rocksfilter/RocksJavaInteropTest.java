package io.github.rocksfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.EnvOptions;
import org.rocksdb.IndexType;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interop with real RocksDB through RocksJava (org.rocksdb:rocksdbjni, test scope only).
 *
 * <p>Direction 1 (RocksDB writes, we read and rebuild): RocksJava's SstFileWriter writes an SST;
 * our FilterBuilder, given the same keys in the same order, must produce the exact bytes of the
 * full filter block RocksDB wrote; our Sst must match every key.
 *
 * <p>Direction 2 (RocksDB observes): the same file is ingested into a RocksDB database opened with
 * the same options and statistics; for each absent key, a Get bumps BLOOM_FILTER_USEFUL exactly
 * when RocksDB's own filter reader rejected the key. We assert, key by key, that RocksDB's
 * decision equals our Sst.mayMatch. Where the blocks are byte-identical this also means
 * RocksDB's reader, run on our builder's bytes, answers as our reader does.
 */
class RocksJavaInteropTest {
    static final int N = 20_000;
    static final int STEP = 7;
    static final int ABSENT_N = 100_000;
    static final byte[][] KEYS = TestKeys.sorted(N, STEP);
    static final byte[][] ABSENT = TestKeys.absent(ABSENT_N, STEP);
    static final byte[] VALUE = TestKeys.utf8("v");

    static final AtomicLong KEYS_CHECKED = new AtomicLong();
    static final AtomicLong BYTES_COMPARED = new AtomicLong();
    static final AtomicLong ORACLE_KEYS = new AtomicLong();
    static final List<String> SUMMARY = new ArrayList<>();

    @TempDir
    static Path tmp;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    @AfterAll
    static void summary() {
        System.out.println("==== RocksJava " + RocksDB.rocksdbVersion() + " interop summary ====");
        SUMMARY.forEach(System.out::println);
        System.out.printf("totals: %d keys checked through Sst, %d filter bytes compared, %d absent keys"
                + " checked against RocksDB's own filter decision%n", KEYS_CHECKED.get(), BYTES_COMPARED.get(),
                ORACLE_KEYS.get());
        // Each test adds whole key sets; a partial count would mean a loop stopped early.
        assertEquals(0, KEYS_CHECKED.get() % N, "keys checked come in sets of " + N);
        assertEquals(0, ORACLE_KEYS.get() % ABSENT_N, "oracle keys come in sets of " + ABSENT_N);
    }

    /** A RocksJava configuration whose full filter we must reproduce byte for byte. */
    record Exact(String name, Policy policy, double bpk, int formatVersion, String filterPolicyString) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Exact> exactConfigs() {
        return Stream.of(
                new Exact("bloom10-fv5", Policy.BLOOM, 10, 5, null),
                new Exact("bloom5.5-fv5", Policy.BLOOM, 5.5, 5, null),
                new Exact("bloom16-fv6", Policy.BLOOM, 16, 6, null),
                new Exact("bloom10-fv7", Policy.BLOOM, 10, 7, null),
                new Exact("ribbon10-fv5", Policy.RIBBON, 10, 5, "ribbonfilter:10"),
                new Exact("ribbon7-fv6", Policy.RIBBON, 7, 6, "ribbonfilter:7"),
                new Exact("ribbon10-fv7", Policy.RIBBON, 10, 7, "ribbonfilter:10"),
                new Exact("legacy-bloom10-fv4", Policy.LEGACY_BLOOM, 10, 4, null),
                new Exact("legacy-bloom10-fv2", Policy.LEGACY_BLOOM, 10, 2, null));
    }

    /** Options for a config: the Java API for Bloom, an options string for Ribbon (not exposed in RocksJava). */
    static Options options(Exact c) throws RocksDBException {
        if (c.filterPolicyString() == null) {
            BlockBasedTableConfig t = new BlockBasedTableConfig()
                    .setFilterPolicy(new BloomFilter(c.bpk()))
                    .setFormatVersion(c.formatVersion())
                    .setOptimizeFiltersForMemory(false);
            return new Options().setCreateIfMissing(true).setTableFormatConfig(t);
        }
        return optionsFromString("{filter_policy=" + c.filterPolicyString() + ";format_version=" + c.formatVersion()
                + ";optimize_filters_for_memory=false}");
    }

    static Options optionsFromString(String blockBasedTableFactory) throws RocksDBException {
        Properties p = new Properties();
        p.setProperty("block_based_table_factory", blockBasedTableFactory);
        try (ConfigOptions co = new ConfigOptions(); DBOptions db = new DBOptions().setCreateIfMissing(true)) {
            ColumnFamilyOptions cf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(co, p);
            assertNotNull(cf, "RocksJava rejected options " + blockBasedTableFactory);
            try (cf) {
                return new Options(db, cf);
            }
        }
    }

    static Path writeSst(String name, Options opts, byte[][] keys) throws RocksDBException {
        return writeSst(tmp, name, opts, keys);
    }

    /** Writes {@code keys} (sorted) with value "v" into {@code dir/name.sst} with RocksJava's SstFileWriter. */
    static Path writeSst(Path dir, String name, Options opts, byte[][] keys) throws RocksDBException {
        Path path = dir.resolve(name + ".sst");
        try (EnvOptions env = new EnvOptions(); SstFileWriter w = new SstFileWriter(env, opts)) {
            w.open(path.toString());
            for (byte[] k : keys) {
                w.put(k, VALUE);
            }
            w.finish();
        }
        return path;
    }

    static int assertEveryKeyMatches(Sst sst, byte[][] keys) {
        int n = 0;
        for (byte[] k : keys) {
            assertTrue(sst.mayMatch(k), () -> "false negative for " + new String(k));
            n++;
        }
        KEYS_CHECKED.addAndGet(n);
        return n;
    }

    /**
     * Ingests {@code sst} into a fresh DB opened with {@code opts} plus statistics, and compares
     * RocksDB's per-key filter decision (BLOOM_FILTER_USEFUL) with ours for every absent key.
     *
     * @return number of absent keys RocksDB's filter rejected
     */
    static long rocksDbAgrees(String name, Options opts, Path sst, Sst ours, byte[][] absent) throws Exception {
        Path dbDir = tmp.resolve(name + "-db");
        try (Statistics stats = new Statistics(); Options o = new Options(opts)) {
            o.setCreateIfMissing(true).setStatistics(stats);
            try (RocksDB db = RocksDB.open(o, dbDir.toString());
                 IngestExternalFileOptions ifo = new IngestExternalFileOptions()) {
                db.ingestExternalFile(List.of(sst.toString()), ifo);
                long rejected = 0;
                for (byte[] k : absent) {
                    long before = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
                    byte[] v = db.get(k);
                    long after = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
                    assertEquals(null, v, "absent key found");
                    boolean rocksRejected = after - before == 1;
                    assertEquals(!rocksRejected, ours.mayMatch(k),
                            () -> name + ": RocksDB and rocksfilter disagree on " + new String(k));
                    rejected += rocksRejected ? 1 : 0;
                }
                for (int i = 0; i < KEYS.length; i += 97) {
                    assertArrayEquals(VALUE, db.get(KEYS[i]));
                }
                ORACLE_KEYS.addAndGet(absent.length);
                return rejected;
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactConfigs")
    void fullFilterIsByteIdentical(Exact c) throws Exception {
        byte[] ours;
        try (FilterBuilder b = new FilterBuilder(c.policy(), c.bpk())) {
            for (byte[] k : KEYS) {
                b.add(k);
            }
            ours = b.finish();
        }
        Path sst;
        try (Options opts = options(c)) {
            sst = writeSst(c.name(), opts, KEYS);
            try (Sst file = Sst.open(sst)) {
                SstProperties p = file.properties();
                assertEquals(c.formatVersion(), p.formatVersion());
                assertEquals(SstFilterType.FULL, file.filterType());
                assertEquals(SstFilterType.FULL, p.filterType());
                assertEquals(1, p.numPartitions());
                assertEquals(N, p.numEntries());
                assertTrue(p.filterPolicy().contains(c.policy() == Policy.RIBBON ? "ribbon" : "bloom"), p.filterPolicy());
                Optional<Filter> full = file.fullFilter();
                assertTrue(full.isPresent());
                try (Filter rocks = full.get(); Filter mine = Filter.load(ours)) {
                    byte[] theirs = rocks.bytes();
                    assertEquals(p.filterSize(), theirs.length, "rocksdb.filter.size");
                    assertArrayEquals(theirs, ours, c.name() + ": FilterBuilder bytes differ from RocksDB's block");
                    BYTES_COMPARED.addAndGet(theirs.length);
                    assertEquals(c.policy() == Policy.RIBBON ? Kind.STANDARD128_RIBBON
                            : c.policy() == Policy.BLOOM ? Kind.FAST_LOCAL_BLOOM : Kind.LEGACY_BLOOM, rocks.kind());
                    int matched = assertEveryKeyMatches(file, KEYS);
                    int fp = 0;
                    for (byte[] k : ABSENT) {
                        boolean a = file.mayMatch(k);
                        assertEquals(a, mine.mayMatch(k), "Sst vs our Filter");
                        assertEquals(a, rocks.mayMatch(k), "Sst vs its full filter");
                        fp += a ? 1 : 0;
                    }
                    long rejected = rocksDbAgrees(c.name(), opts, sst, file, ABSENT);
                    assertEquals(ABSENT_N - fp, rejected);
                    String line = String.format("%-20s fv=%d checksum=%d policy=%s block=%s kind=%s: %d filter bytes"
                                    + " IDENTICAL, %d keys matched, FP %d/%d, RocksDB agreed on %d absent keys",
                            c.name(), p.formatVersion(), p.checksumType(), p.filterPolicy(), p.filterBlockName(),
                            rocks.kind(), theirs.length, matched, fp, ABSENT_N, ABSENT_N);
                    System.out.println(line);
                    SUMMARY.add(line);
                    assertEquals(N, matched);
                }
            }
        }
    }

    /** RocksJava's defaults (only a filter policy set): format_version, checksum, optimize_filters_for_memory as shipped. */
    @Test
    void rocksJavaDefaults() throws Exception {
        BlockBasedTableConfig t = new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10));
        int defaultFv = t.formatVersion();
        boolean defaultOptimize = t.optimizeFiltersForMemory();
        try (Options opts = new Options().setCreateIfMissing(true).setTableFormatConfig(t)) {
            Path sst = writeSst("defaults-bloom", opts, KEYS);
            checkDefaultsFile("defaults-bloom10", opts, sst, defaultFv, defaultOptimize);
        }
        try (Options opts = optionsFromString("{filter_policy=ribbonfilter:10}")) {
            Path sst = writeSst("defaults-ribbon", opts, KEYS);
            checkDefaultsFile("defaults-ribbon10", opts, sst, defaultFv, defaultOptimize);
        }
    }

    private void checkDefaultsFile(String name, Options opts, Path sst, int defaultFv, boolean optimize) throws Exception {
        try (Sst file = Sst.open(sst)) {
            SstProperties p = file.properties();
            assertEquals(defaultFv, p.formatVersion(), "format_version RocksJava reports as default");
            assertTrue(p.formatVersion() >= 6, "10.10 defaults to format_version >= 6");
            assertEquals(4, p.checksumType(), "default checksum is XXH3");
            assertEquals(N, p.numEntries());
            assertEquals(SstFilterType.FULL, p.filterType());
            assertNotNull(p.comparator());
            assertEquals("leveldb.BytewiseComparator", p.comparator());
            int matched = assertEveryKeyMatches(file, KEYS);
            int fp = 0;
            byte[] theirs;
            Policy policy = name.contains("ribbon") ? Policy.RIBBON : Policy.BLOOM;
            try (Filter f = file.fullFilter().orElseThrow()) {
                theirs = f.bytes();
                for (byte[] k : ABSENT) {
                    boolean a = file.mayMatch(k);
                    assertEquals(a, f.mayMatch(k));
                    fp += a ? 1 : 0;
                }
            }
            byte[] ours = FilterTest.build(policy, 10, KEYS);
            long rejected = rocksDbAgrees(name, opts, sst, file, ABSENT);
            assertEquals(ABSENT_N - fp, rejected);
            String line = String.format("%-20s fv=%d checksum=%d optimize_filters_for_memory=%b policy=%s: RocksDB filter"
                            + " %d bytes, ours (unoptimized) %d bytes, identical=%b, %d keys matched, FP %d/%d,"
                            + " RocksDB agreed on %d absent keys",
                    name, p.formatVersion(), p.checksumType(), optimize, p.filterPolicy(), theirs.length, ours.length,
                    Arrays.equals(theirs, ours), matched, fp, ABSENT_N, ABSENT_N);
            System.out.println(line);
            SUMMARY.add(line);
            assertEquals(N, matched);
        }
    }

    record Partitioned(String name, Supplier<org.rocksdb.Filter> bloom, String ribbon, int fv) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Partitioned> partitionedConfigs() {
        return Stream.of(
                new Partitioned("partitioned-bloom10-fv5", () -> new BloomFilter(10), null, 5),
                new Partitioned("partitioned-bloom10-default-fv", () -> new BloomFilter(10), null, 0),
                new Partitioned("partitioned-ribbon10-fv5", null, "ribbonfilter:10", 5),
                new Partitioned("partitioned-ribbon10-fv7", null, "ribbonfilter:10", 7));
    }

    /** Options writing a partitioned filter (kTwoLevelIndexSearch, 512-byte metadata blocks) for {@code c}. */
    static Options partitionedOptions(Partitioned c) throws RocksDBException {
        if (c.bloom() != null) {
            BlockBasedTableConfig t = new BlockBasedTableConfig()
                    .setFilterPolicy(c.bloom().get())
                    .setPartitionFilters(true)
                    .setIndexType(IndexType.kTwoLevelIndexSearch)
                    .setMetadataBlockSize(512);
            if (c.fv() > 0) {
                t.setFormatVersion(c.fv());
            }
            return new Options().setCreateIfMissing(true).setTableFormatConfig(t);
        }
        return optionsFromString("{filter_policy=" + c.ribbon() + ";partition_filters=true;index_type=kTwoLevelIndexSearch"
                + ";metadata_block_size=512;format_version=" + c.fv() + "}");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("partitionedConfigs")
    void partitionedFilters(Partitioned c) throws Exception {
        try (Options opts = partitionedOptions(c)) {
            Path sst = writeSst(c.name(), opts, KEYS);
            try (Sst file = Sst.open(sst)) {
                SstProperties p = file.properties();
                assertEquals(SstFilterType.PARTITIONED, file.filterType());
                assertTrue(p.numPartitions() > 1, "partitions: " + p.numPartitions());
                assertTrue(file.fullFilter().isEmpty(), "NOT_FOUND maps to Optional.empty()");
                int matched = assertEveryKeyMatches(file, KEYS);
                int fp = 0;
                for (byte[] k : ABSENT) {
                    fp += file.mayMatch(k) ? 1 : 0;
                }
                final int fpSingle = fp;
                // The same Sst queried from 8 threads at once gives the same answers.
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
                try {
                    List<java.util.concurrent.Future<Integer>> rs = new ArrayList<>();
                    for (int t = 0; t < 8; t++) {
                        rs.add(pool.submit(() -> {
                            int x = 0;
                            for (byte[] k : KEYS) {
                                assertTrue(file.mayMatch(k));
                            }
                            for (byte[] k : ABSENT) {
                                x += file.mayMatch(k) ? 1 : 0;
                            }
                            return x;
                        }));
                    }
                    for (java.util.concurrent.Future<Integer> r : rs) {
                        assertEquals(fpSingle, r.get());
                    }
                } finally {
                    pool.shutdown();
                }
                long rejected = rocksDbAgrees(c.name(), opts, sst, file, ABSENT);
                assertEquals(ABSENT_N - fp, rejected);
                String line = String.format("%-20s fv=%d checksum=%d policy=%s: %d partitions, %d filter bytes, %d keys"
                                + " matched, FP %d/%d, RocksDB agreed on %d absent keys",
                        c.name(), p.formatVersion(), p.checksumType(), p.filterPolicy(), p.numPartitions(),
                        p.filterSize(), matched, fp, ABSENT_N, ABSENT_N);
                System.out.println(line);
                SUMMARY.add(line);
                assertEquals(N, matched);
                assertTrue(fp < ABSENT_N / 20, "FP rate " + fp);
            }
        }
    }

    /** Prefix extractor FixedPrefix.11: whole-key + prefix (AddKeyAndAlt) and prefix-only filters. */
    @Test
    void prefixFilters() throws Exception {
        int prefixLen = 11;
        for (boolean wholeKey : new boolean[] {true, false}) {
            String name = "prefix11-wholekey-" + wholeKey;
            BlockBasedTableConfig t = new BlockBasedTableConfig()
                    .setFilterPolicy(new BloomFilter(10))
                    .setFormatVersion(5)
                    .setOptimizeFiltersForMemory(false)
                    .setWholeKeyFiltering(wholeKey);
            try (Options opts = new Options().setCreateIfMissing(true).setTableFormatConfig(t)
                    .useFixedLengthPrefixExtractor(prefixLen)) {
                Path sst = writeSst(name, opts, KEYS);
                byte[] ours;
                try (FilterBuilder b = new FilterBuilder(Policy.BLOOM, 10)) {
                    for (byte[] k : KEYS) {
                        byte[] prefix = Arrays.copyOf(k, prefixLen);
                        if (wholeKey) {
                            b.addKeyAndAlt(k, prefix);
                        } else {
                            b.add(prefix);
                        }
                    }
                    ours = b.finish();
                }
                try (Sst file = Sst.open(sst); Filter rocks = file.fullFilter().orElseThrow()) {
                    SstProperties p = file.properties();
                    assertEquals("rocksdb.FixedPrefix." + prefixLen, p.prefixExtractor());
                    assertTrue(p.hasPrefixFilter());
                    assertEquals(wholeKey, p.wholeKeyFiltering());
                    byte[] theirs = rocks.bytes();
                    assertArrayEquals(theirs, ours, name);
                    BYTES_COMPARED.addAndGet(theirs.length);
                    int matched = assertEveryKeyMatches(file, KEYS);
                    int prefixes = 0;
                    for (byte[] k : KEYS) {
                        assertTrue(file.prefixMayMatch(Arrays.copyOf(k, prefixLen)));
                        prefixes++;
                    }
                    RocksFilterException e = org.junit.jupiter.api.Assertions.assertThrows(RocksFilterException.class,
                            () -> file.prefixMayMatch(TestKeys.utf8("short")));
                    assertEquals(Status.INVALID_ARGUMENT, e.status());
                    String line = String.format("%-20s fv=%d prefix=%s: %d filter bytes IDENTICAL (addKeyAndAlt=%b),"
                            + " %d keys and %d prefixes matched", name, p.formatVersion(), p.prefixExtractor(),
                            theirs.length, wholeKey, matched, prefixes);
                    System.out.println(line);
                    SUMMARY.add(line);
                    assertEquals(N, prefixes);
                }
            }
        }
    }

    /** openBytes reads the same file as open(Path) (openMemory: FfmSstTest). */
    @Test
    void openFromMemory() throws Exception {
        Exact c = new Exact("mem-bloom10-fv5", Policy.BLOOM, 10, 5, null);
        try (Options opts = options(c)) {
            Path sst = writeSst(c.name(), opts, KEYS);
            byte[] fileBytes = Files.readAllBytes(sst);
            byte[] viaPath;
            Filter outlives;
            try (Sst f = Sst.open(sst); Filter full = f.fullFilter().orElseThrow()) {
                viaPath = full.bytes();
                outlives = f.fullFilter().orElseThrow();
                RocksFilterException noPrefix = org.junit.jupiter.api.Assertions.assertThrows(RocksFilterException.class,
                        () -> f.prefixMayMatch(TestKeys.utf8("key")));
                assertEquals(Status.NOT_SUPPORTED, noPrefix.status());
            }
            // A full filter of a file opened by path stays valid after the Sst is closed.
            try (outlives) {
                assertArrayEquals(viaPath, outlives.bytes());
                for (byte[] k : KEYS) {
                    assertTrue(outlives.mayMatch(k));
                }
            }
            try (Sst f = Sst.openBytes(fileBytes); Filter full = f.fullFilter().orElseThrow()) {
                assertArrayEquals(viaPath, full.bytes());
                assertEquals(N, assertEveryKeyMatches(f, KEYS));
                assertTrue(f.property("rocksdb.comparator").isPresent());
                assertFalse(f.property("no.such.property").isPresent());
            }
            // A damaged copy: checksum verification reports CORRUPTION.
            byte[] damaged = fileBytes.clone();
            damaged[damaged.length / 3] ^= 0x55;
            Path bad = tmp.resolve("damaged.sst");
            Files.write(bad, damaged);
            try {
                try (Sst f = Sst.open(bad)) {
                    // The flipped byte may sit in a block the opener does not read (e.g. a data block).
                    assertEquals(N, assertEveryKeyMatches(f, KEYS));
                }
            } catch (RocksFilterException e) {
                assertEquals(Status.CORRUPTION, e.status(), e.getMessage());
            }
            RocksFilterException missing = org.junit.jupiter.api.Assertions.assertThrows(RocksFilterException.class,
                    () -> Sst.open(tmp.resolve("missing.sst")));
            assertEquals(Status.IO_ERROR, missing.status());
            Sst closed = Sst.open(sst);
            closed.close();
            closed.close();
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> closed.mayMatch(KEYS[0]));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, closed::properties);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
    /** The deprecated name SstFilter still compiles and behaves as Sst (it is one). */
    @Test
    @SuppressWarnings("deprecation")
    void sstFilterIsTheDeprecatedAliasOfSst() throws Exception {
        Exact c = new Exact("alias-bloom10-fv5", Policy.BLOOM, 10, 5, null);
        try (Options opts = options(c)) {
            Path sst = writeSst(c.name(), opts, KEYS);
            byte[] fileBytes = Files.readAllBytes(sst);
            try (Sst modern = Sst.open(sst); SstFilter old = SstFilter.open(sst);
                 SstFilter fromBytes = SstFilter.openBytes(fileBytes); SstFilter unverified = SstFilter.open(sst, false)) {
                Sst asSst = old; // an SstFilter is an Sst
                assertEquals(modern.properties(), asSst.properties());
                assertEquals(modern.filterType(), old.filterType());
                for (SstFilter f : List.of(old, fromBytes, unverified)) {
                    assertEquals(N, assertEveryKeyMatches(f, KEYS));
                }
                for (byte[] k : ABSENT) {
                    assertEquals(modern.mayMatch(k), old.mayMatch(k));
                }
                try (Filter a = modern.fullFilter().orElseThrow(); Filter b = old.fullFilter().orElseThrow()) {
                    assertArrayEquals(a.bytes(), b.bytes());
                }
            }
            assertTrue(SstFilter.class.isAnnotationPresent(Deprecated.class));
            assertEquals(Sst.class, SstFilter.class.getSuperclass());
        }
    }
}

