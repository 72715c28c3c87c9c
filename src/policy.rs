//! RocksDB's filter policy rules (`BloomLikeFilterPolicy` in
//! `table/block_based/filter_policy.cc`): how a `bits_per_key` double is
//! sanitised, the settings each format derives from it, and [`Plan`]: which
//! format and size a block for a given set of entries gets. Building, sizing
//! and estimating all go through `Plan::new`, so they cannot disagree.

use crate::bloom::{choose_num_probes, fast_local, legacy};
use crate::error::{Error, Result};
use crate::ribbon;

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
        let bits = if bits_per_key < 1.0 {
            1.0
        } else if !(bits_per_key < 100.0) {
            100.0
        } else {
            bits_per_key
        };
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

/// The format and size of the block for a set of entries: the one place
/// where the policy's decisions are made (what RocksDB's builders decide in
/// `CalculateSpace`, `CalculateSpaceAndSlots` and their Bloom fallbacks).
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
    pub(crate) fn new(policy: Policy, bits: BitsPerKey, num_entries: usize, first_hash: u64) -> Plan {
        if num_entries == 0 {
            return Plan::Empty;
        }
        match policy {
            Policy::Bloom => Plan::bloom(bits, num_entries),
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
                // FilterBuilder::finish_into.)
                let bloom = Plan::bloom(bits, num_entries);
                match ribbon::sizing(num_entries, first_hash, bits.desired_one_in_fp_rate()) {
                    Some(r) if !(r.num_slots < 1024 && bloom.len() < r.len) => Plan::Ribbon(r),
                    _ => bloom,
                }
            }
        }
    }

    /// The FastLocalBloom plan at `bits` (also Ribbon's fallback, which
    /// keeps the policy's millibits).
    pub(crate) fn bloom(bits: BitsPerKey, num_entries: usize) -> Plan {
        Plan::FastLocal(fast_local::sizing(num_entries, bits.millibits()))
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
    /// `num_entries` entries.
    pub(crate) fn estimated_fp_rate(&self, num_entries: usize) -> f64 {
        match *self {
            Plan::Empty => 0.0,
            Plan::FastLocal(f) => fast_local::estimated_fp_rate(num_entries, f.len, f.num_probes),
            Plan::Ribbon(r) => ribbon::estimated_fp_rate(num_entries, r.len),
            Plan::Legacy { len, whole_bits } => {
                legacy::estimated_fp_rate(num_entries, len, legacy::choose_num_probes(whole_bits))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
