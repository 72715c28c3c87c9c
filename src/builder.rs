//! Building filter blocks: collecting key hashes with RocksDB's
//! de-duplication rules (`XXPH3FilterBitsBuilder::AddKey/AddKeyAndAlt`,
//! `LegacyBloomBitsBuilder::AddKey/AddKeyAndAlt`), then handing them to the
//! format chosen by the policy.

use crate::bloom::{fast_local, legacy};
use crate::error::{Error, Result};
use crate::format::METADATA_LEN;
use crate::hash::chunks::Chunks;
use crate::hash::{bloom_hash, hash64};
use crate::policy::{BitsPerKey, BuilderOptions, Plan, Policy, Sizer};
use crate::ribbon;

/// Hash entries with RocksDB's collapsing of adjacent duplicates.
///
/// Only *adjacent* repeats are dropped: keys arrive sorted, so with prefix
/// filtering the same prefix arrives many times in a row, and collapsing
/// them keeps the filter sized for the distinct entries.
#[derive(Clone, Debug, Default)]
struct Entries<H> {
    hashes: Chunks<H>,
    /// `AddKeyAndAlt`'s one-element cache of the previous alt hash.
    prev_alt: Option<H>,
}

impl<H: Copy + PartialEq> Entries<H> {
    #[inline(always)]
    fn add(&mut self, h: H) {
        if self.hashes.last() != Some(h) {
            self.hashes.push(h);
        }
    }

    /// RocksDB adds the alt (prefix) first so that `hashes.last()` stays the
    /// previous *key*, assuming a change of alt implies a change of key.
    fn add_key_and_alt(&mut self, key: H, alt: H) {
        let prev_key = self.hashes.last();
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

    fn take(&mut self) -> Chunks<H> {
        self.prev_alt = None;
        std::mem::take(&mut self.hashes)
    }
}

/// A zeroed, writable buffer `finish` can write a block into.
pub(crate) trait BlockBuf: std::ops::DerefMut<Target = [u8]> + Sized {
    /// `len` zero bytes (`len > 0`).
    fn zeroed(len: usize) -> Result<Self>;
}

impl BlockBuf for Vec<u8> {
    fn zeroed(len: usize) -> Result<Self> {
        Ok(vec![0u8; len])
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
    /// Policy, bits/key and any FP target, budget or banding table.
    sizer: Sizer,
    state: State,
    /// A misuse that can only be reported at `finish` (see `add_hash`).
    deferred_error: Option<Error>,
}

/// The body of [`FilterBuilder::add_key`], out of line and `extern "C"`
/// (cannot unwind), so that callers with a panic guard (the C ABI) compile
/// to a plain call with no landing pad. Nothing here can panic short of the
/// hash buffer exceeding `isize::MAX` bytes (the allocator aborts first).
/// Safety: `key` points to `len` readable bytes.
#[inline(never)]
unsafe extern "C" fn add_key_entry(b: &mut FilterBuilder, key: *const u8, len: usize) {
    // SAFETY: per the contract above.
    let key = unsafe { std::slice::from_raw_parts(key, len) };
    match &mut b.state {
        State::Xxph3(e) => e.add(crate::hash::hash64_inline(key)),
        State::Legacy(e) => e.add(bloom_hash(key)),
    }
}

impl FilterBuilder {
    /// A builder for `policy` at `bits_per_key`, sanitised as RocksDB does
    /// (see [`BitsPerKey::new`]; below 0.5 or NaN is an error).
    ///
    /// ```
    /// use rocksfilter::{ErrorKind, FilterBuilder, Policy};
    /// assert!(FilterBuilder::new(Policy::Ribbon, 10.0).is_ok());
    /// // Below 0.5 bits/key RocksDB writes no filter at all.
    /// assert_eq!(FilterBuilder::new(Policy::Bloom, 0.4).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// ```
    pub fn new(policy: Policy, bits_per_key: f64) -> Result<Self> {
        Ok(Self::with_sizer(Sizer::rocksdb(policy, BitsPerKey::new(bits_per_key)?)))
    }

