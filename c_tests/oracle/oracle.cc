// rocksfilter C compatibility tests: RocksDB reference oracle (glue only).
//
// Everything that computes hashes or touches filter bits is RocksDB's own code
// (util/bloom_impl.h, util/hash.h + util/hash.cc), compiled with
// -DROCKSDB_NAMESPACE=rocksfilter_oracle. This file only mirrors the
// *dispatch* logic of BuiltinFilterPolicy::GetBuiltinFilterBitsReader /
// GetBloomBitsReader (RocksDB table/block_based/filter_policy.cc), and the
// size/probe computation of FastLocalBloomBitsBuilder / BloomLikeFilterPolicy,
// which are not header-only. Keep them in sync with that file.

#include "oracle.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "rocksdb/slice.h"
#include "util/bloom_impl.h"
#include "util/coding_lean.h"
#include "util/hash.h"

#ifndef ROCKSDB_NAMESPACE
#error "compile with -DROCKSDB_NAMESPACE=rocksfilter_oracle"
#endif

// Provided by oracle_ribbon.cc (another owner); may be absent.
#pragma weak oracle_ribbon_may_match_hash

namespace {

using ROCKSDB_NAMESPACE::BloomHash;
using ROCKSDB_NAMESPACE::DecodeFixed16;
using ROCKSDB_NAMESPACE::DecodeFixed32;
using ROCKSDB_NAMESPACE::FastLocalBloomImpl;
using ROCKSDB_NAMESPACE::GetSliceHash64;
using ROCKSDB_NAMESPACE::Lower32of64;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Upper32of64;
// table/block_based/filter_policy.cc: using LegacyBloomImpl = ...<false>
using LegacyBloomImpl =
    ROCKSDB_NAMESPACE::LegacyLocalityBloomImpl</*ExtraRotates*/ false>;

// table/block_based/filter_policy_internal.h / filter_policy.cc
constexpr uint32_t kMetadataLen = 5;
// port/port_posix.h CACHE_LINE_SIZE on x86-64/aarch64 Linux (what RocksDB's
// legacy Bloom builder uses as its native line size).
constexpr uint32_t kNativeCacheLineSize = 64;

enum Kind {
  kAlwaysFalse = 0,
  kAlwaysTrue = 1,
  kFastLocalBloom = 2,
  kRibbon = 3,
  kLegacyBloom = 4,
};

struct Reader {
  Kind kind;
  const char* data;
  uint32_t len;  // without metadata
  int num_probes;
  uint32_t num_lines;              // legacy only
  uint32_t log2_cache_line_size;   // legacy only
};

// Mirrors BuiltinFilterPolicy::GetBuiltinFilterBitsReader +
// GetBloomBitsReader + GetRibbonBitsReader (RocksDB 11.12).
Reader Decode(const uint8_t* block, size_t size) {
  Reader r{kAlwaysTrue, reinterpret_cast<const char*>(block), 0, 0, 0, 0};
  // RocksDB: uint32_t len_with_meta = static_cast<uint32_t>(contents.size());
  uint32_t len_with_meta = static_cast<uint32_t>(size);
  if (len_with_meta <= kMetadataLen) {
    r.kind = kAlwaysFalse;
    return r;
  }
  const char* contents = r.data;
  uint32_t len = len_with_meta - kMetadataLen;
  r.len = len;
  int8_t raw_num_probes = static_cast<int8_t>(contents[len]);
  if (raw_num_probes < 1) {
    switch (raw_num_probes) {
      case 0:
        r.kind = kAlwaysTrue;
        return r;
      case -1: {
        char sub_impl_val = contents[len_with_meta - 4];
        char block_and_probes = contents[len_with_meta - 3];
        int log2_block_bytes = ((block_and_probes >> 5) & 7) + 6;
        int num_probes = (block_and_probes & 31);
        if (num_probes < 1 || num_probes > 30) {
          r.kind = kAlwaysTrue;
          return r;
        }
        uint16_t rest = DecodeFixed16(contents + len_with_meta - 2);
        if (rest != 0) {
          r.kind = kAlwaysTrue;
          return r;
        }
        if (sub_impl_val == 0 && log2_block_bytes == 6) {
          r.kind = kFastLocalBloom;
          r.num_probes = num_probes;
          return r;
        }
        r.kind = kAlwaysTrue;
        return r;
      }
      case -2: {
        uint32_t num_blocks = static_cast<uint8_t>(contents[len + 2]);
        num_blocks |= static_cast<uint8_t>(contents[len + 3]) << 8;
        num_blocks |= static_cast<uint8_t>(contents[len + 4]) << 16;
        r.kind = num_blocks < 2 ? kAlwaysTrue : kRibbon;
        return r;
      }
      default:
        r.kind = kAlwaysTrue;
        return r;
    }
  }
  int num_probes = raw_num_probes;
  uint32_t num_lines = DecodeFixed32(contents + len_with_meta - 4);
  uint32_t log2_cache_line_size;
  // NB: uint32_t arithmetic, as in RocksDB
  if (num_lines * kNativeCacheLineSize == len) {
    log2_cache_line_size = 6;  // ConstexprFloorLog2(CACHE_LINE_SIZE)
  } else if (num_lines == 0 || len % num_lines != 0) {
    r.kind = kAlwaysTrue;
    return r;
  } else {
    log2_cache_line_size = 0;
    while ((num_lines << log2_cache_line_size) < len) {
      ++log2_cache_line_size;
    }
    if ((num_lines << log2_cache_line_size) != len) {
      r.kind = kAlwaysTrue;
      return r;
    }
  }
  r.kind = kLegacyBloom;
  r.num_probes = num_probes;
  r.num_lines = num_lines;
  r.log2_cache_line_size = log2_cache_line_size;
  return r;
}

int RibbonHashMayMatch(const uint8_t* block, size_t len, uint64_t h) {
  if (&oracle_ribbon_may_match_hash == nullptr) {
    std::fprintf(stderr,
                 "oracle: FATAL: Ribbon filter block (trailer marker -2) but "
                 "oracle_ribbon_may_match_hash is not linked in "
                 "(c_tests/oracle/oracle_ribbon.cc missing from liboracle.a)\n");
    std::abort();
  }
  return oracle_ribbon_may_match_hash(block, len, h) ? 1 : 0;
}

int HashMayMatch64(const Reader& r, const uint8_t* block, size_t size,
                   uint64_t h) {
  switch (r.kind) {
    case kAlwaysFalse:
      return 0;
    case kAlwaysTrue:
      return 1;
    case kFastLocalBloom:
      return FastLocalBloomImpl::HashMayMatch(Lower32of64(h), Upper32of64(h),
                                              r.len, r.num_probes, r.data)
                 ? 1
                 : 0;
    case kRibbon:
      return RibbonHashMayMatch(block, size, h);
    case kLegacyBloom:
      // LegacyBloomBitsReader::HashMayMatch returns false.
      return 0;
  }
  return 1;
}

// millibits_per_key_ as BloomLikeFilterPolicy's constructor computes it.
int MillibitsPerKey(double bits_per_key) {
  if (bits_per_key < 0.5) {
    bits_per_key = 0;
  } else if (bits_per_key < 1.0) {
    bits_per_key = 1.0;
  } else if (!(bits_per_key < 100.0)) {  // including NaN
    bits_per_key = 100.0;
  }
  return static_cast<int>(bits_per_key * 1000.0 + 0.500001);
}

}  // namespace

