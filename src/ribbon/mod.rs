//! RocksDB's Standard128Ribbon filter, bit for bit, over 64-bit key hashes.
//!
//! Ribbon ("Rapid Incremental Boolean Banding ON-the-fly") stores, for a set
//! of keys, a solution matrix `S` (num_slots x b bits) such that for every
//! added key `k`: `coeff_row(k) . S[start(k) .. start(k)+128] == result_row(k)`
//! in GF(2), restricted to the first b bits. A query recomputes the 128-bit
//! coefficient row and the start slot and checks the b parities; a key not
//! added matches each column with probability 1/2, hence FP rate 2^-b.
//! Fractional b is achieved by mixing blocks of b-1 and b columns.
//!
//! Where RocksDB defines each rule (RocksDB 11.12 source tree):
//! * policy glue, trailer, fallbacks, sizing entry points:
//!   `table/block_based/filter_policy.cc` (`Standard128RibbonBitsBuilder`,
//!   `Standard128RibbonBitsReader`, `GetRibbonBitsReader`,
//!   `Standard128RibbonRehasherTypesAndSettings`);
//! * hashing, banding storage, interleaved solution layout and byte sizing:
//!   `util/ribbon_impl.h` (see [`hasher`], [`config`]);
//! * banding, back-substitution, interleaved queries: `util/ribbon_alg.h`
//!   (see [`banding`] and [`RibbonGeometry`]);
//! * slots-per-key tables: `util/ribbon_config.cc` (see [`config`]).
//!
//! # Block format (as written by `Standard128RibbonBitsBuilder::Finish`)
//! ```text
//! [ segments: num_segments x 16 bytes, little-endian u128 ]
//! [ 0xFE (-2: "Ribbon") | ordinal seed u8 | num_blocks: u24 LE ]   5-byte trailer
//! ```
//! Nothing else is stored: the column layout is re-derived from
//! `num_blocks` and the byte length ([`config::Layout::configure`]), and the
//! raw hash seed from the ordinal seed ([`hasher::ordinal_to_raw_seed`]).
//! Block `k` (128 slots) occupies `b_k` consecutive segments, one per
//! solution column; bit `s` of a block's column-j segment is the solution bit
//! for slot `128k + s`, column j. Blocks below `upper_start_block` have
//! `upper_num_columns - 1` columns, the rest `upper_num_columns`.
//!
//! This module takes keys as already-computed 64-bit hashes (RocksDB's
//! `GetSliceHash64`) and assumes `optimize_filters_for_memory` is off (no
//! `malloc_usable_size` rounding of the length).

mod banding;
mod config;
mod hasher;
#[cfg(test)]
mod tests;

pub use config::RibbonFailure;
use config::{Layout, COEFF_BITS, MAX_COLUMNS, SEGMENT_BYTES};

use crate::arch::{prefetch, Features};
use crate::error::{Error, Result};
#[cfg(target_arch = "x86_64")]
use crate::format::Route;
use crate::format::{Format, METADATA_LEN};

/// `Standard128RibbonBitsBuilder::kMaxRibbonEntries`: above this RocksDB
/// always uses the Bloom builder (keeps num_slots, bytes and the 24-bit
/// num_blocks comfortably in range).
pub const MAX_RIBBON_ENTRIES: usize = 950_000_000;

/// Trailer byte 0 for Standard128 Ribbon (`-2` as `char`).
pub(crate) const MARKER: u8 = 0xFE;

/// A Ribbon filter's size for a number of entries: what RocksDB's
/// `Standard128RibbonBitsBuilder::CalculateSpaceAndSlots` computes. Whether
/// RocksDB builds it or falls back to Bloom is the policy's decision
/// (`policy::Plan`, which compares it with the Bloom size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizing {
    pub(crate) num_slots: u32,
    /// Block length, trailer included.
    pub(crate) len: usize,
}

impl Sizing {
    /// The expected FP rate of this geometry (`ExpectedFpRate` of the
    /// interleaved solution: the column split follows from the slot count
    /// and the length, as the reader derives it).
    pub(crate) fn expected_fp_rate(&self) -> f64 {
        Layout::configure(self.num_slots / COEFF_BITS, self.len).expected_fp_rate()
    }
}

/// The Ribbon sizing for `num_entries` (>= 1) entries whose first hash
/// (in the order RocksDB holds them) is `first_hash`, at
/// `desired_one_in_fp_rate`, with the slots of RocksDB's banding table for
/// `cfc` (the policy's is 1 in 20); `None` above [`MAX_RIBBON_ENTRIES`].
pub(crate) fn sizing(
    num_entries: usize,
    first_hash: u64,
    desired_one_in_fp_rate: f64,
    cfc: RibbonFailure,
) -> Option<Sizing> {
    let num_slots = num_slots(num_entries, cfc)?;
    // The upper half of the first hash biases the rounding of the
    // b-1/b column split (see config::bytes_for_one_in_fp_rate); the lower
    // half picks the first seed (see `solve`). Independent bits for both.
    let rounding_bias32 = (first_hash >> 32) as u32;
    let len = config::bytes_for_one_in_fp_rate(num_slots, desired_one_in_fp_rate, rounding_bias32) + METADATA_LEN;
    Some(Sizing { num_slots, len })
}

/// The most accurate Ribbon block for `num_entries` (>= 1) entries in at
/// most `max_len` bytes (trailer included): the slots of `cfc`'s table and
/// as many whole 16-byte segments as fit, up to 32 columns per slot (more
/// would be ignored by the reader). `None` above [`MAX_RIBBON_ENTRIES`] or
/// when not even one segment fits.
pub(crate) fn sizing_within(num_entries: usize, max_len: usize, cfc: RibbonFailure) -> Option<Sizing> {
    let num_slots = num_slots(num_entries, cfc)?;
    let most = (num_slots / COEFF_BITS) as usize * MAX_COLUMNS as usize;
    let segments = (max_len.checked_sub(METADATA_LEN)? / SEGMENT_BYTES).min(most);
    (segments > 0).then_some(Sizing { num_slots, len: segments * SEGMENT_BYTES + METADATA_LEN })
}

