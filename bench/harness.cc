// Side-by-side benchmark: RocksDB 11.12's own filter code (compiled from the
// rust-librocksdb-sys 0.49.0 crate source, never copied here) against
// rocksfilter through its C ABI, in one process, on identical keys, taking
// turns, several rounds, medians.
//
// The RocksDB side uses RocksDB's headers and .cc files directly
// (util/bloom_impl.h, util/ribbon_impl.h, util/ribbon_alg.h,
// util/ribbon_config.cc, util/hash.cc, util/xxph3.h). Only the glue of
// table/block_based/filter_policy.cc (which drags in most of RocksDB) is
// restated here, line for line where it matters:
//   * build = XXPH3FilterBitsBuilder::AddKey (GetSliceHash64 into a
//     std::deque<uint64_t>, adjacent duplicates collapsed), then
//     FastLocalBloomBitsBuilder::Finish/AddAllEntries (8-deep prefetch
//     pipeline) or Standard128RibbonBitsBuilder::Finish
//     (CalculateSpaceAndSlots, StandardBanding::ResetAndFindSeedToSolve,
//     SerializableInterleavedSolution::BackSubstFrom);
//   * queries = FastLocalBloomBitsReader / Standard128RibbonBitsReader:
//     MayMatch(key), the two-pass MayMatch(num_keys, keys, may_match) in
//     batches of MultiGetContext::MAX_BATCH_SIZE = 32, HashMayMatch(h).
//
// Usage:
//   harness --keys N [--key-len L] [--rounds R] [--filters bloom,ribbon]
//           [--ops build,query_hit,...] [--query-keys Q]
//     -> one JSON object per (filter, op) on stdout.
//   harness ... --own-copy: ours queries its own loaded copy of the block
//     (rocksfilter_filter_load) instead of RocksDB's buffer.
//   harness --large --keys N [--bits-per-key B] [--rounds R] [--query-keys Q]
//     -> the TLB effect on a large Bloom filter: batched queries on the
//     library's own output buffer (huge pages unless
//     ROCKSFILTER_NO_HUGEPAGES=1) and on a plain copy; see bench/large.
//   harness --mem SIDE FILTER --keys N [--key-len L]
//     SIDE = ours|rocksdb|ours_exact: builds once and prints the peak RSS
//     growth of the build (ru_maxrss after minus RSS before), per key.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "rocksfilter.h"
#include "util/bloom_impl.h"
#include "util/hash.h"
#include "util/ribbon_config.h"
#include "util/ribbon_impl.h"

using namespace ROCKSDB_NAMESPACE;

// rocksfilter entry points outside the public header, used only by the
// harness (Rust side, src/bench_api.rs is NOT part of the C ABI): none.

