package io.github.rocksfilter.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The Java side of a 4096-key batch without the native call: what {@code mayMatchBatch} does
 * before and after {@code rocksfilter_*_may_match_packed} (PackedBatch: copy each key into one
 * {@code byte[]}, record the offsets, then turn the result bytes into a new {@code boolean[]}), on
 * the same kind of probes as {@link BindingsBenchmark} (each key its own {@code byte[]}, 1M of them,
 * 4096 per batch). Score: ns per key.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PackBenchmark {
    byte[][][] batches;
    final long[] offsets = new long[BindingsBenchmark.BATCH + 1];
    final byte[] results = new byte[BindingsBenchmark.BATCH];
    final byte[] buf = new byte[1 << 20];
    int next;

    @Setup(Level.Trial)
    public void setup() {
        int n = 200_000;
        byte[][] probes = BindingsBenchmark.probes(BindingsBenchmark.keys("key-", n), BindingsBenchmark.keys("abs-", n));
        batches = new byte[BindingsBenchmark.PROBES / BindingsBenchmark.BATCH][][];
        for (int i = 0; i < batches.length; i++) {
            batches[i] = java.util.Arrays.copyOfRange(probes, i * BindingsBenchmark.BATCH, (i + 1) * BindingsBenchmark.BATCH);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BindingsBenchmark.BATCH)
    public boolean[] pack() {
        byte[][] keys = batches[next++ & (batches.length - 1)];
        int pos = 0;
        offsets[0] = 0;
        for (int i = 0; i < keys.length; i++) {
            byte[] k = keys[i];
            if (k == null) {
                throw new NullPointerException("keys[" + i + "]");
            }
            System.arraycopy(k, 0, buf, pos, k.length);
            pos += k.length;
            offsets[i + 1] = pos;
        }
        boolean[] out = new boolean[keys.length];
        for (int i = 0; i < keys.length; i++) {
            out[i] = results[i] != 0;
        }
        return out;
    }
}
