package io.github.rocksfilter.flinktest;

import io.github.rocksfilter.RangeReader;
import io.github.rocksfilter.RocksFilter;
import io.github.rocksfilter.Sst;
import io.github.rocksfilter.SstFilterType;
import io.github.rocksfilter.SstOpenStats;
import io.github.rocksfilter.SstProperties;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Step 2 of the Flink checkpoint test: only rocksfilter on the class path (no Flink, no RocksDB).
 * For every SST file that step 1 ({@link FlinkCheckpointDump}) found in the checkpoint: opens it
 * with {@link Sst#open(Path)}, checks that it has a filter, that every key RocksDB's SstFileReader
 * iterated in it may match, and counts how many of step 1's absent keys (same shape: a real key with
 * an unwritten key of the same key group in place of the user key) the filter rejects. Also opens
 * each file through a {@link RangeReader} over a {@link FileChannel}, as an object store's ranged
 * GETs would be used, and checks that it gives the same answers. Exits 1 on any failure.
 *
 * <p>Usage: {@code FilterCheck WORK_DIR [MAX_FP_RATE]} (default 0.03)
 */
public final class FilterCheck {
    private FilterCheck() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FilterCheck WORK_DIR [MAX_FP_RATE]");
            System.exit(2);
        }
        Path work = Paths.get(args[0]);
        double maxFp = args.length > 1 ? Double.parseDouble(args[1]) : 0.03;
        System.out.printf("check: JDK %s, rocksfilter %s, %s backend, native library %s from %s%n",
                System.getProperty("java.version"), RocksFilter.BINDING_VERSION, RocksFilter.backend(),
                RocksFilter.version(), RocksFilter.nativeLibrary());

        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(work.resolve("manifest.tsv"))) {
            if (!line.startsWith("#") && !line.isBlank()) {
                rows.add(line.split("\t"));
            }
        }
        List<String> failures = new ArrayList<>();
        long totalKeys = 0;
        long totalAbsent = 0;
        long totalMatchedAbsent = 0;
        long totalFalseNegatives = 0;
        long openNanos = 0;
        long presentNanos = 0;
        long absentNanos = 0;
        long rangeNanos = 0;
        long reads = 0;
        long bytesRead = 0;
        long bytesHeld = 0;
        long rangeCalls = 0;
        long rangeBytes = 0;
        long fileBytes = 0;
        long filterBytes = 0;
        for (String[] r : rows) {
            String index = r[0];
            Path sst = Paths.get(r[1]);
            String name = r[2] + " of subtask " + r[3] + ", column family " + r[4];
            List<byte[]> keys = readKeys(Paths.get(r[6]));
            List<byte[]> absent = readKeys(Paths.get(r[8]));
            if (keys.size() != Long.parseLong(r[5]) || absent.size() != Long.parseLong(r[7])) {
                failures.add("sst " + index + ": the keys files do not hold the counts the manifest names");
                continue;
            }
            long t0 = System.nanoTime();
            try (Sst file = Sst.open(sst)) {
                long t1 = System.nanoTime();
                openNanos += t1 - t0;
                SstFilterType type = file.filterType();
                SstProperties p = file.properties();
                SstOpenStats st = file.openStats();
                reads += st.reads();
                bytesRead += st.bytesRead();
                bytesHeld += st.bytesHeld();
                fileBytes += Files.size(sst);
                filterBytes += p.filterSize();
                String cf = file.property("rocksdb.column.family.name")
                        .map(b -> new String(b, StandardCharsets.UTF_8)).orElse(null);
                if (!r[4].equals(cf)) {
                    failures.add("sst " + index + ": rocksdb.column.family.name is " + cf + ", SstFileReader said " + r[4]);
                }
                String kind;
                try (var full = file.fullFilter().orElse(null)) {
                    kind = full == null ? "-" : full.kind().toString();
                }
                System.out.printf("sst %2s: %s (%s): format_version %d, checksum type %d, filter %s %s, policy %s, block %s, "
                                + "%d partition(s), whole-key %s, prefix extractor %s, prefix filter %s, "
                                + "%d filter entries (num.entries %d), %d filter bytes; open: %d reads, %d bytes read, %d held%n",
                        index, sst.getFileName(), name, p.formatVersion(), p.checksumType(), type, kind, p.filterPolicy(),
                        p.filterBlockName(), p.numPartitions(),
                        p.wholeKeyFiltering(), p.prefixExtractor(), p.hasPrefixFilter(), p.numFilterEntries(),
                        p.numEntries(), p.filterSize(), st.reads(), st.bytesRead(), st.bytesHeld());
                if (type == SstFilterType.NONE || type == SstFilterType.UNSUPPORTED) {
                    failures.add("sst " + index + " (" + sst + "): filter type " + type);
                    continue;
                }
                if (!p.wholeKeyFiltering()) {
                    failures.add("sst " + index + " (" + sst + "): the filter holds no whole keys (prefix only)");
                }

                // Every key RocksDB iterated in the file: "may match".
                long falseNegatives = 0;
                for (byte[] k : keys) {
                    if (!file.mayMatch(k)) {
                        falseNegatives++;
                        if (falseNegatives <= 10) {
                            failures.add("sst " + index + " (" + sst + "): key " + hex(k) + " is in the file but mayMatch is false");
                        }
                    }
                }
                if (falseNegatives > 10) {
                    failures.add("sst " + index + ": " + (falseNegatives - 10) + " more false negatives");
                }
                long t2 = System.nanoTime();
                presentNanos += t2 - t1;

                // Absent keys of the same shape: verified absent, then counted.
                Set<ByteBuffer> present = new HashSet<>(keys.size() * 2);
                for (byte[] k : keys) {
                    present.add(ByteBuffer.wrap(k));
                }
                long probed = 0;
                long matched = 0;
                boolean[] answers = new boolean[absent.size()];
                for (int i = 0; i < absent.size(); i++) {
                    byte[] k = absent.get(i);
                    if (present.contains(ByteBuffer.wrap(k))) {
                        failures.add("sst " + index + ": the absent key " + hex(k) + " is in the file");
                        continue;
                    }
                    probed++;
                    answers[i] = file.mayMatch(k);
                    if (answers[i]) {
                        matched++;
                    }
                }
                long t3 = System.nanoTime();
                absentNanos += t3 - t2;
                double fp = probed == 0 ? Double.NaN : (double) matched / probed;
                System.out.printf("sst %2s: %s: %d keys, %d may match (%d false negatives); %d absent probed, %d rejected, "
                                + "%d may match: FP rate %.3f%%%n",
                        index, sst, keys.size(), keys.size() - falseNegatives, falseNegatives, probed, probed - matched,
                        matched, 100 * fp);
                totalKeys += keys.size();
                totalAbsent += probed;
                totalMatchedAbsent += matched;
                totalFalseNegatives += falseNegatives;
                if (probed == 0) {
                    failures.add("sst " + index + ": no absent key probed");
                }

                // The same file through a RangeReader (ranged reads, as of an object in a store).
                long[] calls = new long[2];
                try (FileChannel ch = FileChannel.open(sst, StandardOpenOption.READ)) {
                    RangeReader reader = (offset, dst) -> {
                        calls[0]++;
                        calls[1] += dst.remaining();
                        long pos = offset;
                        while (dst.hasRemaining()) {
                            int n = ch.read(dst, pos);
                            if (n < 0) {
                                throw new EOFException("end of " + sst + " at " + pos);
                            }
                            pos += n;
                        }
                    };
                    try (Sst ranged = Sst.open(reader, ch.size())) {
                        SstOpenStats rs = ranged.openStats();
                        long differ = 0;
                        for (byte[] k : keys) {
                            if (!ranged.mayMatch(k)) {
                                differ++;
                            }
                        }
                        for (int i = 0; i < absent.size(); i++) {
                            if (ranged.mayMatch(absent.get(i)) != answers[i]) {
                                differ++;
                            }
                        }
                        if (differ != 0) {
                            failures.add("sst " + index + ": opened through a RangeReader, " + differ + " answers differ");
                        }
                        if (rs.reads() != calls[0] || rs.bytesRead() != calls[1]) {
                            failures.add("sst " + index + ": openStats " + rs + " but the RangeReader saw " + calls[0]
                                    + " reads of " + calls[1] + " bytes");
                        }
                    }
                }
                rangeCalls += calls[0];
                rangeBytes += calls[1];
                rangeNanos += System.nanoTime() - t3;
            } catch (RuntimeException e) {
                failures.add("sst " + index + " (" + sst + "): " + e);
            }
        }

        double fp = totalAbsent == 0 ? Double.NaN : (double) totalMatchedAbsent / totalAbsent;
        System.out.printf("total: %d SST files, %d keys, %d may match (%d false negatives); %d absent probed, %d rejected, "
                        + "%d may match: FP rate %.3f%% (limit %.1f%%)%n",
                rows.size(), totalKeys, totalKeys - totalFalseNegatives, totalFalseNegatives, totalAbsent,
                totalAbsent - totalMatchedAbsent, totalMatchedAbsent, 100 * fp, 100 * maxFp);
        System.out.printf("total: Sst.open(Path): %d reads, %d bytes read of %d bytes of SST files (filters: %d bytes), %d bytes held; "
                        + "Sst.open(RangeReader): %d ranged reads, %d bytes%n",
                reads, bytesRead, fileBytes, filterBytes, bytesHeld, rangeCalls, rangeBytes);
        System.out.printf("time: open %d files: %.3f s; %d present-key probes: %.3f s; %d absent-key probes (and the set check): %.3f s; "
                        + "RangeReader open and same answers: %.3f s%n",
                rows.size(), openNanos / 1e9, totalKeys, presentNanos / 1e9, totalAbsent, absentNanos / 1e9, rangeNanos / 1e9);
        if (rows.size() < 2) {
            failures.add("fewer than 2 SST files in the checkpoint (" + rows.size() + ")");
        }
        if (!(fp <= maxFp)) {
            failures.add(String.format("FP rate %.3f%% above %.1f%%", 100 * fp, 100 * maxFp));
        }
        for (String f : failures) {
            System.out.println("FAIL " + f);
        }
        System.out.println(failures.isEmpty() ? "check: ok" : "check: " + failures.size() + " failure(s)");
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    static List<byte[]> readKeys(Path p) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(p)))) {
            while (true) {
                int len;
                try {
                    len = in.readInt();
                } catch (EOFException end) {
                    return keys;
                }
                byte[] k = new byte[len];
                in.readFully(k);
                keys.add(k);
            }
        }
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(2 * b.length);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return s.toString();
    }
}
