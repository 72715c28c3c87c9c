//! RocksDB's filter hash: `Hash64` / `GetSliceHash64`, a frozen *preview* of
//! XXH3 (xxHash 0.7.2, RocksDB's `util/xxph3.h`), seed 0.
//!
//! Why not the `xxh3` of xxhash-rust: RocksDB froze XXH3 before it was
//! final, and every filter block it ever wrote depends on the frozen
//! variant. The preview differs from final XXH3 on every input length:
//!
//! * 0 bytes: RocksDB changed the empty-input result from 0 to a hash of
//!   the seed (`mul128_fold64(seed + secret[0..8], PRIME64_2)`), because a
//!   zero hash is problematic for multiplication-based filters.
//! * 1-3, 4-8 bytes: different mixing formulas from the final release.
//! * the avalanche multiplier is `PRIME64_3` (0x165667B19E3779F9), where
//!   final XXH3 uses 0x165667919E3779F9.
//! * long inputs (> 240): each stripe adds the input lane to its *own*
//!   accumulator lane (final XXH3 swaps adjacent lanes).
//!
//! Everything below follows the scalar code paths of `util/xxph3.h`; the
//! vectorised paths there compute the same values.

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// The 192-byte default secret (`kSecret` in `util/xxph3.h`).
const SECRET: [u8; 192] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4, 0x6d,
    0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0,
    0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0,
    0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b,
    0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac,
    0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51,
    0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34,
    0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb, 0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49,
    0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8,
    0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b,
    0x40, 0x7e,
];

/// `XXPH3_SECRET_SIZE_MIN`: the 129-240 path reads its last secret word here.
const SECRET_SIZE_MIN: usize = 136;
const STRIPE_LEN: usize = 64;
/// Secret bytes consumed per stripe.
const SECRET_CONSUME_RATE: usize = 8;
const ACC_NB: usize = STRIPE_LEN / 8;
/// Stripes per block: (192 - 64) / 8 = 16, so a block is 1024 input bytes.
const STRIPES_PER_BLOCK: usize = (SECRET.len() - STRIPE_LEN) / SECRET_CONSUME_RATE;
const BLOCK_LEN: usize = STRIPE_LEN * STRIPES_PER_BLOCK;
/// Secret offsets deliberately not aligned on 8, so that the last stripe and
/// the final merge see different secret words from the accumulation loop.
const SECRET_LASTACC_START: usize = 7;
const SECRET_MERGEACCS_START: usize = 11;
const MIDSIZE_STARTOFFSET: usize = 3;
const MIDSIZE_LASTOFFSET: usize = 17;

#[inline(always)]
fn read64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn read32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// 64x64 -> 128-bit multiply, folded by XOR of the halves.
#[inline(always)]
fn mul128_fold64(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME64_3);
    h ^ (h >> 32)
}

#[inline(always)]
fn len_1to3(input: &[u8]) -> u64 {
    let len = input.len();
    let c1 = input[0] as u32;
    let c2 = input[len >> 1] as u32;
    let c3 = input[len - 1] as u32;
    let combined = c1 | (c2 << 8) | (c3 << 16) | ((len as u32) << 24);
    let keyed = (combined as u64) ^ (read32(&SECRET, 0) as u64);
    avalanche(keyed.wrapping_mul(PRIME64_1))
}

#[inline(always)]
fn len_4to8(input: &[u8]) -> u64 {
    let len = input.len();
    let lo = read32(input, 0) as u64;
    let hi = read32(input, len - 4) as u64;
    let keyed = (lo | (hi << 32)) ^ read64(&SECRET, 0);
    let mix = (len as u64).wrapping_add((keyed ^ (keyed >> 51)).wrapping_mul(PRIME32_1));
    avalanche((mix ^ (mix >> 47)).wrapping_mul(PRIME64_2))
}

