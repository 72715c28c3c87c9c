package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the README's example and checks both READMEs (this binding's and the repository's) show exactly this code. */
class ReadmeExampleTest {

    static void example(PrintStream out) {
        // BEGIN README EXAMPLE
        byte[] block;
        try (FilterBuilder builder = new FilterBuilder(Policy.RIBBON, 10.0)) {
            for (String key : List.of("apple", "banana", "cherry")) {
                builder.add(key.getBytes(UTF_8));
            }
            block = builder.finish(); // the bytes RocksDB would write for these keys
        }
        try (Filter filter = Filter.load(block)) {
            out.println(filter.kind() + " apple=" + filter.mayMatch("apple".getBytes(UTF_8))
                    + " hash64(\"\")=" + Long.toHexString(RocksFilter.hash64(new byte[0])));
        }
        // END README EXAMPLE
    }

    @Test
    void exampleRuns() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        example(new PrintStream(buf, true, StandardCharsets.UTF_8));
        String printed = buf.toString(StandardCharsets.UTF_8).trim();
        System.out.println("README example printed: " + printed);
        // Three keys are too few for a Ribbon filter: RocksDB falls back to Bloom, as rocksfilter does.
        assertEquals("FAST_LOCAL_BLOOM apple=true hash64(\"\")=5342c3010fe1dd04", printed);
    }

    @Test
    void readmeShowsThisCode() throws Exception {
        List<String> src = Files.readAllLines(Path.of("src/test/java/io/github/rocksfilter/ReadmeExampleTest.java"));
        int from = indexOfTrimmed(src, "// BEGIN README EXAMPLE") + 1;
        int to = indexOfTrimmed(src, "// END README EXAMPLE");
        String code = src.subList(from, to).stream().map(l -> l.length() >= 8 ? l.substring(8) : l.strip())
                .collect(Collectors.joining("\n"));
        for (Path readme : List.of(Path.of("README.md"), Path.of("../../README.md"))) {
            assertTrue(Files.readString(readme).contains(code),
                    readme + " must contain the example exactly as in ReadmeExampleTest:\n" + code);
        }
        assertTrue(to - from <= 12, "about ten lines: " + (to - from));
    }

    private static int indexOfTrimmed(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                return i;
            }
        }
        throw new AssertionError("marker not found: " + marker);
    }
}
