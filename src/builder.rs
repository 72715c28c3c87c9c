//! Building filter blocks: collecting key hashes with RocksDB's
//! de-duplication rules (`XXPH3FilterBitsBuilder::AddKey/AddKeyAndAlt`,
//! `LegacyBloomBitsBuilder::AddKey/AddKeyAndAlt`), then handing them to the
//! format chosen by the policy.

use crate::bloom::{fast_local, legacy};
use crate::error::{Error, Result};
use crate::hash::{bloom_hash, hash64};
use crate::policy::{BitsPerKey, Policy};
use crate::ribbon::{self, RibbonBuild};

/// Hash entries with RocksDB's collapsing of adjacent duplicates.
///
/// Only *adjacent* repeats are dropped: keys arrive sorted, so with prefix
/// filtering the same prefix arrives many times in a row, and collapsing
/// them keeps the filter sized for the distinct entries.
#[derive(Clone, Debug, Default)]
struct Entries<H> {
    hashes: Vec<H>,
    /// `AddKeyAndAlt`'s one-element cache of the previous alt hash.
    prev_alt: Option<H>,
}

impl<H: Copy + PartialEq> Entries<H> {
    fn add(&mut self, h: H) {
        if self.hashes.last() != Some(&h) {
            self.hashes.push(h);
        }
    }

    /// RocksDB adds the alt (prefix) first so that `hashes.last()` stays the
    /// previous *key*, assuming a change of alt implies a change of key.
    fn add_key_and_alt(&mut self, key: H, alt: H) {
        let prev_key = self.hashes.last().copied();
        let prev_alt = self.prev_alt;
        if Some(alt) != prev_alt && alt != key && Some(alt) != prev_key {
            self.hashes.push(alt);
        }
        // Overwritten even when alt == key.
        self.prev_alt = Some(alt);
        // Also skip key == previous alt: a key equal to its own prefix at the
        // end of a prefix group (reverse bytewise order).
        if Some(key) != prev_key && Some(key) != prev_alt {
            self.hashes.push(key);
        }
    }

    fn take(&mut self) -> Vec<H> {
        self.prev_alt = None;
        std::mem::take(&mut self.hashes)
    }
}

#[derive(Clone, Debug)]
enum State {
    /// FastLocalBloom and Ribbon: 64-bit XXPH3 hashes.
    Xxph3(Entries<u64>),
    /// Legacy Bloom: 32-bit BloomHash values.
    Legacy(Entries<u32>),
}

/// Collects keys and produces a filter block byte-identical to RocksDB's for
/// the same keys in the same order. Reusable: `finish` leaves it empty.
///
/// ```
/// use rocksfilter::{Filter, FilterBuilder, Policy};
/// let mut b = FilterBuilder::new(Policy::Bloom, 10.0).unwrap();
/// b.add_key(b"hello");
/// let block = b.finish().unwrap();
/// assert!(Filter::new(&block).unwrap().may_match(b"hello"));
/// ```
#[derive(Clone, Debug)]
pub struct FilterBuilder {
    policy: Policy,
    bits: BitsPerKey,
    state: State,
    /// A misuse that can only be reported at `finish` (see `add_hash`).
    deferred_error: Option<Error>,
}