namespace {

// ---------------------------------------------------------------- RocksDB glue

constexpr uint32_t kMetadataLen = 5;
constexpr size_t kMaxBatch = 32;  // MultiGetContext::MAX_BATCH_SIZE

// 10 bits/key, read at run time (see RocksBuild).
volatile double kBitsPerKey = 10.0;

struct Policy {
  int millibits_per_key;
  double desired_one_in_fp_rate;
  explicit Policy(double bits_per_key) {
    // BloomLikeFilterPolicy constructor (bits_per_key in [1, 100)).
    millibits_per_key = static_cast<int>(bits_per_key * 1000.0 + 0.500001);
    desired_one_in_fp_rate =
        1.0 / BloomMath::CacheLocalFpRate(
                  bits_per_key,
                  FastLocalBloomImpl::ChooseNumProbes(millibits_per_key),
                  /*cache_line_bits*/ 512);
  }
};

// FilterBitsBuilder / XXPH3FilterBitsBuilder: hash entries buffered in a
// deque; AddKey is virtual in RocksDB (called through FilterBitsBuilder*).
struct FilterBitsBuilder {
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
};
struct RocksXXPH3Builder final : public FilterBitsBuilder {
  std::deque<uint64_t> entries;
  void AddKey(const Slice& key) override {
    uint64_t hash = GetSliceHash64(key);
    if (entries.empty() || hash != entries.back()) {
      entries.push_back(hash);
    }
  }
};

// FastLocalBloomBitsBuilder::CalculateSpace
size_t BloomCalculateSpace(size_t num_entries, int millibits_per_key) {
  size_t raw_target_len = static_cast<size_t>(
      (uint64_t{num_entries} * millibits_per_key + 7999) / 8000);
  if (raw_target_len >= size_t{0xffffffc0}) {
    raw_target_len = size_t{0xffffffc0};
  }
  return ((raw_target_len + 63) & ~size_t{63}) + kMetadataLen;
}

// FastLocalBloomBitsBuilder::AddAllEntries (verbatim logic).
void BloomAddAllEntries(const std::deque<uint64_t>& entries, char* data,
                        uint32_t len, int num_probes) {
  const size_t num_entries = entries.size();
  constexpr size_t kBufferMask = 7;
  std::array<uint32_t, kBufferMask + 1> hashes;
  std::array<uint32_t, kBufferMask + 1> byte_offsets;
  size_t i = 0;
  auto hash_entries_it = entries.begin();
  for (; i <= kBufferMask && i < num_entries; ++i) {
    uint64_t h = *hash_entries_it;
    FastLocalBloomImpl::PrepareHash(Lower32of64(h), len, data,
                                    /*out*/ &byte_offsets[i]);
    hashes[i] = Upper32of64(h);
    ++hash_entries_it;
  }
  for (; i < num_entries; ++i) {
    uint32_t& hash_ref = hashes[i & kBufferMask];
    uint32_t& byte_offset_ref = byte_offsets[i & kBufferMask];
    FastLocalBloomImpl::AddHashPrepared(hash_ref, num_probes,
                                        data + byte_offset_ref);
    uint64_t h = *hash_entries_it;
    FastLocalBloomImpl::PrepareHash(Lower32of64(h), len, data,
                                    /*out*/ &byte_offset_ref);
    hash_ref = Upper32of64(h);
    ++hash_entries_it;
  }
  for (i = 0; i <= kBufferMask && i < num_entries; ++i) {
    FastLocalBloomImpl::AddHashPrepared(hashes[i], num_probes,
                                        data + byte_offsets[i]);
  }
}

// FastLocalBloomBitsBuilder::Finish (no cache charging, no
// optimize_filters_for_memory rounding, no corruption detection).
std::unique_ptr<char[]> RocksBloomFinish(RocksXXPH3Builder& b,
                                         const Policy& p, size_t* out_len) {
  size_t num_entries = b.entries.size();
  size_t len_with_metadata = BloomCalculateSpace(num_entries, p.millibits_per_key);
  std::unique_ptr<char[]> buf(new char[len_with_metadata]());
  int num_probes = FastLocalBloomImpl::ChooseNumProbes(p.millibits_per_key);
  uint32_t len = static_cast<uint32_t>(len_with_metadata - kMetadataLen);
  BloomAddAllEntries(b.entries, buf.get(), len, num_probes);
  buf[len] = static_cast<char>(-1);
  buf[len + 1] = static_cast<char>(0);
  buf[len + 2] = static_cast<char>(num_probes);
  b.entries.clear();  // ResetEntries()
  b.entries.shrink_to_fit();
  *out_len = len_with_metadata;
  return buf;
}

// Standard128RibbonRehasherTypesAndSettings (filter_policy.cc).
struct RibbonTS {
  static constexpr bool kIsFilter = true;
  static constexpr bool kHomogeneous = false;
  static constexpr bool kFirstCoeffAlwaysOne = true;
  static constexpr bool kUseSmash = false;
  using CoeffRow = ROCKSDB_NAMESPACE::Unsigned128;
  using Hash = uint64_t;
  using Seed = uint32_t;
  using Index = uint32_t;
  using ResultRow = uint32_t;
  static constexpr bool kAllowZeroStarts = false;
};
using TS = ribbon::StandardRehasherAdapter<RibbonTS>;
using SolnType = ribbon::SerializableInterleavedSolution<TS>;
using BandingType = ribbon::StandardBanding<TS>;
using HasherType = ribbon::StandardHasher<TS>;
using ConfigHelper = ribbon::BandingConfigHelper1TS<ribbon::kOneIn20, TS>;
constexpr size_t kMaxRibbonEntries = 950000000;

// Standard128RibbonBitsBuilder::Finish (Ribbon path; returns null where
// RocksDB would fall back to Bloom, which does not happen at these sizes).
std::unique_ptr<char[]> RocksRibbonFinish(RocksXXPH3Builder& b,
                                          const Policy& p, size_t* out_len) {
  if (b.entries.size() > kMaxRibbonEntries || b.entries.empty()) return nullptr;
  uint32_t num_entries = static_cast<uint32_t>(b.entries.size());
  // CalculateSpaceAndSlots
  uint32_t num_slots =
      SolnType::RoundUpNumSlots(ConfigHelper::GetNumSlots(num_entries));
  size_t len_with_metadata =
      SolnType::GetBytesForOneInFpRate(
          num_slots, p.desired_one_in_fp_rate,
          /*rounding*/ Upper32of64(b.entries.front())) +
      kMetadataLen;
  if (num_slots < 1024 &&
      BloomCalculateSpace(num_entries, p.millibits_per_key) < len_with_metadata) {
    return nullptr;
  }
  uint32_t entropy = Lower32of64(b.entries.front());
  BandingType banding;
  bool success = banding.ResetAndFindSeedToSolve(
      num_slots, b.entries.begin(), b.entries.end(),
      /*starting seed*/ entropy & 255, /*seed mask*/ 255);
  if (!success) return nullptr;
  b.entries.clear();  // ResetEntries()
  b.entries.shrink_to_fit();
  uint32_t seed = banding.GetOrdinalSeed();
  std::unique_ptr<char[]> buf(new char[len_with_metadata]());
  SolnType soln(buf.get(), len_with_metadata);
  soln.BackSubstFrom(banding);
  uint32_t num_blocks = soln.GetNumBlocks();
  buf[len_with_metadata - 5] = static_cast<char>(-2);
  buf[len_with_metadata - 4] = static_cast<char>(seed);
  buf[len_with_metadata - 3] = static_cast<char>(num_blocks & 255);
  buf[len_with_metadata - 2] = static_cast<char>((num_blocks >> 8) & 255);
  buf[len_with_metadata - 1] = static_cast<char>((num_blocks >> 16) & 255);
  *out_len = len_with_metadata;
  return buf;
}

// FilterBitsReader: RocksDB calls its readers through this interface
// (FullFilterBlockReader holds a FilterBitsReader*), so every query is a
// virtual call, as every query on our side is a C ABI call.
struct FilterBitsReader {
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& key) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) = 0;
  virtual bool HashMayMatch(const uint64_t h) = 0;
};

