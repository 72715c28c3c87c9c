// sst_fixtures/matrix/cpp/matrix_writer.cc
//
// One source, compiled against two RocksDB releases (see run.sh):
//   * Debian's librocksdb 7.8.3 (system headers, -lrocksdb, -std=c++17)
//   * RocksDB 11.12 built from source by ../../rocksdb11/build.sh
//     (static library; also uses the internal header table/format.h to
//     rewrite footers, see WriteMetaindexGapCopy)
//
//   matrix_writer OUTDIR
//
// writes OUTDIR/rocksdb-<major.minor.patch>/{manifest.jsonl, *.sst, *.keys,
// *.probes, *.prefix_probes} following ../README.md (the output contract).
// Every SST is written with SstFileWriter (no compression) and then judged by
// the same release: a fresh DB with statistics, the same table options,
// prefix extractor and comparator ingests only that file; each probe is a Get
// (ticker BLOOM_FILTER_USEFUL read before and after) and each prefix probe a
// Seek(prefix) with prefix_same_as_start (ticker BLOOM_FILTER_PREFIX_USEFUL).
//
// Exit status: 0 if every case was written and judged; 1 if any case failed
// (each failure is printed to stderr with the case name and RocksDB's status;
// the failed case is left out of the manifest).

#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>

#if ROCKSDB_MAJOR >= 11
#include "table/format.h"  // Footer, FooterBuilder (internal; 11.12 source)
#endif

#include <sys/stat.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ROCKSDB_NAMESPACE;

namespace {

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  o.reserve(s.size() * 2);
  for (unsigned char c : s) {
    o.push_back(d[c >> 4]);
    o.push_back(d[c & 15]);
  }
  return o;
}

std::string JsonStr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o.push_back('\\');
      o.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o.push_back(c);
    }
  }
  return o + "\"";
}

// Key schemes. Keys are grouped by a 4-byte prefix 'p' + 3 base-26 letters
// of 8*g (so the 7 codes between two present prefixes are absent prefixes
// that still sort inside the file's key range).
enum class KeyScheme {
  kShort,  // "pabc/000042"
  kLong,   // "service/accounts/region-eu/pabc/row/00000042": long shared
           // prefixes so the fv8 common-prefix feature has something to strip
};

std::string PrefixCode(uint32_t n) {
  std::string p = "p";
  p.push_back(static_cast<char>('a' + (n / 676) % 26));
  p.push_back(static_cast<char>('a' + (n / 26) % 26));
  p.push_back(static_cast<char>('a' + n % 26));
  return p;
}

std::string MakeKey(KeyScheme scheme, uint32_t group_code, uint32_t j) {
  char num[16];
  if (scheme == KeyScheme::kShort) {
    snprintf(num, sizeof num, "%06u", j);
    return PrefixCode(group_code) + "/" + num;
  }
  snprintf(num, sizeof num, "%08u", j);
  return PrefixCode(group_code) + "/service/accounts/region-eu/row/" + num;
}

struct KeySet {
  std::vector<std::string> keys;  // sorted bytewise
  std::vector<std::string> absent_keys;
  std::vector<std::string> present_prefixes;
  std::vector<std::string> absent_prefixes;
};

KeySet MakeKeys(KeyScheme scheme, int num_keys) {
  KeySet ks;
  uint32_t groups = static_cast<uint32_t>(num_keys / 10);
  if (groups > 500) groups = 500;
  if (groups < 2) groups = 2;
  uint32_t per = (static_cast<uint32_t>(num_keys) + groups - 1) / groups;
  int left = num_keys;
  for (uint32_t g = 0; g < groups && left > 0; g++) {
    ks.present_prefixes.push_back(PrefixCode(8 * g));
    for (uint32_t j = 0; j < per && left > 0; j++, left--) {
      ks.keys.push_back(MakeKey(scheme, 8 * g, 2 * j));
    }
  }
  uint32_t used_groups = static_cast<uint32_t>(ks.present_prefixes.size());
  for (uint32_t g = 0; g + 1 < used_groups; g++) {
    for (uint32_t o = 1; o < 8; o++) {
      ks.absent_prefixes.push_back(PrefixCode(8 * g + o));
    }
  }
  // Absent keys: odd suffixes inside present groups (not rejectable by a
  // prefix-only filter) plus keys of absent prefixes.
  const std::string& lo = ks.keys.front();
  const std::string& hi = ks.keys.back();
  std::vector<std::string> cand;
  for (uint32_t g = 0; g < used_groups; g++) {
    for (uint32_t j = 0; j < per; j++) {
      cand.push_back(MakeKey(scheme, 8 * g, 2 * j + 1));
      cand.push_back(MakeKey(scheme, 8 * g, 2 * j) + "0");
      cand.push_back(MakeKey(scheme, 8 * g, 2 * j) + "5");
    }
  }
  std::set<std::string> present(ks.keys.begin(), ks.keys.end());
  std::set<std::string> seen;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t tries = 0; ks.absent_keys.size() < 2000 && tries < 50 * cand.size();
       tries++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::string& k = cand[x % cand.size()];
    if (k > lo && k < hi && !present.count(k) && seen.insert(k).second) {
      ks.absent_keys.push_back(k);
    }
  }
  for (size_t i = 0; i < ks.absent_prefixes.size() && i < 700; i += 1) {
    std::string k = ks.absent_prefixes[i] + (scheme == KeyScheme::kShort
                                                 ? "/000000"
                                                 : "/service/accounts/"
                                                   "region-eu/row/00000000");
    if (k > lo && k < hi && !present.count(k) && seen.insert(k).second) {
      ks.absent_keys.push_back(k);
    }
  }
  return ks;
}

