// verdict78: RocksDB 7.8.3's own verdict, key by key, on SST files other
// writers produced (the family matrix, ../family/README.md).
//
//   verdict78 WORKDIR < TASKS
//
// TASKS: one line per file, tab-separated:
//   SST  CANDIDATES  PREFIX  WHOLE_KEY  OUT
// CANDIDATES has one key per line, "<hex key> <in_file 0|1> ..." (a probes or
// candidates file of the matrix contract; columns after the second are
// ignored). PREFIX is "-", "fixed:N" or "capped:N". For each file a fresh DB
// under WORKDIR (built-in Bloom policy: it reads every built-in filter;
// whole_key_filtering = WHOLE_KEY; that prefix extractor) ingests a copy of
// SST, then each key is a Get; OUT gets "<hex key> <in_file> <found 0|1>
// <filter_rejected 0|1>", where filter_rejected is whether that Get raised
// rocksdb.bloom.filter.useful or rocksdb.bloom.filter.prefix.useful (7.8.3
// counts a prefix-filter rejection of a Get under the former).
//
// A file ingestion refuses is imported instead (CreateColumnFamilyWithImport
// at level 6, sequence numbers 0: what a tool that has the file but not its
// DB does; import does not ask for the rocksdb.external_sst_file.version
// property, which Pebble v2 does not write), and the keys are asked in the
// imported column family.
//
// Prints per file "OK <SST> <absent> <rejected>", preceded by "IMPORTED <SST>
// <why ingestion refused>" when imported, or "REFUSED <SST> <why>" (neither
// ingestion nor import accepted it: RocksDB does not read the file). Exit 0
// unless the judge itself failed.
//
// Build: g++ -O2 -std=c++17 -o verdict78 verdict78.cc -lrocksdb (Debian's
// librocksdb-dev 7.8.3).
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Unhex(const std::string& h, std::string* out) {
  if (h.size() % 2) return false;
  out->clear();
  for (size_t i = 0; i < h.size(); i += 2) {
    int a = HexVal(h[i]), b = HexVal(h[i + 1]);
    if (a < 0 || b < 0) return false;
    out->push_back(static_cast<char>(a << 4 | b));
  }
  return true;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::string OneLine(const rocksdb::Status& s) {
  std::string why = s.ToString();
  for (char& c : why)
    if (c == '\n') c = ' ';
  return why;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: verdict78 WORKDIR < TASKS\n");
    return 2;
  }
  const std::string work = argv[1];
  std::string line;
  int n = 0;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f = Split(line, '\t');
    if (f.size() != 5) {
      std::fprintf(stderr, "verdict78: bad task line: %s\n", line.c_str());
      return 2;
    }
    const std::string &sst = f[0], &cand = f[1], &prefix = f[2], &out_path = f[4];
    const bool whole_key = f[3] == "1" || f[3] == "true";

    rocksdb::Options o;
    o.create_if_missing = true;
    o.error_if_exists = true;
    o.statistics = rocksdb::CreateDBStatistics();
    rocksdb::BlockBasedTableOptions t;
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    t.whole_key_filtering = whole_key;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    if (prefix.rfind("fixed:", 0) == 0) {
      o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(std::stoul(prefix.substr(6))));
    } else if (prefix.rfind("capped:", 0) == 0) {
      o.prefix_extractor.reset(rocksdb::NewCappedPrefixTransform(std::stoul(prefix.substr(7))));
    } else if (prefix != "-") {
      std::fprintf(stderr, "verdict78: unknown prefix extractor %s\n", prefix.c_str());
      return 2;
    }
    const std::string dbdir = work + "/db" + std::to_string(n++);
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, dbdir, &db);
    if (!s.ok()) {
      std::fprintf(stderr, "verdict78: open %s: %s\n", dbdir.c_str(), s.ToString().c_str());
      return 1;
    }
    rocksdb::IngestExternalFileOptions io;
    io.move_files = false;
    s = db->IngestExternalFile({sst}, io);
    rocksdb::ColumnFamilyHandle* cf = db->DefaultColumnFamily();
    rocksdb::ColumnFamilyHandle* imported = nullptr;
    if (!s.ok()) {
      std::string why = OneLine(s);
      rocksdb::ExportImportFilesMetaData meta;
      meta.db_comparator_name = o.comparator->Name();
      rocksdb::LiveFileMetaData file;
      const size_t slash = sst.rfind('/');
      file.db_path = slash == std::string::npos ? "." : sst.substr(0, slash);
      file.name = sst.substr(slash == std::string::npos ? 0 : slash + 1);
      file.column_family_name = "imported";
      file.level = 6;
      file.smallest_seqno = file.largest_seqno = 0;
      meta.files.push_back(file);
      rocksdb::Status si =
          db->CreateColumnFamilyWithImport(rocksdb::ColumnFamilyOptions(o), "imported", rocksdb::ImportColumnFamilyOptions(), meta, &imported);
      if (si.ok()) {
        std::printf("IMPORTED %s %s\n", sst.c_str(), why.c_str());
        cf = imported;
        s = si;
      } else {
        std::printf("REFUSED %s %s; import: %s\n", sst.c_str(), why.c_str(), OneLine(si).c_str());
      }
    }
    if (s.ok()) {
      std::ifstream in(cand);
      std::ofstream out(out_path);
      if (!in || !out) {
        std::fprintf(stderr, "verdict78: cannot read %s or write %s\n", cand.c_str(), out_path.c_str());
        return 1;
      }
      std::string l, key, value;
      long absent = 0, rejected_absent = 0;
      while (std::getline(in, l)) {
        std::vector<std::string> c = Split(l, ' ');
        if (c.size() < 2 || !Unhex(c[0], &key)) {
          std::fprintf(stderr, "verdict78: bad candidate line in %s: %s\n", cand.c_str(), l.c_str());
          return 1;
        }
        uint64_t before = o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) +
                          o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
        rocksdb::Status g = db->Get(rocksdb::ReadOptions(), cf, key, &value);
        uint64_t after = o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) +
                         o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
        if (!g.ok() && !g.IsNotFound()) {
          std::fprintf(stderr, "verdict78: Get in %s: %s\n", sst.c_str(), g.ToString().c_str());
          return 1;
        }
        bool rejected = after > before;
        if (c[1] == "0") {
          absent++;
          rejected_absent += rejected;
        }
        out << c[0] << ' ' << c[1] << ' ' << (g.ok() ? 1 : 0) << ' ' << (rejected ? 1 : 0) << '\n';
      }
      std::printf("OK %s %ld %ld\n", sst.c_str(), absent, rejected_absent);
    }
    if (imported) db->DestroyColumnFamilyHandle(imported);
    delete db;
    rocksdb::DestroyDB(dbdir, o);
  }
  return 0;
}
