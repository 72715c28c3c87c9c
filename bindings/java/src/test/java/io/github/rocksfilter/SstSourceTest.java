package io.github.rocksfilter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Sst#open(RangeReader, long)} and {@link Sst#open(SeekableByteChannel)} on SST files
 * RocksJava writes (full and partitioned filters, small and large files): through a real HTTP server
 * with Range support (the object-storage case) and through channels, every answer equals the path
 * open's, and an open makes at most two reads, as many as {@link Sst#openStats()} reports. Readers
 * that fail on any call, fill too little or throw unchecked exceptions make the open throw a clean
 * exception carrying theirs.
 */
class SstSourceTest {
    static final byte[][] KEYS = RocksJavaInteropTest.KEYS;
    static final byte[][] ABSENT = TestKeys.absent(20_000, RocksJavaInteropTest.STEP);
    /** Enough keys that the filter lies outside the file's last 64 KiB: the open needs a second read. */
    static final byte[][] MANY_KEYS = TestKeys.sorted(200_000, RocksJavaInteropTest.STEP);
    static final byte[][] MANY_ABSENT = TestKeys.absent(200_000, RocksJavaInteropTest.STEP);

    /** A file RocksJava wrote, the keys in it and keys not in it, and the filter it should have. */
    record SstFile(String name, Path path, byte[][] keys, byte[][] absent, SstFilterType type) {
        @Override
        public String toString() {
            return name;
        }
    }

    @TempDir
    static Path tmp;
    static final Map<String, SstFile> FILES = new LinkedHashMap<>();
    static RangeHttpServer server;
    static HttpClient http;
    static final List<String> SUMMARY = new ArrayList<>();