struct Case {
  std::string name;
  int format_version = 5;
  ChecksumType checksum = kCRC32c;
  std::string filter = "full";  // none, full, partitioned
  std::string policy = "bloom";  // bloom, ribbon, none
  double bits_per_key = 10.0;
  std::string prefix;  // "", "fixed", "capped"
  bool whole_key_filtering = true;
  bool optimize_filters_for_memory = false;
  BlockBasedTableOptions::IndexType index_type =
      BlockBasedTableOptions::kBinarySearch;
  int index_block_restart_interval = 1;
  bool use_delta_encoding = true;
  size_t block_size = 4096;
  uint64_t metadata_block_size = 4096;
  int num_keys = 5000;
  KeyScheme scheme = KeyScheme::kShort;
  bool reverse = false;
  bool udt = false;
  bool custom_cmp = false;  // CustomBytewise
  // 11.12 only
  int okcp = -1;  // -1 = default; else OptimizeKeyCommonPrefix value
  size_t super_block_alignment_size = 0;
  size_t super_block_alignment_space_overhead_ratio = 128;
  double uniform_cv_threshold = -1;
  bool separate_kv = false;
  int metaindex_gap = 0;  // > 0: footer rewritten (see WriteMetaindexGapCopy)
  std::string gap_base;   // the case whose file is rewritten
};

const char* ChecksumName(ChecksumType c) {
  switch (c) {
    case kNoChecksum:
      return "none";
    case kCRC32c:
      return "crc32c";
    case kxxHash:
      return "xxhash";
    case kxxHash64:
      return "xxhash64";
    case kXXH3:
      return "xxh3";
    default:
      return "?";
  }
}
const char* ChecksumOpt(ChecksumType c) {
  switch (c) {
    case kNoChecksum:
      return "kNoChecksum";
    case kCRC32c:
      return "kCRC32c";
    case kxxHash:
      return "kxxHash";
    case kxxHash64:
      return "kxxHash64";
    case kXXH3:
      return "kXXH3";
    default:
      return "?";
  }
}
const char* IndexName(BlockBasedTableOptions::IndexType t) {
  switch (t) {
    case BlockBasedTableOptions::kBinarySearch:
      return "binary";
    case BlockBasedTableOptions::kHashSearch:
      return "hash";
    case BlockBasedTableOptions::kTwoLevelIndexSearch:
      return "two_level";
    case BlockBasedTableOptions::kBinarySearchWithFirstKey:
      return "binary_first_key";
    default:
      return "?";
  }
}
const char* IndexOpt(BlockBasedTableOptions::IndexType t) {
  switch (t) {
    case BlockBasedTableOptions::kBinarySearch:
      return "kBinarySearch";
    case BlockBasedTableOptions::kHashSearch:
      return "kHashSearch";
    case BlockBasedTableOptions::kTwoLevelIndexSearch:
      return "kTwoLevelIndexSearch";
    case BlockBasedTableOptions::kBinarySearchWithFirstKey:
      return "kBinarySearchWithFirstKey";
    default:
      return "?";
  }
}

BlockBasedTableOptions TableOptions(const Case& c) {
  BlockBasedTableOptions t;
  t.format_version = static_cast<uint32_t>(c.format_version);
  t.checksum = c.checksum;
  t.block_size = c.block_size;
  t.metadata_block_size = c.metadata_block_size;
  t.index_type = c.index_type;
  t.index_block_restart_interval = c.index_block_restart_interval;
  t.use_delta_encoding = c.use_delta_encoding;
  t.whole_key_filtering = c.whole_key_filtering;
  t.optimize_filters_for_memory = c.optimize_filters_for_memory;
  if (c.policy == "bloom") {
    t.filter_policy.reset(NewBloomFilterPolicy(c.bits_per_key, false));
  } else if (c.policy == "ribbon") {
    t.filter_policy.reset(NewRibbonFilterPolicy(c.bits_per_key));
  }
  t.partition_filters = c.filter == "partitioned";
#if ROCKSDB_MAJOR >= 11
  if (c.okcp >= 0) {
    t.optimize_key_common_prefix =
        static_cast<BlockBasedTableOptions::OptimizeKeyCommonPrefix>(c.okcp);
  }
  t.super_block_alignment_size = c.super_block_alignment_size;
  t.super_block_alignment_space_overhead_ratio =
      c.super_block_alignment_space_overhead_ratio;
  t.uniform_cv_threshold = c.uniform_cv_threshold;
  t.separate_key_value_in_data_block = c.separate_kv;
#endif
  return t;
}

