package io.github.rocksfilter;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.RocksDB;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * SST files in native memory, only on the FFM backend (JDK 22+): {@link Segments#openMemory} reads
 * the caller's segment without copying, and {@link Segments#mayMatch(Sst, MemorySegment)} reads
 * keys in place, also on a handle opened with a cache (whose queries copy a heap key to native
 * memory and pass a native one as it is). All answer exactly as the file opened by path, on the
 * files {@link SstBatchTest} writes.
 */
class FfmSstTest {
    @TempDir
    static Path tmp;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.rocksfilter.SstBatchTest#configs")
    void memoryAnswersAsPath(SstBatchTest.Config c) throws Exception {
        Path path = SstBatchTest.write(c, tmp);
        byte[] file = Files.readAllBytes(path);
        byte[][] probes = SstBatchTest.probes();
        try (Arena arena = Arena.ofShared(); Sst byPath = Sst.open(path); Cache cache = new Cache(1 << 20);
             Sst cached = Sst.open(path, new SstOptions().withCache(cache))) {
            MemorySegment seg = arena.allocateFrom(JAVA_BYTE, file);
            try (Sst mem = Segments.openMemory(seg); Sst unverified = Segments.openMemory(seg, false)) {
                assertEquals(byPath.properties(), mem.properties());
                assertEquals(0, mem.openStats().reads());
                for (byte[] k : probes) {
                    boolean expected = byPath.mayMatch(k);
                    MemorySegment key = arena.allocateFrom(JAVA_BYTE, k);
                    assertEquals(expected, mem.mayMatch(k));
                    assertEquals(expected, Segments.mayMatch(mem, key));
                    assertEquals(expected, Segments.mayMatch(byPath, MemorySegment.ofArray(k)));
                    assertEquals(expected, Segments.mayMatch(cached, key));
                    assertEquals(expected, Segments.mayMatch(cached, MemorySegment.ofArray(k)));
                    assertEquals(expected, unverified.mayMatch(k));
                }
                if (c.type() == SstFilterType.FULL) {
                    try (Filter a = byPath.fullFilter().orElseThrow(); Filter b = mem.fullFilter().orElseThrow()) {
                        assertArrayEquals(a.bytes(), b.bytes());
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Segments.openMemory(MemorySegment.ofArray(file)));
    }
}
