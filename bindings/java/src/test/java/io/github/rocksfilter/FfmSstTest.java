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
 * SST files in native memory, only on the FFM backend (JDK 22+): {@link Sst#openMemory} reads the
 * caller's segment without copying, and {@code mayMatch(MemorySegment)} reads keys in place. Both
 * answer exactly as the file opened by path, on the files {@link SstBatchTest} writes.
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
    @SuppressWarnings("deprecation")
    void memoryAnswersAsPath(SstBatchTest.Config c) throws Exception {
        Path path = SstBatchTest.write(c, tmp);
        byte[] file = Files.readAllBytes(path);
        byte[][] probes = SstBatchTest.probes();
        try (Arena arena = Arena.ofShared(); Sst byPath = Sst.open(path)) {
            MemorySegment seg = arena.allocateFrom(JAVA_BYTE, file);
            try (Sst mem = Sst.openMemory(seg); SstFilter old = SstFilter.openMemory(seg, false)) {
                assertEquals(byPath.properties(), mem.properties());
                assertEquals(0, mem.openStats().reads());
                for (byte[] k : probes) {
                    boolean expected = byPath.mayMatch(k);
                    assertEquals(expected, mem.mayMatch(k));
                    assertEquals(expected, mem.mayMatch(arena.allocateFrom(JAVA_BYTE, k)));
                    assertEquals(expected, byPath.mayMatch(MemorySegment.ofArray(k)));
                    assertEquals(expected, old.mayMatch(k));
                }
                if (c.type() == SstFilterType.FULL) {
                    try (Filter a = byPath.fullFilter().orElseThrow(); Filter b = mem.fullFilter().orElseThrow()) {
                        assertArrayEquals(a.bytes(), b.bytes());
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Sst.openMemory(MemorySegment.ofArray(file)));
    }
}
