//! RocksDB's filter policy rules (`BloomLikeFilterPolicy` in
//! `table/block_based/filter_policy.cc`): how a `bits_per_key` double is
//! sanitised, the settings each format derives from it, and [`Plan`]: which
//! format and size a block for a given set of entries gets. Building, sizing
//! and estimating all go through `Plan::new`, so they cannot disagree.

use crate::bloom::{choose_num_probes, fast_local, legacy};
use crate::error::{Error, Result};
use crate::ribbon::{self, RibbonFailure};

/// Which filter to build, as RocksDB's policies name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// `NewBloomFilterPolicy(bpk)` at format_version >= 5: FastLocalBloom.
    Bloom,
    /// `NewRibbonFilterPolicy(bpk, -1)`: Standard128Ribbon at the FP rate of a
    /// Bloom filter with `bpk` bits/key, with RocksDB's Bloom fallbacks.
    Ribbon,
    /// `NewBloomFilterPolicy(bpk)` at format_version < 5: the legacy filter.
    LegacyBloom,
}

/// A sanitised bits/key setting, exactly as RocksDB derives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BitsPerKey {
    bits: f64,
    millibits: u32,
}

impl BitsPerKey {
    /// RocksDB's sanitising: below 0.5 RocksDB writes no filter at all, which
    /// a builder cannot express, so it is an error here (as is NaN, which
    /// RocksDB would silently treat as 100); below 1 becomes 1; 100 and above
    /// (including +infinity) becomes 100. The millibit value is rounded with
    /// RocksDB's nudge (`bpk * 1000 + 0.500001`), so 7.4999 is 7500 millibits.
    ///
    /// ```
    /// use rocksfilter::BitsPerKey;
    /// let b = BitsPerKey::new(7.4999)?;
    /// assert_eq!((b.millibits(), b.whole_bits()), (7500, 8)); // RocksDB's nudged rounding
    /// assert_eq!(BitsPerKey::new(250.0)?.bits(), 100.0);
    /// assert!(BitsPerKey::new(f64::NAN).is_err());
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn new(bits_per_key: f64) -> Result<Self> {
        if bits_per_key.is_nan() {
            return Err(Error::invalid("bits_per_key is NaN"));
        }
        if bits_per_key < 0.5 {
            return Err(Error::invalid(format!(
                "bits_per_key {bits_per_key} is below 0.5, where RocksDB writes no filter at all"
            )));
        }
        let bits = bits_per_key.clamp(1.0, 100.0);
        let millibits = (bits * 1000.0 + 0.500001) as u32;
        Ok(BitsPerKey { bits, millibits })
    }

    /// The sanitised value (1.0 ..= 100.0).
    ///
    /// ```
    /// assert_eq!(rocksfilter::BitsPerKey::new(0.7)?.bits(), 1.0);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn bits(&self) -> f64 {
        self.bits
    }

    /// Thousandths of a bit per key: what FastLocalBloom sizes with.
    ///
    /// ```
    /// assert_eq!(rocksfilter::BitsPerKey::new(9.9)?.millibits(), 9900);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn millibits(&self) -> u32 {
        self.millibits
    }

    /// Whole bits per key for the legacy filter: a rounding up of the nudged
    /// millibits (RocksDB's `whole_bits_per_key_`), so 7.4999 gives 8.
    ///
    /// ```
    /// assert_eq!(rocksfilter::BitsPerKey::new(10.0)?.whole_bits(), 10);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn whole_bits(&self) -> u32 {
        (self.millibits + 500) / 1000
    }

    /// 1 / FP rate that Ribbon targets: the cache-local Bloom FP rate at this
    /// bits/key and its probe count, so Ribbon matches Bloom's accuracy in
    /// about 30% less space.
    ///
    /// ```
    /// let one_in = rocksfilter::BitsPerKey::new(10.0)?.desired_one_in_fp_rate();
    /// assert!((100.0..120.0).contains(&one_in)); // Ribbon at "10 bits/key" targets ~1 in 110
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn desired_one_in_fp_rate(&self) -> f64 {
        1.0 / fast_local::fp_rate_at(self.bits, choose_num_probes(self.millibits))
    }
}