    @BeforeAll
    static void writeFilesAndStartServer() throws Exception {
        RocksDB.loadLibrary();
        try (Options bloom = bloomOptions(); Options ribbon = RocksJavaInteropTest.optionsFromString(
                "{filter_policy=ribbonfilter:10;format_version=6}");
             Options partitioned = RocksJavaInteropTest.partitionedOptions(new RocksJavaInteropTest.Partitioned(
                     "partitioned-bloom10", () -> new BloomFilter(10), null, 5));
             Options partitionedRibbon = RocksJavaInteropTest.partitionedOptions(new RocksJavaInteropTest.Partitioned(
                     "partitioned-ribbon10", null, "ribbonfilter:10", 7))) {
            add("small-full-bloom10", bloom, TestKeys.sorted(3, RocksJavaInteropTest.STEP),
                    TestKeys.absent(1000, RocksJavaInteropTest.STEP), SstFilterType.FULL);
            add("full-bloom10", bloom, KEYS, ABSENT, SstFilterType.FULL);
            add("full-ribbon10", ribbon, KEYS, ABSENT, SstFilterType.FULL);
            add("full-bloom10-200k", bloom, MANY_KEYS, MANY_ABSENT, SstFilterType.FULL);
            add("partitioned-bloom10", partitioned, KEYS, ABSENT, SstFilterType.PARTITIONED);
            add("partitioned-ribbon10", partitionedRibbon, KEYS, ABSENT, SstFilterType.PARTITIONED);
            add("partitioned-bloom10-200k", partitioned, MANY_KEYS, MANY_ABSENT, SstFilterType.PARTITIONED);
        }
        server = new RangeHttpServer();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    static Options bloomOptions() {
        return new Options().setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10))
                .setFormatVersion(5));
    }

    static void add(String name, Options opts, byte[][] keys, byte[][] absent, SstFilterType type)
            throws RocksDBException {
        Path path = RocksJavaInteropTest.writeSst(tmp, name, opts, keys);
        FILES.put(name, new SstFile(name, path, keys, absent, type));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
        // (No http.close(): HttpClient has it only from JDK 21, and the suite also runs on JDK 17.)
        System.out.println("==== Sst.open(RangeReader) / Sst.open(SeekableByteChannel): reads per open ====");
        SUMMARY.forEach(System.out::println);
    }

    static Stream<SstFile> files() {
        return FILES.values().stream();
    }

    static URI serve(SstFile f) throws IOException {
        return server.put(f.name(), Files.readAllBytes(f.path()));
    }

    /** Every answer of {@code got} (keys, absent keys, batch, properties, full filter) equals {@code want}'s. */
    static void assertSameAnswers(SstFile f, Sst want, Sst got) {
        assertEquals(f.type(), want.filterType(), f.name());
        assertEquals(want.filterType(), got.filterType());
        assertEquals(want.properties(), got.properties());
        for (byte[] k : f.keys()) {
            assertTrue(got.mayMatch(k), () -> f.name() + ": false negative for " + new String(k));
        }
        int fp = 0;
        for (byte[] k : f.absent()) {
            boolean a = want.mayMatch(k);
            assertEquals(a, got.mayMatch(k), () -> f.name() + ": answers differ on " + new String(k));
            fp += a ? 1 : 0;
        }
        assertTrue(fp < f.absent().length / 20, f.name() + ": " + fp + " false positives");
        assertArrayEquals(want.mayMatchBatch(f.absent()), got.mayMatchBatch(f.absent()));
        Optional<Filter> a = want.fullFilter();
        Optional<Filter> b = got.fullFilter();
        assertEquals(a.isPresent(), b.isPresent());
        if (a.isPresent()) {
            try (Filter x = a.get(); Filter y = b.get()) {
                assertArrayEquals(x.bytes(), y.bytes());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void httpRangeOpenAnswersAsPathOpen(SstFile f) throws Exception {
        URI object = serve(f);
        long size = RangeHttpServer.size(http, object);
        assertEquals(Files.size(f.path()), size);
        try (Sst byPath = Sst.open(f.path())) {
            long gets = server.rangeGets();
            long served = server.bytesServed();
            long other = server.otherRequests();
            try (Sst overHttp = Sst.open(RangeHttpServer.reader(http, object), size)) {
                long requests = server.rangeGets() - gets;
                long bytes = server.bytesServed() - served;
                assertEquals(0, server.otherRequests() - other, "only ranged GETs during the open");
                SstOpenStats st = overHttp.openStats();
                assertEquals(requests, st.reads(), "one ranged GET per read the library reports");
                assertEquals(bytes, st.bytesRead());
                assertTrue(requests >= 1 && requests <= 2, f.name() + ": " + requests + " requests per open");
                // The path open reads the same ranges with pread.
                assertEquals(byPath.openStats(), st);
                assertTrue(st.bytesHeld() > 0 && st.bytesHeld() < size, st.toString());
                if (f.keys() == MANY_KEYS) {
                    assertEquals(2, requests, "a filter outside the last 64 KiB needs its own read");
                }
                if (size <= 64 << 10) {
                    assertEquals(1, requests, "a file of at most 64 KiB is read whole");
                    assertEquals(size, bytes);
                }
                // Nothing reaches the server after the open.
                assertSameAnswers(f, byPath, overHttp);
                assertEquals(requests, server.rangeGets() - gets);
                String line = String.format("http %-26s %-11s %9d-byte file: %d ranged GETs, %7d bytes per open;"
                                + " handle holds %7d bytes", f.name(), f.type(), size, requests, bytes, st.bytesHeld());
                System.out.println(line);
                synchronized (SUMMARY) {
                    SUMMARY.add(line);
                }
            }
        }
    }

    /** A SeekableByteChannel that is not a FileChannel: the open reads it with position() and read(). */
    static final class PlainChannel implements SeekableByteChannel {
        final SeekableByteChannel in;
        final AtomicInteger positions = new AtomicInteger();

        PlainChannel(SeekableByteChannel in) {
            this.in = in;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            // At most 1000 bytes a call: the open must loop until the range is full.
            ByteBuffer part = dst.slice(dst.position(), Math.min(dst.remaining(), 1000));
            int n = in.read(part);
            if (n > 0) {
                dst.position(dst.position() + n);
            }
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public long position() throws IOException {
            return in.position();
        }

        @Override
        public SeekableByteChannel position(long p) throws IOException {
            positions.incrementAndGet();
            in.position(p);
            return this;
        }

        @Override
        public long size() throws IOException {
            return in.size();
        }

        @Override
        public SeekableByteChannel truncate(long size) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public boolean isOpen() {
            return in.isOpen();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** A reader filling {@code dst} from another thread (AsynchronousFileChannel's pool), as an async client would. */
    static RangeReader asyncReader(AsynchronousFileChannel ch) {
        return (offset, dst) -> {
            long at = offset;
            while (dst.hasRemaining()) {
                int n;
                try {
                    n = ch.read(dst, at).get();
                } catch (InterruptedException | ExecutionException e) {
                    throw new IOException(e);
                }
                if (n < 0) {
                    throw new EOFException("at " + at);
                }
                at += n;
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void channelOpenAnswersAsPathOpen(SstFile f) throws Exception {
        try (Sst byPath = Sst.open(f.path());
             SeekableByteChannel ch = Files.newByteChannel(f.path());
             PlainChannel plain = new PlainChannel(Files.newByteChannel(f.path()));
             AsynchronousFileChannel async = AsynchronousFileChannel.open(f.path(), StandardOpenOption.READ)) {
            assertInstanceOf(FileChannel.class, ch, "the default file system's channel is a FileChannel");
            ch.position(123);
            try (Sst viaChannel = Sst.open(ch)) {
                assertEquals(123, ch.position(), "positional reads leave a FileChannel's position alone");
                assertEquals(byPath.openStats(), viaChannel.openStats());
                assertSameAnswers(f, byPath, viaChannel);
            }
            try (Sst viaPlain = Sst.open(plain, true)) {
                assertEquals(byPath.openStats().reads(), plain.positions.get(), "one position() per read");
                assertEquals(byPath.openStats(), viaPlain.openStats());
                assertSameAnswers(f, byPath, viaPlain);
            }
            try (Sst viaAsync = Sst.open(asyncReader(async), async.size())) {
                assertEquals(byPath.openStats(), viaAsync.openStats());
                assertSameAnswers(f, byPath, viaAsync);
            }
            // Unverified opens read the same bytes and answer the same.
            try (Sst unverified = Sst.open(Readers.reader(ch), ch.size(), false)) {
                assertSameAnswers(f, byPath, unverified);
            }
        }
        // The handle owns what it queries: the channel can close, the file can go.
        Sst opened;
        try (SeekableByteChannel ch = Files.newByteChannel(f.path())) {
            opened = Sst.open(ch);
        }
        try (Sst sst = opened) {
            Path moved = Files.move(f.path(), f.path().resolveSibling(f.name() + ".moved"));
            try {
                for (byte[] k : f.keys()) {
                    assertTrue(sst.mayMatch(k));
                }
            } finally {
                Files.move(moved, f.path());
            }
        }
    }

    /** The calls a clean open makes through a reader: (offset, length) each. */
    static List<long[]> cleanCalls(SstFile f) throws IOException {
        List<long[]> calls = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(f.path())) {
            RangeReader file = Readers.reader(ch);
            try (Sst sst = Sst.open((offset, dst) -> {
                calls.add(new long[] {offset, dst.remaining()});
                file.readFully(offset, dst);
            }, ch.size())) {
                assertEquals(calls.size(), sst.openStats().reads());
            }
        }
        return calls;
    }

    /** A reader over {@code f} that calls {@code fault} instead of reading on its {@code n}-th call (1-based). */
    interface Fault {
        void at(long offset, ByteBuffer dst, RangeReader file) throws IOException;
    }

    static RocksFilterException failedOpen(SstFile f, int n, Fault fault, AtomicInteger calls) throws IOException {
        try (FileChannel ch = FileChannel.open(f.path())) {
            RangeReader file = Readers.reader(ch);
            return assertThrows(RocksFilterException.class, () -> Sst.open((offset, dst) -> {
                if (calls.incrementAndGet() == n) {
                    fault.at(offset, dst, file);
                } else {
                    file.readFully(offset, dst);
                }
            }, ch.size()).close(), f.name() + ": fault on call " + n);
        }
    }

    static void assertNamesTheRead(RocksFilterException e, long[] call) {
        assertEquals(Status.IO_ERROR, e.status(), e.getMessage());
        assertTrue(e.getMessage().startsWith("I/O error: read of " + call[1] + " bytes at offset " + call[0]
                + " failed: read_at returned "), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void readerFailingOnAnyCallFailsTheOpenCleanly(SstFile f) throws Exception {
        List<long[]> clean = cleanCalls(f);
        assertTrue(clean.size() >= 1 && clean.size() <= 2, clean.size() + " calls");
        for (int n = 1; n <= clean.size(); n++) {
            long[] call = clean.get(n - 1);
            String why = "injected failure on call " + n;
            IOException thrown = new IOException(why);
            AtomicInteger calls = new AtomicInteger();
            RocksFilterException e = failedOpen(f, n, (offset, dst, file) -> {
                throw thrown;
            }, calls);
            assertNamesTheRead(e, call);
            assertSame(thrown, e.getCause(), "the reader's exception is the cause");
            assertEquals(n, calls.get(), "no call after the failing one");

            // Too few bytes: half the range, then return.
            RocksFilterException shortRead = failedOpen(f, n, (offset, dst, file) -> {
                dst.limit(dst.position() + dst.remaining() / 2);
                file.readFully(offset, dst);
                dst.limit(dst.capacity());
            }, new AtomicInteger());
            assertNamesTheRead(shortRead, call);
            EOFException eof = assertInstanceOf(EOFException.class, shortRead.getCause());
            assertTrue(eof.getMessage().startsWith("RangeReader.readFully(" + call[0] + ", dst) returned with dst's"
                    + " position at " + call[1] / 2 + " and limit at " + call[1]), eof.getMessage());

            // Nothing read at all (a reader that forgot to copy).
            RocksFilterException nothing = failedOpen(f, n, (offset, dst, file) -> {
            }, new AtomicInteger());
            assertNamesTheRead(nothing, call);
            assertInstanceOf(EOFException.class, nothing.getCause());

            // Filled, then flipped (position back to 0), or with the limit moved in: not a filled range.
            for (Fault misuse : List.<Fault>of((offset, dst, file) -> {
                file.readFully(offset, dst);
                dst.flip();
            }, (offset, dst, file) -> {
                file.readFully(offset, dst);
                dst.limit(dst.limit() - 1);
            })) {
                RocksFilterException moved = failedOpen(f, n, misuse, new AtomicInteger());
                assertNamesTheRead(moved, call);
                assertInstanceOf(EOFException.class, moved.getCause());
            }

            // Unchecked exceptions are carried the same way.
            RocksFilterException unchecked = failedOpen(f, n, (offset, dst, file) -> {
                throw new IllegalStateException("the client was shut down");
            }, new AtomicInteger());
            assertNamesTheRead(unchecked, call);
            assertEquals("the client was shut down",
                    assertInstanceOf(IllegalStateException.class, unchecked.getCause()).getMessage());

            // Too many bytes: put() overflows.
            RocksFilterException overflow = failedOpen(f, n, (offset, dst, file) -> dst.put(new byte[dst.remaining() + 1]),
                    new AtomicInteger());
            assertNamesTheRead(overflow, call);
            assertInstanceOf(java.nio.BufferOverflowException.class, overflow.getCause());
        }
        // The JVM and the library are fine: a clean open of the same file still answers.
        try (Sst again = Sst.open(f.path())) {
            for (byte[] k : f.keys()) {
                assertTrue(again.mayMatch(k));
            }
        }
    }

    /** An Error thrown by the reader (a failed assertion in a test, say) comes out as itself. */
    @Test
    void errorFromTheReaderIsRethrownAsItIs() {
        AssertionError thrown = new AssertionError("reader assertion");
        AssertionError e = assertThrows(AssertionError.class, () -> Sst.open((offset, dst) -> {
            throw thrown;
        }, 1 << 20));
        assertSame(thrown, e);
        assertEquals(1, e.getSuppressed().length);
        RocksFilterException lib = assertInstanceOf(RocksFilterException.class, e.getSuppressed()[0]);
        assertNamesTheRead(lib, new long[] {(1 << 20) - (64 << 10), 64 << 10});
    }

    /**
     * dst lives only during the call: a reader that kept it cannot write into the library's memory
     * later (FFM: the buffer dies; JNI: it is a heap copy).
     */
    @Test
    void bufferIsDeadAfterTheCall() throws Exception {
        SstFile f = FILES.get("full-bloom10");
        List<ByteBuffer> kept = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(f.path()); Sst byPath = Sst.open(f.path())) {
            RangeReader file = Readers.reader(ch);
            try (Sst sst = Sst.open((offset, dst) -> {
                kept.add(dst);
                file.readFully(offset, dst);
            }, ch.size())) {
                assertEquals(sst.openStats().reads(), kept.size());
                for (ByteBuffer b : kept) {
                    if (RocksFilter.backend().equals("ffm")) {
                        // The library's memory, dead once the call returned.
                        assertTrue(b.isDirect());
                        assertThrows(IllegalStateException.class, () -> b.put(0, (byte) 0x55));
                        assertThrows(IllegalStateException.class, () -> b.get(0));
                    } else {
                        // JNI: a heap buffer the library copied; writing into it later changes nothing.
                        assertFalse(b.isDirect());
                        java.util.Arrays.fill(b.array(), (byte) 0x55);
                    }
                }
                assertSameAnswers(f, byPath, sst);
            }
        }
    }

    @Test
    void channelFailures() throws Exception {
        SstFile f = FILES.get("full-bloom10");
        SeekableByteChannel closed = Files.newByteChannel(f.path());
        closed.close();
        RocksFilterException e = assertThrows(RocksFilterException.class, () -> Sst.open(closed));
        assertEquals(Status.IO_ERROR, e.status());
        assertInstanceOf(ClosedChannelException.class, e.getCause());
        assertEquals("I/O error: size of the channel: java.nio.channels.ClosedChannelException", e.getMessage());

        // A size past the file's end: the first read runs into the end of the channel.
        for (SeekableByteChannel ch : List.of(Files.newByteChannel(f.path()),
                new PlainChannel(Files.newByteChannel(f.path())))) {
            try (ch) {
                long size = ch.size() + 4096;
                RocksFilterException past = assertThrows(RocksFilterException.class,
                        () -> Sst.open(Readers.reader(ch), size));
                assertNamesTheRead(past, new long[] {size - (64 << 10), 64 << 10});
                EOFException eof = assertInstanceOf(EOFException.class, past.getCause());
                assertEquals("the channel ends at offset " + (size - 4096) + ", 4096 bytes short of the range of "
                        + (64 << 10) + " bytes at offset " + (size - (64 << 10)) + " (was the file truncated?)",
                        eof.getMessage());
            }
        }
        // A size short of the file's end: the tail read holds no footer (content, not I/O: no cause).
        try (SeekableByteChannel ch = Files.newByteChannel(f.path())) {
            RocksFilterException shorter = assertThrows(RocksFilterException.class,
                    () -> Sst.open(Readers.reader(ch), ch.size() - 1));
            assertEquals(Status.CORRUPTION, shorter.status(), shorter.getMessage());
            assertEquals(null, shorter.getCause());
        }
        assertThrows(IllegalArgumentException.class, () -> Sst.open((offset, dst) -> {
        }, -1));
        assertThrows(NullPointerException.class, () -> Sst.open((RangeReader) null, 100));
        assertThrows(NullPointerException.class, () -> Sst.open((SeekableByteChannel) null));
        // Empty and tiny sizes: refused before any read.
        for (long size : new long[] {0, 10}) {
            RocksFilterException tiny = assertThrows(RocksFilterException.class, () -> Sst.open((offset, dst) -> {
                throw new AssertionError("read " + dst.remaining() + " bytes at " + offset + " of a " + size
                        + "-byte file");
            }, size));
            assertEquals(Status.CORRUPTION, tiny.status(), tiny.getMessage());
        }
    }

    /** openStats of the other opens: memory opens read nothing; a closed handle refuses. */
    @Test
    void openStatsOfMemoryOpens() throws Exception {
        SstFile f = FILES.get("partitioned-bloom10");
        byte[] bytes = Files.readAllBytes(f.path());
        Sst byPath = Sst.open(f.path());
        try (Sst mem = Sst.openBytes(bytes)) {
            // (bytesHeld is left out: the library currently copies a memory file's filter blocks.)
            SstOpenStats p = byPath.openStats();
            if (RocksFilter.backend().equals("ffm")) {
                assertEquals(0, mem.openStats().reads());
                assertEquals(0, mem.openStats().bytesRead());
            } else {
                // JNI: the array is read through a source, the ranges a file opened by path reads.
                assertEquals(p.reads(), mem.openStats().reads());
                assertEquals(p.bytesRead(), mem.openStats().bytesRead());
            }
            assertTrue(p.reads() >= 1 && p.reads() <= 2, p.toString());
            assertTrue(p.bytesRead() >= p.bytesHeld() / 2 && p.bytesRead() <= bytes.length, p.toString());
        } finally {
            byPath.close();
        }
        assertThrows(IllegalStateException.class, byPath::openStats);
    }
}