extern "C" {

uint64_t oracle_hash64(const uint8_t* key, size_t len) {
  return GetSliceHash64(Slice(reinterpret_cast<const char*>(key), len));
}

uint32_t oracle_bloom_hash(const uint8_t* key, size_t len) {
  return BloomHash(Slice(reinterpret_cast<const char*>(key), len));
}

int oracle_filter_kind(const uint8_t* block, size_t len) {
  return static_cast<int>(Decode(block, len).kind);
}

int oracle_filter_may_match(const uint8_t* block, size_t len,
                            const uint8_t* key, size_t klen) {
  Reader r = Decode(block, len);
  Slice k(reinterpret_cast<const char*>(key), klen);
  switch (r.kind) {
    case kAlwaysFalse:
      return 0;
    case kAlwaysTrue:
      return 1;
    case kFastLocalBloom: {
      // FastLocalBloomBitsReader::MayMatch
      uint64_t h = GetSliceHash64(k);
      uint32_t byte_offset;
      FastLocalBloomImpl::PrepareHash(Lower32of64(h), r.len, r.data,
                                      &byte_offset);
      return FastLocalBloomImpl::HashMayMatchPrepared(
                 Upper32of64(h), r.num_probes, r.data + byte_offset)
                 ? 1
                 : 0;
    }
    case kRibbon:
      // Standard128RibbonBitsReader::MayMatch hashes with GetSliceHash64
      return RibbonHashMayMatch(block, len, GetSliceHash64(k));
    case kLegacyBloom: {
      // LegacyBloomBitsReader::MayMatch
      uint32_t hash = BloomHash(k);
      uint32_t byte_offset;
      LegacyBloomImpl::PrepareHashMayMatch(
          hash, r.num_lines, r.data, &byte_offset,
          static_cast<int>(r.log2_cache_line_size));
      return LegacyBloomImpl::HashMayMatchPrepared(
                 hash, r.num_probes, r.data + byte_offset,
                 static_cast<int>(r.log2_cache_line_size))
                 ? 1
                 : 0;
    }
  }
  return 1;
}

int oracle_filter_hash_may_match(const uint8_t* block, size_t len,
                                 uint64_t h) {
  Reader r = Decode(block, len);
  return HashMayMatch64(r, block, len, h);
}

int oracle_fastbloom_build(const uint64_t* hashes, size_t n,
                           double bits_per_key, uint8_t** out,
                           size_t* out_len) {
  if (out == nullptr || out_len == nullptr || (n > 0 && hashes == nullptr)) {
    return -2;
  }
  *out = nullptr;
  *out_len = 0;
  int millibits_per_key = MillibitsPerKey(bits_per_key);
  if (millibits_per_key == 0) {
    return -1;  // RocksDB: "no filter"
  }
  if (n == 0) {
    return 0;  // FinishAlwaysFalse: empty slice
  }
  // FastLocalBloomBitsBuilder::CalculateSpace
  size_t raw_target_len = static_cast<size_t>(
      (uint64_t{n} * static_cast<uint64_t>(millibits_per_key) + 7999) / 8000);
  if (raw_target_len >= size_t{0xffffffc0}) {
    raw_target_len = size_t{0xffffffc0};
  }
  size_t len_with_metadata =
      ((raw_target_len + 63) & ~size_t{63}) + kMetadataLen;
  // GetNumProbes without aggregate_rounding_balance_ uses millibits_per_key_
  int num_probes = FastLocalBloomImpl::ChooseNumProbes(millibits_per_key);

  uint8_t* buf = static_cast<uint8_t*>(std::calloc(len_with_metadata, 1));
  if (buf == nullptr) {
    return -3;
  }
  char* data = reinterpret_cast<char*>(buf);
  uint32_t len = static_cast<uint32_t>(len_with_metadata - kMetadataLen);
  if (len > 0) {
    for (size_t i = 0; i < n; ++i) {
      uint64_t h = hashes[i];
      FastLocalBloomImpl::AddHash(Lower32of64(h), Upper32of64(h), len,
                                  num_probes, data);
    }
  }
  data[len] = static_cast<char>(-1);
  data[len + 1] = static_cast<char>(0);
  data[len + 2] = static_cast<char>(num_probes);
  // rest of metadata stays zero
  *out = buf;
  *out_len = len_with_metadata;
  return 0;
}

}  // extern "C"