/// Slots (whole blocks) for `num_entries` entries with `cfc`'s table.
fn num_slots(num_entries: usize, cfc: RibbonFailure) -> Option<u32> {
    (num_entries <= MAX_RIBBON_ENTRIES).then(|| config::num_entries_to_num_slots(cfc, num_entries as u32))
}

/// A solved banding, ready for [`write`]. Splitting the build in two lets
/// the caller free the key hashes in between (RocksDB's `ResetEntries()`
/// before allocating the filter), which lowers the peak memory.
pub(crate) struct Solved {
    banding: banding::Banding,
    seed: u32,
    num_slots: u32,
    len_with_metadata: usize,
}

/// Banding (`ResetAndFindSeedToSolve`) of the hashes, given as consecutive
/// parts, into a table of `sizing` (from [`sizing`] for these hashes).
/// `None` when all 256 seeds fail: RocksDB then hands the same entries to
/// its Bloom builder.
pub(crate) fn solve(parts: &[&[u64]], sizing: Sizing) -> Option<Solved> {
    let first = parts.iter().find_map(|p| p.first().copied())?;
    let Sizing { num_slots, len: len_with_metadata } = sizing;
    let mut banding = banding::Banding::new(num_slots);
    // None: "Too many re-seeds (256) for Ribbon filter". num_slots is sized
    // so one seed fails ~1 time in 20 (less for small filters), and seeds
    // fail nearly independently, so this is practically unreachable;
    // duplicate hashes never cause it (their equations cancel exactly).
    let seed = banding.find_seed_to_solve(parts, first as u32)?;
    Some(Solved { banding, seed, num_slots, len_with_metadata })
}

impl Solved {
    /// Length of the block [`write_into`] writes, trailer included.
    pub(crate) fn len(&self) -> usize {
        self.len_with_metadata
    }
}

/// Back-substitution into the interleaved layout, plus the trailer, into
/// `block`: a zeroed buffer of `s.len()` bytes.
pub(crate) fn write_into(s: Solved, block: &mut [u8]) {
    let Solved { banding, seed, num_slots, len_with_metadata } = s;
    debug_assert_eq!(block.len(), len_with_metadata);
    let num_blocks = num_slots / COEFF_BITS;
    // Same derivation the reader will do (RocksDB hands the solution the
    // length *with* metadata; data length is a multiple of 16 and 5 < 16, so
    // the segment count is the same).
    let layout = Layout::configure(num_blocks, len_with_metadata);
    banding.back_subst_into(&layout, block);
    drop(banding);
    debug_assert!(num_blocks < 0x100_0000);
    let t = len_with_metadata - METADATA_LEN;
    block[t] = MARKER;
    block[t + 1] = seed as u8;
    block[t + 2..].copy_from_slice(&num_blocks.to_le_bytes()[..3]);
}

/// `Standard128RibbonBitsBuilder::EstimatedFpRate`, Ribbon branch: expected
/// FP rate of a Ribbon filter RocksDB would size for `num_entries` and that
/// has `len_with_metadata` bytes. For `num_entries > MAX_RIBBON_ENTRIES`
/// RocksDB answers with the Bloom estimate instead; callers must do that
/// themselves (here the entry count is clamped). Like RocksDB, returns NaN
/// for `num_entries == 0` with a non-trivial length.
pub fn estimated_fp_rate(num_entries: usize, len_with_metadata: usize) -> f64 {
    if len_with_metadata <= METADATA_LEN {
        return if num_entries > 0 { 1.0 } else { 0.0 };
    }
    let n = num_entries.min(MAX_RIBBON_ENTRIES) as u32;
    let num_slots = config::num_entries_to_num_slots(RibbonFailure::OneIn20, n);
    Layout::configure(num_slots / COEFF_BITS, len_with_metadata).expected_fp_rate()
}

/// A parsed Ribbon filter geometry (everything a query needs besides the
/// data bytes). Cheap to copy; holds no borrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RibbonGeometry {
    /// From the trailer: number of 128-slot blocks (>= 2).
    pub num_blocks: u32,
    /// From the trailer: ordinal seed (0..=255).
    pub seed: u8,
    /// Columns ("b") in blocks `>= upper_start_block`; lower blocks have b-1.
    pub upper_num_columns: u32,
    pub upper_start_block: u32,
    /// Segments (16-byte column slices) in use; `num_segments * 16 <= data.len()`.
    pub num_segments: u32,
    /// `num_blocks * 128 - 127`: valid start slots.
    pub num_starts: u32,
    /// Hash seed derived from `seed`.
    pub raw_seed: u32,
}

/// Per-key state between [`RibbonGeometry::prepare`] and
/// [`RibbonGeometry::query_prepared`] (RocksDB's `SavedData` in
/// `Standard128RibbonBitsReader::MayMatch` batch form).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RibbonPrepared {
    /// Seeded (rehashed) key hash.
    seeded_hash: u64,
    /// First segment the query reads.
    segment_num: u32,
    /// Columns to check (b or b-1).
    num_columns: u32,
    /// Position of the start slot within its block.
    start_bit: u32,
}

impl RibbonPrepared {
    /// Byte range of `data` the query will read (for prefetching).
    pub fn byte_range(&self) -> core::ops::Range<usize> {
        let cols = self.num_columns as usize;
        let count = if self.start_bit == 0 { cols } else { 2 * cols };
        let begin = self.segment_num as usize * SEGMENT_BYTES;
        begin..begin + count * SEGMENT_BYTES
    }

