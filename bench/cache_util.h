// What the two cache harnesses share (bench/cache_harness.cc, which times
// the caches, and bench/rss_harness.cc, which counts their resident bytes):
// the files' table options, how a file is written, and the Zipf keys.
#ifndef ROCKSFILTER_BENCH_CACHE_UTIL_H
#define ROCKSFILTER_BENCH_CACHE_UTIL_H

#include <cmath>
#include <memory>
#include <string>

#include "harness_util.h"
#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"

namespace bench {

// Bloom at 10 bits/key, partitioned, 4 KiB metadata blocks (RocksDB's
// default), uncompressed; index and filter blocks in the block cache with
// the top level pinned (pin_top_level_index_and_filter, its default).
inline rocksdb::Options TableOptions(std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.partition_filters = true;
  t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  t.cache_index_and_filter_blocks = true;
  t.pin_top_level_index_and_filter = true;
  if (cache) t.block_cache = cache;
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  return o;
}

// YCSB's ScrambledZipfianGenerator, theta 0.99, over n items.
struct Zipf {
  double theta = 0.99, zetan, alpha, eta;
  uint64_t n;
  explicit Zipf(uint64_t items) : n(items) {
    double z2 = 1 + std::pow(0.5, theta);
    zetan = 0;
    for (uint64_t i = 1; i <= n; i++) zetan += 1 / std::pow(double(i), theta);
    alpha = 1 / (1 - theta);
    eta = (1 - std::pow(2.0 / n, 1 - theta)) / (1 - z2 / zetan);
  }
  uint64_t Next(uint64_t* s) const {
    double u = (SplitMix(s) >> 11) * (1.0 / 9007199254740992.0);
    double uz = u * zetan;
    uint64_t r = uz < 1 ? 0 : uz < 1 + std::pow(0.5, theta) ? 1 : uint64_t(n * std::pow(eta * u - eta + 1, alpha));
    uint64_t h = r + 0x9e3779b97f4a7c15ULL;  // scrambled: hot items spread over the range
    return SplitMix(&h) % n;
  }
};

// File f of n keys: the even key numbers of [f*n, (f+1)*n) (the odd ones
// are absent and fall inside the file's range), each with `value`. One
// SstFileWriter per file, so each file has its own session id and RocksDB's
// block cache keys the files apart.
inline void WriteFile(const std::string& path, const rocksdb::Options& opts, uint64_t f, uint64_t n,
                      const std::string& value) {
  rocksdb::SstFileWriter w(rocksdb::EnvOptions(), opts);
  rocksdb::Status st = w.Open(path);
  if (!st.ok()) Die("SstFileWriter::Open", st);
  for (uint64_t i = 0; i < n; ++i) {
    st = w.Put(Key(2 * (f * n + i)), value);
    if (!st.ok()) Die("SstFileWriter::Put", st);
  }
  rocksdb::ExternalSstFileInfo info;
  st = w.Finish(&info);
  if (!st.ok()) Die("SstFileWriter::Finish", st);
}

// The filter's bytes, from the file's properties.
inline uint64_t FilterBytes(const std::string& path, const rocksdb::Options& opts) {
  rocksdb::SstFileReader r(opts);
  rocksdb::Status st = r.Open(path);
  if (!st.ok()) Die("SstFileReader::Open", st);
  return r.GetTableProperties()->filter_size;
}

}  // namespace bench

#endif
