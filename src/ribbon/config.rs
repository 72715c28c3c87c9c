//! Sizing: how many slots for how many keys, how many bytes for a target
//! FP rate, and how a byte length is split into solution columns.
//!
//! Everything here is schema-critical. RocksDB recomputes none of the
//! builder's sizing at read time (the reader only sees `num_blocks` and the
//! byte length), but the *builder's* choices decide every byte we write, so
//! each floating point operation below is done in the same order, with the
//! same operand types, as the C++ it mirrors. Rust never contracts `a*b+c`
//! into an FMA, and `f64::ln` / `f64::powf` call the platform libm exactly as
//! `std::log` / `std::pow` do, so results are bit-identical to a RocksDB
//! built without `-ffp-contract=fast` on an FMA target.

/// Bits per coefficient row: the "128" of Standard128Ribbon. A block is this
/// many slots, and one solution column of one block is one 16-byte segment.
pub(crate) const COEFF_BITS: u32 = 128;
/// Bytes in one segment (one `u128` column slice of a block).
pub(crate) const SEGMENT_BYTES: usize = 16;
/// `ResultRow = uint32_t`: at most 32 solution columns (FP rate >= 2^-32).
pub(crate) const MAX_COLUMNS: u32 = 32;

/// `ConstructionFailureChance` (util/ribbon_config.h): how often banding
/// with one seed may fail for the slot counts a table gives. RocksDB's
/// Standard128Ribbon policy always uses [`OneIn20`](Self::OneIn20); the
/// other two are RocksDB's own tables for the same 128-bit, non-smash
/// configuration (`BandingConfigHelperData` in util/ribbon_config.cc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RibbonFailure {
    /// `kOneIn2`: about half of all first seeds fail (fewest slots).
    OneIn2,
    /// `kOneIn20`: RocksDB's Standard128Ribbon sizing.
    #[default]
    OneIn20,
    /// `kOneIn1000`: about 2% more slots, first-seed failures all but gone.
    OneIn1000,
}

impl RibbonFailure {
    /// The chance as "1 in N": 2, 20 or 1000.
    ///
    /// ```
    /// assert_eq!(rocksfilter::RibbonFailure::default().one_in(), 20);
    /// ```
    pub fn one_in(self) -> u32 {
        match self {
            RibbonFailure::OneIn2 => 2,
            RibbonFailure::OneIn20 => 20,
            RibbonFailure::OneIn1000 => 1000,
        }
    }

    /// The table for "1 in `n`": RocksDB has tables for 2, 20 and 1000 only;
    /// anything else is an invalid-argument error naming them.
    ///
    /// ```
    /// use rocksfilter::RibbonFailure;
    /// assert_eq!(RibbonFailure::from_one_in(1000)?, RibbonFailure::OneIn1000);
    /// assert!(RibbonFailure::from_one_in(100).is_err());
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn from_one_in(n: u64) -> crate::Result<Self> {
        match n {
            2 => Ok(RibbonFailure::OneIn2),
            20 => Ok(RibbonFailure::OneIn20),
            1000 => Ok(RibbonFailure::OneIn1000),
            other => Err(crate::Error::invalid(format!(
                "no Ribbon banding table for a 1-in-{other} failure chance: RocksDB has 1-in-2, 1-in-20 and 1-in-1000"
            ))),
        }
    }

    /// `BandingConfigHelperData<kCfc, 128U, /*smash*/ false>::kKnownToAddByPow2`
    /// (util/ribbon_config.cc): for 2^i slots, how many keys can be added
    /// with this chance that a given seed fails. Zero = unsupported (too
    /// small). Measured by RocksDB's ribbon_test FindOccupancy; these numbers
    /// are part of the on-disk schema because they decide `num_slots`.
    fn known_to_add_by_pow2(self) -> &'static [f64; KNOWN_SIZE as usize] {
        match self {
            RibbonFailure::OneIn2 => &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, // unsupported
                252.984, 506.109, 1013.71, 2029.47, 4060.43, 8115.63, 16202.2, 32305.1, 64383.5, 128274.0,
            ],
            RibbonFailure::OneIn20 => &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, // unsupported
                248.851, 499.532, 1001.26, 2003.97, 4005.59, 8000.39, 15966.6, 31828.1, 63447.3, 126506.0,
            ],
            RibbonFailure::OneIn1000 => &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, // unsupported
                242.61, 491.887, 983.603, 1968.21, 3926.98, 7833.99, 15629.0, 31199.9, 62307.8, 123870.0,
            ],
        }
    }
}

