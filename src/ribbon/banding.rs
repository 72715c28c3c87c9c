//! Construction: on-the-fly Gaussian elimination ("banding") and
//! back-substitution into the interleaved (column-major per block) layout.
//! Mirrors `StandardBanding`, `BandingAdd`, `BandingAddRange`,
//! `ResetAndFindSeedToSolve`, `BackSubstBlock` and `InterleavedBackSubst`
//! (util/ribbon_impl.h, util/ribbon_alg.h).

use super::config::{Layout, COEFF_BITS, MAX_COLUMNS, SEGMENT_BYTES};
use super::hasher;

/// Band matrix under construction: row `i` has its leading (pivot) 1 at
/// column `i`, followed by up to 127 more coefficient bits, plus the 32-bit
/// right-hand side. A zero coefficient row means "slot `i` is free".
pub(crate) struct Banding {
    coeff_rows: Vec<u128>,
    result_rows: Vec<u32>,
    num_starts: u32,
    raw_seed: u32,
}

impl Banding {
    pub(crate) fn new(num_slots: u32) -> Banding {
        debug_assert!(num_slots >= 2 * COEFF_BITS && num_slots % COEFF_BITS == 0);
        Banding {
            coeff_rows: vec![0; num_slots as usize],
            result_rows: vec![0; num_slots as usize],
            num_starts: num_slots - COEFF_BITS + 1,
            raw_seed: 0,
        }
    }

    fn reset(&mut self, ordinal_seed: u32) {
        self.raw_seed = hasher::ordinal_to_raw_seed(ordinal_seed);
        self.coeff_rows.fill(0);
        self.result_rows.fill(0);
    }

    /// `BandingAdd<kFirstCoeffAlwaysOne=true>`: eliminate against existing
    /// rows until the equation's leading 1 lands on a free slot. If the
    /// coefficients cancel completely, the equation was dependent: fine only
    /// if the right-hand side also cancelled (duplicate key, or a full hash
    /// collision, which for a filter implies the same result row).
    #[inline]
    fn add(&mut self, start: u32, mut rr: u32, mut cr: u128) -> bool {
        let mut i = start as usize;
        loop {
            debug_assert!(cr & 1 == 1);
            // `i` stays below start + 128 <= num_slots: every shift by
            // trailing_zeros consumes bits of a 128-bit window that began at
            // `start`.
            let cr_at_i = self.coeff_rows[i];
            if cr_at_i == 0 {
                self.coeff_rows[i] = cr;
                self.result_rows[i] = rr;
                return true;
            }
            cr ^= cr_at_i;
            rr ^= self.result_rows[i];
            if cr == 0 {
                return rr == 0;
            }
            let tz = cr.trailing_zeros();
            i += tz as usize;
            cr >>= tz;
        }
    }

    /// `BandingAddRange` (without backtracking: a failed seed is discarded
    /// wholesale by `reset`).
    fn add_all(&mut self, hashes: &[u64]) -> bool {
        for &key in hashes {
            let h = hasher::rehash(key, self.raw_seed);
            let start = hasher::start(h, self.num_starts);
            if !self.add(start, hasher::result_row(h), hasher::coeff_row(h)) {
                return false;
            }
        }
        true
    }

    /// `ResetAndFindSeedToSolve(num_slots, ..., entropy & 255, /*mask*/ 255)`:
    /// try ordinal seeds `first, first+1, ...` modulo 256. The first seed
    /// comes from the low byte of the first key hash so that a pathological
    /// key set does not always pay for the same failed seeds. Returns the
    /// ordinal seed that solved, or `None` after all 256 fail.
    pub(crate) fn find_seed_to_solve(
        &mut self,
        hashes: &[u64],
        first_ordinal_seed: u32,
    ) -> Option<u32> {
        let start = first_ordinal_seed & 255;
        let mut cur = start;
        loop {
            self.reset(cur);
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
    fn back_subst_block(&self, state: &mut [u128], start_slot: u32) {
        for i in (start_slot as usize..(start_slot + COEFF_BITS) as usize).rev() {
            let cr = self.coeff_rows[i];
            let rr = self.result_rows[i];
            for (j, s) in state.iter_mut().enumerate() {
                let tmp = *s << 1;
                let bit = ((tmp & cr).count_ones() ^ (rr >> j)) & 1;
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
