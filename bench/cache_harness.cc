// Filter memory at database scale: many partitioned SST files whose
// filters add up to several times a cache's capacity, asked about absent
// keys (uniform and Zipf-distributed) by RocksDB 11.12 and by rocksfilter,
// each reading the filter partitions on demand into a cache of the same
// capacity, in one process, on identical keys, taking turns round by round.
//
//   RocksDB: one SstFileReader per file, all sharing one block cache
//   (LRUCache, and HyperClockCache) with cache_index_and_filter_blocks =
//   true (pin_top_level_index_and_filter, its default, keeps each file's
//   top-level index pinned); Get per key and MultiGet per file's keys of a
//   batch. Hit ratio: the perf context's block_cache_filter_hit_count and
//   filter_block_read_count (PerfLevel kEnableCount). Not the Statistics
//   tickers: Statistics keeps per-core counters found by PhysicalCoreID(),
//   which in a build without ROCKSDB_SCHED_GETCPU_PRESENT executes CPUID, a
//   trap to the hypervisor on a VM (measured: 91% of the time).
//   Ours: rocksfilter_sst_open_ex with one rocksfilter_cache (partitions
//   read on demand, by path); rocksfilter_sst_may_match per key and
//   rocksfilter_sst_may_match_batch per file's keys of a batch. Hit ratio:
//   rocksfilter_cache_stats.
//
// Files: RocksDB 11.12's SstFileWriter, 20-byte keys (file f holds the even
// numbers of its range), Bloom at 10 bits/key, partitioned, 4 KiB metadata
// blocks (RocksDB's default): partitions of about 4 KiB. Absent keys are
// the odd numbers, so each lands inside some partition of its file.
// Zipf: YCSB's scrambled Zipfian (theta 0.99) over groups of 64 neighbouring
// key numbers, so hot keys share partitions as hot rows of a table do.
//
// Usage: cache_harness --files F --keys N --queries Q --rounds R --batch B
//                      --ratio X --dir DIR [--methods M,...]
//   -> one JSON object per (distribution, method, round) on stdout.

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/advanced_cache.h"
#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksfilter.h"
#include "cache_util.h"

namespace {

using bench::Die;
using bench::FilterBytes;
using bench::Key;
using bench::NowNs;
using bench::SplitMix;
using bench::TableOptions;
using bench::WriteFile;
using bench::Zipf;

struct Query {
  uint32_t file;
  std::string key;
};

}  // namespace

