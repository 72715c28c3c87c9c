// Test oracle for rocksfilter's Standard128Ribbon implementation.
//
// Compiled at build time against RocksDB's own ribbon headers (util/ribbon_impl.h,
// util/ribbon_alg.h, util/ribbon_config.h + util/ribbon_config.cc, util/bloom_impl.h).
// Only the TypesAndSettings struct and the glue that mirrors
// Standard128RibbonBitsBuilder::Finish / CalculateSpaceAndSlots and
// BloomLikeFilterPolicy's bits_per_key sanitizing live here; every algorithm
// (sizing, hashing, banding, back-substitution, query) is RocksDB's own code.
//
// Assumes optimize_filters_for_memory is off (no malloc_usable_size rounding),
// no cache charging, no construction-corruption detection.

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "util/bloom_impl.h"
#include "util/ribbon_config.h"
#include "util/ribbon_impl.h"

using namespace ROCKSDB_NAMESPACE;

namespace {

// Same settings as Standard128RibbonRehasherTypesAndSettings in
// table/block_based/filter_policy.cc (schema-critical).
struct OracleRibbonRehasherTypesAndSettings {
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

using TS = ribbon::StandardRehasherAdapter<OracleRibbonRehasherTypesAndSettings>;
using SolnType = ribbon::SerializableInterleavedSolution<TS>;
using BandingType = ribbon::StandardBanding<TS>;
using HasherType = ribbon::StandardHasher<TS>;
using ConfigHelper = ribbon::BandingConfigHelper1TS<ribbon::kOneIn20, TS>;

constexpr uint32_t kMetadataLen = 5;
constexpr size_t kMaxRibbonEntries = 950000000;

// Glue: FastLocalBloomBitsBuilder::CalculateSpace (Bloom fallback sizing).
size_t BloomCalculateSpace(size_t num_entries, int millibits_per_key) {
  size_t raw_target_len = static_cast<size_t>(
      (uint64_t{num_entries} * millibits_per_key + 7999) / 8000);
  if (raw_target_len >= size_t{0xffffffc0}) {
    raw_target_len = size_t{0xffffffc0};
  }
  return ((raw_target_len + 63) & ~size_t{63}) + kMetadataLen;
}

}  // namespace

extern "C" int oracle_ribbon_build(const uint64_t* hashes, size_t n,
                                   double bits_per_key, uint8_t** out,
                                   size_t* out_len) {
  // Glue: BloomLikeFilterPolicy constructor sanitizing.
  if (bits_per_key < 0.5) {
    return 0;  // no filter at all; caller should not ask
  } else if (bits_per_key < 1.0) {
    bits_per_key = 1.0;
  } else if (!(bits_per_key < 100.0)) {
    bits_per_key = 100.0;
  }
  int millibits_per_key = static_cast<int>(bits_per_key * 1000.0 + 0.500001);
  double desired_one_in_fp_rate =
      1.0 / BloomMath::CacheLocalFpRate(
                bits_per_key, FastLocalBloomImpl::ChooseNumProbes(millibits_per_key),
                /*cache_line_bits*/ 512);

  // Glue: Standard128RibbonBitsBuilder::Finish + CalculateSpaceAndSlots.
  if (n > kMaxRibbonEntries || n == 0) {
    return 0;
  }
  uint32_t num_entries = static_cast<uint32_t>(n);
  uint32_t num_slots = SolnType::RoundUpNumSlots(ConfigHelper::GetNumSlots(num_entries));
  size_t len_with_metadata =
      SolnType::GetBytesForOneInFpRate(num_slots, desired_one_in_fp_rate,
                                       /*rounding*/ static_cast<uint32_t>(hashes[0] >> 32)) +
      kMetadataLen;
  if (num_slots < 1024) {
    size_t bloom = BloomCalculateSpace(n, millibits_per_key);
    if (bloom < len_with_metadata) {
      return 0;
    }
  }
  uint32_t entropy = static_cast<uint32_t>(hashes[0]);
  BandingType banding;
  bool success = banding.ResetAndFindSeedToSolve(num_slots, hashes, hashes + n,
                                                 entropy & 255, 255);
  if (!success) {
    return 0;
  }
  uint32_t seed = banding.GetOrdinalSeed();
  char* buf = static_cast<char*>(calloc(len_with_metadata, 1));
  SolnType soln(buf, len_with_metadata);
  soln.BackSubstFrom(banding);
  uint32_t num_blocks = soln.GetNumBlocks();
  buf[len_with_metadata - 5] = static_cast<char>(-2);
  buf[len_with_metadata - 4] = static_cast<char>(seed);
  buf[len_with_metadata - 3] = static_cast<char>(num_blocks & 255);
  buf[len_with_metadata - 2] = static_cast<char>((num_blocks >> 8) & 255);
  buf[len_with_metadata - 1] = static_cast<char>((num_blocks >> 16) & 255);
  *out = reinterpret_cast<uint8_t*>(buf);
  *out_len = len_with_metadata;
  return 1;
}

extern "C" int oracle_ribbon_may_match_hash(const uint8_t* block, size_t len,
                                            uint64_t h) {
  // Glue: BuiltinFilterPolicy::GetRibbonBitsReader trailer decode.
  uint32_t len_with_meta = static_cast<uint32_t>(len);
  uint32_t data_len = len_with_meta - kMetadataLen;
  const char* data = reinterpret_cast<const char*>(block);
  uint32_t seed = static_cast<uint8_t>(data[data_len + 1]);
  uint32_t num_blocks = static_cast<uint8_t>(data[data_len + 2]);
  num_blocks |= static_cast<uint8_t>(data[data_len + 3]) << 8;
  num_blocks |= static_cast<uint8_t>(data[data_len + 4]) << 16;
  if (num_blocks < 2) {
    return 1;  // AlwaysTrueFilter
  }
  // Standard128RibbonBitsReader
  SolnType soln(const_cast<char*>(data), data_len);
  soln.ConfigureForNumBlocks(num_blocks);
  HasherType hasher;
  hasher.SetOrdinalSeed(seed);
  return soln.FilterQuery(h, hasher) ? 1 : 0;
}
