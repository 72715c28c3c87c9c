//! FastLocalBloom: RocksDB's Bloom filter for format_version >= 5
//! (`FastLocalBloomImpl` in `util/bloom_impl.h`, builder and reader in
//! `table/block_based/filter_policy.cc`).
//!
//! Layout: `len` bytes of 64-byte cache lines, then the 5-byte trailer
//! `[0xff (-1: "newer Bloom"), 0 (sub-implementation FastLocalBloom),
//! num_probes (top 3 bits 0: 64-byte lines), 0, 0]`.
//!
//! Probing: a key's 64-bit hash splits in two. The lower 32 bits pick the
//! cache line with `FastRange32(h1, len / 64)` (a multiply-shift, no
//! division); the upper 32 bits `h2` pick the bits inside the line. Probe i
//! uses the top 9 bits of `h2 * 0x9e3779b9^i` (golden-ratio multiplication
//! remixes the high bits each round), i.e. a bit position 0..511 in the line.
//! So a query touches exactly one cache line, whatever num_probes is.

use std::ptr::NonNull;

use super::{cache_local_fp_rate, fingerprint_fp_rate, independent_probability_sum};
use crate::arch::{prefetch_line, Features};
use crate::error::Result;
use crate::format::{Format, METADATA_LEN};

/// Trailer byte 0: -1, "newer Bloom implementations" (`kMetadataLen`'s
/// first byte in `FastLocalBloomBitsBuilder::Finish`).
pub(crate) const MARKER: u8 = 0xff;
/// Trailer byte 1: sub-implementation 0, FastLocalBloom (others reserved).
const SUB_IMPL: u8 = 0;
const LINE: usize = 64;
/// log2(LINE): the top 3 bits of trailer byte 2 hold `log2(line) - 6`.
const LOG2_LINE: u8 = 6;
/// Largest bit array RocksDB builds (`0xffffffc0` bytes, a multiple of 64
/// that keeps `len` in 32 bits).
const MAX_LEN: usize = 0xffff_ffc0;
const GOLDEN: u32 = 0x9e37_79b9;

/// RocksDB's `FastLocalBloomImpl::ChooseNumProbes`: the probe count that
/// minimises the cache-local FP rate for a bits/key, in thousandths of a bit.
///
/// ```
/// assert_eq!(rocksfilter::choose_num_probes(10_000), 6); // 10 bits/key: 6 probes
/// ```
pub fn choose_num_probes(millibits_per_key: u32) -> u32 {
    match millibits_per_key {
        0..=2080 => 1,
        2081..=3580 => 2,
        3581..=5100 => 3,
        5101..=6640 => 4,
        6641..=8300 => 5,
        8301..=10070 => 6,
        10071..=11720 => 7,
        11721..=14001 => 8,
        14002..=16050 => 9,
        16051..=18300 => 10,
        18301..=22001 => 11,
        22002..=25501 => 12,
        m if m > 50000 => 24,
        m => (m - 1) / 2000 - 1,
    }
}

/// RocksDB's `FastLocalBloomBitsBuilder::CalculateSpace`: bytes (with the
/// trailer) for `num_entries` keys: millibits rounded up to whole bytes,
/// capped, then rounded up to whole cache lines.
pub fn calculate_space(num_entries: usize, millibits_per_key: u32) -> usize {
    let raw = (num_entries as u128 * millibits_per_key as u128).div_ceil(8000).min(MAX_LEN as u128) as usize;
    ((raw + 63) & !63) + METADATA_LEN
}

/// A FastLocalBloom block's size and probe count for a number of entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizing {
    /// Block length, trailer included.
    pub(crate) len: usize,
    pub(crate) num_probes: u32,
}

/// What `FastLocalBloomBitsBuilder` sizes `num_entries` (>= 1) entries at.
pub(crate) fn sizing(num_entries: usize, millibits_per_key: u32) -> Sizing {
    Sizing { len: calculate_space(num_entries, millibits_per_key), num_probes: choose_num_probes(millibits_per_key) }
}

impl Sizing {
    /// A block of `lines` cache lines for `num_entries` (>= 1) entries, with
    /// the probes RocksDB's `ChooseNumProbes` picks for the bits/key that
    /// size gives (thousandths of a bit, rounded down): the one rule for
    /// blocks sized by FP rate or by bytes.
    fn of_lines(num_entries: usize, lines: usize) -> Sizing {
        let bytes = lines * LINE;
        let millibits = (bytes as u128 * 8000 / num_entries as u128).min(u128::from(u32::MAX)) as u32;
        Sizing { len: bytes + METADATA_LEN, num_probes: choose_num_probes(millibits) }
    }

    /// RocksDB's estimate for this block holding `num_entries` entries.
    pub(crate) fn estimated_fp_rate(&self, num_entries: usize) -> f64 {
        estimated_fp_rate(num_entries, self.len, self.num_probes)
    }
}