    /// Prefetches the window's first and last lines in `data` (2 * 7
    /// segments at 10 bits/key: 224 bytes; the hardware prefetcher follows
    /// the lines in between). RocksDB's `PrefetchSegmentRange` issues every
    /// line: 4-5 per key x 32 keys overflow the core's miss queue and
    /// measured slower (15.9 -> 23.8 ns per key at 1M keys, `bench/compare`).
    /// Every batch that prepares Ribbon keys ahead of their
    /// queries (the full filter's, the routed one over partitions, and
    /// `Filter::prepare_probe`) prefetches through here.
    #[inline(always)]
    pub(crate) fn prefetch(&self, data: &[u8]) {
        let range = self.byte_range();
        prefetch(data, range.start);
        prefetch(data, range.end.saturating_sub(1));
    }
}

/// The bytes and masks a query combines (see [`RibbonGeometry::window`]).
struct Window<'d> {
    /// `num_columns` segments of the start block, from its first column.
    left: &'d [u8],
    /// As many segments of the next block (or `left` again, masked out).
    right: &'d [u8],
    cr_left: u128,
    cr_right: u128,
    expected: u32,
}

impl Window<'_> {
    /// The segments (columns) on each side: both sides have as many
    /// (`RibbonGeometry::window`), and a vector query's loads stay within
    /// `16 * columns()` bytes of each.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn columns(&self) -> usize {
        self.left.len().min(self.right.len()) / SEGMENT_BYTES
    }

    /// The answer for the window's column parities, bit k column k's:
    /// whether every column reproduces its bit of the result row (bits
    /// past `columns()` ignored).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn matches(&self, parities: u32) -> bool {
        (parities ^ self.expected) & ((1 << self.columns()) - 1) == 0
    }
}

/// SSE2 pieces of the Ribbon query (SSE2 is part of the x86-64 baseline,
/// so these need no feature detection).
#[cfg(target_arch = "x86_64")]
mod sse {
    use core::arch::x86_64::*;

    /// A 128-bit mask as a register (low 64 bits in the low lane).
    #[inline(always)]
    pub(super) fn split(x: u128) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_set_epi64x((x >> 64) as i64, x as i64) }
    }

    /// One column: `(l & ml) ^ (r & mr)` over 16-byte segments, folded to 64
    /// bits (its parity is the parity of the 128 bits).
    #[inline(always)]
    pub(super) fn column_fold(l: &[u8], r: &[u8], ml: __m128i, mr: __m128i) -> i64 {
        assert!(l.len() >= 16 && r.len() >= 16);
        // SAFETY: SSE2 (baseline); 16 readable bytes each (asserted, and
        // callers pass 16-byte chunks, so the assert folds away).
        unsafe {
            let l = _mm_loadu_si128(l.as_ptr() as *const __m128i);
            let r = _mm_loadu_si128(r.as_ptr() as *const __m128i);
            let x = _mm_xor_si128(_mm_and_si128(l, ml), _mm_and_si128(r, mr));
            _mm_cvtsi128_si64(x) ^ _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x))
        }
    }
}

impl RibbonGeometry {
    /// Parse the trailer of a whole filter block (marker expected to be -2)
    /// the way `BuiltinFilterPolicy::GetRibbonBitsReader` does.
    ///
    /// `Ok(None)`: `num_blocks < 2`, which RocksDB reads as an always-true
    /// filter (it never writes it: one block would mean a single start).
    ///
    /// `Err` for blocks RocksDB's writer can never produce and that RocksDB's
    /// reader would silently misread rather than reject: too short for the
    /// trailer, a wrong marker, a data length that is not a whole number of
    /// 16-byte segments (RocksDB always rounds to whole segments, even when
    /// rounding to allocator sizes), or a block of 2^32 bytes or more
    /// (RocksDB truncates the length to 32 bits and would read the trailer
    /// from the wrong place). Every other combination of `num_blocks` and
    /// length is accepted and answered exactly as RocksDB answers it; the
    /// derived layout never needs more than `data.len()` bytes (surplus bytes
    /// beyond 32 columns per block are ignored, and blocks left without
    /// columns answer "may match").
    pub fn parse(block: &[u8]) -> Result<Option<RibbonGeometry>, String> {
        let len_with_meta = block.len();
        if len_with_meta < METADATA_LEN {
            return Err(format!(
                "ribbon filter block: length {len_with_meta} is shorter than the {METADATA_LEN}-byte trailer"
            ));
        }
        if len_with_meta > u32::MAX as usize {
            return Err(format!(
                "ribbon filter block: length {len_with_meta} does not fit in 32 bits (RocksDB truncates it)"
            ));
        }
        let len = len_with_meta - METADATA_LEN;
        let t = &block[len..];
        if t[0] != MARKER {
            return Err(format!(
                "ribbon filter block: metadata at block offset {len}: expected marker 0xfe (-2), found {:#04x}",
                t[0]
            ));
        }
        let seed = t[1];
        let num_blocks = u32::from_le_bytes([t[2], t[3], t[4], 0]);
        if num_blocks < 2 {
            return Ok(None);
        }
        // A data length that is not whole 16-byte segments: RocksDB's
        // InternalConfigure uses the whole segments (GetNumSegments floors)
        // and ignores the rest; so does from_parts.
        Ok(Some(Self::from_parts(num_blocks, seed, len)))
    }

    /// Geometry for `num_blocks` (>= 2) and `data_len` bytes of segments,
    /// as `Standard128RibbonBitsReader`'s constructor derives it.
    fn from_parts(num_blocks: u32, seed: u8, data_len: usize) -> RibbonGeometry {
        let layout = Layout::configure(num_blocks, data_len);
        RibbonGeometry {
            num_blocks,
            seed,
            upper_num_columns: layout.upper_num_columns,
            upper_start_block: layout.upper_start_block,
            num_segments: layout.num_segments,
            num_starts: layout.num_starts(),
            raw_seed: hasher::ordinal_to_raw_seed(u32::from(seed)),
        }
    }

