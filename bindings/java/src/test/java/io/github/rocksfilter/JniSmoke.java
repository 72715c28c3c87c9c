package io.github.rocksfilter;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A {@code main} over the JNI backend alone, written in Java 11 so that {@code run-tests.sh}
 * compiles it (with {@link JniNative}, {@link Status}, {@link RocksFilterException} and
 * {@link Policy}) by {@code javac --release 11} and runs it on JDK 17 and on JDK 25: both runs must
 * print the same lines (blocks' hashes, match counts, statuses and messages).
 * Run with {@code -Drocksfilter.library.path=.../librocksfilter.so}.
 */
public final class JniSmoke {
    private JniSmoke() {
    }

    public static void main(String[] args) {
        JniNative.load();
        System.out.println("version " + JniNative.version() + " hash64(\"\")=" + Long.toHexString(JniNative.hash64(new byte[0])));
        int n = 20000;
        for (Policy policy : Policy.values()) {
            for (double bpk : new double[] {5.5, 10.0}) {
                long b = JniNative.builderNew(policy.code(), bpk);
                byte[] block;
                try {
                    for (int i = 0; i < n; i++) {
                        JniNative.builderAddKey(b, key(2 * i));
                    }
                    block = JniNative.builderFinish(b);
                } finally {
                    JniNative.builderFree(b);
                }
                long f = JniNative.filterLoad(block);
                try {
                    int present = 0;
                    int absent = 0;
                    byte[][] probes = new byte[n][];
                    for (int i = 0; i < n; i++) {
                        present += JniNative.filterMayMatch(f, key(2 * i)) ? 1 : 0;
                        probes[i] = key(2 * i + 1);
                        absent += JniNative.filterMayMatch(f, probes[i]) ? 1 : 0;
                    }
                    System.out.println(policy + " " + bpk + ": kind " + JniNative.filterKind(f) + ", " + block.length
                            + " bytes, hash64 " + Long.toHexString(JniNative.hash64(block)) + ", " + present + "/" + n
                            + " present, " + absent + "/" + n + " absent matched, batch " + batchCount(f, probes)
                            + ", fp estimate " + JniNative.filterEstimatedFpRate(f, n)
                            + ", bytes() equal " + Arrays.equals(block, JniNative.filterBytes(f)));
                } finally {
                    JniNative.filterFree(f);
                }
            }
        }
        try {
            JniNative.builderNew(Policy.BLOOM.code(), Double.NaN);
            System.out.println("NaN bits per key: no exception");
        } catch (RocksFilterException e) {
            System.out.println("NaN bits per key: " + e.status() + " \"" + e.getMessage() + "\"");
        }
        try {
            JniNative.sstOpen("missing.sst", 0);
            System.out.println("missing.sst: no exception");
        } catch (RocksFilterException e) {
            System.out.println("missing.sst: " + e.status() + " \"" + e.getMessage() + "\"");
        }
    }

    private static int batchCount(long filter, byte[][] keys) {
        long[] offsets = new long[keys.length + 1];
        byte[] buf = new byte[Arrays.stream(keys).mapToInt(k -> k.length).sum()];
        int at = 0;
        for (int i = 0; i < keys.length; i++) {
            offsets[i] = at;
            System.arraycopy(keys[i], 0, buf, at, keys[i].length);
            at += keys[i].length;
        }
        offsets[keys.length] = at;
        int matched = 0;
        for (byte r : JniNative.filterMayMatchPacked(filter, buf, offsets, keys.length)) {
            matched += r;
        }
        return matched;
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }
}
