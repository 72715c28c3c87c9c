package io.github.rocksfilter;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.RocksDB;

import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code mayMatchPacked(keys, offsets, out)}, the batch over one key array (an engine's arena), on
 * both backends: every answer equals {@code mayMatch}'s on filters and on the SST files
 * {@link SstBatchTest} writes, at every batch size around the 4096-key chunk and with keys that
 * do not start at offset 0; bad offsets answer "may match" for every key and throw.
 */
class ArenaBatchTest {
    @TempDir
    static Path tmp;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    /** The probes laid out in one array after {@code lead} junk bytes: {array, offsets}. */
    static Object[] arena(byte[][] keys, int lead) {
        long total = lead;
        for (byte[] k : keys) {
            total += k.length;
        }
        byte[] buf = new byte[(int) total];
        Arrays.fill(buf, 0, lead, (byte) 0x5a);
        long[] offsets = new long[keys.length + 1];
        int pos = lead;
        for (int i = 0; i < keys.length; i++) {
            offsets[i] = pos;
            System.arraycopy(keys[i], 0, buf, pos, keys[i].length);
            pos += keys[i].length;
        }
        offsets[keys.length] = pos;
        return new Object[] {buf, offsets};
    }

    interface Packed {
        void call(byte[] keys, long[] offsets, boolean[] out);
    }

    interface Single {
        boolean test(byte[] key);
    }

    static void assertAgrees(byte[][] probes, Packed packed, Single single) {
        for (int n : new int[] {0, 1, 4095, 4096, 4097, 10_001, probes.length}) {
            byte[][] keys = Arrays.copyOf(probes, Math.min(n, probes.length));
            Object[] a = arena(keys, n % 7);
            boolean[] out = new boolean[keys.length + 2];
            out[keys.length] = false;
            out[keys.length + 1] = true;
            packed.call((byte[]) a[0], (long[]) a[1], out);
            boolean[] expected = new boolean[keys.length];
            for (int i = 0; i < keys.length; i++) {
                expected[i] = single.test(keys[i]);
            }
            assertArrayEquals(expected, Arrays.copyOf(out, keys.length), "n = " + n);
            assertEquals(false, out[keys.length], "out past the keys is left alone");
            assertEquals(true, out[keys.length + 1]);
        }
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void filterArenaEqualsSingle(Policy policy) {
        try (Filter f = Filter.load(FilterTest.build(policy, 10, FilterTest.KEYS))) {
            assertAgrees(SstBatchTest.probes(), f::mayMatchPacked, f::mayMatch);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.rocksfilter.SstBatchTest#configs")
    void sstArenaEqualsSingle(SstBatchTest.Config c) throws Exception {
        try (Sst sst = Sst.open(SstBatchTest.write(c, tmp))) {
            assertAgrees(SstBatchTest.probes(), sst::mayMatchPacked, sst::mayMatch);
        }
    }

    @Test
    void badArgumentsNeverAnswerAbsent() {
        byte[] keys = new byte[10];
        boolean[] out = new boolean[3];
        Filter f = Filter.load(FilterTest.build(Policy.BLOOM, 10, FilterTest.KEYS));
        try {
            for (long[] bad : new long[][] {{0, 5, 3, 10}, {0, 5, 11, 10}, {-1, 2, 3, 4}}) {
                Arrays.fill(out, false);
                RocksFilterException e = assertThrows(RocksFilterException.class, () -> f.mayMatchPacked(keys, bad, out));
                assertEquals(Status.INVALID_ARGUMENT, e.status(), e.getMessage());
                assertArrayEquals(new boolean[] {true, true, true}, out, Arrays.toString(bad));
            }
            assertThrows(IllegalArgumentException.class, () -> f.mayMatchPacked(keys, new long[0], out));
            assertThrows(IllegalArgumentException.class, () -> f.mayMatchPacked(keys, new long[] {0, 1, 2, 3, 4}, out));
            assertThrows(NullPointerException.class, () -> f.mayMatchPacked(null, new long[] {0}, out));
            f.mayMatchPacked(keys, new long[] {4}, new boolean[0]); // no key: nothing to answer
        } finally {
            f.close();
        }
        assertThrows(IllegalStateException.class, () -> f.mayMatchPacked(keys, new long[] {0, 1}, out));
    }
}
