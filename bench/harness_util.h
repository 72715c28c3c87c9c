// Helpers the SST benchmark harnesses share (bench/sst_harness.cc,
// bench/open_harness.cc, and through bench/cache_util.h the cache
// harnesses): time, medians, the key format and the query
// sets' random numbers. Header-only; each harness includes it once.
#ifndef ROCKSFILTER_BENCH_HARNESS_UTIL_H
#define ROCKSFILTER_BENCH_HARNESS_UTIL_H

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rocksdb/status.h"
#include "rocksfilter.h"

namespace bench {

inline double NowNs() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline bool Has(const std::string& list, const std::string& item) {
  return ("," + list + ",").find("," + item + ",") != std::string::npos;
}

// The C API's view of keys: each key's bytes and length.
struct KeyViews {
  std::vector<const uint8_t*> ptrs;
  std::vector<size_t> lens;
  explicit KeyViews(const std::vector<std::string>& q) : ptrs(q.size()), lens(q.size()) {
    for (size_t i = 0; i < q.size(); ++i) {
      ptrs[i] = reinterpret_cast<const uint8_t*>(q[i].data());
      lens[i] = q[i].size();
    }
  }
};

// Ours on keys [c0, c1) of ptrs/lens: one rocksfilter_sst_may_match call
// per key (single) or rocksfilter_sst_may_match_batch calls of `batch`
// keys (res: room for `batch` answers). Returns how many may match.
inline size_t OursQuery(rocksfilter_sst* sst, const std::vector<const uint8_t*>& ptrs,
                        const std::vector<size_t>& lens, size_t c0, size_t c1, bool single, size_t batch,
                        bool* res) {
  size_t c = 0;
  if (single) {
    for (size_t i = c0; i < c1; ++i) c += rocksfilter_sst_may_match(sst, ptrs[i], lens[i]);
    return c;
  }
  for (size_t i = c0; i < c1; i += batch) {
    size_t e = std::min(c1, i + batch);
    rocksfilter_sst_may_match_batch(sst, &ptrs[i], &lens[i], e - i, res);
    for (size_t j = 0; j < e - i; ++j) c += res[j];
  }
  return c;
}

// Four methods taking turns over keys [0, n) in chunks of `chunk`, `rounds`
// times, who goes first rotating (so that none always runs on caches another
// warmed): run(m, c0, c1) answers keys [c0, c1) by method m and returns how
// many may match. samples[m] gets ns/key per chunk; found[m] the count of the
// last round.
template <typename Run>
void TakeTurns(size_t n, size_t chunk, size_t rounds, Run run, std::vector<double> samples[4], size_t found[4]) {
  for (size_t r = 0; r < rounds; ++r) {
    std::fill(found, found + 4, 0);
    for (size_t c0 = 0; c0 < n; c0 += chunk) {
      size_t c1 = std::min(n, c0 + chunk);
      for (size_t k = 0; k < 4; ++k) {
        int m = static_cast<int>((k + r + c0 / chunk) % 4);
        double t0 = NowNs();
        size_t c = run(m, c0, c1);
        samples[m].push_back((NowNs() - t0) / static_cast<double>(c1 - c0));
        found[m] += c;
      }
    }
  }
}

// Key number i as 20 bytes: "k" and 19 decimal digits (sorted as numbers).
// KeyInto writes it into out[0..20) (and a NUL at out[20]), allocating
// nothing.
inline void KeyInto(uint64_t i, char out[21]) { snprintf(out, 21, "k%019" PRIu64, i); }

inline std::string Key(uint64_t i) {
  char buf[21];
  KeyInto(i, buf);
  return std::string(buf, 20);
}

inline uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline void Die(const char* what, const rocksdb::Status& s) {
  fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  exit(1);
}

}  // namespace bench

#endif