    /// `(lower_num_columns, blocks_with_upper_num_columns)`: blocks
    /// `0..upper_start_block` have `upper_num_columns - 1` columns, the other
    /// `num_blocks - upper_start_block` have `upper_num_columns`.
    #[cfg(test)]
    pub fn num_columns_fraction(&self) -> (u32, u32) {
        (self.upper_num_columns.saturating_sub(1), self.num_blocks - self.upper_start_block)
    }

    /// Expected FP rate of this geometry (`ExpectedFpRate`).
    #[cfg(test)]
    pub fn expected_fp_rate(&self) -> f64 {
        Layout {
            num_blocks: self.num_blocks,
            num_segments: self.num_segments,
            upper_num_columns: self.upper_num_columns,
            upper_start_block: self.upper_start_block,
        }
        .expected_fp_rate()
    }

    /// `InterleavedPrepareQuery`: everything that does not touch the data.
    /// The start slot's block decides where its segments are and whether it
    /// is a lower (b-1 columns) block; no division (multiply-shift range
    /// reduction, power-of-two block size).
    #[inline(always)]
    pub fn prepare(&self, h: u64) -> RibbonPrepared {
        let seeded_hash = hasher::rehash(h, self.raw_seed);
        let start_slot = hasher::start(seeded_hash, self.num_starts);
        let start_block = start_slot / COEFF_BITS;
        let is_lower = start_block < self.upper_start_block;
        // Lower blocks precede upper ones, one segment fewer each.
        // (Wrapping ops: values from `parse` never wrap, but the fields are
        // public and a hand-made geometry must not panic.)
        let segment_num =
            start_block.wrapping_mul(self.upper_num_columns).wrapping_sub(start_block.min(self.upper_start_block));
        RibbonPrepared {
            seeded_hash,
            segment_num,
            num_columns: self.upper_num_columns.wrapping_sub(u32::from(is_lower)),
            start_bit: start_slot % COEFF_BITS,
        }
    }

    /// `InterleavedFilterQuery`, portable code. The 128-slot window from the
    /// start slot covers the tail of the start block and (unless
    /// `start_bit == 0`) the head of the next one, whose first `num_columns`
    /// segments immediately follow the start block's. Returns `true` ("may
    /// match") if `data` is too short for the prepared range, so it never
    /// panics.
    #[inline]
    pub fn query_prepared(&self, data: &[u8], p: &RibbonPrepared) -> bool {
        self.query_prepared_impl(data, p)
    }

    /// [`Self::query_prepared`] inlined into callers compiled with the
    /// features they want (POPCNT).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn query_prepared_inline(&self, data: &[u8], p: &RibbonPrepared) -> bool {
        self.query_prepared_impl(data, p)
    }

    /// The 128-slot window from the start slot: the start block's columns
    /// shifted left by start_bit, xor the next block's shifted right. With
    /// start_bit == 0 there is no next block: the "right" segments alias the
    /// left ones under an all-zero mask. `None` if `data` is too short.
    #[inline(always)]
    fn window<'d>(data: &'d [u8], p: &RibbonPrepared) -> Option<Window<'d>> {
        let cr = hasher::coeff_row(p.seeded_hash);
        let bytes = data.get(p.byte_range())?;
        let cols = p.num_columns as usize * SEGMENT_BYTES;
        let (cr_left, cr_right, right_at) =
            if p.start_bit == 0 { (cr, 0, 0) } else { (cr << p.start_bit, cr >> (COEFF_BITS - p.start_bit), cols) };
        Some(Window {
            left: bytes.get(..cols)?,
            right: bytes.get(right_at..right_at + cols)?,
            cr_left,
            cr_right,
            // Column i must reproduce bit i of the result row: the parity
            // of the window's bits selected by the coefficient row.
            expected: hasher::result_row(p.seeded_hash),
        })
    }

    #[inline(always)]
    fn query_prepared_impl(&self, data: &[u8], p: &RibbonPrepared) -> bool {
        let Some(w) = Self::window(data, p) else { return true };
        let columns = w.left.chunks_exact(SEGMENT_BYTES).zip(w.right.chunks_exact(SEGMENT_BYTES));
        let mut expected = w.expected;
        #[cfg(target_arch = "x86_64")]
        {
            // SSE2 (x86-64 baseline): a segment is one 128-bit register, so
            // the and/xor per column are two instructions instead of six,
            // and no general registers run out (no spills).
            let mut mismatch = 0;
            let (ml, mr) = (sse::split(w.cr_left), sse::split(w.cr_right));
            for (l, r) in columns {
                // No early exit: on an absent key the first mismatching
                // column is random, and the mispredicted exit costs more
                // (it also discards the next queries' work in flight) than
                // finishing the few remaining columns.
                mismatch |= (sse::column_fold(l, r, ml, mr).count_ones() ^ expected) & 1;
                expected >>= 1;
            }
            mismatch == 0
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let seg = |chunk: &[u8]| u128::from_le_bytes(chunk.try_into().expect("16-byte segment"));
            for (l, r) in columns {
                let x = (seg(l) & w.cr_left) ^ (seg(r) & w.cr_right);
                if (((x as u64) ^ ((x >> 64) as u64)).count_ones() ^ expected) & 1 != 0 {
                    return false;
                }
                expected >>= 1;
            }
            true
        }
    }

    /// `query_prepared` with AVX2: two columns (two adjacent 16-byte
    /// segments) per 256-bit register, up to 8 columns in one straight
    /// pass ([`query_prepared_avx2`]).
    /// Safety: the CPU must support AVX2 and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    pub(crate) unsafe fn query_prepared_avx2(&self, data: &[u8], p: &RibbonPrepared) -> bool {
        // SAFETY: the caller's contract.
        unsafe { query_prepared_avx2(data, p) }
    }

    /// `query_prepared` with AVX-512 ([`query_prepared_avx512`]).
    /// Safety: the CPU must support AVX-512 F and VPOPCNTDQ, AVX2 and
    /// POPCNT.
    #[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
    #[target_feature(enable = "avx2,popcnt,avx512f,avx512vpopcntdq")]
    #[inline]
    pub(crate) unsafe fn query_prepared_avx512(&self, data: &[u8], p: &RibbonPrepared) -> bool {
        // SAFETY: the caller's contract.
        unsafe { query_prepared_avx512(data, p) }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn may_match_batch_avx2<'k>(&self, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_batch_impl::<AVX2>(data, key, results)
    }

    #[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
    #[target_feature(enable = "avx2,popcnt,avx512f,avx512vpopcntdq")]
    unsafe fn may_match_batch_avx512<'k>(&self, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_batch_impl::<AVX512>(data, key, results)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn may_match_batch_popcnt<'k>(&self, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_batch_impl::<SCALAR>(data, key, results)
    }

    /// `WIDTH`: [`AVX2`] only from `may_match_batch_avx2` (AVX2 and POPCNT
    /// detected), [`AVX512`] only from `may_match_batch_avx512`.
    #[inline(always)]
    fn may_match_batch_impl<'k, const WIDTH: u8>(
        &self,
        data: &[u8],
        key: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    ) {
        let mut prepared = [RibbonPrepared::default(); MAX_BATCH];
        let batch = batch_size(WIDTH);
        let n = results.len();
        for start in (0..n).step_by(batch) {
            let m = batch.min(n - start);
            for (j, p) in prepared[..m].iter_mut().enumerate() {
                *p = self.prepare(crate::hash::hash64_inline(key(start + j)));
                p.prefetch(data);
            }
            for (r, p) in results[start..start + m].iter_mut().zip(&prepared[..m]) {
                *r = match WIDTH {
                    #[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
                    // SAFETY: WIDTH == AVX512 only from may_match_batch_avx512.
                    AVX512 => unsafe { self.query_prepared_avx512(data, p) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: WIDTH == AVX2 only from may_match_batch_avx2.
                    AVX2 => unsafe { self.query_prepared_avx2(data, p) },
                    _ => self.query_prepared_impl(data, p),
                };
            }
        }
    }

    /// `Standard128RibbonBitsReader::HashMayMatch`, portable code. `data` is
    /// the whole block (the trailer is never read: every window lies within
    /// the geometry's segments). Never panics, never reads outside `data`.
    #[inline]
    pub fn may_match_hash(&self, data: &[u8], h: u64) -> bool {
        self.query_prepared(data, &self.prepare(h))
    }
}