// FastLocalBloomBitsReader
struct RocksBloomReader final : public FilterBitsReader {
  const char* data_;
  int num_probes_;
  uint32_t len_bytes_;
  RocksBloomReader(const char* block, size_t len_with_meta) {
    len_bytes_ = static_cast<uint32_t>(len_with_meta - kMetadataLen);
    data_ = block;
    num_probes_ = static_cast<uint8_t>(block[len_bytes_ + 2]) & 31;
  }
  bool MayMatch(const Slice& key) override {
    uint64_t h = GetSliceHash64(key);
    uint32_t byte_offset;
    FastLocalBloomImpl::PrepareHash(Lower32of64(h), len_bytes_, data_,
                                    /*out*/ &byte_offset);
    return FastLocalBloomImpl::HashMayMatchPrepared(Upper32of64(h), num_probes_,
                                                    data_ + byte_offset);
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    std::array<uint32_t, kMaxBatch> hashes;
    std::array<uint32_t, kMaxBatch> byte_offsets;
    for (int i = 0; i < num_keys; ++i) {
      uint64_t h = GetSliceHash64(*keys[i]);
      FastLocalBloomImpl::PrepareHash(Lower32of64(h), len_bytes_, data_,
                                      /*out*/ &byte_offsets[i]);
      hashes[i] = Upper32of64(h);
    }
    for (int i = 0; i < num_keys; ++i) {
      may_match[i] = FastLocalBloomImpl::HashMayMatchPrepared(
          hashes[i], num_probes_, data_ + byte_offsets[i]);
    }
  }
  bool HashMayMatch(const uint64_t h) override {
    return FastLocalBloomImpl::HashMayMatch(Lower32of64(h), Upper32of64(h),
                                            len_bytes_, num_probes_, data_);
  }
};

// Standard128RibbonBitsReader
struct RocksRibbonReader final : public FilterBitsReader {
  SolnType soln_;
  HasherType hasher_;
  RocksRibbonReader(const char* block, size_t len_with_meta)
      : soln_(const_cast<char*>(block), len_with_meta - kMetadataLen) {
    const char* t = block + len_with_meta - kMetadataLen;
    uint32_t seed = static_cast<uint8_t>(t[1]);
    uint32_t num_blocks = static_cast<uint8_t>(t[2]) |
                          (static_cast<uint8_t>(t[3]) << 8) |
                          (static_cast<uint8_t>(t[4]) << 16);
    soln_.ConfigureForNumBlocks(num_blocks);
    hasher_.SetOrdinalSeed(seed);
  }
  bool MayMatch(const Slice& key) override {
    uint64_t h = GetSliceHash64(key);
    return soln_.FilterQuery(h, hasher_);
  }
  void MayMatch(int num_keys, Slice** keys, bool* may_match) override {
    struct SavedData {
      uint64_t seeded_hash;
      uint32_t segment_num;
      uint32_t num_columns;
      uint32_t start_bits;
    };
    std::array<SavedData, kMaxBatch> saved;
    for (int i = 0; i < num_keys; ++i) {
      ribbon::InterleavedPrepareQuery(
          GetSliceHash64(*keys[i]), hasher_, soln_, &saved[i].seeded_hash,
          &saved[i].segment_num, &saved[i].num_columns, &saved[i].start_bits);
    }
    for (int i = 0; i < num_keys; ++i) {
      may_match[i] = ribbon::InterleavedFilterQuery(
          saved[i].seeded_hash, saved[i].segment_num, saved[i].num_columns,
          saved[i].start_bits, hasher_, soln_);
    }
  }
  bool HashMayMatch(const uint64_t h) override { return soln_.FilterQuery(h, hasher_); }
};

// ---------------------------------------------------------------- keys

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// n distinct-with-overwhelming-probability random keys of len bytes,
// contiguous. Keys >= 16 bytes carry the index in their last 8 bytes
// (distinct for sure); hit and miss sets use different seeds and tags.
std::vector<char> MakeKeys(size_t n, size_t len, uint64_t seed, uint64_t tag) {
  std::vector<char> buf(n * len);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    char* k = buf.data() + i * len;
    for (size_t j = 0; j < len; j += 8) {
      uint64_t r = SplitMix(&s);
      memcpy(k + j, &r, std::min<size_t>(8, len - j));
    }
    if (len >= 16) {
      uint64_t id = (tag << 56) ^ i;
      memcpy(k + len - 8, &id, 8);
    }
  }
  return buf;
}

double NowNs() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

volatile uint64_t g_sink;

