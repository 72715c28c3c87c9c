// What a shared filter cache costs the process, in resident bytes: RocksDB
// 11.12's block cache (LRUCache, HyperClockCache) against rocksfilter_cache,
// at the same capacity, on the same files, under the same query threads.
// One process per method and capacity (bench/sst --rss starts them), so that
// no method's pages, or malloc's heaps, count in another's figures.
//
//   rss_harness write --dir D --files F --keys N
//     writes F partitioned Bloom files of N keys (bench/cache_util.h) into D.
//   rss_harness run --dir D --files F --keys N --method M --capacity BYTES
//                   --threads T --queries Q
//     M: ours | rocksdb_lru | rocksdb_hyperclock. Opens every file on one
//     cache of BYTES, then T threads make Q queries each for absent keys
//     (even threads uniform, odd threads YCSB's scrambled Zipf over groups
//     of 64 neighbouring keys), then frees everything; prints one JSON line.
//
// Resident bytes: /proc/self/statm's resident pages (what the kernel charges
// a container for), at four points: before the opens, after the opens,
// after the queries, after freeing the handles and the cache. Peak: VmHWM
// of /proc/self/status, reset after the first point (clear_refs 5). Under
// whatever malloc the process has: glibc's, unless bench/sst --rss preloads
// jemalloc.
//
// RocksDB: one SstFileReader per file (kept open, as a DB keeps table
// readers), cache_index_and_filter_blocks with the top level pinned, so
// filter and index partitions (and, for the rare false positive, data
// blocks) come through the block cache. Hit ratio: each thread's perf
// context (PerfLevel kEnableCount), filter blocks only. Ours:
// rocksfilter_sst_open_ex by path on one rocksfilter_cache keeping every
// file open; its stats.
//
// Nothing here asserts on time. The run fails if a present key is "absent"
// (ours) or not found (RocksDB), or an absent key is found.

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cache_util.h"
#include "rocksdb/advanced_cache.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"
#include "rocksfilter.h"

namespace {

using bench::Die;
using bench::FilterBytes;
using bench::KeyInto;
using bench::NowNs;
using bench::SplitMix;
using bench::TableOptions;
using bench::WriteFile;
using bench::Zipf;

uint64_t ResidentBytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

uint64_t PeakBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  return 0;
}

void ResetPeak() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
}

