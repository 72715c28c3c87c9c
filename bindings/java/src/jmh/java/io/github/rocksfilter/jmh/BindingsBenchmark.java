package io.github.rocksfilter.jmh;

import io.github.rocksfilter.Filter;
import io.github.rocksfilter.FilterBuilder;
import io.github.rocksfilter.Policy;
import io.github.rocksfilter.RawPacked;
import io.github.rocksfilter.Sst;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The Java side of bench/bindings: the same targets and keys as the Go benchmarks'
 * {@code BenchmarkBindings} (bindings/go/bench_batch_test.go), per key. {@code single} is one
 * {@code mayMatch(byte[])}; {@code batch} one {@code mayMatchBatch(byte[][])} of 4096 keys
 * (JMH divides by 4096: the score is ns per key); {@code arena} one {@code mayMatchPacked} over the
 * same 4096 keys laid out in one array with their offsets (an engine's key arena); {@code cPacked}
 * the C call {@code arena} makes ({@code rocksfilter_*_may_match_packed}) on the same handle and
 * arenas with none of the binding around it (one critical downcall, {@link RawPacked}, with either
 * backend's classes), so that "arena / C packed" is measured in one JVM on the same memory.
 *
 * <p>Targets: {@code filter_bloom} and {@code filter_ribbon}, filters built here over 1,048,576 keys
 * {@code key-%08d} at 10 bits per key (the same blocks the Go benchmarks build); {@code sst_*}, the
 * 200,000-key SST files the Go benchmarks write (RocksDB 7.8.3) into the directory named by the
 * system property {@code rocksfilter.bench.sstDir} (bench/bindings runs Go first). Probes: 1,048,576
 * keys, alternately present and absent ({@code abs-%08d}), picked by the same xorshift32 sequence as
 * the Go side, each its own {@code byte[]}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BindingsBenchmark {
    static final int PROBES = 1 << 20;
    static final int BATCH = 4096;

    @Param({"filter_bloom", "filter_ribbon", "sst_full_bloom", "sst_full_ribbon", "sst_partitioned_bloom",
        "sst_partitioned_ribbon"})
    public String target;

    Filter filter;
    Sst sst;
    byte[][] probes;
    byte[][][] batches;
    /** The same batches laid out as key arenas: each batch's keys back to back, and their offsets. */
    byte[][] arenas;
    long[][] arenaOffsets;
    final boolean[] out = new boolean[BATCH];
    final byte[] rawOut = new byte[BATCH];
    RawPacked raw;
    int next;

    static byte[][] keys(String prefix, int n) {
        byte[][] k = new byte[n][];
        for (int i = 0; i < n; i++) {
            k[i] = String.format("%s%08d", prefix, i).getBytes(StandardCharsets.UTF_8);
        }
        return k;
    }

    /** bindings/go shuffledProbes: alternately present[x % n] and absent[x % n], x a xorshift32 sequence. */
    static byte[][] probes(byte[][] present, byte[][] absent) {
        byte[][] p = new byte[PROBES][];
        int x = (int) 2463534242L;
        for (int i = 0; i < PROBES; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            long u = Integer.toUnsignedLong(x);
            p[i] = (i % 2 == 0 ? present[(int) (u % present.length)] : absent[(int) (u % absent.length)]).clone();
        }
        return p;
    }

    @Setup(Level.Trial)
    public void setup() throws Exception {
        int n;
        if (target.startsWith("filter_")) {
            n = 1 << 20;
            byte[][] keys = keys("key-", n);
            try (FilterBuilder b = new FilterBuilder(target.endsWith("bloom") ? Policy.BLOOM : Policy.RIBBON, 10)) {
                for (byte[] k : keys) {
                    b.add(k);
                }
                filter = Filter.load(b.finish());
            }
            probes = probes(keys, keys("abs-", n));
        } else {
            n = 200_000;
            String dir = System.getProperty("rocksfilter.bench.sstDir");
            if (dir == null) {
                throw new IllegalStateException("-Drocksfilter.bench.sstDir=DIR (the SST files bench/bindings writes) is not set");
            }
            Path p = Path.of(dir, target + ".sst");
            if (!Files.exists(p)) {
                throw new IllegalStateException(p + " is missing: bench/bindings writes it (the Go benchmarks do)");
            }
            sst = Sst.open(p);
            probes = probes(keys("key-", n), keys("abs-", n));
        }
        // Null only where the JVM has no FFM (before JDK 22): no C reference there.
        try {
            raw = filter != null ? RawPacked.of(filter) : RawPacked.of(sst);
        } catch (LinkageError e) {
            raw = null;
        }
        batches = new byte[PROBES / BATCH][][];
        for (int i = 0; i < batches.length; i++) {
            batches[i] = java.util.Arrays.copyOfRange(probes, i * BATCH, (i + 1) * BATCH);
        }
        arenas = new byte[batches.length][];
        arenaOffsets = new long[batches.length][];
        for (int i = 0; i < batches.length; i++) {
            long[] offs = new long[BATCH + 1];
            int total = 0;
            for (int j = 0; j < BATCH; j++) {
                offs[j] = total;
                total += batches[i][j].length;
            }
            offs[BATCH] = total;
            byte[] a = new byte[total];
            for (int j = 0; j < BATCH; j++) {
                System.arraycopy(batches[i][j], 0, a, (int) offs[j], batches[i][j].length);
            }
            arenas[i] = a;
            arenaOffsets[i] = offs;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (filter != null) {
            filter.close();
        }
        if (sst != null) {
            sst.close();
        }
    }

    @Benchmark
    public boolean single() {
        byte[] k = probes[next++ & (PROBES - 1)];
        return filter != null ? filter.mayMatch(k) : sst.mayMatch(k);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] batch() {
        byte[][] b = batches[next++ & (batches.length - 1)];
        return filter != null ? filter.mayMatchBatch(b) : sst.mayMatchBatch(b);
    }

    /** {@code mayMatchPacked} over one batch's key arena, into a reused {@code boolean[]}. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] arena() {
        int i = next++ & (batches.length - 1);
        if (filter != null) {
            filter.mayMatchPacked(arenas[i], arenaOffsets[i], out);
        } else {
            sst.mayMatchPacked(arenas[i], arenaOffsets[i], out);
        }
        return out;
    }

    /** The C call of {@code arena} alone ({@link RawPacked}), on the same handle and arenas. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public byte[] cPacked() {
        int i = next++ & (batches.length - 1);
        raw.call(arenas[i], arenaOffsets[i], rawOut);
        return rawOut;
    }
}