impl FilterBuilder {
    /// A builder for `policy` at `bits_per_key`, sanitised as RocksDB does
    /// (see [`BitsPerKey::new`]; below 0.5 or NaN is an error).
    pub fn new(policy: Policy, bits_per_key: f64) -> Result<Self> {
        let bits = BitsPerKey::new(bits_per_key)?;
        let state = match policy {
            Policy::LegacyBloom => State::Legacy(Entries::default()),
            Policy::Bloom | Policy::Ribbon => State::Xxph3(Entries::default()),
        };
        Ok(FilterBuilder { policy, bits, state, deferred_error: None })
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn bits_per_key(&self) -> BitsPerKey {
        self.bits
    }

    /// Adds a key (adjacent duplicates collapse, as in RocksDB).
    #[inline]
    pub fn add_key(&mut self, key: &[u8]) {
        match &mut self.state {
            State::Xxph3(e) => e.add(hash64(key)),
            State::Legacy(e) => e.add(bloom_hash(key)),
        }
    }

    /// Adds a key and an alternate form of it (its prefix, for prefix
    /// filtering), with RocksDB's `AddKeyAndAlt` de-duplication.
    pub fn add_key_and_alt(&mut self, key: &[u8], alt: &[u8]) {
        match &mut self.state {
            State::Xxph3(e) => e.add_key_and_alt(hash64(key), hash64(alt)),
            State::Legacy(e) => e.add_key_and_alt(bloom_hash(key), bloom_hash(alt)),
        }
    }

    /// Adds a key by its [`hash64`], exactly as `add_key` would.
    ///
    /// Legacy Bloom filters hash keys with a 32-bit hash that cannot be
    /// derived from this one; on a legacy builder the call is recorded and
    /// `finish` fails with an invalid-argument error.
    #[inline]
    pub fn add_hash(&mut self, hash: u64) {
        match &mut self.state {
            State::Xxph3(e) => e.add(hash),
            State::Legacy(_) => {
                self.deferred_error.get_or_insert_with(|| {
                    Error::invalid(
                        "add_hash on a legacy Bloom builder: legacy filters use a 32-bit key hash; add keys instead",
                    )
                });
            }
        }
    }

    /// Records a misuse that `finish` will report (the C ABI's void calls
    /// cannot return one, and silently dropping a key would make it absent).
    pub(crate) fn poison(&mut self, e: Error) {
        self.deferred_error.get_or_insert(e);
    }

    /// Entries added so far, after collapsing duplicates (RocksDB's
    /// `EstimateEntriesAdded`).
    pub fn num_entries(&self) -> usize {
        match &self.state {
            State::Xxph3(e) => e.hashes.len(),
            State::Legacy(e) => e.hashes.len(),
        }
    }

    /// Bytes `finish` would produce for `num_entries` entries.
    pub fn space_for(&self, num_entries: usize) -> usize {
        if num_entries == 0 {
            return 0;
        }
        let millibits = self.bits.millibits();
        match self.policy {
            Policy::Bloom => fast_local::calculate_space(num_entries, millibits),
            Policy::Ribbon => {
                // Ribbon's column rounding takes entropy from the first hash.
                let first = match &self.state {
                    State::Xxph3(e) => e.hashes.first().copied().unwrap_or(0),
                    State::Legacy(_) => 0,
                };
                ribbon::calculate_space(num_entries, first, self.bits.desired_one_in_fp_rate(), millibits)
                    .unwrap_or_else(|| fast_local::calculate_space(num_entries, millibits))
            }
            Policy::LegacyBloom => {
                (legacy::geometry_for(num_entries, self.bits.whole_bits()).0 / 8) as usize
                    + fast_local::METADATA_LEN
            }
        }
    }

    /// Produces the filter block and empties the builder for reuse. No keys
    /// give an empty block (RocksDB's always-false filter).
    pub fn finish(&mut self) -> Result<Vec<u8>> {
        if let Some(e) = self.deferred_error.take() {
            self.reset();
            return Err(e);
        }
        let millibits = self.bits.millibits();
        Ok(match &mut self.state {
            State::Xxph3(e) => {
                let hashes = e.take();
                if hashes.is_empty() {
                    return Ok(Vec::new());
                }
                if self.policy == Policy::Ribbon {
                    // RocksDB's Ribbon builder hands its entries to a Bloom
                    // builder with the same millibits when Bloom is smaller,
                    // above 950M entries, or when all 256 seeds fail.
                    if let RibbonBuild::Ribbon(block) =
                        ribbon::build(&hashes, self.bits.desired_one_in_fp_rate(), millibits)
                    {
                        return Ok(block);
                    }
                }
                let len = fast_local::calculate_space(hashes.len(), millibits);
                fast_local::build(&hashes, len, fast_local::choose_num_probes(millibits))
            }
            State::Legacy(e) => {
                let hashes = e.take();
                if hashes.is_empty() {
                    return Ok(Vec::new());
                }
                legacy::build(&hashes, self.bits.whole_bits())
            }
        })
    }

    /// Drops all added keys.
    pub fn reset(&mut self) {
        self.deferred_error = None;
        match &mut self.state {
            State::Xxph3(e) => drop(e.take()),
            State::Legacy(e) => drop(e.take()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_duplicates_collapse() {
        let mut b = FilterBuilder::new(Policy::Bloom, 10.0).unwrap();
        for k in [&b"a"[..], b"a", b"b", b"a"] {
            b.add_key(k);
        }
        assert_eq!(b.num_entries(), 3);
    }

    #[test]
    fn key_and_alt_rules() {
        let mut e = Entries::<u32>::default();
        e.add_key_and_alt(10, 1); // alt 1, key 10
        e.add_key_and_alt(11, 1); // same alt: only key
        e.add_key_and_alt(2, 2); // alt == key: once
        e.add_key_and_alt(2, 3); // key == prev key: only alt 3
        assert_eq!(e.hashes, vec![1, 10, 11, 2, 3]);
        e.add_key_and_alt(3, 4); // key == prev alt (3): only alt 4
        assert_eq!(e.hashes, vec![1, 10, 11, 2, 3, 4]);
    }

    #[test]
    fn empty_finish_is_empty_and_reusable() {
        let mut b = FilterBuilder::new(Policy::Bloom, 10.0).unwrap();
        assert!(b.finish().unwrap().is_empty());
        b.add_key(b"k");
        assert_eq!(b.finish().unwrap().len(), 69);
        assert_eq!(b.num_entries(), 0);
    }

    #[test]
    fn add_hash_on_legacy_fails_at_finish_then_recovers() {
        let mut b = FilterBuilder::new(Policy::LegacyBloom, 10.0).unwrap();
        b.add_hash(1);
        assert_eq!(b.finish().unwrap_err().kind(), crate::ErrorKind::InvalidArgument);
        b.add_key(b"k");
        assert!(!b.finish().unwrap().is_empty());
    }
}
