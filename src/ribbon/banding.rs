//! Construction: on-the-fly Gaussian elimination ("banding") and
//! back-substitution into the interleaved (column-major per block) layout.
//! Mirrors `StandardBanding`, `BandingAdd`, `BandingAddRange`,
//! `ResetAndFindSeedToSolve`, `BackSubstBlock` and `InterleavedBackSubst`
//! (util/ribbon_impl.h, util/ribbon_alg.h).

use super::config::{Layout, COEFF_BITS, MAX_COLUMNS, SEGMENT_BYTES};
use super::hasher;

/// One row of the band: 128 coefficient bits and the 32-bit right-hand
/// side, packed together (20 bytes, the same 20 bytes per slot RocksDB's two
/// separate arrays take) so that elimination touches one cache line per
/// row instead of two.
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
struct Row {
    cr: u128,
    rr: u32,
}

/// Band matrix under construction: row `i` has its leading (pivot) 1 at
/// column `i`, followed by up to 127 more coefficient bits, plus the 32-bit
/// right-hand side. A zero coefficient row means "slot `i` is free".
pub(crate) struct Banding {
    rows: Vec<Row>,
    num_starts: u32,
    raw_seed: u32,
}

/// Keys hashed ahead of the one being added, so that their first rows are
/// already in cache when the elimination reaches them (RocksDB's
/// `BandingAddRange` prefetches one key ahead; a deeper pipeline hides more
/// of the latency once the band outgrows the caches).
const PIPELINE: usize = 8;

/// Parity of the popcount of a 128-bit value (the dot product in GF(2)).
#[inline(always)]
fn parity128(x: u128) -> u32 {
    ((x as u64) ^ ((x >> 64) as u64)).count_ones() & 1
}

