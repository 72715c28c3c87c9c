//! The Bloom filter of the obsolete block-based filter (RocksDB < 7.0,
//! `BloomFilter(bits, true)`): one small filter per 2 KiB range of data-block
//! offsets, in the filter block that `sst::block_based` reads.
//!
//! Each filter is LevelDB's: `bits` bits then one byte, the probe count k
//! (`BloomFilterPolicy::CreateFilter` in RocksDB 6.29's
//! `table/block_based/filter_policy.cc`, `LegacyNoLocalityBloomImpl` in
//! `util/bloom_impl.h`). A key's 32-bit `BloomHash` h gives probe i at bit
//! `(h + i * delta) % bits` with `delta = rotr(h, 17)`, anywhere in the
//! filter: no cache locality (a lookup costs up to k cache misses, which is
//! why full filters replaced it).
//!
//! Sizes: `bits = max(64, n * bits_per_key)` rounded up to whole bytes, so a
//! range with a few keys still gets 8 bytes (at 10 bits/key and k = 6 a
//! 1-key filter's FP rate is ~1e-5, a 100-key one's ~0.8%).

use crate::hash::bloom_hash;

/// Probe counts above this are "reserved for new encodings" and match every
/// key (`BuiltinFilterPolicy::KeyMayMatch`).
pub const MAX_PROBES: u8 = 30;

/// `BuiltinFilterPolicy::KeyMayMatch` for one filter of a block-based filter
/// block: fewer than 2 bytes (no bits) match nothing, as in RocksDB.
pub fn may_match(key: &[u8], filter: &[u8]) -> bool {
    let len = filter.len();
    if !(2..=u32::MAX as usize).contains(&len) {
        return false;
    }
    let k = filter[len - 1];
    if k > MAX_PROBES {
        return true;
    }
    let bits = ((len - 1) as u32).wrapping_mul(8);
    if bits == 0 {
        // (len - 1) * 8 wrapped to 0 (a filter of 2^29 bytes or more): RocksDB
        // would divide by zero; no such filter exists in a file it wrote.
        return true;
    }
    let mut h = bloom_hash(key);
    let delta = h.rotate_right(17);
    for _ in 0..k {
        let bit = h % bits;
        if filter[(bit / 8) as usize] & (1 << (bit % 8)) == 0 {
            return false;
        }
        h = h.wrapping_add(delta);
    }
    true
}

/// Builds one filter for `keys` as RocksDB 6.29's `CreateFilter` (for tests:
/// this library reads the format, it does not write it into SSTs).
#[cfg(test)]
pub fn build(keys: &[&[u8]], bits_per_key: u32) -> Vec<u8> {
    let bits = ((keys.len() as u64 * bits_per_key as u64) as u32).max(64);
    let bytes = bits.div_ceil(8);
    let bits = bytes * 8;
    // LegacyNoLocalityBloomImpl::ChooseNumProbes, shared with the legacy full filter.
    let k = super::legacy::choose_num_probes(bits_per_key);
    let mut out = vec![0u8; bytes as usize];
    for key in keys {
        let mut h = bloom_hash(key);
        let delta = h.rotate_right(17);
        for _ in 0..k {
            let bit = h % bits;
            out[(bit / 8) as usize] |= 1 << (bit % 8);
            h = h.wrapping_add(delta);
        }
    }
    out.push(k as u8);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_keys_match_and_absent_keys_mostly_do_not() {
        let keys: Vec<Vec<u8>> = (0..200u32).map(|i| format!("key{i:05}").into_bytes()).collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let f = build(&refs, 10);
        assert_eq!(f.len(), 250 + 1);
        assert_eq!(*f.last().unwrap(), 6);
        assert!(refs.iter().all(|k| may_match(k, &f)));
        let fp = (0..10_000u32).filter(|i| may_match(format!("absent{i}").as_bytes(), &f)).count();
        // 10 bits/key, 6 probes: ~0.84%.
        assert!((20..200).contains(&fp), "{fp} false positives in 10,000");
    }

    #[test]
    fn rocksdb_rules_for_odd_filters() {
        assert!(!may_match(b"k", &[]));
        assert!(!may_match(b"k", &[6]));
        // k > 30: reserved, matches everything.
        assert!(may_match(b"k", &[0, 0, 0, 0, 31]));
        // k = 0: no probe fails.
        assert!(may_match(b"k", &[0, 0, 0]));
        // The minimum size: 64 bits for one key.
        assert_eq!(build(&[b"a"], 10).len(), 9);
    }
}