    /// A builder sized by `options`: RocksDB's bits/key, or a target FP
    /// rate, or a byte budget, and for Ribbon a banding table (see
    /// [`BuilderOptions`]). With only a policy and bits/key it writes what
    /// [`new`](Self::new) writes. Invalid combinations (an FP rate and a
    /// budget, an FP rate outside (0, 1), a budget under 69 bytes, a target
    /// or budget for the legacy Bloom) are invalid-argument errors.
    ///
    /// ```
    /// use rocksfilter::{BuilderOptions, Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::with_options(&BuilderOptions::new(Policy::Bloom).max_bytes(4096))?;
    /// for i in 0..1000u32 { b.add_key(&i.to_le_bytes()); }
    /// let block = b.finish()?;
    /// assert_eq!(block.len(), 63 * 64 + 5); // the most cache lines that fit in 4096 bytes
    /// assert!(Filter::new(&block)?.may_match(&7u32.to_le_bytes()));
    /// assert!(FilterBuilder::with_options(&BuilderOptions::new(Policy::Bloom).fp_rate(1.5)).is_err());
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn with_options(options: &BuilderOptions) -> Result<Self> {
        Ok(Self::with_sizer(options.sizer()?))
    }

    fn with_sizer(sizer: Sizer) -> Self {
        let state = match sizer.policy {
            Policy::LegacyBloom => State::Legacy(Entries::default()),
            Policy::Bloom | Policy::Ribbon => State::Xxph3(Entries::default()),
        };
        FilterBuilder { sizer, state, deferred_error: None }
    }

    /// The policy this builder writes.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// assert_eq!(FilterBuilder::new(Policy::Ribbon, 10.0)?.policy(), Policy::Ribbon);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn policy(&self) -> Policy {
        self.sizer.policy
    }

    /// The sanitised bits/key setting (which sizes nothing when the builder
    /// was made with an FP rate or a byte budget).
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let b = FilterBuilder::new(Policy::Bloom, 0.7)?;
    /// assert_eq!(b.bits_per_key().bits(), 1.0); // RocksDB raises it to 1
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn bits_per_key(&self) -> BitsPerKey {
        self.sizer.bits
    }

    /// Adds a key (adjacent duplicates collapse, as in RocksDB).
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"a");
    /// b.add_key(b"a"); // an adjacent repeat collapses, as in RocksDB
    /// b.add_key(b"b");
    /// assert_eq!(b.num_entries(), 2);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    #[inline]
    pub fn add_key(&mut self, key: &[u8]) {
        // SAFETY: a slice's pointer and length.
        unsafe { add_key_entry(self, key.as_ptr(), key.len()) }
    }

    /// Adds a key and an alternate form of it (its prefix, for prefix
    /// filtering), with RocksDB's `AddKeyAndAlt` de-duplication (RocksDB 8.x
    /// and later; RocksDB 7.x added the key before the prefix, see the C
    /// header's `rocksfilter_builder_add_key_and_alt`).
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key_and_alt(b"user:1001", b"user"); // whole key and its prefix
    /// b.add_key_and_alt(b"user:1002", b"user"); // same prefix: added once
    /// assert_eq!(b.num_entries(), 3);
    /// let block = b.finish()?;
    /// assert!(Filter::new(&block)?.may_match(b"user"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
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
    ///
    /// ```
    /// use rocksfilter::{hash64, FilterBuilder, Policy};
    /// let (mut a, mut b) = (FilterBuilder::new(Policy::Ribbon, 10.0)?, FilterBuilder::new(Policy::Ribbon, 10.0)?);
    /// a.add_key(b"apple");
    /// b.add_hash(hash64(b"apple"));
    /// assert_eq!(a.finish()?, b.finish()?);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
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
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// for k in [&b"a"[..], b"b", b"a"] { b.add_key(k); }
    /// assert_eq!(b.num_entries(), 3); // only adjacent repeats collapse
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn num_entries(&self) -> usize {
        match &self.state {
            State::Xxph3(e) => e.hashes.len(),
            State::Legacy(e) => e.hashes.len(),
        }
    }

    /// The plan for `num_entries` entries of this builder's policy; Ribbon
    /// sizes take entropy from the first entry added (0 before any).
    fn plan(&self, num_entries: usize) -> Plan {
        let first = match &self.state {
            State::Xxph3(e) => e.hashes.first().unwrap_or(0),
            State::Legacy(_) => 0,
        };
        Plan::new(&self.sizer, num_entries, first)
    }

    /// Bytes `finish` would produce for `num_entries` entries (RocksDB's
    /// `CalculateSpace`). Ribbon sizes depend on the first entry's hash by
    /// up to 16 bytes: this uses the first key added so far (hash 0 before
    /// any), so with all keys added it is exact.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// assert_eq!(b.space_for(1000), 1280 + 5); // 10,000 bits in whole cache lines, and the trailer
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn space_for(&self, num_entries: usize) -> usize {
        self.plan(num_entries).len()
    }

