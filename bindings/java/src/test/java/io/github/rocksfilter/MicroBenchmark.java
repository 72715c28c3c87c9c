package io.github.rocksfilter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A small JMH-free micro benchmark (not run by the tests). Run after {@code mvn test-compile}:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -Drocksfilter.library.path=../../target/release/librocksfilter.so \
 *      -cp target/classes:target/test-classes io.github.rocksfilter.MicroBenchmark [numKeys]
 * </pre>
 *
 * Numbers are indicative only (no forking, simple warm-up).
 */
public final class MicroBenchmark {
    private MicroBenchmark() {
    }

    static volatile long sink;

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        byte[][] keys = TestKeys.sorted(n, 3);
        byte[][] probes = TestKeys.absent(n, 3);
        for (int i = 0; i < n; i += 2) {
            probes[i] = keys[i]; // half present, half absent
        }
        System.out.printf("rocksfilter %s, %d keys, JDK %s%n", RocksFilter.version(), n, Runtime.version());
        for (Policy p : new Policy[] {Policy.BLOOM, Policy.RIBBON}) {
            byte[] block;
            try (FilterBuilder b = new FilterBuilder(p, 10)) {
                long t0 = System.nanoTime();
                for (byte[] k : keys) {
                    b.add(k);
                }
                block = b.finish();
                System.out.printf("%s: build %d keys in %.1f ms (%.1f ns/key), %d bytes%n", p, n,
                        (System.nanoTime() - t0) / 1e6, (System.nanoTime() - t0) / (double) n, block.length);
            }
            try (Filter f = Filter.load(block); Arena arena = Arena.ofConfined()) {
                MemorySegment nativeBuf = arena.allocate(256);
                String[] names = {"mayMatch byte[] -> heap segment, critical downcall (public path)",
                    "mayMatch byte[] -> copy to reusable native buffer, normal downcall",
                    "mayMatch byte[] -> copy to reusable native buffer, critical downcall",
                    "mayMatch loop over byte[][] (public path, for batch comparison)",
                    "mayMatchBatch packed, heap arrays, critical downcall (public path)",
                    "mayMatchBatch pointer array, native copy, normal downcall",
                    "hash64 byte[] -> heap segment, critical downcall (public path)",
                    "hash64 byte[] -> copy to reusable native buffer, normal downcall"};
                double[] best = new double[names.length];
                java.util.Arrays.fill(best, Double.MAX_VALUE);
                for (int round = 0; round < 12; round++) {
                    for (int m = 0; m < names.length; m++) {
                        long t0 = System.nanoTime();
                        sink += run(m, f, probes, nativeBuf);
                        best[m] = Math.min(best[m], (System.nanoTime() - t0) / (double) n);
                    }
                }
                for (int m = 0; m < names.length; m++) {
                    System.out.printf("%-7s %-75s %6.1f ns/key%n", p, names[m], best[m]);
                }
            }
        }
    }

    private static long run(int m, Filter f, byte[][] probes, MemorySegment nativeBuf) {
        return switch (m) {
            case 0 -> singleCritical(f, probes);
            case 1 -> nativeCopyNormal(f, probes, nativeBuf);
            case 2 -> nativeCopyCritical(f, probes, nativeBuf);
            case 3 -> singleCritical(f, probes);
            case 4 -> count(f.mayMatchBatch(probes));
            case 5 -> count(BenchSupport.mayMatchBatchPointers(f, probes));
            case 6 -> hashCritical(probes);
            default -> hashNormal(probes, nativeBuf);
        };
    }

    private static long singleCritical(Filter f, byte[][] probes) {
        long c = 0;
        for (byte[] k : probes) {
            c += f.mayMatch(k) ? 1 : 0;
        }
        return c;
    }

    private static long nativeCopyNormal(Filter f, byte[][] probes, MemorySegment buf) {
        long c = 0;
        for (byte[] k : probes) {
            MemorySegment.copy(k, 0, buf, JAVA_BYTE, 0, k.length);
            c += BenchSupport.mayMatchNonCritical(f, buf.asSlice(0, k.length)) ? 1 : 0;
        }
        return c;
    }

    private static long nativeCopyCritical(Filter f, byte[][] probes, MemorySegment buf) {
        long c = 0;
        for (byte[] k : probes) {
            MemorySegment.copy(k, 0, buf, JAVA_BYTE, 0, k.length);
            c += Segments.mayMatch(f, buf.asSlice(0, k.length)) ? 1 : 0;
        }
        return c;
    }

    private static long hashCritical(byte[][] probes) {
        long h = 0;
        for (byte[] k : probes) {
            h += RocksFilter.hash64(k);
        }
        return h;
    }

    private static long hashNormal(byte[][] probes, MemorySegment buf) {
        long h = 0;
        for (byte[] k : probes) {
            MemorySegment.copy(k, 0, buf, JAVA_BYTE, 0, k.length);
            h += BenchSupport.hash64NonCritical(buf.asSlice(0, k.length));
        }
        return h;
    }

    private static int count(boolean[] r) {
        int c = 0;
        for (boolean b : r) {
            c += b ? 1 : 0;
        }
        return c;
    }
}
