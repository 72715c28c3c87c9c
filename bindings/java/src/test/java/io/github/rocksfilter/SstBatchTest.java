package io.github.rocksfilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * {@link Sst#mayMatchBatch} on SST files RocksJava 10.10 writes (full and partitioned, Bloom and
 * Ribbon, whole-key and prefix-only, files opened by path and from bytes): every answer equals
 * {@link Sst#mayMatch}'s, in batches of every size around the 4096-key chunk; and its behaviour on
 * null, closed handles and empty batches.
 */
class SstBatchTest {
    static final int N = 20_000;
    static final byte[][] KEYS = TestKeys.sorted(N, 7);
    static final byte[][] ABSENT = TestKeys.absent(20_000, 7);

    @TempDir
    static Path tmp;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    record Config(String name, String tableOptions, boolean prefixOnly, SstFilterType type) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Config> configs() {
        return Stream.of(
                new Config("full-bloom10", "{filter_policy=bloomfilter:10:false}", false, SstFilterType.FULL),
                new Config("full-ribbon10", "{filter_policy=ribbonfilter:10}", false, SstFilterType.FULL),
                new Config("partitioned-bloom10", "{filter_policy=bloomfilter:10:false;partition_filters=true"
                        + ";index_type=kTwoLevelIndexSearch;metadata_block_size=512}", false, SstFilterType.PARTITIONED),
                new Config("partitioned-ribbon10", "{filter_policy=ribbonfilter:10;partition_filters=true"
                        + ";index_type=kTwoLevelIndexSearch;metadata_block_size=512}", false, SstFilterType.PARTITIONED),
                new Config("partitioned-bloom10-prefix-only", "{filter_policy=bloomfilter:10:false;partition_filters=true"
                        + ";index_type=kTwoLevelIndexSearch;metadata_block_size=512;whole_key_filtering=false}", true,
                        SstFilterType.PARTITIONED));
    }

    static Path write(Config c) throws Exception {
        return write(c, tmp);
    }

    /** Writes the file of {@code c} into {@code dir}. */
    static Path write(Config c, Path dir) throws Exception {
        Options opts = RocksJavaInteropTest.optionsFromString(c.tableOptions());
        try (opts) {
            if (c.prefixOnly()) {
                opts.useFixedLengthPrefixExtractor(11);
            }
            Path p = dir.resolve(c.name() + ".sst");
            try (org.rocksdb.EnvOptions env = new org.rocksdb.EnvOptions();
                 org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(env, opts)) {
                w.open(p.toString());
                for (byte[] k : KEYS) {
                    w.put(k, TestKeys.utf8("v"));
                }
                w.finish();
            }
            return p;
        }
    }

    /** Absent and present keys interleaved (and the empty key), so that batches cross partitions in no order. */
    static byte[][] probes() {
        byte[][] p = new byte[ABSENT.length * 2 + 1][];
        for (int i = 0; i < ABSENT.length; i++) {
            p[2 * i] = ABSENT[i];
            p[2 * i + 1] = KEYS[(int) ((i * 7919L) % N)];
        }
        p[p.length - 1] = new byte[0];
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void batchEqualsSingle(Config c) throws Exception {
        Path path = write(c);
        byte[][] probes = probes();
        for (Sst sst : new Sst[] {Sst.open(path), Sst.openBytes(Files.readAllBytes(path))}) {
            try (sst) {
                assertEquals(c.type(), sst.filterType());
                boolean[] single = new boolean[probes.length];
                int rejected = 0;
                for (int i = 0; i < probes.length; i++) {
                    single[i] = sst.mayMatch(probes[i]);
                    rejected += single[i] ? 0 : 1;
                }
                // (The absent keys share their 11-byte prefixes with keys in the file: a prefix-only
                // filter rejects none of them.)
                assertTrue(c.prefixOnly() || rejected > ABSENT.length / 2, c + ": only " + rejected + " absent keys rejected");
                assertArrayEquals(single, sst.mayMatchBatch(probes), c + ": one batch");
                boolean[] all = sst.mayMatchBatch(KEYS);
                for (int i = 0; i < N; i++) {
                    assertTrue(all[i], c + ": key in the file answered absent");
                }
                for (int size : new int[] {1, 2, 17, 64, 65, 4095, 4096, 4097, 8193}) {
                    for (int off = 0; off + size <= probes.length; off += size * 3 + 1) {
                        assertArrayEquals(Arrays.copyOfRange(single, off, off + size),
                                sst.mayMatchBatch(Arrays.copyOfRange(probes, off, off + size)),
                                c + ": batch of " + size + " at " + off);
                    }
                }
            }
        }
    }

    @Test
    void nullClosedAndEmpty() throws Exception {
        Path path = write(configs().findFirst().orElseThrow());
        Sst sst = Sst.open(path);
        assertEquals(0, sst.mayMatchBatch(new byte[0][]).length);
        boolean[] r = sst.mayMatchBatch(new byte[][] {KEYS[0], new byte[0], ABSENT[0]});
        assertTrue(r[0]);
        assertEquals(sst.mayMatch(new byte[0]), r[1]);
        assertEquals(sst.mayMatch(ABSENT[0]), r[2]);
        assertThrows(NullPointerException.class, () -> sst.mayMatchBatch(null));
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> sst.mayMatchBatch(new byte[][] {KEYS[0], null}));
        assertTrue(npe.getMessage().contains("keys[1]"), npe.getMessage());
        sst.close();
        assertThrows(IllegalStateException.class, () -> sst.mayMatchBatch(new byte[][] {KEYS[0]}));
        assertThrows(IllegalStateException.class, () -> sst.mayMatchBatch(new byte[0][]));
        assertTrue(sst.isClosed());
    }
}