    /// Produces the filter block and empties the builder for reuse. No keys
    /// give an empty block (RocksDB's always-false filter).
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// assert!(b.finish()?.is_empty()); // no keys: RocksDB's empty block
    /// b.add_key(b"k");
    /// assert_eq!(b.finish()?.len(), 64 + 5); // one cache line and the trailer
    /// assert_eq!(b.num_entries(), 0); // empty again, ready for reuse
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn finish(&mut self) -> Result<Vec<u8>> {
        Ok(self.finish_into::<Vec<u8>>()?.unwrap_or_default())
    }

    /// `finish` into a buffer of the caller's type (the C ABI writes straight
    /// into `malloc` memory instead of copying). `None` for no keys.
    pub(crate) fn finish_into<B: BlockBuf>(&mut self) -> Result<Option<B>> {
        if let Some(e) = self.deferred_error.take() {
            self.reset();
            return Err(e);
        }
        // The block is written all over (Bloom sets bits in every line at
        // useful bits/key; Ribbon back-substitutes every byte): map its pages
        // in one go rather than one page fault per page.
        let alloc = |len: usize| -> Result<B> {
            let mut block = B::zeroed(len)?;
            crate::mem::populate_write(block.as_mut_ptr(), len);
            Ok(block)
        };
        let plan = self.plan(self.num_entries());
        Ok(Some(match &mut self.state {
            State::Xxph3(e) => {
                let hashes = e.take();
                if hashes.is_empty() {
                    return Ok(None);
                }
                let parts = hashes.parts();
                let plan = match plan {
                    Plan::Ribbon(sizing) => match ribbon::solve(&parts, sizing) {
                        Some(solved) => {
                            // RocksDB's ResetEntries(): free the hashes before
                            // the filter is allocated (lower peak memory).
                            drop(parts);
                            drop(hashes);
                            let mut block = alloc(solved.len())?;
                            ribbon::write_into(solved, &mut block);
                            return Ok(Some(block));
                        }
                        // All 256 seeds failed: RocksDB hands the entries
                        // to its Bloom builder (same millibits; here also
                        // the same FP target or budget).
                        None => Plan::bloom(&self.sizer, hashes.len()),
                    },
                    plan => plan,
                };
                let Plan::FastLocal(sizing) = plan else {
                    return Err(Error::new(crate::ErrorKind::Internal, format!("64-bit hashes planned as {plan:?}")));
                };
                let mut block = alloc(sizing.len)?;
                fast_local::build_into(&mut block, &parts, sizing.num_probes);
                block
            }
            State::Legacy(e) => {
                let hashes = e.take();
                if hashes.is_empty() {
                    return Ok(None);
                }
                let Plan::Legacy { len, whole_bits } = plan else {
                    return Err(Error::new(crate::ErrorKind::Internal, format!("32-bit hashes planned as {plan:?}")));
                };
                let mut block = alloc(len)?;
                legacy::build_into(&mut block, hashes.iter(), hashes.len(), whole_bits);
                block
            }
        }))
    }

    /// Drops all added keys.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"k");
    /// b.reset();
    /// assert_eq!(b.num_entries(), 0);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.deferred_error = None;
        match &mut self.state {
            State::Xxph3(e) => drop(e.take()),
            State::Legacy(e) => drop(e.take()),
        }
    }
}

/// Direct and parallel Bloom construction (beyond RocksDB's builder, same
/// bytes).
impl FilterBuilder {
    /// RocksDB's own filter size and FP-rate estimate for `num_entries`
    /// entries with this builder's policy and bits/key (`CalculateSpace` +
    /// `EstimatedFpRate`), from the same plan `finish` builds (so the same
    /// first-key rule as [`space_for`](Self::space_for)).
    /// Returns `(bytes_with_trailer, estimated_fp_rate)`.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// let (bytes, fp) = b.estimate(1_000_000);
    /// assert_eq!(bytes, 1_250_048 + 5); // 10 million bits in whole cache lines, and the trailer
    /// assert!((0.0095..0.0096).contains(&fp)); // about 1 in 105
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn estimate(&self, num_entries: usize) -> (usize, f64) {
        let plan = self.plan(num_entries);
        (plan.len(), plan.estimated_fp_rate(num_entries))
    }