/// The smallest block for `num_entries` (>= 1) entries whose estimated FP
/// rate is at most `fp_rate`, probes chosen for its size; the largest block
/// the format holds when none is.
pub(crate) fn sizing_for_fp_rate(num_entries: usize, fp_rate: f64) -> Sizing {
    let meets = |lines: usize| Sizing::of_lines(num_entries, lines).estimated_fp_rate(num_entries) <= fp_rate;
    // The estimate falls as lines are added (ChooseNumProbes picks the best
    // probe count for each size), so the smallest size is a binary search.
    let (mut lo, mut hi) = (1usize, MAX_LEN / LINE);
    if !meets(hi) {
        return Sizing::of_lines(num_entries, hi);
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Sizing::of_lines(num_entries, lo)
}

/// The most accurate block for `num_entries` (>= 1) entries in at most
/// `max_len` bytes (trailer included): as many whole cache lines as fit,
/// probes chosen for that size. `None` when not one line fits.
pub(crate) fn sizing_within(num_entries: usize, max_len: usize) -> Option<Sizing> {
    let lines = (max_len.checked_sub(METADATA_LEN)? / LINE).min(MAX_LEN / LINE);
    (lines > 0).then(|| Sizing::of_lines(num_entries, lines))
}

/// The smallest block length (one cache line and the trailer).
pub(crate) const MIN_LEN: usize = LINE + METADATA_LEN;

/// The cache-local FP rate at `bits_per_key` and `num_probes` with this
/// format's 512-bit lines (`CacheLocalFpRate(bpk, probes, 512)`), which is
/// also the rate Ribbon's policy targets for a bits/key.
pub(crate) fn fp_rate_at(bits_per_key: f64, num_probes: u32) -> f64 {
    cache_local_fp_rate(bits_per_key, num_probes, LINE as u32 * 8)
}

/// RocksDB's `FastLocalBloomImpl::EstimatedFpRate` for a built filter:
/// cache-local Bloom FP rate combined with 64-bit hash collisions.
pub fn estimated_fp_rate(keys: usize, len_with_metadata: usize, num_probes: u32) -> f64 {
    if len_with_metadata <= METADATA_LEN {
        return if keys > 0 { 1.0 } else { 0.0 };
    }
    let bytes = len_with_metadata - METADATA_LEN;
    independent_probability_sum(fp_rate_at(8.0 * bytes as f64 / keys as f64, num_probes), fingerprint_fp_rate(keys, 64))
}

/// `FastRange32`: maps a 32-bit hash onto `0..range` without division.
#[inline(always)]
fn fast_range32(h: u32, range: u32) -> u32 {
    ((h as u64 * range as u64) >> 32) as u32
}

/// `GOLDEN^i` for i in 0..32: probe i of a key uses `h2 * GOLDEN^i`, the
/// same value as i repeated multiplications, but without the serial
/// dependency (probes are independent, as in RocksDB's AVX2 path).
const GOLDEN_POWERS: [u32; 32] = {
    let mut p = [1u32; 32];
    let mut i = 1;
    while i < 32 {
        p[i] = p[i - 1].wrapping_mul(GOLDEN);
        i += 1;
    }
    p
};

/// Portable probe: all probes are loaded and combined without early exit
/// (no unpredictable branch on a miss; the loads are independent).
#[inline(always)]
fn line_matches_scalar(line: &[u8; LINE], h2: u32, num_probes: u32) -> bool {
    let mut all = 1u8;
    for &m in &GOLDEN_POWERS[..num_probes.min(32) as usize] {
        let h = h2.wrapping_mul(m);
        all &= line[(h >> 26) as usize] >> ((h >> 23) & 7);
    }
    all & 1 != 0
}

/// `PROBE_LANES[n]`: lane i is 1 when i < n, i.e. which of the 8 lanes of
/// an AVX2 round are real probes when n probes remain (all 8 from n = 8 up;
/// 32 rows so that any `n & 31` indexes it without a check). RocksDB
/// computes this per query (`(i - n) >> 31` per lane, four instructions); a
/// table row is one load.
static PROBE_LANES: [[i32; 8]; 32] = {
    let mut t = [[0i32; 8]; 32];
    let mut n = 0;
    while n < 32 {
        let mut i = 0;
        while i < n && i < 8 {
            t[n][i] = 1;
            i += 1;
        }
        n += 1;
    }
    t
};

/// One AVX2 round of RocksDB's `HashMayMatchPrepared`: up to eight probes
/// of the 64-byte line held in `lower`/`upper` (its two 32-byte halves), the
/// probes being the lanes of `lanes` that are 1. Each probe is a 32-bit word
/// of the line picked by a permute. Returns (words, bit masks): the round
/// matches when every mask bit is set in its word, one `vptest`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn probe_round(
    lower: core::arch::x86_64::__m256i,
    upper: core::arch::x86_64::__m256i,
    h: u32,
    lanes: core::arch::x86_64::__m256i,
) -> (core::arch::x86_64::__m256i, core::arch::x86_64::__m256i) {
    use core::arch::x86_64::*;
    // Powers of the 32-bit golden ratio, mod 2^32 (i32 bit patterns):
    // lane i holds h * GOLDEN^i, probe i's hash.
    let multipliers = _mm256_setr_epi32(
        0x0000_0001,
        0x9e37_79b9_u32 as i32,
        0xe35e_67b1_u32 as i32,
        0x7342_97e9,
        0x35fb_e861,
        0xdeb7_c719_u32 as i32,
        0x0448_b211,
        0x3459_b749,
    );
    let hv = _mm256_mullo_epi32(_mm256_set1_epi32(h as i32), multipliers);
    // Top 4 bits: which 32-bit word (low 3 bits via permute, top bit
    // selects the lower or upper half of the line).
    let word = _mm256_srli_epi32::<28>(hv);
    let lo = _mm256_permutevar8x32_epi32(lower, word);
    let hi = _mm256_permutevar8x32_epi32(upper, word);
    let values = _mm256_blendv_epi8(lo, hi, _mm256_srai_epi32::<31>(hv));
    // Bits 23..27: the bit within the word. (Written as shift-and-mask:
    // LLVM turns RocksDB's shift-left-then-right into a second vector
    // multiply.) Lanes that are not probes get an empty mask.
    let bit = _mm256_and_si256(_mm256_srli_epi32::<23>(hv), _mm256_set1_epi32(31));
    (values, _mm256_sllv_epi32(lanes, bit))
}