// The options as a RocksDB options string (only what this writer sets).
std::string OptionString(const Case& c) {
  std::ostringstream o;
  o << "block_based_table_factory={format_version=" << c.format_version
    << ";checksum=" << ChecksumOpt(c.checksum);
  if (c.policy == "bloom") {
    o << ";filter_policy=bloomfilter:" << c.bits_per_key << ":false";
  } else if (c.policy == "ribbon") {
    o << ";filter_policy=ribbonfilter:" << c.bits_per_key;
  }
  o << ";partition_filters=" << (c.filter == "partitioned" ? "true" : "false")
    << ";index_type=" << IndexOpt(c.index_type)
    << ";block_size=" << c.block_size
    << ";metadata_block_size=" << c.metadata_block_size
    << ";index_block_restart_interval=" << c.index_block_restart_interval
    << ";use_delta_encoding=" << (c.use_delta_encoding ? "true" : "false")
    << ";whole_key_filtering=" << (c.whole_key_filtering ? "true" : "false")
    << ";optimize_filters_for_memory="
    << (c.optimize_filters_for_memory ? "true" : "false");
#if ROCKSDB_MAJOR >= 11
  static const char* okcp[] = {"kDisabled", "kIfFastSeek", "kEnabled"};
  if (c.okcp >= 0) o << ";optimize_key_common_prefix=" << okcp[c.okcp];
  if (c.super_block_alignment_size) {
    o << ";super_block_alignment_size=" << c.super_block_alignment_size
      << ";super_block_alignment_space_overhead_ratio="
      << c.super_block_alignment_space_overhead_ratio;
  }
  if (c.uniform_cv_threshold >= 0) {
    o << ";uniform_cv_threshold=" << c.uniform_cv_threshold;
  }
  if (c.separate_kv) o << ";separate_key_value_in_data_block=true";
#endif
  o << "};compression=kNoCompression";
  if (c.prefix == "fixed") o << ";prefix_extractor=rocksdb.FixedPrefix.4";
  if (c.prefix == "capped") o << ";prefix_extractor=rocksdb.CappedPrefix.4";
  if (c.reverse) o << ";comparator=rocksdb.ReverseBytewiseComparator";
  if (c.udt) o << ";comparator=leveldb.BytewiseComparator.u64ts";
  if (c.custom_cmp) o << ";comparator=rocksfilter.matrix.Bytewise";
  return o.str();
}