/// [`RibbonGeometry::query_prepared`] with AVX2. Windows of up to 8
/// columns (every filter of up to 12 bits per key; 7 columns at 10) take
/// one straight pass: two columns (two adjacent 16-byte segments) per
/// 256-bit register, four masked loads per side; the 8 columns are folded
/// to 32 bits across the registers (four unpacks and two xors to 64 bits,
/// two shuffles and an xor to 32, one VPERMD to put them in order), the 8
/// parities taken at once by shifts and one VMOVMSKPS, and
/// compared with the expected result row in one step. Wider windows loop
/// over column pairs ([`query_wide_avx2`]). Loads are masked to the
/// window's columns, so nothing past the window is read. Against the
/// column-pair loop for every window, in one process on a Xeon (family 6
/// model 207, `ROCKSFILTER_NO_AVX512=1`), full filter, 10 bits/key,
/// 20-byte keys, medians: 1M keys batch 20.6-23.2 -> 17.4-18.4 ns per key,
/// single 26.0-28.7 -> 21.9-24.6; 10M keys batch 36.4 -> 30.0 (quiet run).
/// Safety: the CPU must support AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(crate) unsafe fn query_prepared_avx2(data: &[u8], p: &RibbonPrepared) -> bool {
    use core::arch::x86_64::*;
    /// 16 enabled 64-bit lanes, then 16 disabled: the 4 load masks of a
    /// window of `cols` columns (`2 * cols` lanes) start at lane
    /// `16 - 2 * cols`.
    static LANES: [i64; 32] = {
        let mut t = [0i64; 32];
        let mut i = 0;
        while i < 16 {
            t[i] = -1;
            i += 1;
        }
        t
    };
    if p.num_columns > 8 {
        // SAFETY: the caller's contract.
        return unsafe { query_wide_avx2(data, p) };
    }
    let Some(w) = RibbonGeometry::window(data, p) else { return true };
    let (ml, mr) =
        (_mm256_broadcastsi128_si256(sse::split(w.cr_left)), _mm256_broadcastsi128_si256(sse::split(w.cr_right)));
    // At most 8 (above).
    let cols = w.columns();
    let lanes = &LANES[16 - 2 * cols..];
    // Register k: columns 2k and 2k + 1, bytes 32k.. of each side, its
    // lanes enabled only within the side's 16 * cols bytes (masked-off
    // lanes are not read and load as 0). A register with no lane enabled
    // points at the side's end (in bounds or one past it: nothing is read).
    macro_rules! column_pair {
        ($k:expr) => {{
            let k: usize = $k;
            // SAFETY: `lanes` has 16 + 2 * cols >= 4k + 4 entries; the
            // loads read only enabled lanes, each 8 bytes at 8 * i < 16 *
            // cols - 32k past `at`, within each side's 16 * cols bytes;
            // `at` is at most the slice's length.
            unsafe {
                let mask = _mm256_loadu_si256(lanes[4 * k..4 * k + 4].as_ptr() as *const __m256i);
                let at = (32 * k).min(w.left.len());
                let l = _mm256_maskload_epi64(w.left.as_ptr().add(at) as *const i64, mask);
                let r = _mm256_maskload_epi64(w.right.as_ptr().add(at) as *const i64, mask);
                _mm256_xor_si256(_mm256_and_si256(l, ml), _mm256_and_si256(r, mr))
            }
        }};
    }
    let (x0, x1, x2, x3) = (column_pair!(0), column_pair!(1), column_pair!(2), column_pair!(3));
    // Each column's two 64-bit halves xored (same parity): [c0 c2 | c1 c3]
    // and [c4 c6 | c5 c7] as 64-bit lanes.
    let p0 = _mm256_xor_si256(_mm256_unpacklo_epi64(x0, x1), _mm256_unpackhi_epi64(x0, x1));
    let p1 = _mm256_xor_si256(_mm256_unpacklo_epi64(x2, x3), _mm256_unpackhi_epi64(x2, x3));
    // Then their 32-bit halves: [c0 c2 c4 c6 | c1 c3 c5 c7] as 32-bit lanes.
    let (f0, f1) = (_mm256_castsi256_ps(p0), _mm256_castsi256_ps(p1));
    let even = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(f0, f1));
    let odd = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(f0, f1));
    let c = _mm256_permutevar8x32_epi32(_mm256_xor_si256(even, odd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    // Each lane's parity into its sign bit.
    let c = _mm256_xor_si256(c, _mm256_slli_epi32::<16>(c));
    let c = _mm256_xor_si256(c, _mm256_slli_epi32::<8>(c));
    let c = _mm256_xor_si256(c, _mm256_slli_epi32::<4>(c));
    let c = _mm256_xor_si256(c, _mm256_slli_epi32::<2>(c));
    let c = _mm256_xor_si256(c, _mm256_slli_epi32::<1>(c));
    let parities = _mm256_movemask_ps(_mm256_castsi256_ps(c)) as u32;
    // (Columns past the window loaded as 0: parity 0, ignored.)
    w.matches(parities)
}

/// [`query_prepared_avx2`] for windows of more than 8 columns: two columns
/// per 256-bit register, so the and/xor/fold of a column pair costs what
/// one column costs with SSE2. Out of line but not `#[cold]`: every query
/// of a filter above 12 bits per key comes here.
/// Safety: the CPU must support AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline(never)]
unsafe fn query_wide_avx2(data: &[u8], p: &RibbonPrepared) -> bool {
    use core::arch::x86_64::*;
    let Some(w) = RibbonGeometry::window(data, p) else { return true };
    let (ml, mr) = (sse::split(w.cr_left), sse::split(w.cr_right));
    let (ml2, mr2) = (_mm256_broadcastsi128_si256(ml), _mm256_broadcastsi128_si256(mr));
    let mut expected = w.expected;
    let mut mismatch = 0;
    let mut lefts = w.left.chunks_exact(2 * SEGMENT_BYTES);
    let mut rights = w.right.chunks_exact(2 * SEGMENT_BYTES);
    for (l, r) in (&mut lefts).zip(&mut rights) {
        // SAFETY: chunks_exact yields 32-byte slices: unaligned loads.
        let (l, r) = unsafe {
            (_mm256_loadu_si256(l.as_ptr() as *const __m256i), _mm256_loadu_si256(r.as_ptr() as *const __m256i))
        };
        let x = _mm256_xor_si256(_mm256_and_si256(l, ml2), _mm256_and_si256(r, mr2));
        // Each 128-bit lane (a column) folded to 64 bits: lo ^ hi.
        let f = _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x));
        let a = _mm_cvtsi128_si64(_mm256_castsi256_si128(f)).count_ones();
        let b = _mm_cvtsi128_si64(_mm256_extracti128_si256::<1>(f)).count_ones();
        mismatch |= ((a ^ expected) | (b ^ (expected >> 1))) & 1;
        expected >>= 2;
    }
    // An odd column count leaves one segment on each side.
    let (l, r) = (lefts.remainder(), rights.remainder());
    if l.len() == SEGMENT_BYTES && r.len() == SEGMENT_BYTES {
        mismatch |= (sse::column_fold(l, r, ml, mr).count_ones() ^ expected) & 1;
    }
    mismatch == 0
}