#[inline(always)]
fn len_9to16(input: &[u8]) -> u64 {
    let len = input.len();
    let lo = read64(input, 0) ^ read64(&SECRET, 0);
    let hi = read64(input, len - 8) ^ read64(&SECRET, 8);
    let acc = (len as u64).wrapping_add(lo.wrapping_add(hi)).wrapping_add(mul128_fold64(lo, hi));
    avalanche(acc)
}

#[inline(always)]
fn mix16(input: &[u8], at: usize, secret_at: usize) -> u64 {
    mul128_fold64(
        read64(input, at) ^ read64(&SECRET, secret_at),
        read64(input, at + 8) ^ read64(&SECRET, secret_at + 8),
    )
}

#[inline(always)]
fn len_17to128(input: &[u8]) -> u64 {
    let len = input.len();
    let mut acc = (len as u64).wrapping_mul(PRIME64_1);
    if len > 32 {
        if len > 64 {
            if len > 96 {
                acc = acc.wrapping_add(mix16(input, 48, 96));
                acc = acc.wrapping_add(mix16(input, len - 64, 112));
            }
            acc = acc.wrapping_add(mix16(input, 32, 64));
            acc = acc.wrapping_add(mix16(input, len - 48, 80));
        }
        acc = acc.wrapping_add(mix16(input, 16, 32));
        acc = acc.wrapping_add(mix16(input, len - 32, 48));
    }
    acc = acc.wrapping_add(mix16(input, 0, 0));
    acc = acc.wrapping_add(mix16(input, len - 16, 16));
    avalanche(acc)
}

#[inline(never)]
fn len_129to240(input: &[u8]) -> u64 {
    let len = input.len();
    let mut acc = (len as u64).wrapping_mul(PRIME64_1);
    for i in 0..8 {
        acc = acc.wrapping_add(mix16(input, 16 * i, 16 * i));
    }
    acc = avalanche(acc);
    for i in 8..len / 16 {
        acc = acc.wrapping_add(mix16(input, 16 * i, 16 * (i - 8) + MIDSIZE_STARTOFFSET));
    }
    acc = acc.wrapping_add(mix16(input, len - 16, SECRET_SIZE_MIN - MIDSIZE_LASTOFFSET));
    avalanche(acc)
}

/// One 64-byte stripe into the eight accumulator lanes (64-bit accumulator
/// width: lane i gets its own input word, unlike final XXH3).
#[inline(always)]
fn accumulate_512(acc: &mut [u64; ACC_NB], stripe: &[u8], secret_at: usize) {
    for (i, lane) in acc.iter_mut().enumerate() {
        let data = read64(stripe, 8 * i);
        let key = data ^ read64(&SECRET, secret_at + 8 * i);
        *lane = lane.wrapping_add(data).wrapping_add((key & 0xFFFF_FFFF).wrapping_mul(key >> 32));
    }
}

#[inline(always)]
fn scramble(acc: &mut [u64; ACC_NB]) {
    let secret_at = SECRET.len() - STRIPE_LEN;
    for (i, lane) in acc.iter_mut().enumerate() {
        let mut a = *lane;
        a ^= a >> 47;
        a ^= read64(&SECRET, secret_at + 8 * i);
        *lane = a.wrapping_mul(PRIME32_1);
    }
}

/// Inputs over 240 bytes: with AVX2 (detected at run time) the same code is
/// compiled for AVX2, as RocksDB's `XXPH3_accumulate_512` is when RocksDB is
/// built with `-mavx2`; otherwise the portable (SSE2) build.
#[inline(never)]
fn hash_long(input: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::arch::features().avx2() {
            // SAFETY: AVX2 was detected.
            return unsafe { hash_long_avx2(input) };
        }
    }
    hash_long_impl(input)
}

