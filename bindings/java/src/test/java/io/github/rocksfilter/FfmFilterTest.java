package io.github.rocksfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.github.rocksfilter.FilterTest.ABSENT;
import static io.github.rocksfilter.FilterTest.KEYS;
import static io.github.rocksfilter.FilterTest.build;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What only the FFM backend (JDK 22+) offers, {@link Segments}: keys and blocks as
 * {@code MemorySegment}s, without copies; and the FFM backend's batch path against the
 * pointer-array one. ({@link BaseApiTest} checks that {@code Segments} is the only public class
 * outside the jar's base.)
 */
class FfmFilterTest {
    @ParameterizedTest
    @EnumSource(Policy.class)
    void segmentKeysAgreeWithArrays(Policy policy) {
        byte[] fromArrays = build(policy, 8.5, KEYS);
        byte[] fromSegments;
        try (FilterBuilder b = new FilterBuilder(policy, 8.5); Arena arena = Arena.ofConfined()) {
            for (byte[] k : KEYS) {
                Segments.add(b, arena.allocateFrom(JAVA_BYTE, k));
            }
            fromSegments = b.finish();
        }
        assertArrayEquals(fromArrays, fromSegments);
        try (Filter f = Filter.load(fromArrays); Arena arena = Arena.ofConfined()) {
            for (byte[] k : ABSENT) {
                boolean expected = f.mayMatch(k);
                assertEquals(expected, Segments.mayMatch(f, arena.allocateFrom(JAVA_BYTE, k)));
                assertEquals(expected, Segments.mayMatch(f, MemorySegment.ofArray(k)));
            }
        }
    }

    /** The FFM backend's batch path (packed arrays) and the pointer-array one answer as single queries. */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void batchPathsAgree(Policy policy) {
        byte[][] mixed = new byte[KEYS.length + ABSENT.length][];
        System.arraycopy(ABSENT, 0, mixed, 0, ABSENT.length);
        System.arraycopy(KEYS, 0, mixed, ABSENT.length, KEYS.length);
        try (Filter f = Filter.load(build(policy, 10, KEYS))) {
            boolean[] single = new boolean[mixed.length];
            for (int i = 0; i < mixed.length; i++) {
                single[i] = f.mayMatch(mixed[i]);
            }
            assertArrayEquals(single, f.mayMatchBatch(mixed));
            assertArrayEquals(single, BenchSupport.mayMatchBatchPointers(f, mixed));
        }
    }

    @Test
    void hash64OfSegments() {
        assertEquals(0x5342c3010fe1dd04L, Segments.hash64(MemorySegment.ofArray(new byte[0])));
        for (byte[] k : KEYS) {
            long h = RocksFilter.hash64(k);
            try (Arena arena = Arena.ofConfined()) {
                assertEquals(h, Segments.hash64(arena.allocateFrom(JAVA_BYTE, k)));
                assertEquals(h, BenchSupport.hash64NonCritical(arena.allocateFrom(JAVA_BYTE, k)));
            }
        }
    }

    @Test
    void loadBorrowed() {
        byte[] block = build(Policy.BLOOM, 10, KEYS);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocateFrom(JAVA_BYTE, block);
            try (Filter f = Segments.loadBorrowed(seg)) {
                assertEquals(Kind.FAST_LOCAL_BLOOM, f.kind());
                assertArrayEquals(block, f.bytes());
                for (byte[] k : KEYS) {
                    assertTrue(f.mayMatch(k));
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Segments.loadBorrowed(MemorySegment.ofArray(block)));
    }

    /** Blocks of unknown formats load borrowed as always-true, as copied ones do. */
    @Test
    void oddBlocksBorrowed() {
        byte[] bloom = new byte[32 + 5];
        System.arraycopy(new byte[] {(byte) 0xff, 0, 6, 0, 0}, 0, bloom, 32, 5);
        byte[] legacy = new byte[64 + 5];
        System.arraycopy(new byte[] {6, 0, 0, 0, 0}, 0, legacy, 64, 5);
        for (byte[] odd : new byte[][] {bloom, legacy}) {
            try (Arena arena = Arena.ofConfined(); Filter f = Segments.loadBorrowed(arena.allocateFrom(JAVA_BYTE, odd))) {
                assertEquals(Kind.ALWAYS_TRUE, f.kind());
            }
        }
    }

    @Test
    void backendIsFfm() {
        assertEquals("ffm", RocksFilter.backend());
    }
}