std::string Path(const std::string& dir, size_t f) { return dir + "/" + std::to_string(f) + ".sst"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rss_harness write|run --dir D --files F --keys N [...]\n");
    return 2;
  }
  std::string cmd = argv[1], dir, method;
  size_t files = 0, n = 0, capacity = 0, threads = 4, queries = 150000;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--dir") dir = next();
    else if (a == "--files") files = strtoull(next(), nullptr, 10);
    else if (a == "--keys") n = strtoull(next(), nullptr, 10);
    else if (a == "--method") method = next();
    else if (a == "--capacity") capacity = strtoull(next(), nullptr, 10);
    else if (a == "--threads") threads = strtoull(next(), nullptr, 10);
    else if (a == "--queries") queries = strtoull(next(), nullptr, 10);
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (dir.empty() || files == 0 || n == 0) {
    fprintf(stderr, "--dir, --files and --keys (> 0) are needed\n");
    return 2;
  }
  if (cmd == "write") {
    rocksdb::Options opts = TableOptions(nullptr);
    uint64_t filter_bytes = 0;
    for (size_t f = 0; f < files; f++) {
      WriteFile(Path(dir, f), opts, f, n, "v");
      filter_bytes += FilterBytes(Path(dir, f), opts);
    }
    printf("{\"files\":%zu,\"keys_per_file\":%zu,\"filter_bytes\":%" PRIu64 "}\n", files, n, filter_bytes);
    return 0;
  }
  if (cmd != "run") { fprintf(stderr, "unknown command %s\n", cmd.c_str()); return 2; }
  const bool ours = method == "ours";
  if (!ours && method != "rocksdb_lru" && method != "rocksdb_hyperclock") {
    fprintf(stderr, "--method: ours, rocksdb_lru or rocksdb_hyperclock\n");
    return 2;
  }
  if (capacity == 0 || threads == 0 || queries == 0) {
    fprintf(stderr, "--capacity, --threads and --queries must be > 0\n");
    return 2;
  }
  const uint64_t total = uint64_t(files) * n;
  const Zipf zipf((total + 63) / 64);  // built before the first count: its table is not the cache's

  const uint64_t rss0 = ResidentBytes();
  ResetPeak();

  rocksfilter_cache* cache = nullptr;
  std::vector<rocksfilter_sst*> handles;
  std::shared_ptr<rocksdb::Cache> block_cache;
  std::vector<std::unique_ptr<rocksdb::SstFileReader>> readers;
  if (ours) {
    // Every file kept open, as RocksDB's readers keep theirs (a DB's
    // max_open_files = -1); the default keeps 128 and reopens the rest.
    cache = rocksfilter_cache_new_with_open_files(capacity, files);
    handles.resize(files);
    for (size_t f = 0; f < files; f++) {
      rocksfilter_sst_options o{};
      o.struct_size = sizeof o;
      o.cache = cache;
      char* err = nullptr;
      if (rocksfilter_sst_open_ex(Path(dir, f).c_str(), &o, &handles[f], &err) != ROCKSFILTER_OK) {
        fprintf(stderr, "rocksfilter_sst_open_ex: %s\n", err);
        return 1;
      }
    }
  } else {
    block_cache = method == "rocksdb_lru" ? rocksdb::NewLRUCache(capacity)
                                          : rocksdb::HyperClockCacheOptions(capacity, 0).MakeSharedCache();
    rocksdb::Options opts = TableOptions(block_cache);
    for (size_t f = 0; f < files; f++) {
      readers.emplace_back(new rocksdb::SstFileReader(opts));
      rocksdb::Status st = readers.back()->Open(Path(dir, f));
      if (!st.ok()) Die("SstFileReader::Open", st);
    }
  }
  const uint64_t rss1 = ResidentBytes();

  std::atomic<uint64_t> maybe{0}, hits{0}, lookups{0}, found{0};
  auto worker = [&](size_t t) {
    if (!ours) {
      rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
      rocksdb::get_perf_context()->Reset();
    }
    uint64_t s = 1000 + t, m = 0, f = 0;
    char key[21];
    rocksdb::ReadOptions ro;
    std::string v;
    for (size_t i = 0; i < queries; i++) {
      uint64_t k = t % 2 == 0 ? SplitMix(&s) % total : std::min(total - 1, zipf.Next(&s) * 64 + SplitMix(&s) % 64);
      KeyInto(2 * k + 1, key);
      if (ours) {
        m += rocksfilter_sst_may_match(handles[k / n], reinterpret_cast<const uint8_t*>(key), 20);
      } else {
        rocksdb::Status st = readers[k / n]->Get(ro, rocksdb::Slice(key, 20), &v);
        f += st.ok();
        if (!st.ok() && !st.IsNotFound()) Die("SstFileReader::Get", st);
      }
    }
    maybe += m;
    found += f;
    if (!ours) {
      hits += rocksdb::get_perf_context()->block_cache_filter_hit_count;
      lookups += rocksdb::get_perf_context()->block_cache_filter_hit_count +
                 rocksdb::get_perf_context()->filter_block_read_count;
    }
  };
  double t0 = NowNs();
  {
    std::vector<std::thread> ts;
    for (size_t t = 0; t < threads; t++) ts.emplace_back(worker, t);
    for (auto& t : ts) t.join();
  }
  const double seconds = (NowNs() - t0) / 1e9;
  const uint64_t rss2 = ResidentBytes(), peak = PeakBytes();
  uint64_t held;
  if (ours) {
    rocksfilter_cache_stats st{};
    st.struct_size = sizeof st;
    rocksfilter_cache_get_stats(cache, &st, nullptr);
    hits = st.hits;
    lookups = st.hits + st.misses;
    held = st.bytes_held;
    if (st.read_errors) { fprintf(stderr, "%" PRIu64 " read errors\n", uint64_t(st.read_errors)); return 1; }
  } else {
    held = block_cache->GetUsage();
  }
  if (found) { fprintf(stderr, "%" PRIu64 " absent keys found\n", uint64_t(found)); return 1; }

  // Present keys, after the counts: may match (ours), are found (RocksDB).
  {
    rocksdb::ReadOptions ro;
    std::string v;
    char key[21];
    uint64_t lost = 0;
    for (uint64_t k = 0; k < total; k += 997) {
      KeyInto(2 * k, key);
      if (ours) lost += !rocksfilter_sst_may_match(handles[k / n], reinterpret_cast<const uint8_t*>(key), 20);
      else lost += !readers[k / n]->Get(ro, rocksdb::Slice(key, 20), &v).ok();
    }
    if (lost) { fprintf(stderr, "FALSE ABSENT: %" PRIu64 " present keys\n", lost); return 1; }
  }

  for (auto* h : handles) rocksfilter_sst_free(h);
  rocksfilter_cache_free(cache);
  readers.clear();
  block_cache.reset();
  const uint64_t rss3 = ResidentBytes();

  printf("{\"method\":\"%s\",\"capacity\":%zu,\"files\":%zu,\"keys_per_file\":%zu,\"threads\":%zu,"
         "\"queries_per_thread\":%zu,\"rss_start\":%" PRIu64 ",\"rss_opened\":%" PRIu64 ",\"rss_queried\":%" PRIu64
         ",\"rss_freed\":%" PRIu64 ",\"rss_peak\":%" PRIu64 ",\"cache_held\":%" PRIu64 ",\"hit_ratio\":%.4f,"
         "\"lookups\":%" PRIu64 ",\"may_match\":%" PRIu64 ",\"queries_per_s\":%.0f}\n",
         method.c_str(), capacity, files, n, threads, queries, rss0, rss1, rss2, rss3, peak, held,
         double(hits) / double(std::max<uint64_t>(1, lookups)), uint64_t(lookups), uint64_t(maybe),
         double(threads * queries) / seconds);
  return 0;
}