const KNOWN_SIZE: u32 = 18;

/// `GetFactorPerPow2()` for 128-bit coefficients: beyond the table, each
/// doubling of slots adds this much to the slots/keys overhead factor.
const FACTOR_PER_POW2: f64 = 0.0038;

/// `1.0 / ln(2)` exactly as written in ribbon_config.cc (note: truncated
/// constant, not `std::f64::consts::LOG2_E`; using the exact constant would
/// change `num_slots` for some inputs).
#[allow(clippy::approx_constant)]
const LOG2_E_ROCKSDB: f64 = 1.4426950409;

/// `GetFinalKnownFactor() - (kKnownSize - 1) * GetFactorPerPow2()`.
fn base_factor(cfc: RibbonFailure) -> f64 {
    let final_known_factor =
        1.0 * f64::from(1u32 << (KNOWN_SIZE - 1)) / cfc.known_to_add_by_pow2()[(KNOWN_SIZE - 1) as usize];
    final_known_factor - f64::from(KNOWN_SIZE - 1) * FACTOR_PER_POW2
}

/// `GetFactorForLarge(log2_num_slots)`.
fn factor_for_large(cfc: RibbonFailure, log2_num_slots: f64) -> f64 {
    base_factor(cfc) + log2_num_slots * FACTOR_PER_POW2
}

/// `GetNumToAddForPow2(log2_num_slots)`.
fn num_to_add_for_pow2(cfc: RibbonFailure, log2_num_slots: u32) -> f64 {
    if log2_num_slots < KNOWN_SIZE {
        cfc.known_to_add_by_pow2()[log2_num_slots as usize]
    } else {
        // `1.0 * (uint64_t{1} << log2) / factor`; log2 <= 32 here.
        1.0 * ((1u64 << log2_num_slots) as f64) / factor_for_large(cfc, f64::from(log2_num_slots))
    }
}

/// `BandingConfigHelper1MaybeSupported<kCfc, 128, false, false, true>::GetNumSlots`
/// (util/ribbon_config.cc): slots needed so that banding `num_to_add` keys
/// fails for a given seed only with chance `cfc` (RocksDB: 1 in 20). Interpolates linearly between
/// the two nearest powers of two, rounding up. Not yet rounded to whole
/// blocks: see [`round_up_num_slots`].
pub(crate) fn get_num_slots(cfc: RibbonFailure, num_to_add: u32) -> u32 {
    if num_to_add == 0 {
        return 0;
    }
    let n = f64::from(num_to_add);
    let log2_num_to_add = n.ln() * LOG2_E_ROCKSDB;
    let mut approx_log2_slots = (log2_num_to_add + 0.5) as u32;
    let mut lower_num_to_add = num_to_add_for_pow2(cfc, approx_log2_slots);
    let upper_num_to_add;
    if approx_log2_slots == 0 || lower_num_to_add == 0.0 {
        // Minimum non-zero slots for the non-smash layout: two blocks.
        return 2 * COEFF_BITS;
    } else if n < lower_num_to_add {
        upper_num_to_add = lower_num_to_add;
        approx_log2_slots -= 1;
        lower_num_to_add = num_to_add_for_pow2(cfc, approx_log2_slots);
    } else {
        upper_num_to_add = num_to_add_for_pow2(cfc, approx_log2_slots + 1);
    }
    let upper_portion = (n - lower_num_to_add) / (upper_num_to_add - lower_num_to_add);
    let lower_num_slots = 1.0 * ((1u64 << approx_log2_slots) as f64);
    // Interpolation, round up
    (upper_portion * lower_num_slots + lower_num_slots + 0.999999999) as u32
}