/// RocksDB's AVX2 `HashMayMatchPrepared`: eight probes per round.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn line_matches_avx2(line: &[u8; LINE], h2: u32, num_probes: u32) -> bool {
    use core::arch::x86_64::*;
    // SAFETY: `line` is 64 readable bytes: two unaligned 32-byte loads.
    let lower = unsafe { _mm256_loadu_si256(line.as_ptr() as *const __m256i) };
    let upper = unsafe { _mm256_loadu_si256(line.as_ptr().add(32) as *const __m256i) };
    let mut h = h2;
    let mut rem = num_probes;
    loop {
        let row = &PROBE_LANES[rem as usize & 31];
        // SAFETY: a table row is 32 readable bytes.
        let lanes = unsafe { _mm256_loadu_si256(row.as_ptr() as *const __m256i) };
        let (values, mask) = probe_round(lower, upper, h, lanes);
        // SAFETY: AVX2 implies AVX (vptest); register operands only.
        let matched = unsafe { testc(values, mask) };
        if rem <= 8 {
            return matched;
        } else if !matched {
            return false;
        }
        h = h.wrapping_mul(0xab25_f4c1); // GOLDEN^8: next round's lane 0
        rem -= 8;
    }
}

/// `_mm256_testc_si256(v, m) != 0`, i.e. `(!v & m) == 0`, as the single
/// `vptest` RocksDB's compiler emits (inside a loop LLVM rewrites the
/// intrinsic into an and-not plus a horizontal reduction, several
/// instructions longer on the hot path).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn testc(v: core::arch::x86_64::__m256i, m: core::arch::x86_64::__m256i) -> bool {
    let carry: u8;
    // SAFETY: register-only AVX instruction; flags are read by setb.
    unsafe {
        core::arch::asm!(
            "vptest {v}, {m}",
            "setb {c}",
            v = in(ymm_reg) v,
            m = in(ymm_reg) m,
            c = out(reg_byte) carry,
            options(pure, nomem, nostack),
        );
    }
    carry != 0
}

#[inline(always)]
fn line_at(data: &[u8], off: usize) -> &[u8; LINE] {
    data[off..off + LINE].try_into().expect("64-byte line")
}

/// Writes the filter for `parts` (the hashes, in order, as consecutive
/// slices) into `block`, a zeroed buffer of `len_with_metadata` bytes (from
/// [`calculate_space`]), trailer included.
pub(crate) fn build_into(block: &mut [u8], parts: &[&[u64]], num_probes: u32) {
    #[cfg(target_arch = "x86_64")]
    if crate::arch::features().bmi2() {
        // SAFETY: BMI2 was detected.
        return unsafe { build_into_bmi2(block, parts, num_probes) };
    }
    build_into_any(block, parts, num_probes)
}

/// With BMI2 the probe loop's shifts are three-operand (`shrx`, `shlx`):
/// no register copies, no shift count in `cl`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn build_into_bmi2(block: &mut [u8], parts: &[&[u64]], num_probes: u32) {
    build_into_any(block, parts, num_probes)
}

/// The probe counts RocksDB picks for 5 to ~14 bits/key get their own copy
/// of the loop with the count a constant: the compiler unrolls it and turns
/// the serial `h *= GOLDEN` into independent multiplies by GOLDEN^i. (RocksDB
/// reads num_probes at run time and runs the loop.)
#[inline(always)]
fn build_into_any(block: &mut [u8], parts: &[&[u64]], num_probes: u32) {
    match num_probes {
        4 => build_into_impl::<4>(block, parts, num_probes),
        5 => build_into_impl::<5>(block, parts, num_probes),
        6 => build_into_impl::<6>(block, parts, num_probes),
        7 => build_into_impl::<7>(block, parts, num_probes),
        8 => build_into_impl::<8>(block, parts, num_probes),
        _ => build_into_impl::<0>(block, parts, num_probes),
    }
}

/// `P`: the probe count when known at compile time, 0 for "use num_probes".
#[inline(always)]
fn build_into_impl<const P: u32>(block: &mut [u8], parts: &[&[u64]], num_probes: u32) {
    let len = block.len() - METADATA_LEN;
    let mut adder = Adder::<P>::new(&mut block[..len], num_probes);
    for part in parts {
        for &h in *part {
            adder.push(h);
        }
    }
    adder.finish();
    write_trailer(block, num_probes);
}

/// The 5-byte trailer after `block.len() - 5` bytes of bit array:
/// `[MARKER, SUB_IMPL, (log2(line) - 6) << 5 | num_probes, 0, 0]`.
pub(crate) fn write_trailer(block: &mut [u8], num_probes: u32) {
    let len = block.len() - METADATA_LEN;
    block[len..].copy_from_slice(&[MARKER, SUB_IMPL, ((LOG2_LINE - 6) << 5) | num_probes as u8, 0, 0]);
}

/// Decodes the trailer `[-1, sub_impl, block_and_probes, 0, 0]` as
/// `GetBuiltinFilterBitsReader` does.
fn decode(block: &[u8]) -> Option<FastLocalGeometry> {
    let len = block.len() - METADATA_LEN;
    let t = &block[len..];
    let log2_line = ((t[2] >> 5) & 7) + 6;
    let num_probes = u32::from(t[2] & 31);
    let reserved = u16::from_le_bytes([t[3], t[4]]);
    // Everything RocksDB reserves for the future reads as "always true".
    if !(1..=30).contains(&num_probes) || reserved != 0 || t[1] != SUB_IMPL || log2_line != LOG2_LINE {
        return None;
    }
    if len < LINE {
        // Less than one 64-byte cache line: RocksDB's reader would probe a
        // whole line past the end of the block (undefined there). No key can
        // be ruled out safely, so: always true.
        return None;
    }
    // At most u32::MAX / 64 lines: the reader refuses longer blocks first.
    Some(FastLocalGeometry::new((len / LINE) as u32, num_probes))
}