/// How a builder sizes its blocks, beyond RocksDB's bits/key: a target FP
/// rate or a byte budget, and for Ribbon the banding table (its chance that
/// a build needs a second seed). Read by [`FilterBuilder::with_options`](crate::FilterBuilder::with_options).
///
/// With only a policy and bits/key (the default: 10, Ribbon's failure 1 in
/// 20) a builder writes exactly what RocksDB writes. An FP rate and a byte
/// budget replace bits/key and exclude each other.
///
/// ```
/// use rocksfilter::{BuilderOptions, FilterBuilder, Policy, RibbonFailure};
/// let opts = BuilderOptions::new(Policy::Ribbon).fp_rate(0.01).ribbon_failure(RibbonFailure::OneIn1000);
/// let mut b = FilterBuilder::with_options(&opts)?;
/// b.add_key(b"k");
/// assert!(!b.finish()?.is_empty());
/// # Ok::<(), rocksfilter::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuilderOptions {
    policy: Policy,
    bits_per_key: f64,
    fp_rate: Option<f64>,
    max_bytes: Option<usize>,
    ribbon_failure: RibbonFailure,
}

impl BuilderOptions {
    /// `policy` at 10 bits/key, no FP target or budget, Ribbon failure 1 in 20.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).get_bits_per_key(), 10.0);
    /// ```
    pub fn new(policy: Policy) -> Self {
        BuilderOptions {
            policy,
            bits_per_key: 10.0,
            fp_rate: None,
            max_bytes: None,
            ribbon_failure: RibbonFailure::OneIn20,
        }
    }

    /// RocksDB's bits/key (sanitised as [`BitsPerKey::new`] does); unused,
    /// and not checked, when an FP rate or byte budget is set.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).bits_per_key(7.5).get_bits_per_key(), 7.5);
    /// ```
    pub fn bits_per_key(mut self, bits_per_key: f64) -> Self {
        self.bits_per_key = bits_per_key;
        self
    }

    /// A target FP rate, strictly between 0 and 1. FastLocalBloom: the
    /// smallest block (whole cache lines) whose estimated FP rate meets it,
    /// probes chosen by RocksDB's rule for that size. Ribbon: the column
    /// split RocksDB's `GetBytesForOneInFpRate` gives for `1 / fp_rate`
    /// (its rounding to whole blocks can exceed the rate by at most a
    /// factor `1 + 1 / num_starts`, under 0.1% from about 1,000 keys; it
    /// is what makes a target of RocksDB's own rate give RocksDB's block).
    /// Legacy Bloom: not supported.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).fp_rate(0.01).get_fp_rate(), Some(0.01));
    /// ```
    pub fn fp_rate(mut self, fp_rate: f64) -> Self {
        self.fp_rate = Some(fp_rate);
        self
    }

    /// A byte budget: the most accurate block that fits in `max_bytes`,
    /// its 5-byte trailer included (at least 69, one cache line). Ribbon:
    /// the slots of its table and as many 16-byte column segments as fit;
    /// Bloom: as many cache lines as fit. Legacy Bloom: not supported.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Ribbon).max_bytes(65536).get_max_bytes(), Some(65536));
    /// ```
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }

    /// Ribbon's banding table (ignored by the Bloom policies): slots for
    /// this chance that one seed fails to solve (RocksDB's policy: 1 in 20).
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy, RibbonFailure};
    /// let o = BuilderOptions::new(Policy::Ribbon).ribbon_failure(RibbonFailure::OneIn1000);
    /// assert_eq!(o.get_ribbon_failure().one_in(), 1000);
    /// ```
    pub fn ribbon_failure(mut self, failure: RibbonFailure) -> Self {
        self.ribbon_failure = failure;
        self
    }

    /// The policy.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Ribbon).get_policy(), Policy::Ribbon);
    /// ```
    pub fn get_policy(&self) -> Policy {
        self.policy
    }

    /// The bits/key setting (as given, before sanitising).
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).bits_per_key(0.7).get_bits_per_key(), 0.7);
    /// ```
    pub fn get_bits_per_key(&self) -> f64 {
        self.bits_per_key
    }

    /// The target FP rate, if any.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).get_fp_rate(), None);
    /// ```
    pub fn get_fp_rate(&self) -> Option<f64> {
        self.fp_rate
    }

    /// The byte budget, if any.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy};
    /// assert_eq!(BuilderOptions::new(Policy::Bloom).get_max_bytes(), None);
    /// ```
    pub fn get_max_bytes(&self) -> Option<usize> {
        self.max_bytes
    }

    /// Ribbon's banding table.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Policy, RibbonFailure};
    /// assert_eq!(BuilderOptions::new(Policy::Ribbon).get_ribbon_failure(), RibbonFailure::OneIn20);
    /// ```
    pub fn get_ribbon_failure(&self) -> RibbonFailure {
        self.ribbon_failure
    }

    /// Checks the combination and resolves it into what `Plan` sizes by.
    pub(crate) fn sizer(&self) -> Result<Sizer> {
        let target = match (self.fp_rate, self.max_bytes) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid("an FP rate and a byte budget exclude each other: give one"));
            }
            (Some(p), None) => {
                if !(p > 0.0 && p < 1.0) {
                    return Err(Error::invalid(format!("FP rate {p} is not strictly between 0 and 1")));
                }
                Target::FpRate(p)
            }
            (None, Some(b)) => {
                if b < fast_local::MIN_LEN {
                    return Err(Error::invalid(format!(
                        "max_bytes {b} is below the smallest filter block ({} bytes: one 64-byte cache line and the 5-byte trailer)",
                        fast_local::MIN_LEN
                    )));
                }
                Target::MaxBytes(b)
            }
            (None, None) => Target::Bits,
        };
        // Bits/key sizes nothing when a target or budget does: not checked
        // then (RocksDB's default stands in for a value it would refuse).
        let bits = match target {
            Target::Bits => BitsPerKey::new(self.bits_per_key)?,
            _ => BitsPerKey::new(self.bits_per_key).or_else(|_| BitsPerKey::new(10.0))?,
        };
        if self.policy == Policy::LegacyBloom && target != Target::Bits {
            return Err(Error::invalid(
                "the legacy Bloom filter is sized by bits/key only (an FP rate or byte budget needs Bloom or Ribbon)",
            ));
        }
        Ok(Sizer { policy: self.policy, bits, target, ribbon_failure: self.ribbon_failure })
    }
}