int main(int argc, char** argv) {
  size_t files = 64, n = 200000, queries = 1000000, rounds = 3, batch = 1024;
  double ratio = 10;
  std::string dir, methods;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--files") files = strtoull(next(), nullptr, 10);
    else if (a == "--keys") n = strtoull(next(), nullptr, 10);
    else if (a == "--queries") queries = strtoull(next(), nullptr, 10);
    else if (a == "--rounds") rounds = strtoull(next(), nullptr, 10);
    else if (a == "--batch") batch = strtoull(next(), nullptr, 10);
    else if (a == "--ratio") ratio = strtod(next(), nullptr);
    else if (a == "--dir") dir = next();
    else if (a == "--methods") methods = next();
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (files == 0 || n == 0 || queries == 0 || rounds == 0 || batch == 0 || dir.empty() || ratio <= 0) {
    fprintf(stderr, "--files, --keys, --queries, --rounds, --batch, --ratio must be > 0 and --dir given\n");
    return 2;
  }

  // Write the files; the filters' total from their properties.
  std::vector<std::string> paths;
  uint64_t filter_bytes = 0, partitions = 0;
  {
    rocksdb::Options opts = TableOptions(nullptr);
    for (size_t f = 0; f < files; f++) {
      std::string path = dir + "/" + std::to_string(f) + ".sst";
      WriteFile(path, opts, f, n, "value-01");
      paths.push_back(path);
      filter_bytes += FilterBytes(path, opts);
    }
  }
  const size_t capacity = size_t(filter_bytes / ratio);

  // Query streams: absent keys (odd numbers), uniform and Zipf over groups
  // of 64 neighbouring keys; and every 50th present key for the check.
  const uint64_t total = files * n;
  std::vector<std::pair<std::string, std::vector<Query>>> streams;
  {
    uint64_t s = 42;
    std::vector<Query> u(queries), z(queries);
    for (size_t i = 0; i < queries; i++) {
      uint64_t k = SplitMix(&s) % total;
      u[i] = {uint32_t(k / n), Key(2 * k + 1)};
    }
    Zipf zipf((total + 63) / 64);
    for (size_t i = 0; i < queries; i++) {
      uint64_t k = std::min(total - 1, zipf.Next(&s) * 64 + SplitMix(&s) % 64);
      z[i] = {uint32_t(k / n), Key(2 * k + 1)};
    }
    streams.push_back({"uniform", std::move(u)});
    streams.push_back({"zipf", std::move(z)});
  }

  // Ours: one cache, every file by path.
  rocksfilter_cache* cache = rocksfilter_cache_new(capacity);
  std::vector<rocksfilter_sst*> ours(files);
  for (size_t f = 0; f < files; f++) {
    rocksfilter_sst_options o{};
    o.struct_size = sizeof o;
    o.cache = cache;
    char* err = nullptr;
    if (rocksfilter_sst_open_ex(paths[f].c_str(), &o, &ours[f], &err) != ROCKSFILTER_OK) {
      fprintf(stderr, "rocksfilter_sst_open_ex: %s\n", err);
      return 1;
    }
    rocksfilter_sst_properties p;
    rocksfilter_sst_get_properties(ours[f], &p);
    partitions += p.num_partitions;
  }
  // RocksDB: readers sharing one block cache, LRU and HyperClock.
  struct Rocks {
    const char* name;
    std::shared_ptr<rocksdb::Cache> cache;
    std::vector<std::unique_ptr<rocksdb::SstFileReader>> readers;
  };
  std::vector<Rocks> rocks;
  rocks.push_back({"rocksdb_lru", rocksdb::NewLRUCache(capacity), {}});
  rocks.push_back({"rocksdb_hyperclock", rocksdb::HyperClockCacheOptions(capacity, 0).MakeSharedCache(), {}});
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  for (auto& r : rocks) {
    rocksdb::Options opts = TableOptions(r.cache);
    for (size_t f = 0; f < files; f++) {
      r.readers.emplace_back(new rocksdb::SstFileReader(opts));
      rocksdb::Status st = r.readers.back()->Open(paths[f]);
      if (!st.ok()) Die("SstFileReader::Open", st);
    }
  }

  // Present keys may match (ours) and are found (RocksDB, LRU).
  {
    rocksdb::ReadOptions ro;
    std::string v;
    uint64_t lost = 0;
    for (uint64_t k = 0; k < total; k += 50) {
      std::string key = Key(2 * k);
      rocksfilter_sst* s = ours[k / n];
      lost += !rocksfilter_sst_may_match(s, reinterpret_cast<const uint8_t*>(key.data()), key.size());
      if (k % 5000 == 0 && !rocks[0].readers[k / n]->Get(ro, key, &v).ok()) Die("present key not found", rocksdb::Status::NotFound());
    }
    if (lost) { fprintf(stderr, "FALSE ABSENT: %" PRIu64 " present keys\n", lost); return 1; }
  }

  std::unique_ptr<bool[]> res(new bool[batch]);
  std::vector<std::vector<uint32_t>> by_file(files);
  auto group = [&](const std::vector<Query>& q, size_t at, size_t m) {
    for (auto& v : by_file) v.clear();
    for (size_t i = at; i < at + m; i++) by_file[q[i].file].push_back(uint32_t(i));
  };
  auto ours_stats = [&]() {
    rocksfilter_cache_stats st{};
    st.struct_size = sizeof st;
    rocksfilter_cache_get_stats(cache, &st, nullptr);
    return st;
  };

  for (size_t round = 0; round < rounds; round++) {
    for (auto& [dist, q] : streams) {
      for (const char* method : {"ours_single", "ours_batch", "rocksdb_lru_get", "rocksdb_lru_multiget",
                                 "rocksdb_hyperclock_get", "rocksdb_hyperclock_multiget"}) {
        std::string m = method;
        if (!methods.empty() && !bench::Has(methods, m)) continue;
        uint64_t maybe = 0;
        Rocks* r = m.find("lru") != std::string::npos ? &rocks[0] : m.find("hyperclock") != std::string::npos ? &rocks[1] : nullptr;
        if (r) {
          rocksdb::get_perf_context()->Reset();
        }
        rocksfilter_cache_stats before = ours_stats();
        double t0 = NowNs();
        if (m == "ours_single") {
          for (const Query& x : q)
            maybe += rocksfilter_sst_may_match(ours[x.file], reinterpret_cast<const uint8_t*>(x.key.data()), x.key.size());
        } else if (m == "ours_batch") {
          std::vector<const uint8_t*> ptrs;
          std::vector<size_t> lens;
          for (size_t at = 0; at < q.size(); at += batch) {
            size_t mm = std::min(batch, q.size() - at);
            group(q, at, mm);
            for (size_t f = 0; f < files; f++) {
              if (by_file[f].empty()) continue;
              ptrs.clear();
              lens.clear();
              for (uint32_t i : by_file[f]) {
                ptrs.push_back(reinterpret_cast<const uint8_t*>(q[i].key.data()));
                lens.push_back(q[i].key.size());
              }
              rocksfilter_sst_may_match_batch(ours[f], ptrs.data(), lens.data(), ptrs.size(), res.get());
              for (size_t j = 0; j < ptrs.size(); j++) maybe += res[j];
            }
          }
        } else if (m.find("multiget") != std::string::npos) {
          rocksdb::ReadOptions ro;
          std::vector<rocksdb::Slice> keys;
          std::vector<std::string> values;
          for (size_t at = 0; at < q.size(); at += batch) {
            size_t mm = std::min(batch, q.size() - at);
            group(q, at, mm);
            for (size_t f = 0; f < files; f++) {
              if (by_file[f].empty()) continue;
              keys.clear();
              for (uint32_t i : by_file[f]) keys.emplace_back(q[i].key);
              std::vector<rocksdb::Status> st = r->readers[f]->MultiGet(ro, keys, &values);
              for (auto& x : st) {
                if (x.ok()) Die("an absent key was found", x);
                if (!x.IsNotFound()) Die("SstFileReader::MultiGet", x);
              }
            }
          }
        } else {
          rocksdb::ReadOptions ro;
          std::string v;
          for (const Query& x : q) {
            rocksdb::Status st = r->readers[x.file]->Get(ro, x.key, &v);
            if (st.ok()) Die("an absent key was found", st);
            if (!st.IsNotFound()) Die("SstFileReader::Get", st);
          }
        }
        double ns = (NowNs() - t0) / q.size();
        double hits, misses;
        uint64_t held;
        if (r) {
          hits = double(rocksdb::get_perf_context()->block_cache_filter_hit_count);
          misses = double(rocksdb::get_perf_context()->filter_block_read_count);
          held = r->cache->GetUsage();
        } else {
          rocksfilter_cache_stats after = ours_stats();
          hits = double(after.hits - before.hits);
          misses = double(after.misses - before.misses);
          held = after.bytes_held;
          if (after.read_errors != before.read_errors) { fprintf(stderr, "read errors\n"); return 1; }
        }
        printf("{\"dist\":\"%s\",\"method\":\"%s\",\"round\":%zu,\"ns\":%.1f,\"hit_ratio\":%.4f,\"lookups\":%.0f,"
               "\"may_match\":%" PRIu64 ",\"queries\":%zu,\"held\":%" PRIu64 ",\"capacity\":%zu,\"filter_bytes\":%" PRIu64
               ",\"files\":%zu,\"partitions\":%" PRIu64 ",\"keys_per_file\":%zu,\"batch\":%zu}\n",
               dist.c_str(), method, round, ns, hits / std::max(1.0, hits + misses), hits + misses,
               r ? uint64_t(0) : maybe, q.size(), held, capacity, filter_bytes, files, partitions, n, batch);
        fflush(stdout);
      }
    }
  }
  for (auto* s : ours) rocksfilter_sst_free(s);
  rocksfilter_cache_free(cache);
  return 0;
}
