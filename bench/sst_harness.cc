// SST-level queries: "can this SST file hold key K?" answered by RocksDB
// 11.12 itself (SstFileReader::Get and MultiGet on the file, what a user
// of RocksDB would otherwise call) and by rocksfilter on the same file
// (rocksfilter_sst_may_match, one key per call, and
// rocksfilter_sst_may_match_batch), in one process, on identical keys,
// taking turns chunk by chunk, several rounds, medians in ns/key.
//
// RocksDB is linked from the static library sst_fixtures/rocksdb11/build.sh
// builds (RocksDB's source from the rust-librocksdb-sys 0.49.0 crate, never
// copied here); bench/sst builds this file against it.
//
// Files are written by RocksDB 11.12's SstFileWriter (20-byte keys, 8-byte
// values, default BlockBasedTableOptions otherwise): full and partitioned
// filters, Bloom and Ribbon at 10 bits/key. Present keys are the even
// numbers, absent ones the odd numbers between them, so absent keys land
// inside the file's key range (and in every partition), as they do in an
// engine's lookups.
//
// Then, for each format whose full and partitioned files were both written,
// ours alone on the two files (issue #23's "partitioned against full"):
// single and batch queries on both, taking turns chunk by chunk with no
// RocksDB call in between (RocksDB's calls evict the caches ours would use
// and swing the ratio 2x between runs), medians in ns/key.
//
// Usage: sst_harness --keys N [--query-keys Q] [--rounds R] [--batch B]
//                    [--partition-bytes P] [--kinds full_bloom,...] --dir DIR
//   -> one JSON object per (kind, keys present|absent, method) on stdout,
//      then one per (format, keys present|absent, paired method).
//   --partition-bytes: metadata_block_size (RocksDB's default 4096), the
//   target size of a filter partition.

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksfilter.h"
#include "harness_util.h"