/// What a block is sized by, beside the policy's bits/key.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// RocksDB's sizing by bits/key.
    Bits,
    /// A target FP rate (0 < p < 1).
    FpRate(f64),
    /// A byte budget, trailer included (>= `fast_local::MIN_LEN`).
    MaxBytes(usize),
}

/// Checked [`BuilderOptions`]: everything `Plan::new` sizes by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sizer {
    pub(crate) policy: Policy,
    pub(crate) bits: BitsPerKey,
    target: Target,
    ribbon_failure: RibbonFailure,
}

impl Sizer {
    /// RocksDB's sizing: `policy` at `bits`.
    pub(crate) fn rocksdb(policy: Policy, bits: BitsPerKey) -> Sizer {
        Sizer { policy, bits, target: Target::Bits, ribbon_failure: RibbonFailure::OneIn20 }
    }
}

/// The format and size of the block for a set of entries: the one place
/// where the policy's decisions are made (what RocksDB's builders decide in
/// `CalculateSpace`, `CalculateSpaceAndSlots` and their Bloom fallbacks,
/// and the same decisions for an FP target or a byte budget).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Plan {
    /// No entries: the empty block (RocksDB's "always false" filter).
    Empty,
    /// FastLocalBloom of this size.
    FastLocal(fast_local::Sizing),
    /// Standard128Ribbon of this size.
    Ribbon(ribbon::Sizing),
    /// Legacy Bloom: `len` bytes at `whole_bits` bits/key.
    Legacy { len: usize, whole_bits: u32 },
}

impl Plan {
    /// The plan for `num_entries` entries (after RocksDB's de-duplication)
    /// of which the first, in the order they were added, hashes to
    /// `first_hash` (Ribbon's sizing takes entropy from it; any value gives
    /// a size within 16 bytes of the real one).
    pub(crate) fn new(sizer: &Sizer, num_entries: usize, first_hash: u64) -> Plan {
        if num_entries == 0 {
            return Plan::Empty;
        }
        let bits = sizer.bits;
        match sizer.policy {
            Policy::Bloom => Plan::bloom(sizer, num_entries),
            Policy::LegacyBloom => {
                let whole_bits = bits.whole_bits();
                Plan::Legacy { len: legacy::block_len(num_entries, whole_bits), whole_bits }
            }
            Policy::Ribbon => {
                // RocksDB's Ribbon builder hands its entries to a Bloom
                // builder with the same millibits above 950M entries, and
                // for small filters (under 1024 slots, where Ribbon's fixed
                // cost per 128-slot block dominates) when Bloom is smaller.
                // (And when all 256 seeds fail: a build outcome, see
                // FilterBuilder::finish_into.) Within a byte budget both
                // have about the same size: the more accurate one wins.
                let bloom = Plan::bloom(sizer, num_entries);
                let cfc = sizer.ribbon_failure;
                let ribbon = match sizer.target {
                    Target::Bits => ribbon::sizing(num_entries, first_hash, bits.desired_one_in_fp_rate(), cfc),
                    Target::FpRate(p) => ribbon::sizing(num_entries, first_hash, 1.0 / p, cfc),
                    Target::MaxBytes(b) => ribbon::sizing_within(num_entries, b, cfc),
                };
                let bloom_wins = |r: &ribbon::Sizing| match sizer.target {
                    Target::MaxBytes(_) => bloom.estimated_fp_rate(num_entries) < r.expected_fp_rate(),
                    _ => bloom.len() < r.len,
                };
                match ribbon {
                    Some(r) if !(r.num_slots < 1024 && bloom_wins(&r)) => Plan::Ribbon(r),
                    _ => bloom,
                }
            }
        }
    }

