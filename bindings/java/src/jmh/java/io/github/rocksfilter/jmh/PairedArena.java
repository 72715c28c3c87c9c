package io.github.rocksfilter.jmh;

import java.util.Locale;

/**
 * The Java arena batch and the C packed call it makes, timed on the same handle and the same key
 * arenas in the same iterations, alternating which goes first (as the Go benchmarks' "paired"
 * run does), so that load that changes between JMH forks on a shared machine does not skew the
 * ratio. Each iteration runs the same 8 batches of 4096 keys with each of {@link BindingsBenchmark#arena}
 * ({@code mayMatchPacked}) and {@link BindingsBenchmark#cPacked} (the bare critical downcall);
 * after 2 s of warm-up, 4 s are measured per target. On either backend (bench/bindings runs it on
 * JDK 25 with target/classes, which picks FFM, and with target/base-classes, which picks JNI): the
 * C call is the same raw downcall.
 *
 * <p>Prints one line per target: {@code paired TARGET java_arena_ns/key A c_packed_ns/key C ratio R}.
 *
 * <pre>java -cp ... io.github.rocksfilter.jmh.PairedArena [--quick] [TARGET...]</pre>
 */
public final class PairedArena {
    private static final int PER_RUN = 8;

    private PairedArena() {
    }

    public static void main(String[] args) throws Exception {
        // --quick (CI): 50 ms of each, to check it runs; the times mean nothing then.
        boolean quick = args.length > 0 && args[0].equals("--quick");
        if (quick) {
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        long warm = quick ? 50_000_000L : 2_000_000_000L;
        long measure = quick ? 50_000_000L : 4_000_000_000L;
        String[] targets = args.length > 0 ? args
                : new String[] {"filter_bloom", "filter_ribbon", "sst_full_bloom", "sst_full_ribbon",
                    "sst_partitioned_bloom", "sst_partitioned_ribbon"};
        long sink = 0;
        for (String t : targets) {
            BindingsBenchmark b = new BindingsBenchmark();
            b.target = t;
            b.setup();
            if (b.raw == null) {
                throw new IllegalStateException("PairedArena needs JDK 22+ (FFM) for the raw C call (none for " + t + ")");
            }
            try {
                long[] times = new long[2];
                run(b, warm, new long[2]);
                long iterations = run(b, measure, times);
                double keys = (double) iterations * PER_RUN * BindingsBenchmark.BATCH;
                double arena = times[0] / keys;
                double c = times[1] / keys;
                System.out.printf(Locale.ROOT, "paired %s java_arena_ns/key %.3f c_packed_ns/key %.3f ratio %.3f%n", t,
                        arena, c, arena / c);
                sink += b.out[0] ? 1 : 0;
            } finally {
                b.tearDown();
            }
        }
        if (sink < 0) {
            System.out.println(sink);
        }
    }

    /** Alternating iterations for about {@code budget} ns; adds each side's time into {@code times}. */
    private static long run(BindingsBenchmark b, long budget, long[] times) {
        long start = System.nanoTime();
        long iterations = 0;
        while (System.nanoTime() - start < budget) {
            boolean arenaFirst = (iterations & 1) == 0;
            int base = b.next;
            for (int side = 0; side < 2; side++) {
                boolean arena = (side == 0) == arenaFirst;
                b.next = base; // both sides query the same batches
                long t0 = System.nanoTime();
                for (int j = 0; j < PER_RUN; j++) {
                    if (arena) {
                        b.arena();
                    } else {
                        b.cPacked();
                    }
                }
                times[arena ? 0 : 1] += System.nanoTime() - t0;
            }
            iterations++;
        }
        return iterations;
    }
}
