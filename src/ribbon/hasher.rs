//! Hashing: from a 64-bit key hash to (start slot, 128-bit coefficient row,
//! 32-bit expected result row), as `ribbon::StandardHasher` over
//! `StandardRehasherAdapter` does for `Standard128RibbonTypesAndSettings`
//! (util/ribbon_impl.h; settings in table/block_based/filter_policy.cc:
//! kIsFilter, !kHomogeneous, kFirstCoeffAlwaysOne, !kUseSmash).

/// `StandardRehasherAdapter::kRehashFactor`.
const REHASH_FACTOR: u64 = 0x6193_d459_236a_3a0d;
/// `StandardHasher::kCoeffAndResultFactor`.
const COEFF_AND_RESULT_FACTOR: u64 = 0xc28f_8282_2b65_0bed;
/// `StandardHasher::kCoeffXor64`.
const COEFF_XOR64: u64 = 0xc367_844a_6e52_731d;
/// `StandardHasher::kToRawSeedFactor` / `kSeedMixMask` / `kSeedMixShift`.
const TO_RAW_SEED_FACTOR: u64 = 0xc782_19a2_3eea_dd03;
const SEED_MIX_MASK: u64 = 0xf0f0_f0f0_f0f0_f0f0;
const SEED_MIX_SHIFT: u32 = 4;

/// `StandardHasher::SetOrdinalSeed`: the trailer stores the *ordinal* seed
/// (0..=255, the retry count modulo 256), but hashing uses a "raw" seed that
/// is a bijective scramble of it, so that consecutive retries rehash keys
/// with unrelated-looking values. Multiply by an odd constant, then xor-fold
/// alternate nibbles (invertible because the mask and the shifted mask do not
/// overlap); only the low 32 bits are kept (`Seed = uint32_t`).
pub(crate) fn ordinal_to_raw_seed(ordinal: u32) -> u32 {
    let mut tmp = u64::from(ordinal).wrapping_mul(TO_RAW_SEED_FACTOR);
    tmp ^= (tmp & SEED_MIX_MASK) >> SEED_MIX_SHIFT;
    tmp as u32
}

/// `StandardRehasherAdapter::HashFn`: keys are already 64-bit hashes (XXH3
/// preview hash of the user key), so re-seeding is just xor-with-seed then
/// multiply. A failed seed changes every derived quantity below.
#[inline(always)]
pub(crate) fn rehash(key_hash: u64, raw_seed: u32) -> u64 {
    (key_hash ^ u64::from(raw_seed)).wrapping_mul(REHASH_FACTOR)
}

/// `StandardHasher::GetStart` without smash: `FastRangeGeneric(h, num_starts)`
/// = high 64 bits of the 128-bit product, i.e. the *upper* bits of `h` pick
/// the start. No division.
#[inline(always)]
pub(crate) fn start(h: u64, num_starts: u32) -> u32 {
    ((u128::from(h) * u128::from(num_starts)) >> 64) as u32
}

/// `StandardHasher::GetCoeffRow` (no smash, 64-bit Hash, 128-bit CoeffRow):
/// `a = h * factor`; upper 64 bits = `a`, lower 64 bits = `a ^ kCoeffXor64`;
/// then bit 0 forced to 1 (kFirstCoeffAlwaysOne), which makes each row's
/// pivot its start slot and saves a trailing-zero count during banding.
#[inline(always)]
pub(crate) fn coeff_row(h: u64) -> u128 {
    let a = h.wrapping_mul(COEFF_AND_RESULT_FACTOR);
    ((u128::from(a) << 64) ^ u128::from(a ^ COEFF_XOR64)) | 1
}

/// `StandardHasher::GetResultRowFromHash` for a non-homogeneous filter: the
/// expected 32-bit fingerprint is the byte-swap of `h * factor`, truncated,
/// i.e. its *top* 32 bits in reverse byte order. Taking the top bits keeps
/// it as independent as possible from the coefficient row, whose low bits
/// are the ones that matter most (they sit near the start slot).
#[inline(always)]
pub(crate) fn result_row(h: u64) -> u32 {
    h.wrapping_mul(COEFF_AND_RESULT_FACTOR).swap_bytes() as u32
}