namespace {

using bench::Die;
using bench::Has;
using bench::Key;
using bench::Median;
using bench::NowNs;
using bench::OursQuery;
using bench::TakeTurns;
using bench::SplitMix;

rocksdb::Options TableOptions(const std::string& kind, uint64_t partition_bytes) {
  rocksdb::BlockBasedTableOptions t;
  bool ribbon = kind.find("ribbon") != std::string::npos;
  t.filter_policy.reset(ribbon ? rocksdb::NewRibbonFilterPolicy(10) : rocksdb::NewBloomFilterPolicy(10));
  if (kind.rfind("partitioned", 0) == 0) {
    t.partition_filters = true;
    t.metadata_block_size = partition_bytes;
    t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  return o;
}


}  // namespace

int main(int argc, char** argv) {
  size_t n = 1000000, qn = 0, rounds = 3, batch = 1024, partition_bytes = 4096;
  bool sorted = false;
  std::string kinds = "full_bloom,partitioned_bloom,full_ribbon,partitioned_ribbon", dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--keys") n = strtoull(next(), nullptr, 10);
    else if (a == "--query-keys") qn = strtoull(next(), nullptr, 10);
    else if (a == "--rounds") rounds = strtoull(next(), nullptr, 10);
    else if (a == "--batch") batch = strtoull(next(), nullptr, 10);
    else if (a == "--partition-bytes") partition_bytes = strtoull(next(), nullptr, 10);
    else if (a == "--kinds") kinds = next();
    else if (a == "--sorted") sorted = true;
    else if (a == "--dir") dir = next();
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (n == 0 || rounds == 0 || batch == 0 || partition_bytes == 0 || dir.empty()) {
    fprintf(stderr, "--keys, --rounds, --batch, --partition-bytes must be > 0 and --dir given\n");
    return 2;
  }
  if (qn == 0) qn = std::min<size_t>(n, 200000);
  qn = std::min(qn, n);

  // Query sets, random order: present (even) and absent (odd) key numbers.
  std::vector<std::string> present(qn), absent(qn);
  uint64_t s = 42;
  for (size_t i = 0; i < qn; ++i) {
    uint64_t k = SplitMix(&s) % n;
    present[i] = Key(2 * k);
    absent[i] = Key(2 * k + 1);
  }
  // --sorted: each batch's keys in key order, as MultiGet sorts them before
  // it asks the filter (both sides get the same order).
  if (sorted) {
    for (std::vector<std::string>* q : {&present, &absent}) {
      for (size_t i = 0; i < q->size(); i += batch) {
        std::sort(q->begin() + i, q->begin() + std::min(q->size(), i + batch));
      }
    }
    // Copied in their new order, so that the keys' bytes lie in memory in
    // that order as before the sort (the sort permutes the strings' heap
    // pointers, which costs every method a cache miss per key). Both sets
    // are copied before either's old strings are freed: copied one after
    // the other, the second set's strings reused the first's freed chunks
    // in the allocator's order, not the keys', and its keys measured 4-6 ns
    // slower per key than the first's in every method.
    std::vector<std::string> present_laid_out(present.begin(), present.end());
    std::vector<std::string> absent_laid_out(absent.begin(), absent.end());
    present.swap(present_laid_out);
    absent.swap(absent_laid_out);
  }

  for (const std::string kind :
       {"full_bloom", "partitioned_bloom", "full_ribbon", "partitioned_ribbon"}) {
    if (!Has(kinds, kind)) continue;
    rocksdb::Options opts = TableOptions(kind, partition_bytes);
    std::string path = dir + "/" + kind + ".sst";
    {
      rocksdb::SstFileWriter w(rocksdb::EnvOptions(), opts);
      rocksdb::Status st = w.Open(path);
      if (!st.ok()) Die("SstFileWriter::Open", st);
      for (size_t i = 0; i < n; ++i) {
        st = w.Put(Key(2 * i), "value-01");
        if (!st.ok()) Die("SstFileWriter::Put", st);
      }
      st = w.Finish();
      if (!st.ok()) Die("SstFileWriter::Finish", st);
    }
    rocksdb::SstFileReader reader(opts);
    rocksdb::Status st = reader.Open(path);
    if (!st.ok()) Die("SstFileReader::Open", st);
    rocksfilter_sst* sst = nullptr;
    char* err = nullptr;
    if (rocksfilter_sst_open(path.c_str(), &sst, &err) != ROCKSFILTER_OK) {
      fprintf(stderr, "rocksfilter_sst_open: %s\n", err);
      return 1;
    }
    rocksfilter_sst_properties props;
    rocksfilter_sst_get_properties(sst, &props);

    for (const char* which : {"absent", "present"}) {
      const std::vector<std::string>& q = std::string(which) == "absent" ? absent : present;
      std::vector<rocksdb::Slice> slices(q.begin(), q.end());
      bench::KeyViews views(q);
      const std::vector<const uint8_t*>& ptrs = views.ptrs;
      const std::vector<size_t>& lens = views.lens;
      std::unique_ptr<bool[]> res(new bool[batch]);
      rocksdb::ReadOptions ro;
      std::string value;
      std::vector<std::string> values;
      const char* methods[] = {"rocksdb_get", "rocksdb_multiget", "ours_single", "ours_batch"};
      std::vector<double> samples[4];
      size_t found[4] = {0, 0, 0, 0};
      const size_t kChunk = 16384;
      TakeTurns(qn, kChunk, rounds, [&](int m, size_t c0, size_t c1) {
        size_t c = 0;
        if (m == 0) {
          for (size_t i = c0; i < c1; ++i) {
            rocksdb::Status g = reader.Get(ro, slices[i], &value);
            if (!g.ok() && !g.IsNotFound()) Die("SstFileReader::Get", g);
            c += g.ok();
          }
        } else if (m == 1) {
          for (size_t i = c0; i < c1; i += batch) {
            size_t e = std::min(c1, i + batch);
            std::vector<rocksdb::Slice> keys(slices.begin() + i, slices.begin() + e);
            std::vector<rocksdb::Status> g = reader.MultiGet(ro, keys, &values);
            for (const rocksdb::Status& x : g) {
              if (!x.ok() && !x.IsNotFound()) Die("SstFileReader::MultiGet", x);
              c += x.ok();
            }
          }
        } else {
          c = OursQuery(sst, ptrs, lens, c0, c1, m == 2, batch, res.get());
        }
        return c;
      }, samples, found);
      // Never absent where RocksDB finds the key; batch == single.
      if (found[2] < found[0] || found[3] != found[2] || found[0] != found[1]) {
        fprintf(stderr, "ANSWER MISMATCH %s %s: get %zu multiget %zu ours %zu batch %zu\n", kind.c_str(),
                which, found[0], found[1], found[2], found[3]);
        return 1;
      }
      for (int m = 0; m < 4; ++m) {
        printf("{\"sst\":\"%s\",\"keys\":%zu,\"partitions\":%u,\"queries\":\"%s\",\"method\":\"%s\","
               "\"ns\":%.2f,\"answered_may_match\":%zu,\"of\":%zu}\n",
               kind.c_str(), n, props.num_partitions, which, methods[m], Median(samples[m]), found[m], qn);
      }
      fflush(stdout);
    }
    rocksfilter_sst_free(sst);
  }

  // Ours alone: the full file against the partitioned one, same keys.
  for (const std::string format : {"bloom", "ribbon"}) {
    if (!Has(kinds, "full_" + format) || !Has(kinds, "partitioned_" + format)) continue;
    rocksfilter_sst* ssts[2] = {nullptr, nullptr};
    for (int f = 0; f < 2; ++f) {
      std::string path = dir + "/" + (f == 0 ? "full_" : "partitioned_") + format + ".sst";
      char* err = nullptr;
      if (rocksfilter_sst_open(path.c_str(), &ssts[f], &err) != ROCKSFILTER_OK) {
        fprintf(stderr, "rocksfilter_sst_open %s: %s\n", path.c_str(), err);
        return 1;
      }
    }
    rocksfilter_sst_properties props;
    rocksfilter_sst_get_properties(ssts[1], &props);
    for (const char* which : {"absent", "present"}) {
      const std::vector<std::string>& q = std::string(which) == "absent" ? absent : present;
      bench::KeyViews views(q);
      const std::vector<const uint8_t*>& ptrs = views.ptrs;
      const std::vector<size_t>& lens = views.lens;
      std::unique_ptr<bool[]> res(new bool[batch]);
      // m: 0 full single, 1 partitioned single, 2 full batch, 3 partitioned batch.
      const char* methods[] = {"full_single", "partitioned_single", "full_batch", "partitioned_batch"};
      std::vector<double> samples[4];
      size_t found[4] = {0, 0, 0, 0};
      const size_t kChunk = 16384;
      TakeTurns(qn, kChunk, rounds, [&](int m, size_t c0, size_t c1) {
        return OursQuery(ssts[m % 2], ptrs, lens, c0, c1, m < 2, batch, res.get());
      }, samples, found);
      // Every present key may match in both files; batch == single per file.
      bool bad = found[2] != found[0] || found[3] != found[1] ||
                 (std::string(which) == "present" && (found[0] != qn || found[1] != qn));
      if (bad) {
        fprintf(stderr, "ANSWER MISMATCH paired %s %s: full %zu/%zu partitioned %zu/%zu of %zu\n", format.c_str(),
                which, found[0], found[2], found[1], found[3], qn);
        return 1;
      }
      for (int m = 0; m < 4; ++m) {
        printf("{\"paired\":\"%s\",\"keys\":%zu,\"partitions\":%u,\"queries\":\"%s\",\"method\":\"%s\","
               "\"ns\":%.2f,\"answered_may_match\":%zu,\"of\":%zu}\n",
               format.c_str(), n, props.num_partitions, which, methods[m], Median(samples[m]), found[m], qn);
      }
      fflush(stdout);
    }
    rocksfilter_sst_free(ssts[0]);
    rocksfilter_sst_free(ssts[1]);
  }
  return 0;
}