/// Sets the probe bits of one hash in its line (the line's byte offset
/// already computed).
#[inline(always)]
pub(crate) fn add_prepared(data: &mut [u8], off: usize, h2: u32, num_probes: u32) {
    let line: &mut [u8; LINE] = (&mut data[off..off + LINE]).try_into().expect("line");
    // Serial multiplication, as RocksDB's AddHashPrepared: no table loads.
    // Bit p = h >> 23 (0..511) of the line is set through the little-endian
    // 32-bit word p / 32, bit p % 32: the same bit as RocksDB's byte p / 8,
    // bit p % 8, but a 32-bit shift masks its count itself (one instruction
    // less per probe than a byte's `& 7`).
    let mut h = h2;
    for _ in 0..num_probes {
        let w = (h >> 28) as usize * 4;
        let word: &mut [u8; 4] = (&mut line[w..w + 4]).try_into().expect("word");
        *word = (u32::from_le_bytes(*word) | (1u32 << ((h >> 23) & 31))).to_le_bytes();
        h = h.wrapping_mul(GOLDEN);
    }
}

/// Keys whose lines are in flight: the line of hash i + AHEAD is computed
/// and prefetched while hash i's bits are set, so a cache miss costs one
/// wait per AHEAD keys instead of one per key.
const AHEAD: usize = 16;

/// RocksDB's `AddAllEntries` as a push interface: a software pipeline over
/// a ring buffer of prepared (line offset, h2) pairs, so each hash is split
/// once. Callers feed it from slices (a tight loop) or any iterator.
pub(crate) struct Adder<'d, const P: u32 = 0> {
    data: &'d mut [u8],
    lines: u32,
    num_probes: u32,
    offs: [usize; AHEAD],
    h2s: [u32; AHEAD],
    /// Hashes pushed so far.
    n: usize,
}

impl<'d, const P: u32> Adder<'d, P> {
    pub(crate) fn new(data: &'d mut [u8], num_probes: u32) -> Self {
        // `data.len()` is at most MAX_LEN, so the line count fits in u32.
        let lines = (data.len() / LINE) as u32;
        // A compile-time probe count must be the real one.
        debug_assert!(P == 0 || P == num_probes);
        Adder { data, lines, num_probes, offs: [0; AHEAD], h2s: [0; AHEAD], n: 0 }
    }

    /// The probe count: the compile-time one when there is one (so the
    /// probe loop unrolls), else the run-time one.
    #[inline(always)]
    fn probes(&self) -> u32 {
        if P != 0 {
            P
        } else {
            self.num_probes
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, h: u64) {
        self.push_at((fast_range32(h as u32, self.lines) as usize) << 6, (h >> 32) as u32);
    }

    /// Pushes a hash whose line offset in `data` is already known.
    #[inline(always)]
    fn push_at(&mut self, off: usize, h2: u32) {
        let slot = self.n % AHEAD;
        if self.n >= AHEAD {
            add_prepared(self.data, self.offs[slot], self.h2s[slot], self.probes());
        }
        self.offs[slot] = off;
        self.h2s[slot] = h2;
        prefetch_line(self.data, off);
        self.n += 1;
    }

    /// Sets the bits of the hashes still in the ring.
    pub(crate) fn finish(self) {
        let in_flight = self.n.min(AHEAD);
        for i in self.n - in_flight..self.n {
            let slot = i % AHEAD;
            add_prepared(self.data, self.offs[slot], self.h2s[slot], self.probes());
        }
    }
}

/// [`Adder`] over any iterator (the direct build, which hashes keys as it
/// goes).
#[inline]
pub(crate) fn add_all(data: &mut [u8], hashes: impl Iterator<Item = u64>, num_probes: u32) {
    let mut adder = Adder::<0>::new(data, num_probes);
    for h in hashes {
        adder.push(h);
    }
    adder.finish();
}

/// Sets the bits of every hash whose line falls in `data`, a window of
/// whole lines of the bit array starting at byte `base` of a
/// `total_len`-byte array (lines are chosen over the whole array). Threads
/// owning disjoint windows write disjoint bytes, and OR is order-independent,
/// so the result is byte-identical to the sequential build.
///
/// Every thread reads all hashes (sequentially, cheap) but sets bits only for
/// its own: the in-window test is branch-free (a hash is always written to a
/// staging buffer, whose fill index advances only when it is in the window),
/// because with W windows it fails at random 1 - 1/W of the time and a
/// branch would mispredict on half the hashes.
pub(crate) fn add_window(data: &mut [u8], base: usize, total_len: usize, parts: &[&[u64]], num_probes: u32) {
    const STAGE: usize = 256;
    let total_lines = (total_len / LINE) as u32;
    let base_line = (base / LINE) as u32;
    let window_lines = (data.len() / LINE) as u32;
    let mut offs = [0u32; STAGE];
    let mut h2s = [0u32; STAGE];
    let mut filled = 0;
    let mut adder = Adder::<0>::new(data, num_probes);
    for part in parts {
        for &h in *part {
            // Line relative to the window; outside it wraps to >= window_lines.
            let rel = fast_range32(h as u32, total_lines).wrapping_sub(base_line);
            offs[filled] = rel;
            h2s[filled] = (h >> 32) as u32;
            filled += usize::from(rel < window_lines);
            if filled == STAGE {
                for i in 0..STAGE {
                    adder.push_at((offs[i] as usize) << 6, h2s[i]);
                }
                filled = 0;
            }
        }
    }
    for i in 0..filled {
        adder.push_at((offs[i] as usize) << 6, h2s[i]);
    }
    adder.finish();
}

/// Splits a `len`-byte bit array into `parts` windows of whole lines.
pub(crate) fn line_windows(len: usize, parts: usize) -> Vec<usize> {
    let lines = len / LINE;
    let parts = parts.clamp(1, lines.max(1));
    (0..=parts).map(|i| lines * i / parts * LINE).collect()
}

/// Validated geometry of a FastLocalBloom block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastLocalGeometry {
    /// 64-byte lines in the bit array (block length minus trailer, over
    /// 64, rounded down as RocksDB does), at least 1.
    pub lines: u32,
    pub num_probes: u32,
    /// `PROBE_LANES[num_probes]`, looked up once at load.
    first_round_lanes: &'static [i32; 8],
}