/// [`RibbonGeometry::query_prepared`] with AVX-512: four columns (four
/// adjacent 16-byte segments, 64 bytes) per 512-bit register, the parity
/// of every column by VPOPCNTQ. Windows of up to 8 columns (every filter
/// of up to 12 bits per key; 7 columns at 10) take one straight
/// pass: two registers per side, the 8 columns' two halves brought
/// together by two VPERMT2Qs so that one VPOPCNTQ and one test give all 8
/// parities as the bits of a mask, compared with the expected result row
/// at once. Wider windows loop over 4 columns at a time. Loads are masked
/// to the window's columns, so nothing past the window is read.
/// Safety: the CPU must support AVX-512 F and VPOPCNTDQ, AVX2 and POPCNT.
#[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512vpopcntdq")]
#[inline]
// Compiled only by Rust 1.89 or later (`rocksfilter_avx512`, build.rs), which
// the MSRV lint cannot see.
#[allow(clippy::incompatible_msrv)]
pub(crate) unsafe fn query_prepared_avx512(data: &[u8], p: &RibbonPrepared) -> bool {
    use core::arch::x86_64::*;
    if p.num_columns > 8 {
        // SAFETY: the caller's contract.
        return unsafe { query_wide_avx512(data, p) };
    }
    let Some(w) = RibbonGeometry::window(data, p) else { return true };
    let (ml, mr) = (_mm512_broadcast_i32x4(sse::split(w.cr_left)), _mm512_broadcast_i32x4(sse::split(w.cr_right)));
    // At most 8 (above).
    let cols = w.columns();
    // The 2 * cols 64-bit lanes of the window, 8 per register.
    let lanes = (1u32 << (2 * cols)) - 1;
    let (k0, k1) = (lanes as __mmask8, (lanes >> 8) as __mmask8);
    // Where the second register's columns start: byte 64, or the slice's
    // end when there are none (k1 = 0: nothing is read).
    let second = 64.min(w.left.len());
    // SAFETY: lane i of a load is enabled only if 8 * i < 16 * cols (plus
    // 64 for the second register), within each side's 16 * cols bytes;
    // masked loads do not touch disabled lanes. `second` is at most the
    // slice's length, so both pointers are in bounds or one past the end.
    let (l0, l1, r0, r1) = unsafe {
        (
            _mm512_maskz_loadu_epi64(k0, w.left.as_ptr() as *const i64),
            _mm512_maskz_loadu_epi64(k1, w.left.as_ptr().add(second) as *const i64),
            _mm512_maskz_loadu_epi64(k0, w.right.as_ptr() as *const i64),
            _mm512_maskz_loadu_epi64(k1, w.right.as_ptr().add(second) as *const i64),
        )
    };
    // Columns 0-3 and 4-7, each as two 64-bit halves.
    let x0 = _mm512_xor_si512(_mm512_and_si512(l0, ml), _mm512_and_si512(r0, mr));
    let x1 = _mm512_xor_si512(_mm512_and_si512(l1, ml), _mm512_and_si512(r1, mr));
    // Lane k: column k's low half xor its high half (same parity).
    let lo = _mm512_permutex2var_epi64(x0, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), x1);
    let hi = _mm512_permutex2var_epi64(x0, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), x1);
    let parities =
        u32::from(_mm512_test_epi64_mask(_mm512_popcnt_epi64(_mm512_xor_si512(lo, hi)), _mm512_set1_epi64(1)));
    w.matches(parities)
}

