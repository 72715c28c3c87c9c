package io.github.rocksfilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files of the version matrix ({@code sst_fixtures/matrix/}), when {@code ROCKSFILTER_MATRIX} names its
 * output ({@code make test} sets it): block-based filters RocksDB 6.29 wrote, answered through this
 * binding exactly as RocksDB 6.29 answered for the same keys and prefixes.
 */
class MatrixBlockBasedTest {
    private static Path file(String name) {
        String dir = System.getenv("ROCKSFILTER_MATRIX");
        assumeTrue(dir != null && !dir.isEmpty(), "ROCKSFILTER_MATRIX not set (make test sets it)");
        return Path.of(dir, "rocksjava-6.29.5", name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bb_bloom10_wholekey", "bb_bloom10_two_level", "bb_bloom10_fixed4_wkf1"})
    void blockBasedFilterAnswersAsRocksDb6(String name) throws IOException {
        Path base = file(name);
        HexFormat hex = HexFormat.of();
        try (Sst sst = Sst.open(Path.of(base + ".sst"))) {
            assertEquals(SstFilterType.BLOCK_BASED, sst.filterType());
            List<String> lines = Files.readAllLines(Path.of(base + ".probes"));
            int absent = 0;
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                byte[] key = hex.parseHex(f[0]);
                boolean inFile = f[1].equals("1"), rejected = f[3].equals("1");
                boolean ours = sst.mayMatch(key);
                if (inFile) {
                    assertTrue(ours, () -> name + ": key in the file answered absent: " + f[0]);
                } else {
                    assertEquals(!rejected, ours, () -> name + ": absent key " + f[0]);
                    absent++;
                }
            }
            assertTrue(absent >= 2000, name + ": " + absent + " absent probes");
            Path pp = Path.of(base + ".prefix_probes");
            if (Files.exists(pp)) {
                for (String line : Files.readAllLines(pp)) {
                    String[] f = line.trim().split("\\s+");
                    boolean rejected = f[2].equals("1");
                    assertEquals(!rejected, sst.prefixMayMatch(hex.parseHex(f[0])), () -> name + ": prefix " + f[0]);
                }
            }
        }
    }
}
