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

use super::{cache_local_fp_rate, fingerprint_fp_rate, independent_probability_sum, prefetch};

/// Trailer length shared by all built-in filter formats (`kMetadataLen`).
pub(crate) const METADATA_LEN: usize = 5;
const LINE: usize = 64;
/// Largest bit array RocksDB builds (`0xffffffc0` bytes, a multiple of 64
/// that keeps `len` in 32 bits).
const MAX_LEN: usize = 0xffff_ffc0;
const GOLDEN: u32 = 0x9e37_79b9;

/// RocksDB's `FastLocalBloomImpl::ChooseNumProbes`: the probe count that
/// minimises the cache-local FP rate for a bits/key, in thousandths of a bit.
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
    let raw = ((num_entries as u128 * millibits_per_key as u128 + 7999) / 8000)
        .min(MAX_LEN as u128) as usize;
    ((raw + 63) & !63) + METADATA_LEN
}

/// RocksDB's `FastLocalBloomImpl::EstimatedFpRate` for a built filter:
/// cache-local Bloom FP rate combined with 64-bit hash collisions.
pub fn estimated_fp_rate(keys: usize, len_with_metadata: usize, num_probes: u32) -> f64 {
    if len_with_metadata <= METADATA_LEN {
        return if keys > 0 { 1.0 } else { 0.0 };
    }
    let bytes = len_with_metadata - METADATA_LEN;
    independent_probability_sum(
        cache_local_fp_rate(8.0 * bytes as f64 / keys as f64, num_probes, 512),
        fingerprint_fp_rate(keys, 64),
    )
}

/// `FastRange32`: maps a 32-bit hash onto `0..range` without division.
#[inline(always)]
fn fast_range32(h: u32, range: u32) -> u32 {
    ((h as u64 * range as u64) >> 32) as u32
}

/// Byte offset of the cache line a hash's lower half selects.
#[inline(always)]
fn line_offset(h: u64, len: usize) -> usize {
    (fast_range32(h as u32, (len >> 6) as u32) as usize) << 6
}

#[inline(always)]
fn add_to_line(line: &mut [u8; LINE], h2: u32, num_probes: u32) {
    let mut h = h2;
    for _ in 0..num_probes {
        let bit = (h >> 23) as usize;
        line[bit >> 3] |= 1 << (bit & 7);
        h = h.wrapping_mul(GOLDEN);
    }
}

#[inline(always)]
fn line_matches(line: &[u8; LINE], h2: u32, num_probes: u32) -> bool {
    let mut h = h2;
    for _ in 0..num_probes {
        let bit = (h >> 23) as usize;
        if line[bit >> 3] & (1 << (bit & 7)) == 0 {
            return false;
        }
        h = h.wrapping_mul(GOLDEN);
    }
    true
}

#[inline(always)]
fn line_at(data: &[u8], off: usize) -> &[u8; LINE] {
    data[off..off + LINE].try_into().expect("64-byte line")
}

/// Writes the filter for `hashes` into a zeroed block of `len_with_metadata`
/// bytes (from [`calculate_space`]) and its trailer.
pub(crate) fn build(hashes: &[u64], len_with_metadata: usize, num_probes: u32) -> Vec<u8> {
    let mut block = vec![0u8; len_with_metadata];
    let len = len_with_metadata - METADATA_LEN;
    {
        let data = &mut block[..len];
        // Software pipelining as in RocksDB's AddAllEntries: compute the line
        // for hash i+8 and prefetch it while setting bits for hash i.
        const AHEAD: usize = 8;
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&next) = hashes.get(i + AHEAD) {
                prefetch(data, line_offset(next, len));
            }
            let off = line_offset(h, len);
            let line: &mut [u8; LINE] = (&mut data[off..off + LINE]).try_into().expect("line");
            add_to_line(line, (h >> 32) as u32, num_probes);
        }
    }
    block[len] = 0xff; // -1: newer Bloom implementations
    block[len + 1] = 0; // sub-implementation 0: FastLocalBloom
    block[len + 2] = num_probes as u8; // top 3 bits 0: 64-byte lines
    block
}

/// Validated geometry of a FastLocalBloom block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastLocalGeometry {
    /// Bytes of bit array (block length minus trailer), at least 64.
    pub len: u32,
    pub num_probes: u32,
}

impl FastLocalGeometry {
    #[inline]
    pub fn may_match_hash(&self, data: &[u8], h: u64) -> bool {
        let off = line_offset(h, self.len as usize);
        line_matches(line_at(data, off), (h >> 32) as u32, self.num_probes)
    }

    /// First half of a two-pass batch query: the line offset (prefetched).
    #[inline]
    pub fn prepare(&self, data: &[u8], h: u64) -> usize {
        let off = line_offset(h, self.len as usize);
        prefetch(data, off);
        off
    }

    #[inline]
    pub fn query_prepared(&self, data: &[u8], off: usize, h: u64) -> bool {
        line_matches(line_at(data, off), (h >> 32) as u32, self.num_probes)
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
    fn space_rounds_to_cache_lines_plus_trailer() {
        assert_eq!(calculate_space(1, 10000), 64 + 5);
        assert_eq!(calculate_space(51, 10000), 64 + 5); // 63.75 bytes
        assert_eq!(calculate_space(52, 10000), 128 + 5);
        assert_eq!(calculate_space(usize::MAX / 2, 100000), MAX_LEN + 5);
    }
}