/// [`query_prepared_avx512`] for windows of more than 8 columns: 4 columns
/// per step, each folded to 64 bits in place, the step's 4 parities
/// compared with 4 expected bits. Out of line but not `#[cold]`: every
/// query of a filter above 12 bits per key comes here.
/// Safety: the CPU must support AVX-512 F and VPOPCNTDQ, AVX2 and POPCNT.
#[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512vpopcntdq")]
#[inline(never)]
#[allow(clippy::incompatible_msrv)]
unsafe fn query_wide_avx512(data: &[u8], p: &RibbonPrepared) -> bool {
    use core::arch::x86_64::*;
    /// Bit i of a nibble moved to bit 2i: a step's 4 expected bits placed
    /// where its 8 lanes' parities have the columns' (the even lanes).
    const SPREAD: [u32; 16] = {
        let mut t = [0u32; 16];
        let mut v = 0;
        while v < 16 {
            let x = v as u32;
            t[v] = (x & 1) | (x & 2) << 1 | (x & 4) << 2 | (x & 8) << 3;
            v += 1;
        }
        t
    };
    let Some(w) = RibbonGeometry::window(data, p) else { return true };
    let (ml, mr) = (_mm512_broadcast_i32x4(sse::split(w.cr_left)), _mm512_broadcast_i32x4(sse::split(w.cr_right)));
    let cols = w.columns();
    let one = _mm512_set1_epi64(1);
    let mut expected = w.expected;
    let mut mismatch = 0;
    let mut c = 0;
    while c < cols {
        let n = (cols - c).min(4);
        // The 2n 64-bit lanes of this step's columns.
        let lanes = ((1u32 << (2 * n)) - 1) as __mmask8;
        // SAFETY: c + n <= cols, so the enabled lanes are bytes
        // c * 16 .. (c + n) * 16 of each side, within its slice; disabled
        // lanes are not read (masked loads suppress their faults).
        let (l, r) = unsafe {
            (
                _mm512_maskz_loadu_epi64(lanes, w.left.as_ptr().add(c * SEGMENT_BYTES) as *const i64),
                _mm512_maskz_loadu_epi64(lanes, w.right.as_ptr().add(c * SEGMENT_BYTES) as *const i64),
            )
        };
        let x = _mm512_xor_si512(_mm512_and_si512(l, ml), _mm512_and_si512(r, mr));
        // Each column folded to 64 bits (lo ^ hi, in both lanes), its
        // parity bit 0 of the population count.
        let f = _mm512_xor_si512(x, _mm512_shuffle_epi32::<_MM_PERM_BADC>(x));
        let parities = u32::from(_mm512_test_epi64_mask(_mm512_popcnt_epi64(f), one));
        mismatch |= ((parities & 0x55) ^ SPREAD[(expected & 0xF) as usize]) & SPREAD[(1 << n) - 1];
        expected >>= 4;
        c += 4;
    }
    mismatch == 0
}

/// A batch over many Standard128Ribbon filters, each key routed to one of
/// them (a partitioned filter's partitions): the full-filter batch's two
/// passes (hash and prepare every key of 32, prefetching its window's
/// first and last lines, then query), with the filter chosen per key.
/// `results[i]` answers key i; `route(i)` is called once per key, in
/// order.
///
/// Safety: the CPU supports AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn may_match_routed_avx2<'d, 'k>(
    route: impl FnMut(usize) -> Route<'d, 'k, RibbonGeometry>,
    results: &mut [bool],
) {
    may_match_routed::<AVX2>(route, results)
}

/// [`may_match_routed_avx2`] with the AVX-512 query.
///
/// Safety: the CPU supports AVX-512 F and VPOPCNTDQ, AVX2 and POPCNT.
#[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512vpopcntdq")]
pub(crate) unsafe fn may_match_routed_avx512<'d, 'k>(
    route: impl FnMut(usize) -> Route<'d, 'k, RibbonGeometry>,
    results: &mut [bool],
) {
    may_match_routed::<AVX512>(route, results)
}