/// `BandingConfigHelper1MaybeSupported<kOneIn20, 128, ...>::GetNumToAdd`: the
/// (approximate) inverse of [`get_num_slots`]. Only sizing tools need it
/// (RocksDB uses it in `ApproximateNumEntries`).
#[cfg(test)]
pub(crate) fn get_num_to_add(cfc: RibbonFailure, num_slots: u32) -> u32 {
    if num_slots == 0 {
        return 0;
    }
    let log2_num_slots = f64::from(num_slots).ln() * LOG2_E_ROCKSDB;
    let floor_log2 = log2_num_slots as u32;
    if floor_log2 + 1 < KNOWN_SIZE {
        let ceil_portion = 1.0 * f64::from(num_slots) / f64::from(1u32 << floor_log2) - 1.0;
        let table = cfc.known_to_add_by_pow2();
        (ceil_portion * table[(floor_log2 + 1) as usize] + (1.0 - ceil_portion) * table[floor_log2 as usize]) as u32
    } else {
        let factor = factor_for_large(cfc, log2_num_slots);
        (f64::from(num_slots) / factor) as u32
    }
}

/// `SerializableInterleavedSolution::RoundUpNumSlots` (util/ribbon_impl.h):
/// whole 128-slot blocks, and never exactly one block, because with one
/// block `num_starts == 1` and every key would start at slot 0 (the
/// non-smash hashing scheme degenerates). That is also why the reader treats
/// `num_blocks < 2` as "always true".
pub(crate) fn round_up_num_slots(num_slots: u32) -> u32 {
    let mut corrected = num_slots.wrapping_add(COEFF_BITS - 1) / COEFF_BITS * COEFF_BITS;
    if corrected == COEFF_BITS {
        corrected += COEFF_BITS;
    }
    corrected
}

/// `Standard128RibbonBitsBuilder::NumEntriesToNumSlots` (filter_policy.cc),
/// with RocksDB's table for `cfc` (the policy's is 1 in 20).
pub(crate) fn num_entries_to_num_slots(cfc: RibbonFailure, num_entries: u32) -> u32 {
    round_up_num_slots(get_num_slots(cfc, num_entries))
}

/// `SerializableInterleavedSolution::GetBytesForOneInFpRate` /
/// `InternalGetBytesForFpRate` (util/ribbon_impl.h), without metadata.
///
/// Why the bytes come out as they do: an FP rate of 2^-b needs b solution
/// columns, i.e. b segments (16 bytes) per 128-slot block. For a target
/// between 2^-(b+1) and 2^-b, the filter mixes blocks with b ("lower") and
/// b+1 ("upper") columns; `lower_portion` is the share of *starts* that should
/// land in lower blocks to hit the target on average. The number of lower
/// blocks (`upper_start_block`) is rounded with a per-filter
/// `rounding_bias32` (upper 32 bits of the first key hash) so that, across
/// many filters, rounding is unbiased rather than always down.
pub(crate) fn bytes_for_one_in_fp_rate(num_slots: u32, desired_one_in_fp_rate: f64, rounding_bias32: u32) -> usize {
    let desired_fp_rate = 1.0 / desired_one_in_fp_rate;
    if desired_one_in_fp_rate > 1.0 && desired_fp_rate < 1.0 {
        if desired_one_in_fp_rate <= f64::from(u32::MAX) {
            let rounded = desired_one_in_fp_rate as u32; // >= 1 here
            let lower_columns = 31 - rounded.leading_zeros(); // FloorLog2
            let lower_columns_fp_rate = 2.0f64.powf(-f64::from(lower_columns));
            let upper_columns_fp_rate = 2.0f64.powf(-(f64::from(lower_columns + 1)));
            let lower_portion =
                (desired_fp_rate - upper_columns_fp_rate) / (lower_columns_fp_rate - upper_columns_fp_rate);
            let rounding_bias = (f64::from(rounding_bias32) + 0.5) / 4294967296.0;
            let num_starts = num_slots - COEFF_BITS + 1;
            let upper_start_block =
                ((lower_portion * f64::from(num_starts) + rounding_bias) / f64::from(COEFF_BITS)) as u32;
            let num_blocks = num_slots / COEFF_BITS;
            // u32 arithmetic as in RocksDB (`Index`); cannot overflow for
            // num_blocks < 2^24 and lower_columns <= 31.
            let num_segments = num_blocks * lower_columns + (num_blocks - upper_start_block);
            num_segments as usize * SEGMENT_BYTES
        } else {
            // Asking for better than 2^-32: all 32 result bits everywhere.
            num_slots as usize * 4
        }
    } else {
        // Asking for 100% FP rate (or NaN): one segment, which gives an
        // FP rate close to 100% because all but the last block get zero
        // columns.
        SEGMENT_BYTES
    }
}

