package io.github.rocksfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.EnvOptions;
import org.rocksdb.IndexType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the README's examples and checks the READMEs show exactly this code: the filter example in both
 * (this binding's and the repository's), the SST examples (on a file RocksJava writes; the object
 * storage one through {@link RangeHttpServer}) in this binding's.
 */
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

    static void sstExample(Path path, byte[] key, PrintStream out) {
        // BEGIN README SST EXAMPLE
        try (Sst sst = Sst.open(path)) {                // reads the filter, closes the file; checksums verified
            boolean maybe = sst.mayMatch(key);          // false: the file certainly lacks the key
            boolean[] both = sst.mayMatchBatch(new byte[][] {key, "durian".getBytes(UTF_8)}); // one native call
            SstProperties p = sst.properties();         // format_version, checksum type, filter policy, ...
            out.println(sst.filterType() + " " + p.filterPolicy() + " format_version=" + p.formatVersion()
                    + " maybe=" + maybe + " batch=" + Arrays.toString(both));
            sst.fullFilter().ifPresent(f -> { // empty if partitioned
                try (f) {
                    out.println(f.kind() + " filter of " + f.bytes().length + " bytes");
                }
            });
        }
        // END README SST EXAMPLE
    }

    static void objectStorageExample(HttpClient http, URI object, long size, byte[] key, PrintStream out) {
        // BEGIN README OBJECT STORAGE EXAMPLE
        RangeReader ranged = (offset, dst) -> {         // one ranged GET per read, at most 2 per open
            String range = "bytes=" + offset + "-" + (offset + dst.remaining() - 1);
            HttpRequest get = HttpRequest.newBuilder(object).header("Range", range).build();
            try {
                HttpResponse<byte[]> r = http.send(get, HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 206) {
                    throw new IOException(range + ": HTTP " + r.statusCode());
                }
                dst.put(r.body());                      // a short body leaves dst unfilled: the open fails
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(range);
            }
        };
        try (Sst sst = Sst.open(ranged, size)) {        // size: the object's length (a listing, a HEAD)
            out.println(sst.filterType() + " maybe=" + sst.mayMatch(key) + " reads=" + sst.openStats().reads());
        }
        // END README OBJECT STORAGE EXAMPLE
    }

    static void cacheExample(Path path, byte[] key, PrintStream out) {
        // BEGIN README CACHE EXAMPLE
        try (Cache cache = new Cache(64 << 20)) {          // one budget for the filters of every file
            SstOptions options = new SstOptions().withCache(cache);
            try (Sst sst = Sst.open(path, options)) {      // keeps the partition index, not the partitions
                boolean maybe = sst.mayMatch(key);         // reads the key's partition into the cache
                CacheStats st = cache.stats();             // hits, misses, reads, evictions, ...
                out.println(sst.filterType() + " maybe=" + maybe + " held=" + st.bytesHeld() + " misses=" + st.misses());
            }
        }
        // END README CACHE EXAMPLE
    }

    /** The SST file the README's SST examples describe: BloomFilter(10), format_version 5, three keys. */
    static Path writeExampleSst(Path tmp) throws Exception {
        RocksDB.loadLibrary();
        Path path = tmp.resolve("000042.sst");
        BlockBasedTableConfig table = new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10))
                .setFormatVersion(5);
        try (Options opts = new Options().setTableFormatConfig(table); EnvOptions env = new EnvOptions();
             SstFileWriter w = new SstFileWriter(env, opts)) {
            w.open(path.toString());
            for (String key : List.of("apple", "banana", "cherry")) {
                w.put(key.getBytes(UTF_8), "v".getBytes(UTF_8));
            }
            w.finish();
        }
        return path;
    }

    @Test
    void objectStorageExampleRuns(@TempDir Path tmp) throws Exception {
        Path path = writeExampleSst(tmp);
        // (HttpClient is AutoCloseable only from JDK 21: the suite also runs on JDK 17.)
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (RangeHttpServer server = new RangeHttpServer()) {
            URI object = server.put("db/000042.sst", Files.readAllBytes(path));
            long size = RangeHttpServer.size(http, object);
            for (String key : List.of("apple", "durian")) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                long before = server.rangeGets();
                objectStorageExample(http, object, size, key.getBytes(UTF_8), new PrintStream(buf, true, UTF_8));
                String printed = buf.toString(UTF_8).trim();
                System.out.println("README object storage example printed: " + printed);
                assertEquals("FULL maybe=" + key.equals("apple") + " reads=1", printed);
                assertEquals(1, server.rangeGets() - before, "a file under 64 KiB: one ranged GET");
            }
            // A missing object (404): the reader's IOException is the cause.
            URI missing = object.resolve("missing.sst");
            RocksFilterException e = assertThrows(RocksFilterException.class,
                    () -> objectStorageExample(http, missing, size, new byte[1], System.out));
            assertEquals(Status.IO_ERROR, e.status());
            assertEquals("bytes=0-" + (size - 1) + ": HTTP 404", e.getCause().getMessage());
        }
    }

    /** The file of the README's cache example: the three keys, a partitioned Bloom filter. */
    static Path writePartitionedExampleSst(Path tmp) throws Exception {
        RocksDB.loadLibrary();
        Path path = tmp.resolve("000043.sst");
        BlockBasedTableConfig table = new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10))
                .setFormatVersion(5).setPartitionFilters(true).setIndexType(IndexType.kTwoLevelIndexSearch);
        try (Options opts = new Options().setTableFormatConfig(table); EnvOptions env = new EnvOptions();
             SstFileWriter w = new SstFileWriter(env, opts)) {
            w.open(path.toString());
            for (String key : List.of("apple", "banana", "cherry")) {
                w.put(key.getBytes(UTF_8), "v".getBytes(UTF_8));
            }
            w.finish();
        }
        return path;
    }

    @Test
    void cacheExampleRuns(@TempDir Path tmp) throws Exception {
        Path path = writePartitionedExampleSst(tmp);
        for (String key : List.of("apple", "durian")) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            cacheExample(path, key.getBytes(UTF_8), new PrintStream(buf, true, UTF_8));
            String printed = buf.toString(UTF_8).trim();
            System.out.println("README cache example printed: " + printed);
            assertEquals("PARTITIONED maybe=" + key.equals("apple") + " held=256 misses=1", printed);
        }
    }

    @Test
    void sstExampleRuns(@TempDir Path tmp) throws Exception {
        Path path = writeExampleSst(tmp);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        sstExample(path, "apple".getBytes(UTF_8), new PrintStream(buf, true, StandardCharsets.UTF_8));
        String printed = buf.toString(StandardCharsets.UTF_8).trim();
        System.out.println("README SST example printed: " + printed);
        assertEquals("FULL bloomfilter format_version=5 maybe=true batch=[true, false]\nFAST_LOCAL_BLOOM filter of 69 bytes", printed);
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
        // The first example is in both READMEs, the SST ones in this binding's only.
        for (String marker : List.of("README EXAMPLE", "README SST EXAMPLE", "README OBJECT STORAGE EXAMPLE",
                "README CACHE EXAMPLE")) {
            int from = indexOfTrimmed(src, "// BEGIN " + marker) + 1;
            int to = indexOfTrimmed(src, "// END " + marker);
            String code = src.subList(from, to).stream().map(l -> l.length() >= 8 ? l.substring(8) : l.strip())
                    .collect(Collectors.joining("\n"));
            List<Path> readmes = marker.equals("README EXAMPLE") ? List.of(Path.of("README.md"), Path.of("../../README.md"))
                    : List.of(Path.of("README.md"));
            for (Path readme : readmes) {
                assertTrue(Files.readString(readme).contains(code),
                        readme + " must contain the example exactly as in ReadmeExampleTest:\n" + code);
            }
            int most = marker.equals("README OBJECT STORAGE EXAMPLE") ? 20 : 12;
            assertTrue(to - from <= most, "at most " + most + " lines: " + (to - from));
        }
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