impl FastLocalGeometry {
    /// `lines` >= 1 and `num_probes` in 1..=30 (validated by the parser).
    pub(crate) fn new(lines: u32, num_probes: u32) -> Self {
        FastLocalGeometry { lines, num_probes, first_round_lanes: &PROBE_LANES[num_probes as usize & 31] }
    }

    /// The lines of this geometry's bit array in `data` (its block) and its
    /// probe lanes, for [`may_match_lines_avx2`]: exactly `lines` of them;
    /// None when the block is shorter (never for a validated geometry over
    /// its block).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline]
    pub(crate) fn lines_of<'d>(&self, data: &'d [u8]) -> Option<Lines<'d>> {
        let (lines, _) = data.get(..(self.lines as usize).checked_mul(LINE)?)?.as_chunks::<LINE>();
        Some(Lines { lines, lanes: self.first_round_lanes }).filter(|l| !l.lines.is_empty())
    }

    /// [`FastLocalGeometry::lines_of`] as a [`LinesAt`] (the form a
    /// partitioned filter keeps); [`LinesAt::ALONE`] where that is None.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn lines_at(&self, data: &[u8]) -> LinesAt {
        match self.lines_of(data) {
            // The address from the whole slice (`attach` reads `count` lines
            // through it), not from its first element.
            Some(l) => LinesAt {
                first: NonNull::from(l.lines).cast(),
                count: l.lines.len() as u32,
                probes: self.num_probes & 31,
            },
            None => LinesAt::ALONE,
        }
    }

    /// Byte offset of the cache line a hash's lower half selects.
    #[inline(always)]
    fn line_offset(&self, h: u64) -> usize {
        (fast_range32(h as u32, self.lines) as usize) << 6
    }

    /// The whole query for a key hash, portable code (the AVX2 forms below
    /// are picked at load by [`Format::kernel`]).
    #[inline(always)]
    pub fn may_match_hash(&self, data: &[u8], h: u64) -> bool {
        self.may_match_hash_scalar(data, h)
    }

    #[inline(always)]
    fn may_match_hash_scalar(&self, data: &[u8], h: u64) -> bool {
        let off = self.line_offset(h);
        line_matches_scalar(line_at(data, off), (h >> 32) as u32, self.num_probes)
    }

    /// For callers that are themselves AVX2 functions (inlined there), with
    /// no panicking path: a line outside `data` (impossible for a validated
    /// geometry over its own block) answers "may match".
    /// Safety: the CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn may_match_hash_avx2_nopanic(&self, data: &[u8], h: u64) -> bool {
        let off = self.line_offset(h);
        match data.get(off..off.wrapping_add(LINE)).and_then(|l| <&[u8; LINE]>::try_from(l).ok()) {
            // SAFETY: the caller checked AVX2.
            Some(line) => unsafe { line_matches_avx2(line, (h >> 32) as u32, self.num_probes) },
            None => true,
        }
    }

    /// `may_match_hash_avx2_nopanic` for at most 8 probes: one round, no
    /// loop, no bounds check. The shortest path there is: the fewer
    /// instructions per query, the more queries the CPU keeps in flight,
    /// which is what a memory-bound filter query costs.
    ///
    /// Safety: the CPU must support AVX2, and `data` must be at least
    /// `64 * self.lines` bytes long (true of the block the geometry was
    /// parsed from: `lines` is its bit-array length over 64, rounded down).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn may_match_hash_avx2_le8(&self, data: &[u8], h: u64) -> bool {
        // SAFETY: the caller's contract; line_offset maps onto 0..lines.
        unsafe { self.probe_avx2_le8(data, self.line_offset(h), (h >> 32) as u32) }
    }

    /// The probing half of `may_match_hash_avx2_le8`, for a line offset
    /// from `line_offset` (FastRange32 maps onto 0..lines, so the line is
    /// bytes off..off + 64 with off + 64 <= 64 * lines).
    /// Safety: AVX2; `off + 64 <= data.len()`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn probe_avx2_le8(&self, data: &[u8], off: usize, h2: u32) -> bool {
        use core::arch::x86_64::*;
        debug_assert!(self.num_probes <= 8 && off + LINE <= data.len());
        // SAFETY: in bounds (the caller's contract); unaligned loads; the
        // lane row is a 32-byte static.
        let (lower, upper, lanes) = unsafe {
            let line = data.as_ptr().add(off);
            (
                _mm256_loadu_si256(line as *const __m256i),
                _mm256_loadu_si256(line.add(32) as *const __m256i),
                _mm256_loadu_si256(self.first_round_lanes.as_ptr() as *const __m256i),
            )
        };
        let (values, mask) = probe_round(lower, upper, h2, lanes);
        // Straight-line code: here LLVM keeps the intrinsic a single vptest.
        _mm256_testc_si256(values, mask) != 0
    }

    /// Hashes `key` and queries, portable code.
    #[inline(always)]
    pub fn may_match_key(&self, data: &[u8], key: &[u8]) -> bool {
        let h = crate::hash::hash64(key);
        let off = self.line_offset(h);
        line_matches_scalar(line_at(data, off), (h >> 32) as u32, self.num_probes)
    }

    /// First half of a two-pass batch query: the line offset (its bytes
    /// prefetched).
    #[inline(always)]
    pub fn prepare(&self, data: &[u8], h: u64) -> usize {
        let off = self.line_offset(h);
        prefetch_line(data, off);
        off
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn may_match_batch_avx2<'k>(&self, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_batch_impl::<true>(data, key, results)
    }

    #[inline(always)]
    fn may_match_batch_impl<'k, const AVX2: bool>(
        &self,
        data: &[u8],
        key: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    ) {
        // Checked once here rather than per key: every line offset is below
        // 64 * lines (see `probe_avx2_le8`).
        #[cfg(target_arch = "x86_64")]
        let lines_fit = data.len() >= self.lines as usize * LINE;
        const BATCH: usize = 32;
        let mut h2s = [0u32; BATCH];
        let mut offs = [0usize; BATCH];
        let n = results.len();
        for start in (0..n).step_by(BATCH) {
            let m = BATCH.min(n - start);
            for j in 0..m {
                let h = crate::hash::hash64_inline(key(start + j));
                offs[j] = self.prepare(data, h);
                h2s[j] = (h >> 32) as u32;
            }
            let out = &mut results[start..start + m];
            #[cfg(target_arch = "x86_64")]
            if AVX2 && lines_fit && self.num_probes <= 8 {
                for (j, r) in out.iter_mut().enumerate() {
                    // SAFETY: AVX2 == true only from may_match_batch_avx2,
                    // called after detecting AVX2; offs[j] + 64 <= 64 * lines
                    // <= data.len() (checked above).
                    *r = unsafe { self.probe_avx2_le8(data, offs[j], h2s[j]) };
                }
                continue;
            }
            for (j, r) in out.iter_mut().enumerate() {
                let line = line_at(data, offs[j]);
                *r = if AVX2 {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: AVX2 == true only from may_match_batch_avx2,
                    // called after detecting AVX2.
                    unsafe {
                        line_matches_avx2(line, h2s[j], self.num_probes)
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    line_matches_scalar(line, h2s[j], self.num_probes)
                } else {
                    line_matches_scalar(line, h2s[j], self.num_probes)
                };
            }
        }
    }
}