struct Sample {
  std::vector<double> ours, rocks, floor;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool Has(const std::string& list, const char* item) {
  std::string l = "," + list + ",";
  return l.find(std::string(",") + item + ",") != std::string::npos;
}

long MaxRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

long CurRssKb() {
  FILE* f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
  }
  return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

rocksfilter_policy OurPolicy(bool ribbon) {
  return ribbon ? ROCKSFILTER_POLICY_RIBBON : ROCKSFILTER_POLICY_BLOOM;
}

std::vector<uint8_t> OurBuild(bool ribbon, const std::vector<char>& keys,
                              size_t n, size_t len) {
  rocksfilter_builder* b = nullptr;
  char* err = nullptr;
  if (rocksfilter_builder_new(OurPolicy(ribbon), 10.0, &b, &err) != ROCKSFILTER_OK) {
    fprintf(stderr, "builder_new: %s\n", err);
    exit(1);
  }
  for (size_t i = 0; i < n; ++i) {
    rocksfilter_builder_add_key(b, reinterpret_cast<const uint8_t*>(keys.data() + i * len), len);
  }
  uint8_t* out = nullptr;
  size_t out_len = 0;
  if (rocksfilter_builder_finish(b, &out, &out_len, &err) != ROCKSFILTER_OK) {
    fprintf(stderr, "finish: %s\n", err);
    exit(1);
  }
  std::vector<uint8_t> v(out, out + out_len);
  rocksfilter_bytes_free(out, out_len);
  rocksfilter_builder_free(b);
  return v;
}

std::vector<uint8_t> RocksBuild(bool ribbon, const std::vector<char>& keys,
                                size_t n, size_t len) {
  // In RocksDB bits/key comes from the options at run time (the policy
  // object's millibits_per_key_), so num_probes is a run-time value in
  // AddAllEntries. A literal here would let the compiler constant-fold it
  // and fully unroll the probe loop, which RocksDB itself never gets.
  Policy p(kBitsPerKey);
  RocksXXPH3Builder b;
  FilterBitsBuilder* volatile opaque = &b;  // a virtual call, as in RocksDB
  FilterBitsBuilder* vb = opaque;
  for (size_t i = 0; i < n; ++i) vb->AddKey(Slice(keys.data() + i * len, len));
  size_t out_len = 0;
  std::unique_ptr<char[]> buf =
      ribbon ? RocksRibbonFinish(b, p, &out_len) : RocksBloomFinish(b, p, &out_len);
  if (!buf) {
    fprintf(stderr, "RocksDB side fell back to Bloom\n");
    exit(1);
  }
  return std::vector<uint8_t>(buf.get(), buf.get() + out_len);
}


uint64_t RunQueries(const std::string& o, bool ours, rocksfilter_filter* f,
                    FilterBitsReader* rreader, size_t c0, size_t c1, size_t len,
                    const std::vector<char>& qhit, const std::vector<char>& miss,
                    const std::vector<const uint8_t*>& hit_ptrs,
                    const std::vector<size_t>& hit_lens,
                    const std::vector<Slice*>& hit_slice_ptrs,
                    const std::vector<uint64_t>& hit_hashes, bool* results) {
  uint64_t c = 0;
  if (o == "query_hit" || o == "query_miss") {
    const char* base = o == "query_hit" ? qhit.data() : miss.data();
    if (ours) {
      for (size_t i = c0; i < c1; ++i)
        c += rocksfilter_filter_may_match(f, reinterpret_cast<const uint8_t*>(base + i * len), len);
    } else {
      for (size_t i = c0; i < c1; ++i) c += rreader->MayMatch(Slice(base + i * len, len));
    }
  } else if (o == "query_batch") {
    for (size_t i = c0; i < c1; i += kMaxBatch) {
      size_t m = std::min(kMaxBatch, c1 - i);
      if (ours) {
        rocksfilter_filter_may_match_batch(f, &hit_ptrs[i], &hit_lens[i], m, results);
      } else {
        rreader->MayMatch(static_cast<int>(m), const_cast<Slice**>(&hit_slice_ptrs[i]), results);
      }
      for (size_t j = 0; j < m; ++j) c += results[j];
    }
  } else if (o == "hash") {
    // The per-key hash alone (both sides compute the same XXPH3 value).
    if (ours) {
      for (size_t i = c0; i < c1; ++i) c += rocksfilter_hash64(hit_ptrs[i], len);
    } else {
      for (size_t i = c0; i < c1; ++i) c += GetSliceHash64(*hit_slice_ptrs[i]);
    }
  } else {  // query_hashed
    if (ours) {
      for (size_t i = c0; i < c1; ++i) c += rocksfilter_filter_may_match_hash(f, hit_hashes[i]);
    } else {
      for (size_t i = c0; i < c1; ++i) c += rreader->HashMayMatch(hit_hashes[i]);
    }
  }
  return c;
}

// ---------------------------------------------------------------- floor
//
// What the machine allows for a query, measured on the same keys and the
// same bytes as the two sides: hash each key with RocksDB's GetSliceHash64
// (compiled with the most favourable flags for this CPU, see
// bench/build.sh), map the hash to one of the block's 64-byte lines
// (multiply-shift, as FastLocalBloom does), prefetch it, then load it; in
// batches of kMaxBatch so the loads overlap as in a batched query. One
// cache line per key is the least any of these formats can touch (a
// FastLocalBloom query reads exactly one), and one hash per key the least
// any can compute. For query_hashed the hash is given, so its floor is the
// loads alone.
//
// window > 64: Ribbon's floor. A Standard128Ribbon query must read its
// whole window, 2 x num_columns 16-byte segments from a random segment
// (224 bytes, 4-5 lines, at 10 bits/key), so its floor is the hash plus
// those lines: the window's first and last line prefetched (as both
// libraries do; the hardware prefetcher follows the ones between), then
// one 8-byte load from every line it spans. What a Ribbon query costs
// beyond that is its arithmetic (rehash, start, the parity of each
// column), which bench/compare prints as ours - floor.
uint64_t FloorQueries(bool hashed, const uint8_t* block, size_t block_len, size_t window, size_t c0,
                      size_t c1, size_t len, const std::vector<char>& keys,
                      const std::vector<uint64_t>& hashes) {
  uint64_t acc = 0;
  const uint8_t* lineptr[kMaxBatch];
  const bool wide = window > 64;
  // Random starts: 64-byte lines, or 16-byte segments leaving room for the
  // window (the 5-byte trailer is no filter data).
  const size_t payload = block_len > 5 ? block_len - 5 : block_len;
  const uint64_t starts = wide ? (payload > window ? (payload - window) / 16 : 1) : (block_len / 64 ? block_len / 64 : 1);
  const size_t unit = wide ? 16 : 64;
  for (size_t i = c0; i < c1; i += kMaxBatch) {
    size_t m = std::min(kMaxBatch, c1 - i);
    for (size_t j = 0; j < m; ++j) {
      uint64_t h = hashed ? hashes[i + j] : GetSliceHash64(Slice(keys.data() + (i + j) * len, len));
      uint64_t at = static_cast<uint64_t>((static_cast<unsigned __int128>(h) * starts) >> 64);
      lineptr[j] = block + at * unit;
      __builtin_prefetch(lineptr[j]);
      if (wide) __builtin_prefetch(lineptr[j] + window - 1);
    }
    for (size_t j = 0; j < m; ++j) {
      uint64_t w;
      if (!wide) {
        memcpy(&w, lineptr[j], 8);
        acc += w;
        continue;
      }
      // Every line the window spans: from its first byte in 64-byte steps,
      // and its last segment.
      for (size_t o = 0; o + 8 <= window; o += 64) {
        memcpy(&w, lineptr[j] + o, 8);
        acc += w;
      }
      memcpy(&w, lineptr[j] + window - 8, 8);
      acc += w;
    }
  }
  return acc;
}

// The floor's window for a filter (see FloorQueries): 64 for Bloom; for
// Ribbon, 2 x the upper number of columns x 16 bytes (the window spans two
// 128-slot blocks unless it starts at a block's first slot).
size_t FloorWindow(const rocksfilter_filter* f) {
  rocksfilter_filter_info info{};
  if (rocksfilter_filter_get_info(f, &info) != ROCKSFILTER_OK || info.num_blocks == 0) return 64;
  const uint64_t payload = info.bytes > 5 ? info.bytes - 5 : 0;
  const uint64_t per_block = static_cast<uint64_t>(info.num_blocks) * 16;  // bytes per column
  const uint64_t upper_cols = (payload + per_block - 1) / per_block;
  return static_cast<size_t>(2 * upper_cols * 16);
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 1000000, len = 20, rounds = 5, qn = 0;
  std::string filters = "bloom,ribbon",
              ops = "build,query_hit,query_miss,query_batch,query_hashed,hash";
  std::string mem_side, mem_filter;
  bool fp_sweep = false, large = false, own_copy = false;
  double large_bpk = 10.0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a.c_str()); exit(2); }
      return argv[++i];
    };
    if (a == "--keys") n = strtoull(next(), nullptr, 10);
    else if (a == "--key-len") len = strtoull(next(), nullptr, 10);
    else if (a == "--rounds") rounds = strtoull(next(), nullptr, 10);
    else if (a == "--query-keys") qn = strtoull(next(), nullptr, 10);
    else if (a == "--filters") filters = next();
    else if (a == "--ops") ops = next();
    else if (a == "--mem") { mem_side = next(); mem_filter = next(); }
    else if (a == "--fp-sweep") fp_sweep = true;
    else if (a == "--large") large = true;
    else if (a == "--own-copy") own_copy = true;
    else if (a == "--bits-per-key") large_bpk = strtod(next(), nullptr);
    else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (n == 0 || len == 0 || rounds == 0) { fprintf(stderr, "keys, key-len, rounds must be > 0\n"); return 2; }

  std::vector<char> hit = MakeKeys(n, len, 0x1234567 + len, 1);

  if (fp_sweep) {
    // Measured FP rate vs stored bits/key (ours; identical bytes to
    // RocksDB's, checked at each point), policy bits/key 1..24.
    size_t m = qn ? qn : 1000000;
    std::vector<char> absent = MakeKeys(m, len, 0x5555 + len, 3);
    for (const char* fname : {"bloom", "ribbon"}) {
      bool ribbon = std::string(fname) == "ribbon";
      for (double bpk = 1.0; bpk <= 24.0; bpk += 1.0) {
        rocksfilter_builder* b = nullptr;
        char* err = nullptr;
        rocksfilter_builder_new(OurPolicy(ribbon), bpk, &b, &err);
        for (size_t i = 0; i < n; ++i)
          rocksfilter_builder_add_key(b, reinterpret_cast<const uint8_t*>(&hit[i * len]), len);
        uint8_t* out = nullptr;
        size_t out_len = 0;
        rocksfilter_builder_finish(b, &out, &out_len, &err);
        rocksfilter_builder_free(b);
        rocksfilter_filter* f = nullptr;
        rocksfilter_filter_load(out, out_len, &f, &err);
        uint64_t fp = 0;
        for (size_t i = 0; i < m; ++i)
          fp += rocksfilter_filter_may_match(f, reinterpret_cast<const uint8_t*>(&absent[i * len]), len);
        printf("{\"filter\":\"%s\",\"policy_bits_per_key\":%.1f,\"bits_per_key\":%.4f,"
               "\"fp_rate\":%.8f,\"estimated_fp_rate\":%.8f,\"kind\":%d}\n",
               fname, bpk, out_len * 8.0 / n, double(fp) / m,
               rocksfilter_filter_estimated_fp_rate(f, n), int(rocksfilter_filter_kind(f)));
        rocksfilter_filter_free(f);
        rocksfilter_bytes_free(out, out_len);
      }
    }
    return 0;
  }

  if (large) {
    // Large filters (--large): the TLB effect. One Bloom build by the
    // library (its output buffer: library-owned, advised for huge pages
    // unless ROCKSFILTER_NO_HUGEPAGES=1), then the same bytes queried in
    // place and from a plain copy (std::vector: 4 KiB pages under THP
    // "madvise"), batched, with the floor on each, taking turns.
    double t0 = NowNs();
    rocksfilter_builder* b = nullptr;
    char* err = nullptr;
    if (rocksfilter_builder_new(ROCKSFILTER_POLICY_BLOOM, large_bpk, &b, &err) != ROCKSFILTER_OK) return 1;
    for (size_t i = 0; i < n; ++i)
      rocksfilter_builder_add_key(b, reinterpret_cast<const uint8_t*>(&hit[i * len]), len);
    uint8_t* out = nullptr;
    size_t out_len = 0;
    if (rocksfilter_builder_finish(b, &out, &out_len, &err) != ROCKSFILTER_OK) return 1;
    double build_ns = (NowNs() - t0) / n;
    rocksfilter_builder_free(b);
    long huge_kb = 0;
    std::vector<uint8_t> plain(out, out + out_len);
    if (qn == 0) qn = std::min<size_t>(n, 1000000);
    qn = std::min(qn, n);
    std::vector<char> q(qn * len);
    uint64_t s = 99;
    for (size_t i = 0; i < qn; ++i) memcpy(&q[i * len], &hit[(SplitMix(&s) % n) * len], len);
    std::vector<const uint8_t*> ptrs(qn);
    std::vector<size_t> lens(qn, len);
    std::vector<Slice> slices(qn);
    std::vector<Slice*> slice_ptrs(qn);
    std::vector<uint64_t> hashes(qn);
    for (size_t i = 0; i < qn; ++i) {
      ptrs[i] = reinterpret_cast<const uint8_t*>(&q[i * len]);
      slices[i] = Slice(&q[i * len], len);
      slice_ptrs[i] = &slices[i];
      hashes[i] = rocksfilter_hash64(ptrs[i], len);
    }
    // "library": the copy rocksfilter_filter_load makes (cache-line
    // aligned; huge pages unless ROCKSFILTER_NO_HUGEPAGES=1); "plain": the
    // same bytes in a std::vector (16-byte aligned, 4 KiB pages), loaded
    // borrowed. Each side and the floor query each copy's own bytes.
    struct Copy { const char* name; const uint8_t* data; rocksfilter_filter* f; std::unique_ptr<FilterBitsReader> r; Sample s; };
    Copy copies[2] = {{"library", nullptr, nullptr, nullptr, {}}, {"plain", plain.data(), nullptr, nullptr, {}}};
    if (rocksfilter_filter_load(out, out_len, &copies[0].f, &err) != ROCKSFILTER_OK) return 1;
    size_t copy_len = 0;
    if (rocksfilter_filter_data(copies[0].f, &copies[0].data, &copy_len) != ROCKSFILTER_OK || copy_len != out_len) return 1;
    if (rocksfilter_filter_load_borrowed(plain.data(), out_len, &copies[1].f, &err) != ROCKSFILTER_OK) return 1;
    for (Copy& c : copies) c.r.reset(new RocksBloomReader(reinterpret_cast<const char*>(c.data), out_len));
    if (FILE* sm = fopen("/proc/self/smaps_rollup", "r")) {
      char line[256];
      while (fgets(line, sizeof line, sm))
        if (sscanf(line, "AnonHugePages: %ld kB", &huge_kb) == 1) break;
      fclose(sm);
    }
    std::unique_ptr<bool[]> res(new bool[kMaxBatch]);
    const size_t kChunk = 16384;
    for (size_t r = 0; r < rounds; ++r) {
      // As in the main loop: turns rotate, and each side queries a chunk
      // a third of the query set away from the others'.
      const size_t nch = (qn + kChunk - 1) / kChunk, stride = std::max<size_t>(1, nch / 3);
      for (size_t ci = 0; ci < nch; ++ci) {
        for (int k = 0; k < 2; ++k) {
          Copy& c = copies[(k + r + ci) % 2];
          for (int pos = 0; pos < 3; ++pos) {
            int who = static_cast<int>((pos + r + ci) % 3);
            size_t c0 = ((ci + who * stride) % nch) * kChunk, c1 = std::min(qn, c0 + kChunk);
            double t1 = NowNs();
            if (who == 2) {
              g_sink += FloorQueries(false, c.data, out_len, 64, c0, c1, len, q, hashes);
            } else {
              uint64_t hits = RunQueries("query_batch", who == 0, c.f, c.r.get(), c0, c1, len, q, q,
                                         ptrs, lens, slice_ptrs, hashes, res.get());
              if (hits != c1 - c0) { fprintf(stderr, "a present key answered absent\n"); return 1; }
            }
            double per = (NowNs() - t1) / (c1 - c0);
            (who == 0 ? c.s.ours : who == 1 ? c.s.rocks : c.s.floor).push_back(per);
          }
        }
      }
    }
    for (Copy& c : copies) {
      printf("{\"filter\":\"bloom\",\"op\":\"query_batch\",\"memory\":\"%s\",\"keys\":%zu,"
             "\"key_len\":%zu,\"filter_bytes\":%zu,\"ours_ns\":%.2f,\"rocksdb_ns\":%.2f,"
             "\"floor_ns\":%.2f,\"build_ns\":%.2f,\"anon_huge_kb\":%ld,\"align64\":%d,"
             "\"bits_per_key\":%.1f}\n",
             c.name, n, len, out_len, Median(c.s.ours), Median(c.s.rocks), Median(c.s.floor),
             build_ns, huge_kb, int(reinterpret_cast<uintptr_t>(c.data) % 64 == 0), large_bpk);
      rocksfilter_filter_free(c.f);
    }
    rocksfilter_bytes_free(out, out_len);
    return 0;
  }

  if (!mem_side.empty()) {
    bool ribbon = mem_filter == "ribbon";
    if (mem_side != "ours" && mem_side != "rocksdb") {
      fprintf(stderr, "--mem side must be ours|rocksdb\n");
      return 2;
    }
    // Fault in everything the build reads (the keys above; the side's code
    // pages, which count in RSS, through a small warm-up build), then
    // measure the RSS high-water growth of one build (hash buffer, banding,
    // filter).
    size_t warm = std::min<size_t>(n, 2000);
    if (mem_side == "ours") OurBuild(ribbon, hit, warm, len);
    else RocksBuild(ribbon, hit, warm, len);
    long before = CurRssKb();
    long max_before = MaxRssKb();
    if (max_before > before) before = max_before;  // conservative
    size_t bytes = 0;
    if (mem_side == "ours") {
      bytes = OurBuild(ribbon, hit, n, len).size();
    } else if (mem_side == "rocksdb") {
      bytes = RocksBuild(ribbon, hit, n, len).size();
    } else {
      fprintf(stderr, "--mem side must be ours|rocksdb\n");
      return 2;
    }
    long after = MaxRssKb();
    double bits_per_key = (after - before) * 1024.0 * 8 / n;
    printf("{\"side\":\"%s\",\"filter\":\"%s\",\"keys\":%zu,\"key_len\":%zu,"
           "\"peak_build_bytes\":%ld,\"peak_bits_per_key\":%.1f,\"filter_bits_per_key\":%.2f}\n",
           mem_side.c_str(), mem_filter.c_str(), n, len, (after - before) * 1024,
           bits_per_key, bytes * 8.0 / n);
    return 0;
  }

  // Query sets: up to qn (default min(n, 1M)) hit keys spread over the set,
  // and as many miss keys.
  if (qn == 0) qn = std::min<size_t>(n, 1000000);
  qn = std::min(qn, n);
  std::vector<char> miss = MakeKeys(qn, len, 0x7654321 + len, 2);
  std::vector<char> qhit(qn * len);
  size_t stride = n / qn;
  for (size_t i = 0; i < qn; ++i) memcpy(&qhit[i * len], &hit[i * stride * len], len);
  std::vector<Slice> hit_slices(qn);
  std::vector<Slice*> hit_slice_ptrs(qn);
  std::vector<const uint8_t*> hit_ptrs(qn);
  std::vector<size_t> hit_lens(qn, len);
  std::vector<uint64_t> hit_hashes(qn);
  for (size_t i = 0; i < qn; ++i) {
    hit_slices[i] = Slice(&qhit[i * len], len);
    hit_slice_ptrs[i] = &hit_slices[i];
    hit_ptrs[i] = reinterpret_cast<const uint8_t*>(&qhit[i * len]);
    hit_hashes[i] = rocksfilter_hash64(hit_ptrs[i], len);
    if (hit_hashes[i] != GetSliceHash64(hit_slices[i])) {
      fprintf(stderr, "hash mismatch at %zu\n", i);
      return 1;
    }
  }
  std::vector<bool> dummy;
  std::unique_ptr<bool[]> results(new bool[kMaxBatch]);

  for (const char* fname : {"bloom", "ribbon"}) {
    if (!Has(filters, fname)) continue;
    bool ribbon = std::string(fname) == "ribbon";
    // Build once for the query ops; check byte identity.
    std::vector<uint8_t> ours_block = OurBuild(ribbon, hit, n, len);
    std::vector<uint8_t> rocks_block = RocksBuild(ribbon, hit, n, len);
    if (ours_block != rocks_block) {
      fprintf(stderr, "BYTE MISMATCH: %s filter, %zu keys: ours %zu bytes, RocksDB %zu bytes\n",
              fname, n, ours_block.size(), rocks_block.size());
      return 1;
    }
    rocksfilter_filter* f = nullptr;
    char* err = nullptr;
    // Both readers query the very same bytes (identical by the check above),
    // so neither side gets a cache advantage; with --own-copy ours queries
    // the copy rocksfilter_filter_load makes (cache-line aligned, huge pages
    // when large), as a user loading the block would.
    if ((own_copy ? rocksfilter_filter_load(rocks_block.data(), rocks_block.size(), &f, &err)
                  : rocksfilter_filter_load_borrowed(rocks_block.data(), rocks_block.size(), &f, &err)) !=
        ROCKSFILTER_OK) {
      fprintf(stderr, "load: %s\n", err);
      return 1;
    }
    const char* rb = reinterpret_cast<const char*>(rocks_block.data());
    std::unique_ptr<FilterBitsReader> owned;
    if (ribbon) owned.reset(new RocksRibbonReader(rb, rocks_block.size()));
    else owned.reset(new RocksBloomReader(rb, rocks_block.size()));
    FilterBitsReader* volatile opaque = owned.get();  // virtual calls, as in RocksDB
    FilterBitsReader* rreader = opaque;
    const size_t window = FloorWindow(f);

    for (const char* op : {"build", "query_hit", "query_miss", "query_batch", "query_hashed", "hash"}) {
      if (!Has(ops, op)) continue;
      std::string o = op;
      Sample s;
      uint64_t ours_count = 0, rocks_count = 0;
      // Builds: at least `rounds` each, and more (up to 200) until each side
      // has built for kMinBuildNs in total, so that small, fast builds get
      // enough samples for a stable median on a noisy machine.
      const double kMinBuildNs = 0.4e9;
      double build_ns = 0;
      for (size_t r = 0;
           r < rounds || (o == "build" && build_ns < 2 * kMinBuildNs && r < 200); ++r) {
        for (int turn = 0; turn < 2; ++turn) {
          bool ours_turn = (turn == 0) == (r % 2 == 0);  // alternate who goes first
          double t0 = NowNs(), per;
          uint64_t c = 0;
          if (o == "build") {
            std::vector<uint8_t> v = ours_turn ? OurBuild(ribbon, hit, n, len)
                                               : RocksBuild(ribbon, hit, n, len);
            build_ns += NowNs() - t0;
            per = (NowNs() - t0) / n;
            if (v != ours_block) { fprintf(stderr, "BYTE MISMATCH in build round\n"); return 1; }
            c = v.size();
          } else {
            // Queries: the sides alternate every kChunk keys (who goes first
            // alternates too), so both see the same machine noise and the
            // same cache state; per-side time is summed over the chunks.
            const size_t kChunk = 16384;
            double other = 0;
            uint64_t cother = 0;
            per = 0;
            // Three turns per step, who goes first rotating, each side on
            // a chunk a third of the query set away from the others' (so
            // no side finds the lines another just pulled in); over a
            // round every side queries every chunk once.
            const size_t nch = (qn + kChunk - 1) / kChunk, stride = std::max<size_t>(1, nch / 3);
            for (size_t ci = 0; ci < nch; ++ci) {
              for (int pos = 0; pos < 3; ++pos) {
                int who = static_cast<int>((pos + ci + r) % 3);  // 0 ours, 1 RocksDB, 2 floor
                size_t c0 = ((ci + who * stride) % nch) * kChunk, c1 = std::min(qn, c0 + kChunk);
                if (who == 2) {
                  if (o == "hash") continue;
                  const std::vector<char>& fkeys = o == "query_miss" ? miss : qhit;
                  double t2 = NowNs();
                  g_sink += FloorQueries(o == "query_hashed", rocks_block.data(), rocks_block.size(), window, c0,
                                         c1, len, fkeys, hit_hashes);
                  s.floor.push_back((NowNs() - t2) / (c1 - c0));
                  continue;
                }
                bool ours_now = who == 0;
                double t1 = NowNs();
                uint64_t cc = RunQueries(o, ours_now, f, rreader, c0, c1, len, qhit, miss,
                                         hit_ptrs, hit_lens, hit_slice_ptrs, hit_hashes,
                                         results.get());
                double dt = NowNs() - t1;
                if (ours_now == ours_turn) { per += dt; c += cc; } else { other += dt; cother += cc; }
                // Every chunk is one sample: the median over chunks shrugs
                // off the chunks another process preempted.
                (ours_now ? s.ours : s.rocks).push_back(dt / (c1 - c0));
              }
            }
            // Both sides were measured in this pass; skip the second turn.
            ours_count = c;
            rocks_count = cother;  // compared below: both sides must agree
            g_sink += c;
            break;
          }
          g_sink += c;
          (ours_turn ? s.ours : s.rocks).push_back(per);
          (ours_turn ? ours_count : rocks_count) = c;
        }
      }
      if (ours_count != rocks_count) {
        fprintf(stderr, "ANSWER MISMATCH: %s %s: ours %" PRIu64 " RocksDB %" PRIu64 "\n",
                fname, op, ours_count, rocks_count);
        return 1;
      }
      double mo = Median(s.ours), mr = Median(s.rocks);
      std::string floor_fields;
      if (!s.floor.empty()) {
        double mf = Median(s.floor);
        char buf[160];
        snprintf(buf, sizeof buf, ",\"floor_ns\":%.2f,\"ours_floor\":%.3f,\"floor_window\":%zu", mf, mo / mf,
                 window);
        floor_fields = buf;
      }
      printf("{\"filter\":\"%s\",\"op\":\"%s\",\"keys\":%zu,\"key_len\":%zu,"
             "\"ours_ns\":%.2f,\"rocksdb_ns\":%.2f,\"ratio\":%.3f%s}\n",
             fname, op, n, len, mo, mr, mo / mr, floor_fields.c_str());
      fflush(stdout);
    }
    rocksfilter_filter_free(f);
  }
  return 0;
}