/// `hash_long_impl` with the stripe accumulation and scrambling written with
/// AVX2 intrinsics, as `XXPH3_accumulate_512` / `XXPH3_scrambleAcc` are in
/// RocksDB's AVX2 build (the auto-vectorized scalar code is ~2.5x slower).
/// Same arithmetic per 64-bit lane; checked against the scalar code for
/// every length up to 5000 in the tests.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn hash_long_avx2(input: &[u8]) -> u64 {
    use core::arch::x86_64::*;
    let len = input.len();
    debug_assert!(len > 240);
    #[inline(always)]
    unsafe fn load(b: &[u8], at: usize) -> __m256i {
        debug_assert!(at + 32 <= b.len());
        // SAFETY: callers pass `at + 32 <= b.len()` (stripes and secret
        // windows are in bounds by construction, see below).
        unsafe { _mm256_loadu_si256(b.as_ptr().add(at) as *const __m256i) }
    }
    #[inline(always)]
    unsafe fn accumulate(acc: &mut [__m256i; 2], stripe: &[u8], secret_at: usize) {
        // stripe is 64 bytes; secret_at + 64 <= 192 (SECRET.len()).
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: see the bounds above; AVX2 enabled by the caller.
            unsafe {
                let data = load(stripe, 32 * i);
                let key = _mm256_xor_si256(data, load(&SECRET, secret_at + 32 * i));
                let key_hi = _mm256_shuffle_epi32::<0b00_11_00_01>(key);
                let product = _mm256_mul_epu32(key, key_hi);
                *a = _mm256_add_epi64(*a, _mm256_add_epi64(product, data));
            }
        }
    }
    #[inline(always)]
    unsafe fn scramble(acc: &mut [__m256i; 2]) {
        let prime = _mm256_set1_epi32(PRIME32_1 as i32);
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: SECRET.len() - 64 + 32 * i + 32 <= 192.
            unsafe {
                let shifted = _mm256_xor_si256(*a, _mm256_srli_epi64::<47>(*a));
                let key = _mm256_xor_si256(shifted, load(&SECRET, SECRET.len() - STRIPE_LEN + 32 * i));
                let key_hi = _mm256_shuffle_epi32::<0b00_11_00_01>(key);
                let prod_lo = _mm256_mul_epu32(key, prime);
                let prod_hi = _mm256_mul_epu32(key_hi, prime);
                *a = _mm256_add_epi64(prod_lo, _mm256_slli_epi64::<32>(prod_hi));
            }
        }
    }
    let init: [u64; ACC_NB] = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
    // SAFETY: 64 bytes of `init`, read as two unaligned vectors.
    let mut acc = unsafe {
        [
            _mm256_loadu_si256(init.as_ptr() as *const __m256i),
            _mm256_loadu_si256(init.as_ptr().add(4) as *const __m256i),
        ]
    };
    let nb_blocks = len / BLOCK_LEN;
    // SAFETY (all calls below): stripes come from chunks_exact(64) or are
    // the last 64 bytes of input (len > 240); secret offsets are those of
    // the scalar code, all with offset + 64 <= 192.
    for block in input.chunks_exact(BLOCK_LEN).take(nb_blocks) {
        for (n, stripe) in block.chunks_exact(STRIPE_LEN).enumerate() {
            unsafe { accumulate(&mut acc, stripe, n * SECRET_CONSUME_RATE) };
        }
        unsafe { scramble(&mut acc) };
    }
    let tail = &input[nb_blocks * BLOCK_LEN..];
    for (n, stripe) in tail.chunks_exact(STRIPE_LEN).enumerate() {
        unsafe { accumulate(&mut acc, stripe, n * SECRET_CONSUME_RATE) };
    }
    if !len.is_multiple_of(STRIPE_LEN) {
        unsafe { accumulate(&mut acc, &input[len - STRIPE_LEN..], SECRET.len() - STRIPE_LEN - SECRET_LASTACC_START) };
    }
    let mut lanes = [0u64; ACC_NB];
    // SAFETY: 64 writable bytes of `lanes`.
    unsafe {
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc[0]);
        _mm256_storeu_si256(lanes.as_mut_ptr().add(4) as *mut __m256i, acc[1]);
    }
    merge(&lanes, len)
}