/// A FastLocalBloom bit array as its 64-byte lines, with the probe lanes
/// of its probe count ([`FastLocalGeometry::lines_of`]): what
/// [`may_match_lines_avx2`] needs of a partition.
#[derive(Clone, Copy)]
pub(crate) struct Lines<'d> {
    lines: &'d [[u8; LINE]],
    lanes: &'static [i32; 8],
}

/// A partition's [`Lines`] without their lifetime, in 16 bytes (against
/// 24): what a partitioned filter keeps of each partition from open on,
/// beside the filters whose bytes it points into, so that a batch finds a
/// key's lines with its partition index alone and gathers nothing per
/// call. Gathering them on the stack for each call cost about 11
/// instructions per key on `bench/sst`'s 455 partitions and 1,024-key
/// batches, and a batch smaller than the partition count read each key's
/// from its `Filter` (8 more in the kernel; callgrind). At 16
/// bytes a handle stays within `tests/handles.rs`'s 256 bytes per
/// partition beyond its filter.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct LinesAt {
    /// The first line (dangling when `count` is 0).
    first: NonNull<[u8; LINE]>,
    count: u32,
    /// The probe count, `PROBE_LANES`' row.
    probes: u32,
}

// SAFETY: an address and two counts. The bytes are read only through
// `LinesAt::attach`, whose caller vouches that they are alive and
// unchanged; they are immutable, so sharing or sending the address shares
// nothing mutable.
unsafe impl Send for LinesAt {}
// SAFETY: as above.
unsafe impl Sync for LinesAt {}

impl LinesAt {
    /// A partition the lines kernel does not query ([`Lines::ALONE`]).
    pub(crate) const ALONE: LinesAt = LinesAt { first: NonNull::dangling(), count: 0, probes: 0 };

    /// These lines with a lifetime again.
    ///
    /// # Safety
    ///
    /// The bytes this was made from ([`FastLocalGeometry::lines_at`]) are
    /// alive and unchanged, at the same address, for `'d`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(crate) unsafe fn attach<'d>(self) -> Lines<'d> {
        // SAFETY: `first` and `count` describe the `count` lines of a slice
        // (`lines_at`), whose bytes the caller vouches for; a count of 0
        // takes the dangling, aligned address, valid for an empty slice.
        let lines = unsafe { std::slice::from_raw_parts(self.first.as_ptr(), self.count as usize) };
        Lines { lines, lanes: &PROBE_LANES[self.probes as usize & 31] }
    }

    /// Whether this is [`LinesAt::ALONE`].
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn is_alone(&self) -> bool {
        self.count == 0
    }

    /// One key's answer from these lines: the query a full filter's
    /// single call runs (one round, at most 8 probes), on the partition's
    /// lines. A partitioned filter's single query takes this rather than
    /// the partition's 104-byte `Filter` and its query's indirect call:
    /// for `bench/sst`'s 455 partitions, 7 KiB of table against 46 KiB of
    /// `Filter` values that queries touch.
    ///
    /// # Safety
    ///
    /// As [`LinesAt::attach`], for the call; the CPU supports AVX2; this is
    /// not [`LinesAt::ALONE`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) unsafe fn may_match_key_avx2(self, key: &[u8]) -> bool {
        // SAFETY: the caller's contract.
        unsafe { key_matches_le8_avx2(self.first, self.count, self.probes, key) }
    }
}

impl Lines<'_> {
    /// A partition [`may_match_lines_avx2`] does not query (not
    /// [`Kernel::Avx2Le8`]): its keys are answered by the caller's `alone`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const ALONE: Lines<'static> = Lines { lines: &[], lanes: &[0; 8] };

    /// Whether this is [`Lines::ALONE`].
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn is_alone(&self) -> bool {
        self.lines.is_empty()
    }

    /// The probe lanes of this partition's probe count (one `PROBE_LANES`
    /// row: partitions of the same count share it).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn lanes(&self) -> &'static [i32; 8] {
        self.lanes
    }

    /// Where the lines start, and how many (tests: which bytes a
    /// [`LinesAt`] points into).
    #[cfg(all(test, target_arch = "x86_64"))]
    pub(crate) fn span(&self) -> (*const u8, usize) {
        (self.lines.as_ptr().cast(), self.lines.len())
    }
}

