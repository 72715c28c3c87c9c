/*
 * rocksfilter C compatibility tests: RocksDB reference oracle.
 *
 * The implementation (oracle.cc, oracle_ribbon.cc) is glue around RocksDB's
 * own header-only filter code (util/bloom_impl.h, util/hash.h,
 * util/ribbon_impl.h), compiled from the RocksDB 11.12 sources shipped in the
 * crate rust-librocksdb-sys =0.49.0 with -DROCKSDB_NAMESPACE=rocksfilter_oracle
 * so it cannot clash with a real librocksdb linked into the same process.
 *
 * Test/benchmark use only; never shipped.
 */
#ifndef ROCKSFILTER_ORACLE_H
#define ROCKSFILTER_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RocksDB GetSliceHash64 (XXPH3 preview, seed 0). */
uint64_t oracle_hash64(const uint8_t *key, size_t len);

/* RocksDB BloomHash (legacy 32-bit hash, seed 0xbc9f1d34). */
uint32_t oracle_bloom_hash(const uint8_t *key, size_t len);

/* Answers exactly as
 * BuiltinFilterPolicy::GetBuiltinFilterBitsReader(contents)->MayMatch(key).
 * Returns 1 (may match) or 0. Aborts if the block is a Ribbon block and
 * oracle_ribbon.cc is not linked in. */
int oracle_filter_may_match(const uint8_t *block, size_t len,
                            const uint8_t *key, size_t klen);

/* Same decision, from an already-computed 64-bit hash, as
 * GetBuiltinFilterBitsReader(contents)->HashMayMatch(h). NOTE: RocksDB's
 * legacy Bloom reader answers HashMayMatch with false (it needs the key). */
int oracle_filter_hash_may_match(const uint8_t *block, size_t len, uint64_t h);

/* Kind of reader RocksDB would pick for the block:
 * 0 always-false, 1 always-true, 2 FastLocalBloom, 3 Standard128Ribbon,
 * 4 legacy Bloom (same numbering as rocksfilter_kind). */
int oracle_filter_kind(const uint8_t *block, size_t len);

/* Builds a block as FastLocalBloomBitsBuilder::Finish does
 * (optimize_filters_for_memory off) from already de-duplicated 64-bit hashes;
 * millibits_per_key as BloomLikeFilterPolicy computes it from bits_per_key.
 * *out is malloc()ed (free with free()); n == 0 gives *out = NULL,
 * *out_len = 0. Returns 0 on success, non-zero on bad arguments
 * (bits_per_key < 0.5 means "no filter" in RocksDB: returns -1). */
int oracle_fastbloom_build(const uint64_t *hashes, size_t n,
                           double bits_per_key, uint8_t **out,
                           size_t *out_len);

/* Implemented in oracle_ribbon.cc (separate owner).
 * oracle_ribbon_build: as Standard128RibbonBitsBuilder::Finish; NOTE it
 * returns 1 when it built a Ribbon block (*out malloc()ed) and 0 when RocksDB
 * would not produce a Ribbon block (n == 0, bits_per_key < 0.5, Bloom
 * fallback for small filters, banding failure) -- the opposite convention
 * of oracle_fastbloom_build.
 * oracle_ribbon_may_match_hash: Standard128RibbonBitsReader::HashMayMatch on
 * a block with the -2 marker (num_blocks < 2 answers 1). */
int oracle_ribbon_build(const uint64_t *hashes, size_t n, double bits_per_key,
                        uint8_t **out, size_t *out_len);
int oracle_ribbon_may_match_hash(const uint8_t *block, size_t len, uint64_t h);

#ifdef __cplusplus
}
#endif

#endif /* ROCKSFILTER_ORACLE_H */