/// The final merge of the eight lanes (shared by both long-input paths).
#[inline(always)]
fn merge(acc: &[u64; ACC_NB], len: usize) -> u64 {
    let mut result = (len as u64).wrapping_mul(PRIME64_1);
    for pair in 0..4 {
        let s = SECRET_MERGEACCS_START + 16 * pair;
        result = result.wrapping_add(mul128_fold64(
            acc[2 * pair] ^ read64(&SECRET, s),
            acc[2 * pair + 1] ^ read64(&SECRET, s + 8),
        ));
    }
    avalanche(result)
}

#[inline(always)]
fn hash_long_impl(input: &[u8]) -> u64 {
    let len = input.len();
    let mut acc: [u64; ACC_NB] =
        [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
    let nb_blocks = len / BLOCK_LEN;
    for block in input.chunks_exact(BLOCK_LEN).take(nb_blocks) {
        for (n, stripe) in block.chunks_exact(STRIPE_LEN).enumerate() {
            accumulate_512(&mut acc, stripe, n * SECRET_CONSUME_RATE);
        }
        scramble(&mut acc);
    }
    // Last partial block: whole stripes, then the final (overlapping) stripe.
    let tail = &input[nb_blocks * BLOCK_LEN..];
    for (n, stripe) in tail.chunks_exact(STRIPE_LEN).enumerate() {
        accumulate_512(&mut acc, stripe, n * SECRET_CONSUME_RATE);
    }
    if !len.is_multiple_of(STRIPE_LEN) {
        accumulate_512(&mut acc, &input[len - STRIPE_LEN..], SECRET.len() - STRIPE_LEN - SECRET_LASTACC_START);
    }
    // Merge the eight lanes pairwise.
    merge(&acc, len)
}

/// RocksDB's `Hash64(data, n)` / `GetSliceHash64(key)`: the hash every
/// FastLocalBloom and Ribbon filter is built from.
///
/// ```
/// assert_eq!(rocksfilter::hash64(b""), 0x5342_c301_0fe1_dd04);
/// ```
#[inline]
pub fn hash64(key: &[u8]) -> u64 {
    hash64_inline(key)
}

/// `hash64`, always inlined: for the per-key hot loops (adding keys,
/// single and batch queries), where the call and its register saves cost
/// as much as hashing a short key. Long inputs still go out of line.
#[inline(always)]
pub(crate) fn hash64_inline(key: &[u8]) -> u64 {
    let len = key.len();
    if len <= 16 {
        if len > 8 {
            len_9to16(key)
        } else if len >= 4 {
            len_4to8(key)
        } else if len > 0 {
            len_1to3(key)
        } else {
            // RocksDB's modification for the empty input (seed 0).
            mul128_fold64(read64(&SECRET, 0), PRIME64_2)
        }
    } else if len <= 128 {
        len_17to128(key)
    } else if len <= 240 {
        len_129to240(key)
    } else {
        hash_long(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_key_is_rocksdb_value_not_final_xxh3() {
        assert_eq!(hash64(b""), 0x5342_c301_0fe1_dd04);
        assert_ne!(hash64(b""), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn avx2_long_path_equals_scalar() {
        #[cfg(target_arch = "x86_64")]
        if crate::arch::features().avx2() {
            let buf: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
            for len in 241..=buf.len() {
                for start in [0usize, 1, 7] {
                    if start + len > buf.len() {
                        continue;
                    }
                    let k = &buf[start..start + len];
                    assert_eq!(unsafe { hash_long_avx2(k) }, hash_long_impl(k), "len {len} start {start}");
                }
            }
        }
    }

    #[test]
    fn every_length_is_defined_and_distinct() {
        // Not a compatibility proof (that is c_tests/compat against RocksDB's
        // own code); this checks that every path runs and that lengths are
        // mixed in: prefixes of one buffer must all hash differently.
        let buf: Vec<u8> = (0..5000u32).map(|i| (i * 31 + 7) as u8).collect();
        let mut seen = std::collections::HashSet::new();
        for len in 0..=buf.len() {
            assert!(seen.insert(hash64(&buf[..len])), "collision at len {len}");
        }
    }
}