/// A batch over many FastLocalBloom filters, each key routed to one of
/// them (a partitioned filter's partitions): the full-filter batch's two
/// passes (hash every key and prefetch its line, then probe), with the
/// filter chosen per key. A key's route is its partition's index and
/// nothing else (`table(part[j])`, each partition's lines and probe
/// lanes, from the table the partitioned filter keeps, [`LinesAt`]): no
/// route value, no per-key bounds or alignment tests (a line is an
/// element of its partition's slice of lines, and both its ends are
/// prefetched, as the full-filter batch does for lines that straddle two
/// cache lines). Partitions may differ in
/// probe count: RocksDB derives it from each partition's own bits per
/// key when it sizes partitions to their allocations
/// (`optimize_filters_for_memory`), so that in a 1M-key file RocksDB 11.12
/// wrote (`bench/sst`) 454 partitions have 6 probes and one has 7.
/// Counted with callgrind (`benches/partitioned.rs`, 304 partitions,
/// Bloom, random order).
///
/// `SAME`: every partition's lanes are `same` (one probe count), which
/// the kernel then keeps in a register rather than loading each key's
/// (`benches/partitioned.rs --sorted`, Bloom batch: 10.0-10.2 ns per key,
/// against 10.4 loading each key's and 9.8-9.9 before partitions could
/// differ in probe count).
///
/// `results[j]` answers key j (`key(j)`) where `table(part[j])` is a
/// partition's lines (`alone(j)` where it is [`Lines::ALONE`]: a filter
/// with more than 8 probes, or not Bloom), and is `answer[j]` where it is
/// None (the caller answered that key). At most 64 keys: the routing's
/// batch (`LOOKUP_BATCH` in `sst::separators`), whose per-call work (setup,
/// clearing the arrays) 64 keys share better than 32 (`bench/sst`'s files,
/// keys of runtime length: Bloom batch 18.2-18.7 -> 17.6-17.8 ns per key,
/// Ribbon 27.2-28.6 -> 26.8-27.1).
///
/// Safety: the CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn may_match_lines_avx2<'k, 'd, const SAME: bool>(
    table: impl Fn(u32) -> Option<Lines<'d>>,
    same: &[i32; 8],
    part: &[u32],
    answer: &[bool],
    key: impl Fn(usize) -> &'k [u8],
    alone: impl Fn(usize) -> bool,
    results: &mut [bool],
) {
    use core::arch::x86_64::*;
    const BATCH: usize = 64;
    let mut lines: [Option<&[u8; LINE]>; BATCH] = [None; BATCH];
    let mut lanes: [&[i32; 8]; BATCH] = [&PROBE_LANES[0]; BATCH];
    let mut h2s = [0u32; BATCH];
    let m = results.len().min(part.len()).min(BATCH);
    for j in 0..m {
        let Some(p) = table(part[j]) else {
            results[j] = answer.get(j).copied().unwrap_or(true);
            continue;
        };
        if p.lines.is_empty() {
            results[j] = alone(j);
            continue;
        }
        let h = crate::hash::hash64_inline(key(j));
        let i = fast_range32(h as u32, p.lines.len() as u32) as usize;
        // SAFETY: FastRange32 maps onto 0..len (`(h * len) >> 32 < len`,
        // len at least 1 here; a length past u32::MAX truncates to a
        // smaller range), so `i` is an element's index: no bounds test
        // and no branch on its result (callgrind, `bench/sst`'s 455
        // partitions: 90.4 -> 84.4 instructions per key in this kernel).
        let line = unsafe { p.lines.get_unchecked(i) };
        crate::arch::prefetch(line, 0);
        crate::arch::prefetch(line, LINE - 1);
        lines[j] = Some(line);
        h2s[j] = (h >> 32) as u32;
        if !SAME {
            lanes[j] = p.lanes;
        }
    }
    // SAFETY: the 32-byte lane row is a reference.
    let same = unsafe { _mm256_loadu_si256(same.as_ptr() as *const __m256i) };
    for j in 0..m {
        if let Some(line) = lines[j] {
            // SAFETY: unaligned loads of the 64-byte line and of the
            // 32-byte lane row, references.
            let (lower, upper, lane) = unsafe {
                (
                    _mm256_loadu_si256(line.as_ptr() as *const __m256i),
                    _mm256_loadu_si256(line.as_ptr().add(32) as *const __m256i),
                    if SAME { same } else { _mm256_loadu_si256(lanes[j].as_ptr() as *const __m256i) },
                )
            };
            // One round: at most 8 probes (Kernel::Avx2Le8, the caller's
            // contract).
            let (values, mask) = probe_round(lower, upper, h2s[j], lane);
            // SAFETY: AVX2 implies AVX (vptest); register operands only.
            results[j] = unsafe { testc(values, mask) };
        }
    }
}

