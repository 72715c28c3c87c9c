package io.github.rocksfilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files of the version matrix ({@code sst_fixtures/matrix/}), when {@code ROCKSFILTER_MATRIX} names its
 * output ({@code make test-all} sets it): block-based filters RocksDB 6.29 wrote, answered through this
 * binding exactly as RocksDB 6.29 answered for the same keys and prefixes; and every full,
 * partitioned and block-based file RocksDB 6.29 wrote, answered by {@link Sst#mayMatchBatch} exactly
 * as by {@link Sst#mayMatch} on every probe.
 */
class MatrixBlockBasedTest {
    private static Path file(String name) {
        String dir = System.getenv("ROCKSFILTER_MATRIX");
        assumeTrue(dir != null && !dir.isEmpty(), "ROCKSFILTER_MATRIX not set (make test-all sets it)");
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

    /**
     * Every file of RocksDB 6.29's part of the matrix with a filter (full, partitioned,
     * block-based; Bloom and Ribbon; whole-key and prefix-only; every index type): the batch
     * answers every probe as the single query does, and never "absent" for a key in the file.
     */
    @Test
    void batchEqualsSingleOnEveryFilteredFile() throws IOException {
        Path dir = file("manifest.jsonl").getParent();
        Pattern field = Pattern.compile("\"(case|filter)\": \"([^\"]*)\"");
        HexFormat hex = HexFormat.of();
        Map<String, Integer> files = new TreeMap<>();
        for (String entry : Files.readAllLines(dir.resolve("manifest.jsonl"))) {
            String name = null, filter = null;
            for (Matcher m = field.matcher(entry); m.find(); ) {
                if (m.group(1).equals("case")) {
                    name = m.group(2);
                } else {
                    filter = m.group(2);
                }
            }
            if (name == null || !List.of("full", "partitioned", "block_based").contains(filter)) {
                continue;
            }
            files.merge(filter, 1, Integer::sum);
            List<String> lines = Files.readAllLines(dir.resolve(name + ".probes"));
            byte[][] keys = new byte[lines.size()][];
            boolean[] inFile = new boolean[keys.length];
            for (int i = 0; i < keys.length; i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                keys[i] = hex.parseHex(f[0]);
                inFile[i] = f[1].equals("1");
            }
            try (Sst sst = Sst.open(dir.resolve(name + ".sst"))) {
                boolean[] single = new boolean[keys.length];
                for (int i = 0; i < keys.length; i++) {
                    single[i] = sst.mayMatch(keys[i]);
                    if (inFile[i]) {
                        assertTrue(single[i], name + ": key in the file answered absent");
                    }
                }
                assertArrayEquals(single, sst.mayMatchBatch(keys), name);
            }
        }
        assertTrue(files.getOrDefault("full", 0) > 0 && files.getOrDefault("partitioned", 0) > 0
                && files.getOrDefault("block_based", 0) > 0, "files in the manifest: " + files);
        System.out.println("MatrixBlockBasedTest: batch == single on " + files + " files of RocksDB 6.29.5");
    }
}
