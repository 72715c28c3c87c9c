// Helpers the SST benchmark harnesses share (bench/sst_harness.cc,
// bench/open_harness.cc): time, medians, the key format and the query
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

// Key number i as 20 bytes: "k" and 19 decimal digits (sorted as numbers).
inline std::string Key(uint64_t i) {
  char buf[32];
  snprintf(buf, sizeof buf, "k%019" PRIu64, i);
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