// Bytewise order under another name: not the built-in comparator object, so
// fv8's OptimizeKeyCommonPrefix::kIfFastSeek leaves it alone and kEnabled
// does not.
class CustomBytewise : public Comparator {
 public:
  const char* Name() const override { return "rocksfilter.matrix.Bytewise"; }
  int Compare(const Slice& a, const Slice& b) const override {
    return a.compare(b);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

const Comparator* CaseComparator(const Case& c) {
  static CustomBytewise custom;
  if (c.custom_cmp) return &custom;
#if ROCKSDB_MAJOR >= 11
  if (c.udt) return BytewiseComparatorWithU64Ts();
#endif
  if (c.reverse) return ReverseBytewiseComparator();
  return BytewiseComparator();
}

Options CaseOptions(const Case& c) {
  Options o;
  o.compression = kNoCompression;
  o.bottommost_compression = kNoCompression;
  o.comparator = CaseComparator(c);
  if (c.prefix == "fixed") {
    o.prefix_extractor.reset(NewFixedPrefixTransform(4));
  } else if (c.prefix == "capped") {
    o.prefix_extractor.reset(NewCappedPrefixTransform(4));
  }
  o.table_factory.reset(NewBlockBasedTableFactory(TableOptions(c)));
  return o;
}

std::string U64Ts(uint64_t ts) {
  std::string b;
  for (int i = 0; i < 8; i++) b.push_back(static_cast<char>((ts >> (8 * i)) & 0xff));
  return b;  // little-endian fixed64, as EncodeU64Ts writes it
}

bool WriteSst(const Case& c, const KeySet& ks, const std::string& path,
              std::string* err) {
  Options o = CaseOptions(c);
  SstFileWriter w(EnvOptions(), o);
  Status s = w.Open(path);
  if (!s.ok()) {
    *err = "SstFileWriter::Open: " + s.ToString();
    return false;
  }
  std::vector<std::string> order = ks.keys;
  if (c.reverse) order.assign(ks.keys.rbegin(), ks.keys.rend());
  const std::string ts = U64Ts(1);
  for (size_t i = 0; i < order.size(); i++) {
    std::string v = "v" + std::to_string(i);
    if (c.udt) {
      s = w.Put(order[i], ts, v);
    } else {
      s = w.Put(order[i], v);
    }
    if (!s.ok()) {
      *err = "SstFileWriter::Put: " + s.ToString();
      return false;
    }
  }
  s = w.Finish();
  if (!s.ok()) {
    *err = "SstFileWriter::Finish: " + s.ToString();
    return false;
  }
  return true;
}

#if ROCKSDB_MAJOR >= 11
bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}
bool WriteFileBytes(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(f);
}

// format_version 8 footers record a gap between the end of the metaindex
// block (with its trailer) and the footer in the high 16 bits of the
// metaindex-size field. No release write path leaves such a gap, so copy an
// fv8 file, insert `gap` zero bytes before the footer and build the new
// footer with RocksDB's own FooterBuilder.
bool WriteMetaindexGapCopy(const std::string& src, const std::string& dst,
                           int gap, std::string* err) {
  std::string data;
  if (!ReadFile(src, &data)) {
    *err = "cannot read " + src;
    return false;
  }
  const size_t flen = Footer::kNewVersionsEncodedLength;
  if (data.size() < flen) {
    *err = "file too short";
    return false;
  }
  const uint64_t footer_offset = data.size() - flen;
  Footer footer;
  Status s = footer.DecodeFrom(Slice(data.data() + footer_offset, flen),
                               footer_offset, kBlockBasedTableMagicNumber);
  if (!s.ok()) {
    *err = "Footer::DecodeFrom: " + s.ToString();
    return false;
  }
  if (footer.format_version() != 8) {
    *err = "source is not format_version 8";
    return false;
  }
  const BlockHandle mi = footer.metaindex_handle();
  const uint64_t mi_end =
      mi.offset() + mi.size() + footer.GetBlockTrailerSize();
  if (mi_end != footer_offset) {
    *err = "source already has a metaindex gap";
    return false;
  }
  const uint64_t new_footer_offset = mi_end + static_cast<uint64_t>(gap);
  FooterBuilder fb;
  s = fb.Build(kBlockBasedTableMagicNumber, 8, new_footer_offset,
               footer.checksum_type(), mi, BlockHandle::NullBlockHandle(),
               footer.base_context_checksum());
  if (!s.ok()) {
    *err = "FooterBuilder::Build: " + s.ToString();
    return false;
  }
  std::string out = data.substr(0, mi_end);
  out.append(static_cast<size_t>(gap), '\0');
  out.append(fb.GetSlice().data(), fb.GetSlice().size());
  if (!WriteFileBytes(dst, out)) {
    *err = "cannot write " + dst;
    return false;
  }
  return true;
}
#endif

// Which tickers count as "the filter rejected it". The README names
// BLOOM_FILTER_USEFUL (Get) and BLOOM_FILTER_PREFIX_USEFUL (Seek), which is
// what 7.8.3 raises. RocksDB 11.12 raises BLOOM_FILTER_PREFIX_USEFUL (not
// BLOOM_FILTER_USEFUL) when a Get is rejected by the prefix filter
// (whole_key_filtering=false), and LAST_LEVEL_SEEK_FILTERED /
// NON_LAST_LEVEL_SEEK_FILTERED (not BLOOM_FILTER_PREFIX_USEFUL) when a Seek
// is; counting only the README's ticker would record "never rejected" for
// those. So a probe is filter_rejected if any of its release's rejection
// tickers rose; the manifest names them (get_rejected_tickers,
// seek_rejected_tickers).
uint64_t GetRejectTicks(Statistics* st) {
  return st->getTickerCount(BLOOM_FILTER_USEFUL) +
         st->getTickerCount(BLOOM_FILTER_PREFIX_USEFUL);
}
uint64_t SeekRejectTicks(Statistics* st) {
  uint64_t n = st->getTickerCount(BLOOM_FILTER_PREFIX_USEFUL);
#if ROCKSDB_MAJOR >= 11
  n += st->getTickerCount(LAST_LEVEL_SEEK_FILTERED) +
       st->getTickerCount(NON_LAST_LEVEL_SEEK_FILTERED);
#endif
  return n;
}
const char* kGetRejectTickers =
    "rocksdb.bloom.filter.useful rocksdb.bloom.filter.prefix.useful";
#if ROCKSDB_MAJOR >= 11
const char* kSeekRejectTickers =
    "rocksdb.bloom.filter.prefix.useful rocksdb.last.level.seek.filtered "
    "rocksdb.non.last.level.seek.filtered";
#else
const char* kSeekRejectTickers = "rocksdb.bloom.filter.prefix.useful";
#endif

struct Judged {
  std::vector<std::string> probe_lines;
  std::vector<std::string> prefix_lines;
  std::string prefix_extractor_name;
  size_t probes = 0, rejected_absent = 0, absent = 0, found_present = 0,
         present = 0, rejected_present = 0, prefix_absent = 0,
         prefix_rejected_absent = 0, prefix_rejected_present = 0;
};

bool Judge(const Case& c, const KeySet& ks, const std::string& sst,
           const std::string& dbdir, Judged* j, std::string* err) {
  Options o = CaseOptions(c);
  o.create_if_missing = true;
  o.error_if_exists = true;
  o.disable_auto_compactions = true;
  o.statistics = CreateDBStatistics();
  DestroyDB(dbdir, o);
  std::unique_ptr<DB> db;
#if ROCKSDB_MAJOR >= 11
  Status s = DB::Open(o, dbdir, &db);  // 11.x: only the unique_ptr overload
#else
  DB* raw = nullptr;
  Status s = DB::Open(o, dbdir, &raw);
  db.reset(raw);
#endif
  if (!s.ok()) {
    *err = "DB::Open: " + s.ToString();
    return false;
  }
  IngestExternalFileOptions io;
  io.move_files = false;
  s = db->IngestExternalFile({sst}, io);
  if (!s.ok()) {
    *err = "IngestExternalFile: " + s.ToString();
    db.reset();
    DestroyDB(dbdir, o);
    return false;
  }
  TablePropertiesCollection props;
  s = db->GetPropertiesOfAllTables(&props);
  if (s.ok() && props.size() == 1) {
    j->prefix_extractor_name = props.begin()->second->prefix_extractor_name;
  }
  Statistics* st = o.statistics.get();
  ReadOptions ro;
  std::string max_ts = U64Ts(~uint64_t{0});
  Slice max_ts_slice(max_ts);
  if (c.udt) ro.timestamp = &max_ts_slice;

  // Probe keys: present (sampled to <= 2000) then absent.
  std::vector<std::pair<std::string, int>> probes;
  size_t n = ks.keys.size();
  size_t want = n > 2000 ? 2000 : n;
  for (size_t i = 0; i < want; i++) {
    probes.emplace_back(ks.keys[i * n / want], 1);
  }
  for (const auto& k : ks.absent_keys) probes.emplace_back(k, 0);
  for (const auto& p : probes) {
    uint64_t before = GetRejectTicks(st);
    std::string v;
    Status gs = db->Get(ro, p.first, &v);
    uint64_t after = GetRejectTicks(st);
    if (!gs.ok() && !gs.IsNotFound()) {
      *err = "Get: " + gs.ToString();
      db.reset();
      DestroyDB(dbdir, o);
      return false;
    }
    int found = gs.ok() ? 1 : 0;
    int rej = after > before ? 1 : 0;
    j->probe_lines.push_back(Hex(p.first) + " " + std::to_string(p.second) +
                             " " + std::to_string(found) + " " +
                             std::to_string(rej));
    j->probes++;
    if (p.second) {
      j->present++;
      j->found_present += found;
      j->rejected_present += rej;
    } else {
      j->absent++;
      j->rejected_absent += rej;
    }
  }
  if (!c.prefix.empty()) {
    ReadOptions pro = ro;
    pro.prefix_same_as_start = true;
    std::vector<std::pair<std::string, int>> pp;
    for (size_t i = 0; i < ks.present_prefixes.size() && i < 500; i++) {
      pp.emplace_back(ks.present_prefixes[i], 1);
    }
    // Absent prefixes: evenly spread, at most 1000.
    size_t na = ks.absent_prefixes.size();
    size_t wa = na > 1000 ? 1000 : na;
    for (size_t i = 0; i < wa; i++) {
      pp.emplace_back(ks.absent_prefixes[i * na / wa], 0);
    }
    for (const auto& p : pp) {
      std::unique_ptr<Iterator> it(db->NewIterator(pro));
      uint64_t before = SeekRejectTicks(st);
      it->Seek(p.first);
      uint64_t after = SeekRejectTicks(st);
      if (!it->status().ok()) {
        *err = "Iterator::Seek: " + it->status().ToString();
        it.reset();
        db.reset();
        DestroyDB(dbdir, o);
        return false;
      }
      int rej = after > before ? 1 : 0;
      j->prefix_lines.push_back(Hex(p.first) + " " + std::to_string(p.second) +
                                " " + std::to_string(rej));
      if (p.second) {
        j->prefix_rejected_present += rej;
      } else {
        j->prefix_absent++;
        j->prefix_rejected_absent += rej;
      }
    }
  }
  db.reset();
  DestroyDB(dbdir, o);
  return true;
}

bool WriteLines(const std::string& path, const std::vector<std::string>& v) {
  std::ofstream f(path, std::ios::trunc);
  for (const auto& l : v) f << l << "\n";
  return static_cast<bool>(f);
}

std::vector<Case> Cases() {
  std::vector<Case> v;
  auto add = [&](Case c) { v.push_back(std::move(c)); };
#if ROCKSDB_MAJOR >= 11
  const int max_fv = 8;
#else
  const int max_fv = 5;
#endif
  // Full Bloom at every format_version this release writes.
  for (int fv = 2; fv <= max_fv; fv++) {
    Case c;
    c.format_version = fv;
    c.name = "fv" + std::to_string(fv) + "_full_bloom10_crc32c";
    add(c);
  }
  // The rest of the common set, at format_version 5 (the newest 7.8.3 has).
  {
    Case c;
    c.name = "fv5_full_ribbon10_crc32c";
    c.policy = "ribbon";
    add(c);
    c.name = "fv5_partitioned_ribbon10_crc32c";
    c.filter = "partitioned";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.metadata_block_size = 256;
    add(c);
    c.name = "fv5_partitioned_bloom10_crc32c";
    c.policy = "bloom";
    add(c);
  }
  for (const char* px : {"fixed", "capped"}) {
    for (bool wkf : {true, false}) {
      Case c;
      c.prefix = px;
      c.whole_key_filtering = wkf;
      c.name = std::string("fv5_full_bloom10_") + px + "4_wkf" +
               (wkf ? "1" : "0") + "_crc32c";
      add(c);
    }
  }
  {
    Case c;
    c.prefix = "fixed";
    c.whole_key_filtering = false;
    c.filter = "partitioned";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.metadata_block_size = 256;
    c.name = "fv5_partitioned_bloom10_fixed4_wkf0_crc32c";
    add(c);
  }
  for (ChecksumType ck : {kNoChecksum, kxxHash, kxxHash64, kXXH3}) {
    Case c;
    c.checksum = ck;
    c.name = std::string("fv5_full_bloom10_") + ChecksumName(ck);
    add(c);
  }
  {
    Case c;
    c.index_type = BlockBasedTableOptions::kBinarySearchWithFirstKey;
    c.name = "fv5_full_bloom10_crc32c_binary_first_key";
    add(c);
    c = Case();
    c.index_block_restart_interval = 4;
    c.name = "fv5_full_bloom10_crc32c_irestart4";
    add(c);
    c = Case();
    c.optimize_filters_for_memory = true;
    c.num_keys = 10000;
    c.name = "fv5_full_bloom10_crc32c_ofm_n10000";
    add(c);
  }
#if ROCKSDB_MAJOR >= 11
  // format_version 7 and 8: filters, prefixes, checksums.
  for (int fv : {7, 8}) {
    std::string f = "fv" + std::to_string(fv) + "_";
    for (const char* pol : {"bloom", "ribbon"}) {
      for (const char* fil : {"full", "partitioned"}) {
        for (ChecksumType ck : {kCRC32c, kXXH3}) {
          Case c;
          c.format_version = fv;
          c.policy = pol;
          c.filter = fil;
          c.checksum = ck;
          if (c.filter == "partitioned") {
            c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
            c.metadata_block_size = 256;
          }
          c.name = f + fil + "_" + pol + "10_" + ChecksumName(ck);
          if (fv == 7 && c.name == "fv7_full_bloom10_crc32c") continue;
          if (fv == 8 && c.name == "fv8_full_bloom10_crc32c") continue;
          add(c);
        }
      }
    }
    for (bool wkf : {true, false}) {
      Case c;
      c.format_version = fv;
      c.prefix = "fixed";
      c.whole_key_filtering = wkf;
      c.name = f + "full_bloom10_fixed4_wkf" + (wkf ? "1" : "0") + "_crc32c";
      add(c);
      c.prefix = "capped";
      c.policy = "ribbon";
      c.checksum = kXXH3;
      c.name = f + "full_ribbon10_capped4_wkf" + (wkf ? "1" : "0") + "_xxh3";
      add(c);
    }
  }
  // format_version 8 table options that change bytes.
  auto fv8long = []() {
    Case c;
    c.format_version = 8;
    c.scheme = KeyScheme::kLong;
    c.block_size = 512;
    c.metadata_block_size = 256;
    c.num_keys = 8000;
    return c;
  };
  static const char* okcp_names[] = {"disabled", "iffastseek", "enabled"};
  for (int k = 0; k < 3; k++) {
    Case c = fv8long();
    c.okcp = k;
    c.name = std::string("fv8_full_bloom10_crc32c_ckp_") + okcp_names[k];
    add(c);
    c.filter = "partitioned";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.name = std::string("fv8_partitioned_bloom10_crc32c_ckp_") +
             okcp_names[k];
    add(c);
  }
  {
    Case c = fv8long();
    c.okcp = 2;
    c.index_block_restart_interval = 4;
    c.filter = "partitioned";
    c.policy = "ribbon";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.name = "fv8_partitioned_ribbon10_crc32c_ckp_enabled_irestart4";
    add(c);
  }
  // Padding lands about every 8th data block here, so the non-partitioned
  // index uses restart interval 3 (with 4 every padded entry would be a
  // restart and the value-delta escape would never be needed).
  for (const char* fil : {"full", "partitioned"}) {
    Case c = fv8long();
    c.super_block_alignment_size = 4096;
    c.super_block_alignment_space_overhead_ratio = 8;  // pad up to 512 bytes
    c.filter = fil;
    c.index_block_restart_interval = 3;
    if (c.filter == "partitioned") {
      c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
      c.index_block_restart_interval = 4;
    }
    c.name = std::string("fv8_") + fil + "_bloom10_crc32c_sba4096_irestart" +
             std::to_string(c.index_block_restart_interval);
    add(c);
  }
  {
    Case c = fv8long();
    c.super_block_alignment_size = 4096;
    c.super_block_alignment_space_overhead_ratio = 8;
    c.name = "fv8_full_bloom10_crc32c_sba4096";
    add(c);
  }
  for (double cv : {0.5, 1000.0}) {
    Case c = fv8long();
    c.uniform_cv_threshold = cv;
    c.index_block_restart_interval = 1;
    c.filter = "partitioned";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.name = std::string("fv8_partitioned_bloom10_crc32c_ucv") +
             (cv < 1 ? "0.5" : "1000");
    add(c);
  }
  {
    Case c = fv8long();
    c.separate_kv = true;
    c.name = "fv8_full_bloom10_crc32c_sepkv";
    add(c);
    c = fv8long();
    c.index_block_restart_interval = 4;
    c.name = "fv8_full_bloom10_crc32c_irestart4";
    add(c);
    c = fv8long();
    c.index_block_restart_interval = 4;
    c.use_delta_encoding = false;
    c.name = "fv8_full_bloom10_crc32c_irestart4_nodelta";
    add(c);
  }
  for (const char* fil : {"full", "partitioned"}) {
    Case c = fv8long();
    c.reverse = true;
    c.filter = fil;
    if (c.filter == "partitioned") {
      c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    }
    c.name = std::string("fv8_") + fil + "_bloom10_crc32c_reverse";
    add(c);
    c.reverse = false;
    c.udt = true;
    c.name = std::string("fv8_") + fil + "_bloom10_crc32c_udt";
    add(c);
  }
  for (int k : {1, 2}) {
    Case c = fv8long();
    c.custom_cmp = true;
    c.okcp = k;
    c.filter = "partitioned";
    c.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    c.name = std::string("fv8_partitioned_bloom10_crc32c_customcmp_ckp_") +
             okcp_names[k];
    add(c);
  }
  for (const char* pol : {"bloom", "ribbon"}) {
    for (int n : {1000, 10000, 100000}) {
      Case c;
      c.format_version = 8;
      c.policy = pol;
      c.optimize_filters_for_memory = true;
      c.num_keys = n;
      c.name = std::string("fv8_full_") + pol + "10_crc32c_ofm_n" +
               std::to_string(n);
      add(c);
    }
  }
  // The footer metaindex gap, on copies of fv8 files written above.
  for (const char* base :
       {"fv8_full_bloom10_crc32c", "fv8_partitioned_ribbon10_xxh3",
        "fv8_partitioned_bloom10_crc32c_ckp_enabled"}) {
    for (int gap : {16, 4096}) {
      Case c;
      bool found = false;
      for (const auto& b : v) {
        if (b.name == base) {
          c = b;
          found = true;
        }
      }
      if (!found) continue;
      c.metaindex_gap = gap;
      c.gap_base = base;
      c.name = std::string(base) + "_gap" + std::to_string(gap);
      add(c);
    }
  }
#endif
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: matrix_writer OUTDIR\n";
    return 2;
  }
  const std::string ver = std::to_string(ROCKSDB_MAJOR) + "." +
                          std::to_string(ROCKSDB_MINOR) + "." +
                          std::to_string(ROCKSDB_PATCH);
  const std::string writer = "rocksdb-" + ver;
  const std::string dir = std::string(argv[1]) + "/" + writer;
  mkdir(argv[1], 0755);
  mkdir(dir.c_str(), 0755);
  const std::string dbdir = dir + "/.judge_db";
  std::ofstream manifest(dir + "/manifest.jsonl", std::ios::trunc);
  if (!manifest) {
    std::cerr << "matrix_writer: cannot write " << dir << "/manifest.jsonl\n";
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  int failures = 0;
  size_t files = 0, total_keys = 0, total_probes = 0, total_pprobes = 0;
  for (const Case& c : Cases()) {
    KeySet ks = MakeKeys(c.scheme, c.num_keys);
    const std::string sst = c.name + ".sst";
    std::string err;
    bool ok;
    if (c.metaindex_gap > 0) {
#if ROCKSDB_MAJOR >= 11
      ok = WriteMetaindexGapCopy(dir + "/" + c.gap_base + ".sst",
                                 dir + "/" + sst, c.metaindex_gap, &err);
#else
      ok = false;
      err = "metaindex gap needs RocksDB >= 11";
#endif
    } else {
      ok = WriteSst(c, ks, dir + "/" + sst, &err);
    }
    Judged j;
    if (ok) ok = Judge(c, ks, dir + "/" + sst, dbdir, &j, &err);
    if (!ok) {
      std::cerr << "matrix_writer " << ver << ": case " << c.name
                << " FAILED: " << err << "\n";
      failures++;
      continue;
    }
    WriteLines(dir + "/" + c.name + ".keys", [&] {
      std::vector<std::string> h;
      std::vector<std::string> order = ks.keys;
      if (c.reverse) order.assign(ks.keys.rbegin(), ks.keys.rend());
      for (const auto& k : order) h.push_back(Hex(k));
      return h;
    }());
    WriteLines(dir + "/" + c.name + ".probes", j.probe_lines);
    bool has_pp = !c.prefix.empty();
    if (has_pp) WriteLines(dir + "/" + c.name + ".prefix_probes", j.prefix_lines);
    std::string pxname = j.prefix_extractor_name;
    if (pxname == "nullptr") pxname.clear();
    std::ostringstream m;
    m << "{\"file\": " << JsonStr(sst)
      << ", \"keys\": " << JsonStr(c.name + ".keys")
      << ", \"probes\": " << JsonStr(c.name + ".probes")
      << ", \"prefix_probes\": "
      << (has_pp ? JsonStr(c.name + ".prefix_probes") : "null")
      << ", \"writer\": " << JsonStr(writer)
      << ", \"rocksdb_version\": " << JsonStr(ver)
      << ", \"case\": " << JsonStr(c.name)
      << ", \"format_version\": " << c.format_version
      << ", \"checksum\": " << JsonStr(ChecksumName(c.checksum))
      << ", \"filter\": " << JsonStr(c.policy == "none" ? "none" : c.filter)
      << ", \"policy\": " << JsonStr(c.policy)
      << ", \"bits_per_key\": " << (c.policy == "none" ? 0.0 : c.bits_per_key)
      << (c.bits_per_key == static_cast<int>(c.bits_per_key) ? ".0" : "")
      << ", \"prefix_extractor\": "
      << (has_pp ? JsonStr(pxname) : "null")
      << ", \"whole_key_filtering\": "
      << (c.whole_key_filtering ? "true" : "false")
      << ", \"optimize_filters_for_memory\": "
      << (c.optimize_filters_for_memory ? "true" : "false")
      << ", \"index_type\": " << JsonStr(IndexName(c.index_type))
      << ", \"timestamp_size\": " << (c.udt ? 8 : 0)
      << ", \"num_keys\": " << ks.keys.size()
      << ", \"comparator\": " << JsonStr(CaseComparator(c)->Name());
    if (c.metaindex_gap > 0) m << ", \"metaindex_gap\": " << c.metaindex_gap;
    m << ", \"get_rejected_tickers\": " << JsonStr(kGetRejectTickers);
    if (has_pp) {
      m << ", \"seek_rejected_tickers\": " << JsonStr(kSeekRejectTickers);
    }
    m << ", \"options\": " << JsonStr(OptionString(c)) << "}";
    manifest << m.str() << "\n";
    files++;
    total_keys += ks.keys.size();
    total_probes += j.probes;
    total_pprobes += j.prefix_lines.size();
    std::cerr << "  " << c.name << ": keys " << ks.keys.size() << ", present "
              << j.found_present << "/" << j.present << " found ("
              << j.rejected_present << " rejected), absent rejected "
              << j.rejected_absent << "/" << j.absent;
    if (has_pp) {
      std::cerr << ", prefixes absent rejected " << j.prefix_rejected_absent
                << "/" << j.prefix_absent << " (present rejected "
                << j.prefix_rejected_present << ")";
    }
    std::cerr << "\n";
  }
  manifest.close();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              t0)
                    .count();
  std::cout << writer << ": " << files << " files, " << total_keys
            << " keys, " << total_probes << " probes, " << total_pprobes
            << " prefix probes, " << failures << " failed, " << secs << " s"
            << std::endl;
  return failures ? 1 : 0;
}