/// [`LinesAt::may_match_key_avx2`]'s body: a full filter's one-round
/// query ([`FastLocalGeometry::may_match_hash_avx2_le8`]), out of line so
/// that the caller's frame stays small. The handle's three fields come in
/// registers and the geometry is made here: made by the caller, or the
/// handle passed whole, they went through the stack (a frame and 4-6
/// instructions per query, callgrind, `bench/sst`). Safety: AVX2; the
/// fields of a [`LinesAt`] as [`LinesAt::attach`] requires; not
/// [`LinesAt::ALONE`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn key_matches_le8_avx2(first: NonNull<[u8; LINE]>, count: u32, probes: u32, key: &[u8]) -> bool {
    let at = LinesAt { first, count, probes };
    // SAFETY: the caller's contract.
    let lines = unsafe { at.attach() };
    // The partition's geometry again, from its line and probe counts. A
    // table entry comes from `Filter::lines_at`, only for filters with the
    // one-round kernel (at most 8 probes); with more, the round would
    // probe only 8 (more "may match", never fewer).
    let g = FastLocalGeometry::new(at.count, at.probes);
    // SAFETY: the caller's contract (AVX2); `lines` is exactly the
    // geometry's `count` lines.
    unsafe { g.may_match_hash_avx2_le8(lines.lines.as_flattened(), crate::hash::hash64_inline(key)) }
}

/// FastLocalBloom's query kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// AVX2, at most 8 probes: one round, no loop (RocksDB's defaults up to
    /// ~14 bits/key).
    Avx2Le8,
    /// AVX2, any probe count: rounds of 8.
    Avx2,
    /// Portable code.
    Portable,
}

impl Format for FastLocalGeometry {
    type Kernel = Kernel;

    fn decode(block: &[u8]) -> Result<Option<Self>> {
        Ok(decode(block))
    }

    fn estimated_fp_rate(&self, num_keys: usize, block_len: usize) -> f64 {
        estimated_fp_rate(num_keys, block_len, self.num_probes)
    }

    fn kernel(&self, features: Features) -> Kernel {
        match (cfg!(target_arch = "x86_64") && features.avx2(), self.num_probes <= 8) {
            (true, true) => Kernel::Avx2Le8,
            (true, false) => Kernel::Avx2,
            (false, _) => Kernel::Portable,
        }
    }

    /// Two-pass batch query (RocksDB's `MayMatch(num_keys, keys, ...)`):
    /// hash every key and prefetch its line, then probe.
    fn may_match_batch<'k>(&self, kernel: Kernel, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        #[cfg(target_arch = "x86_64")]
        if kernel != Kernel::Portable {
            // SAFETY: AVX2 kernels are chosen only when AVX2 was detected.
            return unsafe { self.may_match_batch_avx2(data, key, results) };
        }
        let _ = kernel;
        self.may_match_batch_impl::<false>(data, key, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_probes_table_matches_rocksdb_breakpoints() {
        assert_eq!(choose_num_probes(1000), 1);
        assert_eq!(choose_num_probes(2080), 1);
        assert_eq!(choose_num_probes(2081), 2);
        assert_eq!(choose_num_probes(10000), 6);
        assert_eq!(choose_num_probes(10070), 6);
        assert_eq!(choose_num_probes(10071), 7);
        assert_eq!(choose_num_probes(25501), 12);
        assert_eq!(choose_num_probes(25502), 11); // (25501)/2000 - 1
        assert_eq!(choose_num_probes(30000), 13);
        assert_eq!(choose_num_probes(50000), 23);
        assert_eq!(choose_num_probes(50001), 24);
        assert_eq!(choose_num_probes(100000), 24);
    }

    #[test]
    fn avx2_and_scalar_probes_agree() {
        let mut line = [0u8; LINE];
        let mut x = 0x1234_5678_9abc_def0u64;
        for k in 0..2000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if k % 3 == 0 {
                line[(x >> 58) as usize] |= 1 << ((x >> 40) & 7);
            }
            let h2 = (x >> 16) as u32;
            for probes in 1..=30 {
                let scalar = line_matches_scalar(&line, h2, probes);
                let mut h = h2;
                let mut serial = true;
                for _ in 0..probes {
                    let bit = (h >> 23) as usize;
                    serial &= line[bit >> 3] & (1 << (bit & 7)) != 0;
                    h = h.wrapping_mul(GOLDEN);
                }
                assert_eq!(scalar, serial);
                #[cfg(target_arch = "x86_64")]
                if crate::arch::features().avx2() {
                    assert_eq!(unsafe { line_matches_avx2(&line, h2, probes) }, serial);
                }
            }
        }
    }

    /// A `LinesAt` gives back the lines it was made from, every byte read
    /// through its address (no AVX2 involved: Miri runs this one, which
    /// checks that the address covers all the lines, not the first only).
    #[test]
    fn lines_at_attaches_to_the_same_lines() {
        for n in [1u32, 50, 400] {
            let mut b = crate::FilterBuilder::new(crate::Policy::Bloom, 10.0).expect("a policy");
            (0..n).for_each(|i| b.add_key(&i.to_le_bytes()));
            let block = b.finish().expect("builds");
            let g = decode(&block).expect("FastLocalBloom");
            let direct = g.lines_of(&block).expect("lines");
            // SAFETY: `block` is alive and unchanged while `kept` is used.
            let kept = unsafe { g.lines_at(&block).attach() };
            assert_eq!(
                (kept.lines.as_ptr(), kept.lines.len()),
                (direct.lines.as_ptr(), direct.lines.len()),
                "{n} keys"
            );
            assert!(std::ptr::eq(kept.lanes, direct.lanes), "{n} keys");
            let sum = |l: &Lines<'_>| l.lines.iter().flatten().map(|&x| u64::from(x)).sum::<u64>();
            assert_eq!(sum(&kept), sum(&direct), "{n} keys");
        }
        // SAFETY: no bytes behind it.
        assert!(unsafe { LinesAt::ALONE.attach() }.is_alone());
    }

    #[test]
    fn space_rounds_to_cache_lines_plus_trailer() {
        assert_eq!(calculate_space(1, 10000), 64 + 5);
        assert_eq!(calculate_space(51, 10000), 64 + 5); // 63.75 bytes
        assert_eq!(calculate_space(52, 10000), 128 + 5);
        assert_eq!(calculate_space(usize::MAX / 2, 100000), MAX_LEN + 5);
    }
}