/// `WIDTH`: [`AVX2`] only from `may_match_routed_avx2`, [`AVX512`] only
/// from `may_match_routed_avx512`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn may_match_routed<'d, 'k, const WIDTH: u8>(
    mut route: impl FnMut(usize) -> Route<'d, 'k, RibbonGeometry>,
    results: &mut [bool],
) {
    let mut prepared = [RibbonPrepared::default(); MAX_BATCH];
    let mut filters: [Option<&[u8]>; MAX_BATCH] = [None; MAX_BATCH];
    let batch = batch_size(WIDTH);
    let n = results.len();
    for start in (0..n).step_by(batch) {
        let m = batch.min(n - start);
        for j in 0..m {
            filters[j] = None;
            match route(start + j) {
                Route::Probe(data, g, key) => {
                    prepared[j] = g.prepare(crate::hash::hash64_inline(key));
                    prepared[j].prefetch(data);
                    filters[j] = Some(data);
                }
                Route::Answered(b) => results[start + j] = b,
            }
        }
        for j in 0..m {
            if let Some(data) = filters[j] {
                results[start + j] = match WIDTH {
                    #[cfg(rocksfilter_avx512)]
                    // SAFETY: WIDTH == AVX512 only from
                    // may_match_routed_avx512, whose caller's contract this is.
                    AVX512 => unsafe { query_prepared_avx512(data, &prepared[j]) },
                    // SAFETY: both entry points' contracts include AVX2 and
                    // POPCNT.
                    _ => unsafe { query_prepared_avx2(data, &prepared[j]) },
                };
            }
        }
    }
}

/// Keys per batch pass (hash and prefetch them all, then query them all)
/// for a kernel: 16 for AVX-512, 32 for the others (RocksDB's MultiGet
/// batch). AVX-512's straight-line query leaves fewer instructions between
/// a key's prefetch and its loads, so 16 keys in flight suffice where the
/// filter is in cache, and fewer lines queue for the fill buffers where it
/// is not. Measured on a Xeon (family 6 model 207), full filter, 10
/// bits/key, `Vec<u8>` keys, as a fraction of the previous kernel's time
/// in the same process: 1M keys about even (8 to 32 within noise); 10M
/// keys 0.87-0.88 with 32, 0.79-0.84 with 16 (8: 0.82, 12: 0.85, 24:
/// 0.86, 64: 0.89). The AVX2 kernel gained nothing from 16, before its
/// straight pass or after (1M keys 0.80-0.85 of the loop's time with 32,
/// 0.82-0.84 with 16; 10M 0.81-0.82 and 0.80-0.82). (Through the C API with
/// contiguous keys, `bench/compare`, no change showed.)
#[inline(always)]
const fn batch_size(width: u8) -> usize {
    if width == AVX512 {
        16
    } else {
        32
    }
}

/// The largest [`batch_size`]: what the batches' arrays hold (a const
/// generic cannot size an array on stable Rust, so they are sized once for
/// every kernel; AVX-512 uses the first 16 entries).
const MAX_BATCH: usize = 32;
const _: () =
    assert!(batch_size(SCALAR) <= MAX_BATCH && batch_size(AVX2) <= MAX_BATCH && batch_size(AVX512) <= MAX_BATCH);

/// A batch's query kernel, as a const parameter: SSE2 or POPCNT (the
/// safe `query_prepared_impl`), AVX2, AVX-512.
const SCALAR: u8 = 0;
const AVX2: u8 = 1;
#[cfg_attr(not(rocksfilter_avx512), allow(dead_code))]
const AVX512: u8 = 2;

/// Standard128Ribbon's query kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// AVX-512 F and VPOPCNTDQ, AVX2 and POPCNT: four columns per register
    /// (only with Rust 1.89 or later: `rocksfilter_avx512`).
    Avx512,
    /// AVX2 and POPCNT: two columns per register, up to 8 columns in one
    /// straight pass.
    Avx2,
    /// POPCNT: one column per SSE2 register, hardware parity.
    Popcnt,
    /// Portable code.
    Portable,
}

impl Format for RibbonGeometry {
    type Kernel = Kernel;

    fn decode(block: &[u8]) -> Result<Option<Self>> {
        RibbonGeometry::parse(block).map_err(Error::corruption)
    }

    /// The block's own slot count (its trailer's `num_blocks`) rather than
    /// the one RocksDB's builder would pick for `num_keys`: the same for
    /// blocks RocksDB sizes, and right for blocks sized with another
    /// banding table (`RibbonFailure`).
    fn estimated_fp_rate(&self, num_keys: usize, block_len: usize) -> f64 {
        if num_keys == 0 {
            return estimated_fp_rate(num_keys, block_len);
        }
        Layout::configure(self.num_blocks, block_len).expected_fp_rate()
    }

    fn kernel(&self, features: Features) -> Kernel {
        if !cfg!(target_arch = "x86_64") || !features.popcnt() {
            Kernel::Portable
        } else if features.avx512() {
            Kernel::Avx512
        } else if features.avx2() {
            Kernel::Avx2
        } else {
            Kernel::Popcnt
        }
    }

    /// Two-pass batch query (RocksDB's `Standard128RibbonBitsReader::
    /// MayMatch(num_keys, ...)`): hash and prepare every key, prefetching
    /// its window (`PrefetchSegmentRange`), then probe.
    fn may_match_batch<'k>(&self, kernel: Kernel, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        match kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: chosen only when AVX2 and POPCNT were detected.
            Kernel::Avx2 => unsafe { self.may_match_batch_avx2(data, key, results) },
            #[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
            // SAFETY: chosen only when AVX-512 F and VPOPCNTDQ, AVX2 and
            // POPCNT were detected.
            Kernel::Avx512 => unsafe { self.may_match_batch_avx512(data, key, results) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: chosen only when POPCNT was detected.
            Kernel::Popcnt => unsafe { self.may_match_batch_popcnt(data, key, results) },
            _ => self.may_match_batch_impl::<SCALAR>(data, key, results),
        }
    }
}