    /// The kind of block `finish` would write for `num_entries` entries,
    /// from the same plan as [`estimate`](Self::estimate): a Ribbon builder
    /// writes a Bloom block where RocksDB's policy falls back to one (small
    /// filters where Bloom is smaller, more than 950 million entries).
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Kind, Policy};
    /// let b = FilterBuilder::new(Policy::Ribbon, 10.0)?;
    /// assert_eq!(b.planned_kind(1_000_000), Kind::Standard128Ribbon);
    /// assert_eq!(b.planned_kind(10), Kind::FastLocalBloom); // Bloom is smaller
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn planned_kind(&self, num_entries: usize) -> crate::Kind {
        match self.plan(num_entries) {
            Plan::Empty => crate::Kind::AlwaysFalse,
            Plan::FastLocal(_) => crate::Kind::FastLocalBloom,
            Plan::Ribbon(_) => crate::Kind::Standard128Ribbon,
            Plan::Legacy { .. } => crate::Kind::LegacyBloom,
        }
    }

    /// A FastLocalBloom block written directly from the keys, without
    /// buffering their hashes (RocksDB's builder buffers 64 bits per key
    /// first): the size is known from `keys.len()`, so every hash goes
    /// straight into the bit array. Byte-identical to adding the keys to a
    /// `Policy::Bloom` builder and calling `finish`.
    ///
    /// Contract: no two *adjacent* keys are equal (RocksDB collapses
    /// adjacent duplicates, which shrinks the filter). This is checked
    /// while building; if it is broken, the keys are iterated a second time
    /// through the ordinary buffered builder (hence `Clone`), so the result
    /// is always RocksDB's.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let keys: Vec<Vec<u8>> = (0..1000u32).map(|i| i.to_be_bytes().to_vec()).collect();
    /// let direct = FilterBuilder::build_bloom_exact(keys.iter().map(|k| &k[..]), 10.0)?;
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// keys.iter().for_each(|k| b.add_key(k));
    /// assert_eq!(direct, b.finish()?);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn build_bloom_exact<'k, I>(keys: I, bits_per_key: f64) -> Result<Vec<u8>>
    where
        I: IntoIterator<Item = &'k [u8]> + Clone,
        I::IntoIter: ExactSizeIterator,
    {
        let bits = BitsPerKey::new(bits_per_key)?;
        let it = keys.clone().into_iter();
        let n = it.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let fast_local::Sizing { len: len_with_metadata, num_probes: probes } = fast_local::sizing(n, bits.millibits());
        let mut block = vec![0u8; len_with_metadata];
        crate::mem::populate_write(block.as_ptr(), block.len());
        let len = len_with_metadata - METADATA_LEN;
        let mut prev: Option<u64> = None;
        let mut adjacent_duplicate = false;
        let mut seen = 0usize;
        let hashes = it.map(|k| {
            let h = hash64(k);
            adjacent_duplicate |= prev == Some(h);
            prev = Some(h);
            seen += 1;
            h
        });
        fast_local::add_all(&mut block[..len], hashes, probes);
        if adjacent_duplicate || seen != n {
            // Wrong size: rebuild as RocksDB would (dedup, exact count).
            let mut b = FilterBuilder::new(Policy::Bloom, bits_per_key)?;
            for k in keys {
                b.add_key(k);
            }
            return b.finish();
        }
        fast_local::write_trailer(&mut block, probes);
        Ok(block)
    }

    /// A FastLocalBloom block built on `threads` threads, byte-identical to
    /// the sequential build (adjacent duplicates collapse as in RocksDB).
    /// Phase 1 hashes contiguous key ranges in parallel; phase 2 gives each
    /// thread a disjoint window of cache lines of the bit array, and each
    /// thread sets the bits of the hashes that land in its window.
    ///
    /// ```
    /// use rocksfilter::{FilterBuilder, Policy};
    /// let keys: Vec<Vec<u8>> = (0..1000u32).map(|i| i.to_be_bytes().to_vec()).collect();
    /// let parallel = FilterBuilder::build_bloom_parallel(&keys, 10.0, 2)?;
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// keys.iter().for_each(|k| b.add_key(k));
    /// assert_eq!(parallel, b.finish()?);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn build_bloom_parallel<K: AsRef<[u8]> + Sync>(
        keys: &[K],
        bits_per_key: f64,
        threads: usize,
    ) -> Result<Vec<u8>> {
        let bits = BitsPerKey::new(bits_per_key)?;
        let threads = threads.max(1).min(keys.len().max(1));
        let per = keys.len().div_ceil(threads);
        let ranges: Vec<&[K]> = keys.chunks(per.max(1)).collect();
        // Phase 1: hashes per range, adjacent duplicates dropped inside it.
        let mut parts: Vec<Vec<u64>> = std::thread::scope(|s| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|r| {
                    s.spawn(move || {
                        let mut v: Vec<u64> = Vec::with_capacity(r.len());
                        crate::mem::populate_spare(&mut v);
                        for k in r.iter() {
                            let h = hash64(k.as_ref());
                            if v.last() != Some(&h) {
                                v.push(h);
                            }
                        }
                        v
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("hashing thread")).collect()
        });
        // Across range boundaries: a range's first hash equal to the
        // previous range's last one is the same adjacent duplicate.
        for i in 1..parts.len() {
            let prev_last = parts[..i].iter().rev().find_map(|p| p.last().copied());
            if prev_last.is_some() && parts[i].first().copied() == prev_last {
                parts[i].remove(0);
            }
        }
        let n: usize = parts.iter().map(|p| p.len()).sum();
        if n == 0 {
            return Ok(Vec::new());
        }
        let fast_local::Sizing { len: len_with_metadata, num_probes: probes } = fast_local::sizing(n, bits.millibits());
        let len = len_with_metadata - METADATA_LEN;
        let mut block = vec![0u8; len_with_metadata];
        crate::mem::populate_write(block.as_ptr(), block.len());
        // Phase 2: disjoint line windows.
        let bounds = fast_local::line_windows(len, threads);
        {
            let mut rest = &mut block[..len];
            let mut windows = Vec::new();
            for w in bounds.windows(2) {
                let (head, tail) = rest.split_at_mut(w[1] - w[0]);
                windows.push((w[0], head));
                rest = tail;
            }
            let parts: Vec<&[u64]> = parts.iter().map(|p| &p[..]).collect();
            let parts = &parts;
            std::thread::scope(|s| {
                for (base, window) in windows {
                    s.spawn(move || fast_local::add_window(window, base, len, parts, probes));
                }
            });
        }
        fast_local::write_trailer(&mut block, probes);
        Ok(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|i| format!("key{i:08}").into_bytes()).collect()
    }

    fn buffered(keys: &[Vec<u8>], bpk: f64) -> Vec<u8> {
        let mut b = FilterBuilder::new(Policy::Bloom, bpk).unwrap();
        for k in keys {
            b.add_key(k);
        }
        b.finish().unwrap()
    }

    #[test]
    fn exact_and_parallel_bloom_are_byte_identical() {
        for n in [0usize, 1, 7, 100, 5000, 70_000] {
            let mut ks = keys(n);
            for bpk in [1.0, 6.5, 10.0, 23.7] {
                let want = buffered(&ks, bpk);
                let exact = FilterBuilder::build_bloom_exact(ks.iter().map(|k| &k[..]), bpk).unwrap();
                assert_eq!(exact, want, "exact n={n} bpk={bpk}");
                for t in [1, 2, 3, 8] {
                    let par = FilterBuilder::build_bloom_parallel(&ks, bpk, t).unwrap();
                    assert_eq!(par, want, "parallel n={n} bpk={bpk} t={t}");
                }
            }
            // Adjacent duplicates (also across thread ranges): the contract
            // of the exact build is broken, it must fall back; the parallel
            // build must collapse them like RocksDB.
            if n >= 2 {
                for i in (0..n).step_by(3) {
                    if i + 1 < n {
                        ks[i + 1] = ks[i].clone();
                    }
                }
                ks[n / 2] = ks[n / 2 - 1].clone();
                let want = buffered(&ks, 10.0);
                assert_eq!(FilterBuilder::build_bloom_exact(ks.iter().map(|k| &k[..]), 10.0).unwrap(), want);
                for t in [2, 3, 7] {
                    assert_eq!(FilterBuilder::build_bloom_parallel(&ks, 10.0, t).unwrap(), want, "dups t={t}");
                }
            }
        }
    }

    #[test]
    fn estimate_matches_built_filters() {
        let ks = keys(20_000);
        for policy in [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom] {
            let mut b = FilterBuilder::new(policy, 10.0).unwrap();
            let (bytes, fp) = b.estimate(ks.len());
            for k in &ks {
                b.add_key(k);
            }
            let block = b.finish().unwrap();
            assert!((bytes as i64 - block.len() as i64).abs() <= 16, "{policy:?}");
            let f = crate::Filter::new(&block).unwrap();
            assert!((f.estimated_fp_rate(ks.len()) - fp).abs() < fp * 0.05, "{policy:?}");
        }
    }

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
        assert_eq!(e.hashes.to_vec(), vec![1, 10, 11, 2, 3]);
        e.add_key_and_alt(3, 4); // key == prev alt (3): only alt 4
        assert_eq!(e.hashes.to_vec(), vec![1, 10, 11, 2, 3, 4]);
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
