// MatrixWriter: writes this RocksJava version's SST filter cases and judges
// them with RocksDB itself (Get / prefix Seek, statistics tickers), following
// the output contract in ../README.md.
//
//   java -cp rocksdbjni-V.jar:CLASSES MatrixWriter OUTDIR [JAR_OR_VERSION]
//
// One source file for RocksJava 5.18 .. 11.x: table options go through
// options strings (ColumnFamilyOptions.getColumnFamilyOptionsFromProps), the
// few APIs that do not exist everywhere are reached by reflection, and what a
// file really contains (format_version, checksum, filter kind, filter
// implementation, index type, prefix extractor) is read back from the file's
// own footer, metaindex and properties blocks, never assumed.
//
// Exit status: 0 when every case was written and judged or refused by this
// version's option parser / DB::Open; 1 on a judge failure (a present key not
// found or filter-rejected, an absent key found, ...) or a crash.

import org.rocksdb.*;

import java.io.*;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class MatrixWriter {

  // ---------------------------------------------------------------- keys
  // 500 present 4-byte prefixes "p000","p002",..,"p998"; 20 keys each
  // ("k000000","k000002",..,"k000038"): 10,000 keys, 11 bytes, sorted.
  static final int PREFIXES = 500, PER_PREFIX = 20;

  static byte[] b(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

  static String presentPrefix(int i) { return String.format("p%03d", 2 * i); }

  static List<byte[]> writtenKeys() {
    List<byte[]> keys = new ArrayList<>();
    for (int p = 0; p < PREFIXES; p++)
      for (int k = 0; k < PER_PREFIX; k++)
        keys.add(b(presentPrefix(p) + String.format("k%06d", 2 * k)));
    return keys;
  }

  // Absent keys, all strictly between the smallest and the largest key written
  // (bytewise): odd suffixes inside present prefixes, and keys under absent
  // (odd) prefixes.
  static List<byte[]> absentKeys() {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 1100; i++) {
      int p = i % PREFIXES, k = (i * 7) % (PER_PREFIX - 1);
      keys.add(b(presentPrefix(p) + String.format("k%06d", 2 * k + 1)));
    }
    for (int i = 0; i < 1100; i++) {
      int p = (i * 3) % (PREFIXES - 1); // odd prefixes p001..p997
      keys.add(b(String.format("p%03dk%06d", 2 * p + 1, 2 * (i % PER_PREFIX))));
    }
    return keys;
  }

  // Absent 4-byte prefixes inside the key range: "p001".."p997" and
  // "p00:".."p49:" (':' sorts right after '9').
  static List<byte[]> absentPrefixes() {
    List<byte[]> ps = new ArrayList<>();
    for (int p = 0; p < PREFIXES - 1; p++) ps.add(b(String.format("p%03d", 2 * p + 1)));
    for (int n = 0; n < 50; n++) ps.add(b(String.format("p%02d:", n)));
    return ps;
  }

  // ---------------------------------------------------------------- cases
  static class Case {
    String name;
    Integer fv;               // null: version default (not used by the cases below)
    String checksum = "kCRC32c";
    String policy = "bloom";  // bloom | ribbon | none
    boolean blockBased;       // bloomfilter:10:true
    boolean partitioned;
    String prefix;            // null | fixed | capped
    boolean wkf = true;
    String indexType = "kBinarySearch";
    Map<String, String> extra = new LinkedHashMap<>();
    boolean offm;             // optimize_filters_for_memory=true (versions that know it)
    String compression = "kNoCompression";

    Case(String name, int fv) { this.name = name; this.fv = fv; }
    Case ck(String c) { checksum = c; return this; }
    Case pol(String p) { policy = p; return this; }
    Case bb() { blockBased = true; return this; }
    Case part() { partitioned = true; indexType = "kTwoLevelIndexSearch"; extra.put("metadata_block_size", "256"); return this; }
    Case pre(String p, boolean w) { prefix = p; wkf = w; return this; }
    Case idx(String t) { indexType = t; return this; }
    Case x(String k, String v) { extra.put(k, v); return this; }
    Case offm() { offm = true; return this; }
    Case comp(String c) { compression = c; return this; }
  }

  static final String[] CHECKSUMS = {"kNoChecksum", "kCRC32c", "kxxHash", "kxxHash64", "kXXH3"};
  static final Map<String, String> CK_NAME = new HashMap<>();
  static {
    CK_NAME.put("kNoChecksum", "none"); CK_NAME.put("kCRC32c", "crc32c"); CK_NAME.put("kxxHash", "xxhash");
    CK_NAME.put("kxxHash64", "xxhash64"); CK_NAME.put("kXXH3", "xxh3");
  }
  static final String[] CK_BY_BYTE = {"none", "crc32c", "xxhash", "xxhash64", "xxh3"};
  static final String[] INDEX_BY_CODE = {"binary", "hash", "two_level", "binary_first_key"};

  // ---------------------------------------------------------------- state
  static String jarVersion, nativeVersion, writerName;
  static Path dir;
  static PrintWriter log, manifest;
  static boolean knowsOffm;
  static String fixedSpelling, cappedSpelling;
  static final List<String> refused = new ArrayList<>();
  static final List<String> failures = new ArrayList<>();
  static int filesWritten = 0;
  static long keysWritten = 0;
  static final Map<String, TickerType> extraTickers = new LinkedHashMap<>();
  static final Map<String, String> dumpTickers = new LinkedHashMap<>();

  static Map<String, Long> tickerSnapshot(Statistics stats) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Map.Entry<String, TickerType> e : extraTickers.entrySet()) m.put(e.getKey(), stats.getTickerCount(e.getValue()));
    if (!dumpTickers.isEmpty()) {
      String dump = stats.toString();
      for (Map.Entry<String, String> e : dumpTickers.entrySet()) {
        String tag = e.getValue() + " COUNT : ";
        int i = dump.indexOf(tag);
        if (i < 0) throw new IllegalStateException("ticker " + e.getValue() + " vanished from Statistics.toString()");
        int j = i + tag.length(), k = j;
        while (k < dump.length() && Character.isDigit(dump.charAt(k))) k++;
        m.put(e.getKey(), Long.parseLong(dump.substring(j, k)));
      }
    }
    return m;
  }

  static void logln(String s) { log.println(s); log.flush(); }

  static void refuse(Case c, String why, String optString) {
    refused.add(c.name + " (" + why + ")");
    logln("REFUSED " + c.name + ": " + why + (optString.isEmpty() ? "" : " [" + optString + "]"));
  }

  static void fail(Case c, String why) {
    String line = writerName + " " + c.name + ": " + why;
    failures.add(line);
    logln("FAIL " + line);
    System.err.println("MatrixWriter: FAIL " + line);
  }

  // ---------------------------------------------------------------- main
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: MatrixWriter OUTDIR [rocksdbjni-V.jar | V]");
      System.exit(2);
    }
    RocksDB.loadLibrary();
    detectVersion(args.length > 1 ? args[1] : null);
    // The family matrix (../../family/java/run.sh) runs this writer against
    // RocksDB's forks, which ship RocksJava's API: it names them.
    writerName = System.getProperty("matrix.writer", "rocksjava-" + jarVersion);
    dir = Paths.get(args[0]).toAbsolutePath().resolve(writerName);
    deleteTree(dir);
    Files.createDirectories(dir);
    log = new PrintWriter(Files.newBufferedWriter(dir.resolve("writer.log")));
    manifest = new PrintWriter(Files.newBufferedWriter(dir.resolve("manifest.jsonl")));
    logln("writer " + writerName + " rocksdb " + nativeVersion + " java " + System.getProperty("java.version"));
    for (String t : new String[] {"LAST_LEVEL_SEEK_FILTERED", "NON_LAST_LEVEL_SEEK_FILTERED",
                                  "BLOOM_FILTER_PREFIX_CHECKED", "BLOOM_FILTER_FULL_POSITIVE"}) {
      try { extraTickers.put(t, TickerType.valueOf(t)); } catch (IllegalArgumentException e) { /* not in this version */ }
    }
    // RocksJava 8.x: the native library counts the seek-filter tickers but the
    // Java TickerType enum has no constant for them; read them from
    // Statistics.toString() instead.
    try (Statistics probe = new Statistics()) {
      String dump = probe.toString();
      for (String t : new String[] {"LAST_LEVEL_SEEK_FILTERED", "NON_LAST_LEVEL_SEEK_FILTERED"}) {
        String nativeName = "rocksdb." + t.toLowerCase(Locale.ROOT).replace('_', '.');
        if (!extraTickers.containsKey(t) && dump.contains(nativeName + " COUNT : ")) dumpTickers.put(t, nativeName);
      }
    }
    logln("seek tickers: from TickerType " + extraTickers.keySet() + ", from Statistics.toString() " + dumpTickers.values());
    int rc = 0;
    try {
      probeCapabilities();
      for (Case c : sweepCases()) if (runCase(c)) supportedFv.add(c.fv);
      if (supportedFv.isEmpty()) throw new IllegalStateException("no format_version in 2..7 was accepted");
      logln("format_versions accepted: " + supportedFv);
      for (Case c : cases()) runCase(c);
      // One refusal stands for all of a format_version this version no longer writes.
      Set<Integer> legacyRefused = new TreeSet<>();
      for (Case c : legacyCases()) {
        if (legacyRefused.contains(c.fv)) continue;
        if (!runCase(c) && c.name.equals("fv" + c.fv + "_full_bloom10_crc32c")) legacyRefused.add(c.fv);
      }
      if ("speedb".equals(System.getProperty("matrix.cases"))) for (Case c : speedbCases()) runCase(c);
    } catch (Throwable t) {
      StringWriter sw = new StringWriter();
      t.printStackTrace(new PrintWriter(sw));
      failures.add(writerName + ": crash: " + sw);
      System.err.println("MatrixWriter " + writerName + ": crash: " + sw);
    } finally {
      manifest.close();
    }
    logln("SUMMARY " + writerName + " files=" + filesWritten + " keys=" + keysWritten + " refused=" + refused.size()
          + " failures=" + failures.size());
    log.close();
    System.out.println(writerName + " (RocksDB " + nativeVersion + "): files=" + filesWritten + " keys=" + keysWritten
                       + " refused=" + refused.size() + (refused.isEmpty() ? "" : " [" + String.join("; ", refused) + "]"));
    if (!failures.isEmpty()) {
      for (String f : failures) System.err.println("MatrixWriter: " + f);
      rc = 1;
    }
    System.exit(rc);
  }

  static void detectVersion(String hint) throws Exception {
    String fromJar = null;
    List<String> sources = new ArrayList<>();
    if (hint != null) sources.add(hint);
    sources.addAll(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
    for (String s : sources) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:rocksdbjni-)?(\\d+(?:\\.\\d+){2,3})(?:\\.jar)?$")
                                      .matcher(new File(s).getName());
      if (m.find()) { fromJar = m.group(1); break; }
    }
    String fromNative = null;
    try {
      Method m = RocksDB.class.getMethod("rocksdbVersion"); // RocksJava >= 6.x
      fromNative = String.valueOf(m.invoke(null));
    } catch (NoSuchMethodException e) {
      // 5.18 has no rocksdbVersion(): the jar name is all we have
    }
    // A fork's jar carries its own version (ForSt 0.1.8, Speedb 2.8.0): the
    // RocksDB it is built on is the native one.
    if (System.getProperty("matrix.writer") != null && fromNative != null) fromJar = null;
    if (fromJar == null && fromNative == null)
      throw new IllegalStateException("cannot tell the RocksDB version: no RocksDB.rocksdbVersion() and no rocksdbjni-V.jar on the class path or as argument");
    if (fromJar != null && fromNative != null && !(fromJar + ".").startsWith(fromNative + "."))
      throw new IllegalStateException("jar version " + fromJar + " but native RocksDB reports " + fromNative);
    jarVersion = fromJar != null ? fromJar : fromNative;
    nativeVersion = fromNative != null ? fromNative : fromJar;
  }

  // ---------------------------------------------------------------- options
  static String tableString(Case c, boolean withOffm) {
    List<String> t = new ArrayList<>();
    if (!c.policy.equals("none")) {
      if (c.policy.equals("ribbon")) t.add("filter_policy=ribbonfilter:10");
      else if (c.policy.equals("speedb_paired_bloom")) t.add("filter_policy=speedb.PairedBloomFilter:10");
      else t.add("filter_policy=bloomfilter:10:" + c.blockBased);
    }
    if (c.fv != null) t.add("format_version=" + c.fv);
    t.add("checksum=" + c.checksum);
    t.add("index_type=" + c.indexType);
    t.add("whole_key_filtering=" + c.wkf);
    if (c.partitioned) t.add("partition_filters=true");
    for (Map.Entry<String, String> e : c.extra.entrySet()) t.add(e.getKey() + "=" + e.getValue());
    if (withOffm) t.add("optimize_filters_for_memory=" + c.offm);
    return "{" + String.join(";", t) + "}";
  }

  static Properties props(String table, String prefix) {
    Properties p = new Properties();
    p.setProperty("compression", "kNoCompression");
    p.setProperty("block_based_table_factory", table);
    if (prefix != null) p.setProperty("prefix_extractor", prefix);
    return p;
  }

  static String optionsString(Properties p) {
    StringBuilder sb = new StringBuilder();
    for (String k : new String[] {"compression", "prefix_extractor", "block_based_table_factory"})
      if (p.getProperty(k) != null) sb.append(k).append('=').append(p.getProperty(k)).append(';');
    return sb.toString();
  }

  static boolean parses(Properties p) {
    ColumnFamilyOptions o = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(p);
    if (o == null) return false;
    o.close();
    return true;
  }

  static void probeCapabilities() {
    knowsOffm = parses(props("{optimize_filters_for_memory=false}", null));
    logln("optimize_filters_for_memory option: " + (knowsOffm ? "known, set to false" : "unknown to this version (false)"));
    fixedSpelling = firstParsing("fixed:4", "rocksdb.FixedPrefix.4");
    cappedSpelling = firstParsing("capped:4", "rocksdb.CappedPrefix.4");
    logln("prefix_extractor spellings: fixed=" + fixedSpelling + " capped=" + cappedSpelling);
  }

  static String firstParsing(String... spellings) {
    for (String s : spellings) if (parses(props("{}", s))) return s;
    return null;
  }

  // Which single table option makes a string unparsable (RocksJava's
  // getColumnFamilyOptionsFromProps returns null without RocksDB's Status).
  static String culprit(Case c, String prefixSpelling) {
    String table = tableString(c, knowsOffm);
    String inner = table.substring(1, table.length() - 1);
    for (String opt : inner.split(";")) {
      if (!parses(props("{" + opt + "}", null))) return "option not parsed: " + opt;
    }
    if (prefixSpelling != null && !parses(props("{}", prefixSpelling)))
      return "option not parsed: prefix_extractor=" + prefixSpelling;
    return "option string not parsed (each option alone parses)";
  }

  // The format_version sweep comes first; the other cases use the newest
  // format_versions this version accepted (4 = legacy Bloom, 5 = FastLocalBloom
  // / Ribbon, 6 = footer with context checksums) so older versions still get
  // checksum, prefix, index and partition coverage.
  static final Set<Integer> supportedFv = new TreeSet<>();

  static List<Case> sweepCases() {
    List<Case> cs = new ArrayList<>();
    for (int fv = 2; fv <= 7; fv++) cs.add(new Case("fv" + fv + "_full_bloom10_crc32c", fv));
    return cs;
  }

  // Speedb's own filter policy (speedb.PairedBloomFilter), full and
  // partitioned, beside the built-in ones the other cases write.
  static List<Case> speedbCases() {
    List<Case> cs = new ArrayList<>();
    cs.add(new Case("fv5_full_speedb_paired10", 5).pol("speedb_paired_bloom"));
    cs.add(new Case("fv5_partitioned_speedb_paired10", 5).pol("speedb_paired_bloom").part());
    cs.add(new Case("fv5_full_speedb_paired10_fixed4_wkf0", 5).pol("speedb_paired_bloom").pre("fixed", false));
    return cs;
  }

  // format_version 0 (the legacy magic, LevelDB's footer) and 1, which
  // RocksDB wrote before 4.6 and RocksDB up to 10.x still reads; the versions
  // that still write them (see NOTES.md) get a few filter kinds in them.
  static List<Case> legacyCases() {
    List<Case> cs = new ArrayList<>();
    for (int fv = 0; fv <= 1; fv++) {
      cs.add(new Case("fv" + fv + "_full_bloom10_crc32c", fv));
      cs.add(new Case("fv" + fv + "_full_bloom10_snappy", fv).comp("kSnappyCompression"));
      cs.add(new Case("fv" + fv + "_bb_bloom10", fv).bb());
      cs.add(new Case("fv" + fv + "_bb_bloom10_fixed4_wkf0", fv).bb().pre("fixed", false));
      cs.add(new Case("fv" + fv + "_partitioned_bloom10", fv).part());
      // compressed index blocks, which these two versions compress in
      // compression format 1 (the reader decompresses them)
      for (String comp : new String[] {"kSnappyCompression", "kZlibCompression", "kLZ4Compression"}) {
        String n = comp.equals("kSnappyCompression") ? "snappy" : comp.equals("kZlibCompression") ? "zlib" : "lz4";
        cs.add(new Case("fv" + fv + "_bb_bloom10_" + n, fv).bb().comp(comp));
        cs.add(new Case("fv" + fv + "_partitioned_bloom10_" + n, fv).part().comp(comp));
      }
    }
    cs.add(new Case("fv1_full_bloom10_xxhash", 1).ck("kxxHash"));
    return cs;
  }

  static List<Case> cases() {
    List<Case> cs = new ArrayList<>();
    int maxFv = Collections.max(supportedFv);
    int modern = supportedFv.contains(5) ? 5 : maxFv;
    List<Integer> ckFvs = new ArrayList<>();
    ckFvs.add(modern);
    if (supportedFv.contains(6)) ckFvs.add(6);
    for (int fv : ckFvs)
      for (String ck : CHECKSUMS)
        if (!ck.equals("kCRC32c")) cs.add(new Case("fv" + fv + "_full_bloom10_" + CK_NAME.get(ck), fv).ck(ck));
    cs.add(new Case("fv" + modern + "_nofilter", modern).pol("none"));
    // block-based (BloomFilter(10, true)); RocksDB >= 7 writes a full filter instead
    cs.add(new Case("bb_bloom10_wholekey", 4).bb());
    cs.add(new Case("bb_bloom10_fixed4_wkf1", 4).bb().pre("fixed", true));
    cs.add(new Case("bb_bloom10_fixed4_wkf0", 4).bb().pre("fixed", false));
    cs.add(new Case("bb_bloom10_two_level", 4).bb().idx("kTwoLevelIndexSearch"));
    cs.add(new Case("bb_bloom10_hash_index_fixed4", 4).bb().idx("kHashSearch").pre("fixed", true));
    cs.add(new Case("bb_bloom10_index_restart4", 4).bb().x("index_block_restart_interval", "4"));
    // Ribbon (format_version >= 5 only)
    if (supportedFv.contains(5)) {
      cs.add(new Case("fv5_full_ribbon10", 5).pol("ribbon"));
      cs.add(new Case("fv5_partitioned_ribbon10", 5).pol("ribbon").part());
      cs.add(new Case("fv5_full_ribbon10_capped4_wkf0", 5).pol("ribbon").pre("capped", false));
    }
    if (supportedFv.contains(6)) cs.add(new Case("fv6_full_ribbon10", 6).pol("ribbon"));
    // partitioned Bloom (legacy and FastLocalBloom partitions)
    cs.add(new Case("fv4_partitioned_bloom10", 4).part());
    if (modern != 4) cs.add(new Case("fv" + modern + "_partitioned_bloom10", modern).part());
    if (supportedFv.contains(6)) cs.add(new Case("fv6_partitioned_bloom10_xxh3", 6).part().ck("kXXH3"));
    if (maxFv > 6) cs.add(new Case("fv" + maxFv + "_partitioned_bloom10", maxFv).part());
    cs.add(new Case("fv" + modern + "_partitioned_bloom10_fixed4_wkf0", modern).part().pre("fixed", false));
    // prefix filters
    for (int fv : new TreeSet<>(Arrays.asList(4, modern)))
      for (String pre : new String[] {"fixed", "capped"})
        for (boolean w : new boolean[] {true, false})
          cs.add(new Case("fv" + fv + "_full_bloom10_" + pre + "4_wkf" + (w ? 1 : 0), fv).pre(pre, w));
    // other index types
    cs.add(new Case("fv" + modern + "_full_bloom10_two_level", modern).idx("kTwoLevelIndexSearch"));
    cs.add(new Case("fv" + modern + "_full_bloom10_binary_first_key", modern).idx("kBinarySearchWithFirstKey"));
    cs.add(new Case("fv" + modern + "_full_bloom10_hash_index_fixed4", modern).idx("kHashSearch").pre("fixed", true));
    // Compressed blocks (RocksDB's default is snappy): the index blocks a
    // block-based filter and a partitioned filter are looked up through.
    if (maxFv <= 5) {
      cs.add(new Case("bb_bloom10_snappy", 4).bb().comp("kSnappyCompression"));
      cs.add(new Case("bb_bloom10_two_level_lz4", 4).bb().idx("kTwoLevelIndexSearch").comp("kLZ4Compression"));
      cs.add(new Case("bb_bloom10_fixed4_wkf1_zlib", 4).bb().pre("fixed", true).comp("kZlibCompression"));
      cs.add(new Case("bb_bloom10_zstd", 4).bb().comp("kZSTD"));
    }
    cs.add(new Case("fv" + modern + "_partitioned_bloom10_snappy", modern).part().comp("kSnappyCompression"));
    cs.add(new Case("fv" + modern + "_partitioned_bloom10_zstd", modern).part().comp("kZSTD"));
    cs.add(new Case("fv" + modern + "_full_bloom10_lz4", modern).comp("kLZ4Compression"));
    // optimize_filters_for_memory on (RocksDB's default since 9.2): sizes
    // rounded to malloc_usable_size (read, not compared byte for byte).
    if (knowsOffm) {
      cs.add(new Case("fv" + modern + "_full_bloom10_offm", modern).offm());
      cs.add(new Case("fv" + modern + "_partitioned_bloom10_offm", modern).part().offm());
      if (modern >= 5) cs.add(new Case("fv" + modern + "_full_ribbon10_offm", modern).pol("ribbon").offm());
    }
    return cs;
  }

  // ---------------------------------------------------------------- one case
  static boolean runCase(Case c) throws Exception {
    String prefixSpelling = null;
    if (c.prefix != null) {
      prefixSpelling = c.prefix.equals("fixed") ? fixedSpelling : cappedSpelling;
      if (prefixSpelling == null) { refuse(c, "no " + c.prefix + " prefix extractor spelling parses", ""); return false; }
    }
    Properties p = props(tableString(c, knowsOffm), prefixSpelling);
    p.setProperty("compression", c.compression);
    String optString = optionsString(p);
    ColumnFamilyOptions cfo = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(p);
    if (cfo == null) { refuse(c, culprit(c, prefixSpelling), optString); return false; }

    Path sst = dir.resolve(c.name + ".sst");
    Path dbDir = Files.createTempDirectory(dir, ".judge-" + c.name + "-");
    Statistics stats = new Statistics();
    DBOptions dbo = new DBOptions();
    dbo.setCreateIfMissing(true);
    dbo.setStatistics(stats);
    Options opts = new Options(dbo, cfo);
    RocksDB db = null;
    boolean written = false;
    try {
      // DB::Open validates the table options (e.g. a format_version this
      // version does not support); a refusal there is recorded, not fatal.
      try {
        db = RocksDB.open(opts, dbDir.toString());
      } catch (RocksDBException e) {
        refuse(c, "DB::Open: " + e.getMessage(), optString);
        return false;
      }
      List<byte[]> keys = writtenKeys();
      SstFileWriter w = new SstFileWriter(new EnvOptions(), opts);
      try {
        w.open(sst.toString());
        for (int i = 0; i < keys.size(); i++) w.put(keys.get(i), b(String.format("v%d", i)));
        w.finish();
      } catch (RocksDBException e) {
        Files.deleteIfExists(sst);
        refuse(c, "SstFileWriter: " + e.getMessage(), optString);
        return false;
      } finally {
        w.close();
      }

      SstInfo info;
      try {
        info = SstInfo.read(sst);
      } catch (Exception e) {
        fail(c, "cannot parse the SST just written: " + e);
        return false;
      }
      // Is the file what was asked for?
      if (c.fv != null && info.formatVersion != c.fv) {
        Files.deleteIfExists(sst);
        refuse(c, "asked format_version=" + c.fv + ", file has " + info.formatVersion + " (dropped)", optString);
        return false;
      }
      if (!info.checksum.equals(CK_NAME.get(c.checksum))) {
        Files.deleteIfExists(sst);
        refuse(c, "asked checksum=" + c.checksum + ", file has " + info.checksum + " (dropped)", optString);
        return false;
      }
      String caseName = c.name;
      if (c.blockBased && !info.filter.equals("block_based")) {
        // keep it, under a name that says what it is
        caseName = c.name.startsWith("bb_") ? c.name.replaceFirst("^bb_", "bbreq_" + info.filter + "_fv" + info.formatVersion + "_")
                                            : c.name.replaceFirst("_bb_", "_bbreq_" + info.filter + "_");
        Path renamed = dir.resolve(caseName + ".sst");
        Files.move(sst, renamed);
        sst = renamed;
        logln("NOTE " + c.name + ": bloomfilter:10:true wrote a '" + info.filter + "' filter (" + info.filterImpl
              + "), not block-based; kept as " + caseName);
      }
      String expectPolicy = c.policy;
      if (!info.policy.equals(expectPolicy) && !(c.policy.equals("none") && info.filter.equals("none")))
        logln("NOTE " + caseName + ": asked policy " + c.policy + ", file's filter is " + info.policy + " (" + info.filterImpl + ")");

      writeLines(dir.resolve(caseName + ".keys"), hexAll(keys));

      // ------------------------------------------------------------ judge
      IngestExternalFileOptions ifo = new IngestExternalFileOptions();
      ifo.setMoveFiles(false);
      db.ingestExternalFile(Collections.singletonList(sst.toString()), ifo);
      ifo.close();

      Set<String> present = new HashSet<>();
      for (byte[] k : keys) present.add(hex(k));
      List<byte[]> probeKeys = new ArrayList<>();
      int step = (keys.size() + 1999) / 2000;
      for (int i = 0; i < keys.size(); i += step) probeKeys.add(keys.get(i));
      probeKeys.addAll(absentKeys());

      List<String> probeLines = new ArrayList<>();
      int absent = 0, absentRejected = 0, usefulInGets = 0, prefixUsefulInGets = 0;
      for (byte[] k : probeKeys) {
        String hk = hex(k);
        boolean inFile = present.contains(hk);
        long before = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
        long pBefore = stats.getTickerCount(TickerType.BLOOM_FILTER_PREFIX_USEFUL);
        byte[] v = db.get(k);
        boolean wholeRejected = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL) > before;
        boolean prefixRejected = stats.getTickerCount(TickerType.BLOOM_FILTER_PREFIX_USEFUL) > pBefore;
        // RocksDB <= 7.10 counts a prefix-filter rejection of a Get as
        // BLOOM_FILTER_USEFUL, 8.x and later as BLOOM_FILTER_PREFIX_USEFUL: either
        // is the filter rejecting this Get (see NOTES.md)
        boolean rejected = wholeRejected || prefixRejected;
        if (wholeRejected) usefulInGets++;
        if (prefixRejected) prefixUsefulInGets++;
        boolean found = v != null;
        if (inFile && (!found || rejected)) fail(c, "present key " + hk + " found=" + found + " filter_rejected=" + rejected);
        if (!inFile && found) fail(c, "absent key " + hk + " was found");
        if (!inFile) { absent++; if (rejected) absentRejected++; }
        probeLines.add(hk + " " + (inFile ? 1 : 0) + " " + (found ? 1 : 0) + " " + (rejected ? 1 : 0));
      }
      writeLines(dir.resolve(caseName + ".probes"), probeLines);
      String stat = String.format("gets: %d absent, %d rejected (%.2f%%): %d raised BLOOM_FILTER_USEFUL, %d BLOOM_FILTER_PREFIX_USEFUL",
                                  absent, absentRejected, 100.0 * absentRejected / absent, usefulInGets, prefixUsefulInGets);

      String prefixProbesName = null;
      if (c.prefix != null) {
        prefixProbesName = caseName + ".prefix_probes";
        List<byte[]> prefixes = new ArrayList<>();
        for (int i = 0; i < PREFIXES; i++) prefixes.add(b(presentPrefix(i)));
        prefixes.addAll(absentPrefixes());
        Set<String> presentPrefixes = new HashSet<>();
        for (byte[] k : keys) presentPrefixes.add(hex(Arrays.copyOf(k, 4)));
        List<String> lines = new ArrayList<>();
        int pa = 0, paRej = 0, byPrefixUseful = 0;
        Map<String, Long> extraDelta = new LinkedHashMap<>();
        Map<String, Long> eb = tickerSnapshot(stats); // nothing but the seeks moves them
        for (String t : eb.keySet()) extraDelta.put(t, 0L);
        for (byte[] pre : prefixes) {
          String hp = hex(pre);
          boolean inFile = presentPrefixes.contains(hp);
          long before = stats.getTickerCount(TickerType.BLOOM_FILTER_PREFIX_USEFUL);
          ReadOptions ro = new ReadOptions();
          ro.setPrefixSameAsStart(true);
          RocksIterator it = db.newIterator(ro);
          it.seek(pre);
          boolean hit = it.isValid() && startsWith(it.key(), pre);
          boolean validOutside = it.isValid() && !hit;
          it.close();
          ro.close();
          boolean rejected = stats.getTickerCount(TickerType.BLOOM_FILTER_PREFIX_USEFUL) > before;
          if (rejected) byPrefixUseful++;
          Map<String, Long> ea = tickerSnapshot(stats);
          for (Map.Entry<String, Long> e : ea.entrySet()) {
            long d = e.getValue() - eb.get(e.getKey());
            extraDelta.put(e.getKey(), extraDelta.get(e.getKey()) + d);
            // RocksDB 8.x and later count a seek skipped by the prefix filter as
            // {NON_,}LAST_LEVEL_SEEK_FILTERED, no longer as BLOOM_FILTER_PREFIX_USEFUL
            if (d > 0 && e.getKey().endsWith("SEEK_FILTERED")) rejected = true;
          }
          eb = ea;
          if (inFile && (!hit || rejected)) fail(c, "present prefix " + hp + " seek hit=" + hit + " filter_rejected=" + rejected);
          if (!inFile && hit) fail(c, "absent prefix " + hp + " seek found a key");
          if (validOutside) fail(c, "prefix_same_as_start seek of " + hp + " returned a key outside the prefix");
          if (!inFile) { pa++; if (rejected) paRej++; }
          lines.add(hp + " " + (inFile ? 1 : 0) + " " + (rejected ? 1 : 0));
        }
        writeLines(dir.resolve(prefixProbesName), lines);
        stat += String.format("; seeks: %d absent prefixes, %d rejected (%.2f%%); over all seeks: BLOOM_FILTER_PREFIX_USEFUL=%d %s",
                              pa, paRej, 100.0 * paRej / pa, byPrefixUseful, extraDelta);
      }

      // ------------------------------------------------------------ manifest
      StringBuilder j = new StringBuilder("{");
      jf(j, "file", caseName + ".sst"); jf(j, "keys", caseName + ".keys"); jf(j, "probes", caseName + ".probes");
      jf(j, "prefix_probes", prefixProbesName);
      jf(j, "writer", writerName); jf(j, "rocksdb_version", nativeVersion); jf(j, "case", caseName);
      jraw(j, "format_version", String.valueOf(info.formatVersion));
      jf(j, "checksum", info.checksum);
      jf(j, "filter", info.filter);
      jf(j, "policy", info.policy);
      jraw(j, "bits_per_key", info.filter.equals("none") ? "0.0" : "10.0");
      jf(j, "prefix_extractor", info.prefixExtractor);
      jraw(j, "whole_key_filtering", String.valueOf(info.wholeKeyFiltering != null ? info.wholeKeyFiltering : c.wkf));
      jraw(j, "optimize_filters_for_memory", String.valueOf(knowsOffm && c.offm));
      jf(j, "index_type", info.indexType);
      jraw(j, "timestamp_size", "0");
      jraw(j, "num_keys", String.valueOf(keys.size()));
      jf(j, "options", optString);
      j.setLength(j.length() - 2);
      j.append("}");
      manifest.println(j);
      manifest.flush();
      filesWritten++;
      written = true;
      keysWritten += keys.size();
      logln("OK " + caseName + ": fv=" + info.formatVersion + " checksum=" + info.checksum + " filter=" + info.filter
            + " impl=" + info.filterImpl + " metaindex=" + info.metaKeys + " filter_policy_prop=" + info.filterPolicyProp
            + " prefix=" + info.prefixExtractor + " index=" + info.indexType + " | " + stat);
    } finally {
      if (db != null) db.close();
      opts.close();
      dbo.close();
      cfo.close();
      stats.close();
      deleteTree(dbDir);
    }
    return written;
  }

  static boolean startsWith(byte[] k, byte[] p) {
    if (k.length < p.length) return false;
    for (int i = 0; i < p.length; i++) if (k[i] != p[i]) return false;
    return true;
  }

  // ---------------------------------------------------------------- SST parsing
  // Just enough of the block-based table format to say what a file contains:
  // footer (format_version, checksum type, metaindex handle), metaindex keys,
  // the properties block, and the trailing metadata of the (first) filter.
  static class SstInfo {
    int formatVersion;
    String checksum, filter = "none", policy = "none", filterImpl = "none", indexType = "?";
    String prefixExtractor, filterPolicyProp;
    Boolean wholeKeyFiltering;
    List<String> metaKeys = new ArrayList<>();

    static SstInfo read(Path p) throws IOException {
      byte[] f = Files.readAllBytes(p);
      SstInfo s = new SstInfo();
      int n = f.length, fo = n - 53;
      if (n < 53) throw new IOException("file too short");
      long magic = le64(f, n - 8);
      boolean legacy = magic == 0xdb4775248b80fb57L; // format_version 0: 48-byte footer, crc32c
      if (magic != 0x88e241b785f4cff7L && !legacy) throw new IOException("not a block-based table (magic " + Long.toHexString(magic) + ")");
      s.formatVersion = legacy ? 0 : (int) le32(f, n - 12);
      int ck = legacy ? 1 : f[fo] & 0xff;
      s.checksum = ck < CK_BY_BYTE.length ? CK_BY_BYTE[ck] : ("unknown" + ck);
      long[] meta = new long[2];
      if (legacy) {
        int[] pos = {n - 48};
        meta[0] = varint(f, pos);
        meta[1] = varint(f, pos);
      } else if (s.formatVersion >= 6) {
        // footer v6+: checksum type, 4-byte extended magic, footer checksum,
        // base context checksum, metaindex size; metaindex sits right before the footer
        long size = le32(f, fo + 13);
        meta[0] = fo - 5 - size;
        meta[1] = size;
      } else {
        int[] pos = {fo + 1};
        meta[0] = varint(f, pos);
        meta[1] = varint(f, pos);
      }
      Map<String, byte[]> metaindex = block(f, meta[0], meta[1], false);
      for (Map.Entry<String, byte[]> e : metaindex.entrySet()) {
        String k = e.getKey();
        s.metaKeys.add(k);
        long[] h = handle(e.getValue());
        if (k.startsWith("filter.")) { s.filter = "block_based"; s.policy = "bloom"; s.filterImpl = "block_based_bloom"; }
        else if (k.startsWith("fullfilter.")) { s.filter = "full"; s.filterImpl = impl(f, h[0], h[1]); }
        else if (k.startsWith("partitionedfilter.")) {
          s.filter = "partitioned";
          // first partition, from the partition index's first entry
          Map<String, byte[]> idx = block(f, h[0], h[1], s.formatVersion >= 4);
          long[] first = handle(idx.values().iterator().next());
          s.filterImpl = impl(f, first[0], first[1]);
        } else if (k.equals("rocksdb.properties")) {
          Map<String, byte[]> props = block(f, h[0], h[1], false);
          byte[] v;
          if ((v = props.get("rocksdb.filter.policy")) != null) s.filterPolicyProp = new String(v, StandardCharsets.US_ASCII);
          if ((v = props.get("rocksdb.prefix.extractor.name")) != null) {
            String name = new String(v, StandardCharsets.US_ASCII);
            s.prefixExtractor = name.equals("nullptr") || name.isEmpty() ? null : name;
          }
          if ((v = props.get("rocksdb.block.based.table.index.type")) != null && v.length == 4) {
            int code = (int) le32(v, 0);
            s.indexType = code < INDEX_BY_CODE.length ? INDEX_BY_CODE[code] : ("unknown" + code);
          }
          if ((v = props.get("rocksdb.block.based.table.whole.key.filtering")) != null && v.length >= 1)
            s.wholeKeyFiltering = v[0] == '1';
        }
      }
      if (!s.filter.equals("block_based") && !s.filter.equals("none"))
        s.policy = s.filterImpl.equals("ribbon") ? "ribbon"
                 : !s.filterImpl.startsWith("marker") ? "bloom"
                 : "unknown";
      if (s.filterPolicyProp != null && s.filterPolicyProp.toLowerCase(Locale.ROOT).contains("paired")) s.policy = "speedb_paired_bloom";
      return s;
    }

    // A full filter's last 5 bytes: -1 = new (FastLocalBloom), -2 = Ribbon,
    // else the legacy Bloom's num_probes.
    static String impl(byte[] f, long off, long size) {
      int m = f[(int) (off + size - 5)];
      if (m == -1) return "fast_local_bloom";
      if (m == -2) return "ribbon";
      if (m < 0) return "marker" + m; // a filter format RocksDB does not define (e.g. Speedb's)
      return "legacy_bloom";
    }

    static long[] handle(byte[] v) {
      int[] pos = {0};
      return new long[] {varint(v, pos), varint(v, pos)};
    }

    // Entries of an uncompressed block (keys prefix-compressed against the
    // previous entry; with valueDelta, index-style entries without a value length).
    static Map<String, byte[]> block(byte[] f, long off, long size, boolean valueDelta) {
      Map<String, byte[]> out = new LinkedHashMap<>();
      int start = (int) off, end = (int) (off + size);
      long numRestarts = le32(f, end - 4) & 0x7fffffffL;
      int limit = (int) (end - 4 - 4 * numRestarts);
      int[] pos = {start};
      byte[] key = new byte[0];
      while (pos[0] < limit) {
        int shared = (int) varint(f, pos), nonShared = (int) varint(f, pos);
        byte[] nk = Arrays.copyOf(key, shared + nonShared);
        if (valueDelta) {
          System.arraycopy(f, pos[0], nk, shared, nonShared);
          pos[0] += nonShared;
          int vs = pos[0];
          varint(f, pos);
          if (shared == 0 || out.isEmpty()) varint(f, pos); // full handle at a restart point
          out.put(new String(nk, StandardCharsets.ISO_8859_1), Arrays.copyOfRange(f, vs, pos[0]));
          key = nk;
          if (out.size() == 1) break; // only the first entry is needed
        } else {
          int vlen = (int) varint(f, pos);
          System.arraycopy(f, pos[0], nk, shared, nonShared);
          pos[0] += nonShared;
          out.put(new String(nk, StandardCharsets.ISO_8859_1), Arrays.copyOfRange(f, pos[0], pos[0] + vlen));
          pos[0] += vlen;
          key = nk;
        }
      }
      return out;
    }

    static long varint(byte[] f, int[] pos) {
      long r = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int by = f[pos[0]++] & 0xff;
        r |= (long) (by & 0x7f) << shift;
        if ((by & 0x80) == 0) return r;
      }
      throw new IllegalStateException("bad varint");
    }

    static long le32(byte[] f, int o) {
      return (f[o] & 0xffL) | (f[o + 1] & 0xffL) << 8 | (f[o + 2] & 0xffL) << 16 | (f[o + 3] & 0xffL) << 24;
    }

    static long le64(byte[] f, int o) { return le32(f, o) | le32(f, o + 4) << 32; }
  }

  // ---------------------------------------------------------------- io
  static final char[] HEX = "0123456789abcdef".toCharArray();

  static String hex(byte[] k) {
    char[] c = new char[k.length * 2];
    for (int i = 0; i < k.length; i++) { c[2 * i] = HEX[(k[i] >> 4) & 15]; c[2 * i + 1] = HEX[k[i] & 15]; }
    return new String(c);
  }

  static List<String> hexAll(List<byte[]> ks) {
    List<String> out = new ArrayList<>(ks.size());
    for (byte[] k : ks) out.add(hex(k));
    return out;
  }

  static void writeLines(Path p, List<String> lines) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(p)) {
      for (String l : lines) { w.write(l); w.write('\n'); }
    }
  }

  static void jf(StringBuilder j, String k, String v) {
    if (v == null) { jraw(j, k, "null"); return; }
    jraw(j, k, "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
  }

  static void jraw(StringBuilder j, String k, String v) { j.append('"').append(k).append("\": ").append(v).append(", "); }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) return;
    try (java.util.stream.Stream<Path> s = Files.walk(p)) {
      List<Path> all = new ArrayList<>();
      s.forEach(all::add);
      Collections.reverse(all);
      for (Path q : all) Files.delete(q);
    }
  }
}