#[inline(always)]
fn prefetch_row(rows: &[Row], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < rows.len() {
        // SAFETY: in bounds (checked); a prefetch has no architectural effect.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(rows.as_ptr().add(i) as *const i8)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (rows, i);
}

impl Banding {
    pub(crate) fn new(num_slots: u32) -> Banding {
        debug_assert!(num_slots >= 2 * COEFF_BITS && num_slots.is_multiple_of(COEFF_BITS));
        // Every row is written (zeroed now, filled by banding): map the
        // pages in one call instead of a fault per page (see crate::mem).
        let mut rows = Vec::with_capacity(num_slots as usize);
        crate::mem::populate_spare(&mut rows);
        rows.resize(num_slots as usize, Row::default());
        Banding { rows, num_starts: num_slots - COEFF_BITS + 1, raw_seed: 0 }
    }

    fn reset(&mut self, ordinal_seed: u32, first: bool) {
        self.raw_seed = hasher::ordinal_to_raw_seed(ordinal_seed);
        if !first {
            // A fresh `vec!` of zeros is already zero (and untouched pages
            // cost nothing until banding writes them).
            self.rows.fill(Row::default());
        }
    }

    /// `BandingAdd<kFirstCoeffAlwaysOne=true>`: eliminate against existing
    /// rows until the equation's leading 1 lands on a free slot. If the
    /// coefficients cancel completely, the equation was dependent: fine only
    /// if the right-hand side also cancelled (duplicate key, or a full hash
    /// collision, which for a filter implies the same result row).
    #[inline(always)]
    fn add(rows: &mut [Row], start: u32, mut rr: u32, mut cr: u128) -> bool {
        let mut i = start as usize;
        loop {
            debug_assert!(cr & 1 == 1);
            // `i` stays below start + 128 <= num_slots: every shift by
            // trailing_zeros consumes bits of a 128-bit window that began at
            // `start`. (Indexing is still checked.)
            let row = &mut rows[i];
            let cr_at_i = row.cr;
            if cr_at_i == 0 {
                *row = Row { cr, rr };
                return true;
            }
            cr ^= cr_at_i;
            rr ^= row.rr;
            if cr == 0 {
                return rr == 0;
            }
            // Both rows had their leading 1 at `i`, so bit 0 is now 0 and
            // the next 1 is what eliminates next. It is nearly always in the
            // low 64 bits (they cancel completely with probability 2^-63):
            // a shift known to be below 64 is two instructions (shrd, shr),
            // a general 128-bit one needs five more to handle >= 64.
            let (lo, hi) = (cr as u64, (cr >> 64) as u64);
            if lo != 0 {
                let tz = lo.trailing_zeros(); // 1..=63
                i += tz as usize;
                // cr >> tz for tz < 64, spelled out on the halves (LLVM
                // lowers a u128 shift to the general >= 64 form even when
                // the amount is masked): one shrd and one shr.
                let new_lo = (lo >> tz) | ((hi << 1) << (63 - tz));
                cr = (u128::from(hi >> tz) << 64) | u128::from(new_lo);
            } else {
                let tz = Self::far_zeros(cr);
                i += tz as usize;
                cr >>= tz;
            }
        }
    }

    /// The rare case: the low 64 coefficient bits cancelled.
    #[cold]
    #[inline(never)]
    fn far_zeros(cr: u128) -> u32 {
        cr.trailing_zeros()
    }

    /// `BandingAddRange` (without backtracking: a failed seed is discarded
    /// wholesale by `reset`), software-pipelined: the start row of the key
    /// `PIPELINE` places ahead is prefetched while this one is added.
    #[inline(always)]
    fn add_all_impl(&mut self, parts: &[&[u64]]) -> bool {
        let (raw_seed, num_starts) = (self.raw_seed, self.num_starts);
        let rows = &mut self.rows[..];
        let mut ring = [0u64; PIPELINE];
        let mut starts = [0u32; PIPELINE];
        // Keys pushed so far; key k waits in ring slot k % PIPELINE.
        let mut n = 0usize;
        // Nested loops over the parts (not a flattening iterator): the
        // per-key path stays a straight loop over a slice.
        for part in parts {
            for &key in *part {
                let slot = n % PIPELINE;
                if n >= PIPELINE {
                    let (h, start) = (ring[slot], starts[slot]);
                    if !Self::add(rows, start, hasher::result_row(h), hasher::coeff_row(h)) {
                        return false;
                    }
                }
                let h = hasher::rehash(key, raw_seed);
                ring[slot] = h;
                starts[slot] = hasher::start(h, num_starts);
                prefetch_row(rows, starts[slot] as usize);
                n += 1;
            }
        }
        for k in n - n.min(PIPELINE)..n {
            let slot = k % PIPELINE;
            let (h, start) = (ring[slot], starts[slot]);
            if !Self::add(rows, start, hasher::result_row(h), hasher::coeff_row(h)) {
                return false;
            }
        }
        true
    }

    fn add_all(&mut self, hashes: &[&[u64]]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if crate::arch::features().bmi1() {
                // SAFETY: BMI1 (tzcnt) is available (checked just above).
                return unsafe { self.add_all_bmi(hashes) };
            }
        }
        self.add_all_impl(hashes)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1")]
    unsafe fn add_all_bmi(&mut self, hashes: &[&[u64]]) -> bool {
        self.add_all_impl(hashes)
    }

    /// `ResetAndFindSeedToSolve(num_slots, ..., entropy & 255, /*mask*/ 255)`:
    /// try ordinal seeds `first, first+1, ...` modulo 256. The first seed
    /// comes from the low byte of the first key hash so that a pathological
    /// key set does not always pay for the same failed seeds. Returns the
    /// ordinal seed that solved, or `None` after all 256 fail.
    pub(crate) fn find_seed_to_solve(&mut self, hashes: &[&[u64]], first_ordinal_seed: u32) -> Option<u32> {
        let start = first_ordinal_seed & 255;
        let mut cur = start;
        let mut first = true;
        loop {
            self.reset(cur, first);
            first = false;
            if self.add_all(hashes) {
                return Some(cur);
            }
            cur = (cur + 1) & 255;
            if cur == start {
                return None;
            }
        }
    }

    /// `BackSubstBlock`: solve rows `start_slot + 127` down to `start_slot`.
    /// `state[j]` holds the last 128 solution bits of column j, most recent
    /// (lowest slot) in bit 0; the next bit is chosen so the row's dot product
    /// with its coefficients equals its result bit. After a full block,
    /// `state[j]` is exactly that block's segment for column j.
    #[inline(always)]
    fn back_subst_block(&self, state: &mut [u128], start_slot: u32) {
        let rows = &self.rows[start_slot as usize..(start_slot + COEFF_BITS) as usize];
        for row in rows.iter().rev() {
            let (cr, rr) = (row.cr, row.rr);
            for (j, s) in state.iter_mut().enumerate() {
                let tmp = *s << 1;
                let bit = parity128(tmp & cr) ^ ((rr >> j) & 1);
                *s = tmp | u128::from(bit);
            }
        }
    }

    /// `InterleavedBackSubst`: write segments from the last block backwards;
    /// upper blocks (b columns) come last in the data, lower blocks (b-1
    /// columns) first. Segments are little-endian `u128`s
    /// (`EncodeFixed128`: low 64 bits first). `data` must be at least
    /// `layout.num_segments * 16` bytes.
    pub(crate) fn back_subst_into(&self, layout: &Layout, data: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        {
            if crate::arch::features().popcnt() {
                // SAFETY: POPCNT is available (checked just above).
                return unsafe { self.back_subst_popcnt(layout, data) };
            }
        }
        self.back_subst_impl(layout, data)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn back_subst_popcnt(&self, layout: &Layout, data: &mut [u8]) {
        self.back_subst_impl(layout, data)
    }

    #[inline(always)]
    fn back_subst_impl(&self, layout: &Layout, data: &mut [u8]) {
        let mut num_columns = layout.upper_num_columns;
        if num_columns == 0 {
            return; // no space for even one segment: query is always true
        }
        let mut state = [0u128; MAX_COLUMNS as usize];
        let mut block = layout.num_blocks;
        let mut segment_num = layout.num_segments as usize;
        let mut store = |state: &[u128], segment_num: usize| {
            for (k, s) in state.iter().enumerate() {
                let off = (segment_num + k) * SEGMENT_BYTES;
                data[off..off + SEGMENT_BYTES].copy_from_slice(&s.to_le_bytes());
            }
        };
        while block > layout.upper_start_block {
            block -= 1;
            let st = &mut state[..num_columns as usize];
            self.back_subst_block(st, block * COEFF_BITS);
            segment_num -= num_columns as usize;
            store(st, segment_num);
        }
        num_columns -= 1;
        while block > 0 {
            block -= 1;
            let st = &mut state[..num_columns as usize];
            self.back_subst_block(st, block * COEFF_BITS);
            segment_num -= num_columns as usize;
            store(st, segment_num);
        }
        debug_assert_eq!(segment_num, 0);
    }
}