/// The column layout that `SerializableInterleavedSolution::InternalConfigure`
/// derives from `num_blocks` and the data length. Both the builder (from the
/// length it chose) and the reader (from the block length) use this same
/// derivation, which is why only `num_blocks` needs to be in the trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub num_blocks: u32,
    /// Segments actually used (`<= data_len / 16`).
    pub num_segments: u32,
    /// Columns in blocks `>= upper_start_block` ("b"); blocks below have b-1.
    pub upper_num_columns: u32,
    pub upper_start_block: u32,
}

impl Layout {
    /// `InternalConfigure()`: spread `data_len / 16` segments over
    /// `num_blocks` blocks as evenly as possible, with the blocks holding
    /// fewer columns first (so the lower-index columns are always present,
    /// letting a query use the same loop for both kinds of block). Capped at
    /// 32 columns; surplus bytes are then ignored.
    #[allow(clippy::manual_checked_ops)]
    pub(crate) fn configure(num_blocks: u32, data_len: usize) -> Layout {
        let mut num_segments = (data_len / SEGMENT_BYTES) as u32;
        let (upper_num_columns, upper_start_block);
        if num_blocks == 0 {
            upper_num_columns = 0;
            upper_start_block = 0;
        } else {
            let mut unc = num_segments.wrapping_add(num_blocks - 1) / num_blocks;
            let mut usb = unc.wrapping_mul(num_blocks).wrapping_sub(num_segments);
            if unc > MAX_COLUMNS {
                unc = MAX_COLUMNS;
                usb = 0;
                num_segments = num_blocks * unc;
            }
            upper_num_columns = unc;
            upper_start_block = usb;
        }
        Layout { num_blocks, num_segments, upper_num_columns, upper_start_block }
    }

    /// `PrepareForNumStarts`: there is a start for every slot from which a
    /// full 128-slot coefficient window fits, hence `slots - 127`.
    pub(crate) fn num_starts(&self) -> u32 {
        if self.num_blocks == 0 {
            0
        } else {
            self.num_blocks * COEFF_BITS - COEFF_BITS + 1
        }
    }

    /// `SerializableInterleavedSolution::ExpectedFpRate`: the start-weighted
    /// mix of 2^-(b-1) (lower blocks) and 2^-b (upper blocks).
    pub(crate) fn expected_fp_rate(&self) -> f64 {
        let lower_portion =
            (f64::from(self.upper_start_block) * 1.0 * f64::from(COEFF_BITS)) / f64::from(self.num_starts());
        // `upper_num_columns_ - 1` is unsigned in RocksDB: wraps for 0 columns.
        lower_portion * 0.5f64.powf(f64::from(self.upper_num_columns.wrapping_sub(1)))
            + (1.0 - lower_portion) * 0.5f64.powf(f64::from(self.upper_num_columns))
    }
}