    /// The FastLocalBloom plan for `sizer` (also Ribbon's fallback, which
    /// keeps the policy's millibits, FP target or budget).
    pub(crate) fn bloom(sizer: &Sizer, num_entries: usize) -> Plan {
        Plan::FastLocal(match sizer.target {
            Target::Bits => fast_local::sizing(num_entries, sizer.bits.millibits()),
            Target::FpRate(p) => fast_local::sizing_for_fp_rate(num_entries, p),
            Target::MaxBytes(b) => fast_local::sizing_within(num_entries, b)
                .unwrap_or_else(|| fast_local::sizing_for_fp_rate(num_entries, 1.0)),
        })
    }

    /// Block length, trailer included (0 for no entries).
    pub(crate) fn len(&self) -> usize {
        match *self {
            Plan::Empty => 0,
            Plan::FastLocal(f) => f.len,
            Plan::Legacy { len, .. } => len,
            Plan::Ribbon(r) => r.len,
        }
    }

    /// RocksDB's `EstimatedFpRate` for the planned block holding
    /// `num_entries` entries (for Ribbon, from the planned slot count).
    pub(crate) fn estimated_fp_rate(&self, num_entries: usize) -> f64 {
        match *self {
            Plan::Empty => 0.0,
            Plan::FastLocal(f) => f.estimated_fp_rate(num_entries),
            Plan::Ribbon(r) => r.expected_fp_rate(),
            Plan::Legacy { len, whole_bits } => {
                legacy::estimated_fp_rate(num_entries, len, legacy::choose_num_probes(whole_bits))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::METADATA_LEN;

    #[test]
    fn sanitising_follows_rocksdb() {
        assert!(BitsPerKey::new(0.49).is_err());
        assert!(BitsPerKey::new(f64::NAN).is_err());
        assert!(BitsPerKey::new(f64::NEG_INFINITY).is_err());
        assert_eq!(BitsPerKey::new(0.5).unwrap().millibits(), 1000);
        assert_eq!(BitsPerKey::new(0.7).unwrap().millibits(), 1000);
        assert_eq!(BitsPerKey::new(9.9).unwrap().millibits(), 9900);
        assert_eq!(BitsPerKey::new(23.45).unwrap().millibits(), 23450);
        assert_eq!(BitsPerKey::new(99.99).unwrap().millibits(), 99990);
        assert_eq!(BitsPerKey::new(150.0).unwrap().millibits(), 100000);
        assert_eq!(BitsPerKey::new(f64::INFINITY).unwrap().millibits(), 100000);
        assert_eq!(BitsPerKey::new(7.4999).unwrap().millibits(), 7500);
        assert_eq!(BitsPerKey::new(7.4999).unwrap().whole_bits(), 8);
        assert_eq!(BitsPerKey::new(7.4994).unwrap().whole_bits(), 7);
    }

    #[test]
    fn ribbon_target_is_bloom_fp_rate() {
        // 10 bits/key, 6 probes: a standard Bloom filter would give 0.84%;
        // confining probes to a cache line costs a little more.
        let fp = 1.0 / BitsPerKey::new(10.0).unwrap().desired_one_in_fp_rate();
        let standard = crate::bloom::standard_fp_rate(10.0, 6);
        assert!((0.0084..0.0085).contains(&standard), "{standard}");
        assert!(fp > standard && fp < 0.0100, "{fp}");
    }

    fn plan(o: BuilderOptions, n: usize) -> Plan {
        Plan::new(&o.sizer().unwrap(), n, 0x1234_5678_9abc_def0)
    }

    #[test]
    fn default_options_are_rocksdb_sizing() {
        for policy in [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom] {
            for bpk in [1.0, 7.5, 10.0, 23.45] {
                let bits = BitsPerKey::new(bpk).unwrap();
                for n in [1, 100, 5000, 1_000_000] {
                    assert_eq!(
                        plan(BuilderOptions::new(policy).bits_per_key(bpk), n),
                        Plan::new(&Sizer::rocksdb(policy, bits), n, 0x1234_5678_9abc_def0)
                    );
                }
            }
        }
    }

    #[test]
    fn bloom_fp_target_is_the_smallest_block_meeting_it() {
        for n in [1usize, 37, 1000, 100_000, 1_000_000] {
            for p in [0.5, 0.1, 0.01, 0.001, 1e-5] {
                let Plan::FastLocal(f) = plan(BuilderOptions::new(Policy::Bloom).fp_rate(p), n) else { panic!() };
                assert!(f.estimated_fp_rate(n) <= p, "n={n} p={p}");
                let lines = (f.len - 5) / 64;
                if lines > 1 {
                    let smaller = fast_local::sizing_within(n, f.len - 64).unwrap();
                    assert!(smaller.estimated_fp_rate(n) > p, "n={n} p={p}: {lines} lines is not the smallest");
                }
            }
        }
    }

    #[test]
    fn ribbon_fp_target_reduces_to_rocksdb_for_its_own_rate() {
        // Asking Ribbon for the rate RocksDB derives from a bits/key gives
        // RocksDB's block for that bits/key.
        for bpk in [3.0, 7.0, 10.0, 16.0] {
            let bits = BitsPerKey::new(bpk).unwrap();
            for n in [2000, 50_000, 1_000_000] {
                let by_rate = plan(BuilderOptions::new(Policy::Ribbon).fp_rate(1.0 / bits.desired_one_in_fp_rate()), n);
                assert_eq!(by_rate, plan(BuilderOptions::new(Policy::Ribbon).bits_per_key(bpk), n), "bpk={bpk} n={n}");
            }
        }
    }

    #[test]
    fn ribbon_one_percent_for_a_million_keys() {
        let n = 1_000_000;
        let Plan::Ribbon(r) = plan(BuilderOptions::new(Policy::Ribbon).fp_rate(0.01), n) else { panic!() };
        let bpk = 8.0 * r.len as f64 / n as f64;
        assert!((7.0..7.1).contains(&bpk), "{bpk}");
        assert!((r.expected_fp_rate() - 0.01).abs() < 0.01 * 1e-3, "{}", r.expected_fp_rate());
        // 1-in-1000 banding: about 2% more slots.
        let Plan::Ribbon(r1000) =
            plan(BuilderOptions::new(Policy::Ribbon).fp_rate(0.01).ribbon_failure(RibbonFailure::OneIn1000), n)
        else {
            panic!()
        };
        let more = r1000.num_slots as f64 / r.num_slots as f64;
        assert!((1.015..1.03).contains(&more), "{more}");
    }

    #[test]
    fn byte_budgets_fit_and_match_rocksdb_at_its_sizes() {
        for policy in [Policy::Bloom, Policy::Ribbon] {
            for n in [1usize, 500, 10_000, 1_000_000] {
                for b in [69usize, 100, 4096, 65_536, 1 << 20] {
                    let p = plan(BuilderOptions::new(policy).max_bytes(b), n);
                    // All the budget, or all 32 columns of a Ribbon (the
                    // reader ignores more).
                    let full = matches!(p, Plan::Ribbon(r) if r.len == r.num_slots as usize * 4 + 5);
                    assert!(p.len() <= b && (p.len() + 64 > b || full), "{policy:?} n={n} b={b}: {}", p.len());
                }
            }
        }
        // A budget of RocksDB's Bloom size at 10 bits/key is RocksDB's block
        // at the bits/key that size holds (10.24 for 1,000 keys in 1,280
        // bytes: 7 probes where 10 bits/key has 6).
        for n in [1000, 100_000, 1_000_000] {
            let rocks = plan(BuilderOptions::new(Policy::Bloom), n);
            let held = ((rocks.len() - METADATA_LEN) as u128 * 8000 / n as u128) as f64 / 1000.0;
            let at_held = plan(BuilderOptions::new(Policy::Bloom).bits_per_key(held), n);
            assert_eq!(at_held.len(), rocks.len(), "n={n}");
            assert_eq!(plan(BuilderOptions::new(Policy::Bloom).max_bytes(rocks.len()), n), at_held, "n={n}");
        }
    }

    #[test]
    fn invalid_combinations() {
        let o = BuilderOptions::new(Policy::Bloom);
        assert!(o.fp_rate(0.01).max_bytes(1000).sizer().is_err());
        for p in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(o.fp_rate(p).sizer().is_err(), "{p}");
        }
        assert!(o.max_bytes(68).sizer().is_err());
        assert!(BuilderOptions::new(Policy::LegacyBloom).fp_rate(0.01).sizer().is_err());
        assert!(o.bits_per_key(0.4).sizer().is_err());
        assert!(o.bits_per_key(0.0).fp_rate(0.01).sizer().is_ok()); // bits/key unused
    }
}
