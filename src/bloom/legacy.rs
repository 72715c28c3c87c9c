//! The legacy Bloom filter of format_version < 5 (`LegacyLocalityBloomImpl
//! <ExtraRotates=false>` in `util/bloom_impl.h`, `LegacyBloomBitsBuilder` in
//! `filter_policy.cc`): what older SST files hold.
//!
//! Layout: `num_lines` cache lines, then the 5-byte trailer
//! `[num_probes (1..=127), num_lines as u32 LE]`.
//!
//! Probing uses the 32-bit `BloomHash` h: the line is `h % num_lines` (the
//! builder makes num_lines odd so that more than the low bits of h decide
//! the line), and each probe takes the low log2(line bits) bits of h as the
//! bit position, then adds `delta = rotr(h, 17)` (double hashing). The
//! reader infers the cache-line size from `len / num_lines`, so blocks written
//! on a platform with 128-byte lines (e.g. POWER) read correctly anywhere.

use super::{cache_local_fp_rate, fingerprint_fp_rate, independent_probability_sum};
use crate::arch::{prefetch_line, Features};
use crate::error::Result;
use crate::format::{Format, METADATA_LEN};

/// The builder always writes 64-byte lines (x86_64 and aarch64 RocksDB).
const LOG2_LINE_BYTES: u32 = 6;
const LINE_BITS: u64 = 512;

/// `LegacyNoLocalityBloomImpl::ChooseNumProbes`: ln(2) * bits/key, truncated,
/// within 1..=30.
pub fn choose_num_probes(whole_bits_per_key: u32) -> u32 {
    ((whole_bits_per_key as f64 * 0.69) as i64).clamp(1, 30) as u32
}

/// `LegacyBloomBitsBuilder::CalculateSpace`: (total bits, num_lines).
/// Total bits are capped at 0xffff0000 for 32-bit arithmetic, rounded up to
/// whole lines, and the line count is made odd.
pub fn geometry_for(num_entries: usize, whole_bits_per_key: u32) -> (u32, u32) {
    let total_bits = (num_entries as u128 * whole_bits_per_key as u128).min(0xffff_0000) as u64;
    let mut num_lines = total_bits.div_ceil(LINE_BITS);
    if num_lines.is_multiple_of(2) {
        num_lines += 1;
    }
    ((num_lines * LINE_BITS) as u32, num_lines as u32)
}

/// `LegacyLocalityBloomImpl::EstimatedFpRate`, including its empirical
/// correction for the weak 32-bit hash, and 32-bit fingerprint collisions.
pub fn estimated_fp_rate(keys: usize, len_with_metadata: usize, num_probes: u32) -> f64 {
    if len_with_metadata <= METADATA_LEN {
        return if keys > 0 { 1.0 } else { 0.0 };
    }
    let bytes = len_with_metadata - METADATA_LEN;
    let bits_per_key = 8.0 * bytes as f64 / keys as f64;
    let filter_rate =
        cache_local_fp_rate(bits_per_key, num_probes, LINE_BITS as u32) + 0.1 / (bits_per_key * 0.75 + 22.0);
    independent_probability_sum(filter_rate, fingerprint_fp_rate(keys, 32))
}

/// Block length, trailer included, for `count` entries.
pub(crate) fn block_len(count: usize, whole_bits_per_key: u32) -> usize {
    (geometry_for(count, whole_bits_per_key).0 / 8) as usize + METADATA_LEN
}

/// Writes the block for `count` already de-duplicated 32-bit hashes into
/// `block`, a zeroed buffer of [`block_len`] bytes.
pub(crate) fn build_into(block: &mut [u8], hashes: impl Iterator<Item = u32>, count: usize, whole_bits_per_key: u32) {
    let num_probes = choose_num_probes(whole_bits_per_key);
    let (total_bits, num_lines) = geometry_for(count, whole_bits_per_key);
    let len = (total_bits / 8) as usize;
    let geom = LegacyGeometry { num_lines, num_probes, log2_line_bytes: LOG2_LINE_BYTES };
    for h in hashes {
        let off = geom.line_offset(h);
        let line = &mut block[off..off + 64];
        let mut h = h;
        let delta = h.rotate_right(17);
        for _ in 0..num_probes {
            let bit = (h & (LINE_BITS as u32 - 1)) as usize;
            line[bit / 8] |= 1 << (bit % 8);
            h = h.wrapping_add(delta);
        }
    }
    encode_trailer(&mut block[len..], num_probes, num_lines);
}

/// The trailer: `[num_probes, num_lines as u32 LE]` (the probe count, 1 to
/// 30 as written, doubles as the marker: any of 1..=127 selects this format).
fn encode_trailer(t: &mut [u8], num_probes: u32, num_lines: u32) {
    t[0] = num_probes as u8;
    t[1..METADATA_LEN].copy_from_slice(&num_lines.to_le_bytes());
}

/// Is `marker` (a trailer's first byte) a legacy Bloom block's?
pub(crate) fn is_marker(marker: u8) -> bool {
    (1..=127).contains(&marker)
}

/// Validated geometry of a legacy Bloom block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyGeometry {
    pub num_lines: u32,
    pub num_probes: u32,
    /// log2 of the cache-line size in bytes the block was written with.
    pub log2_line_bytes: u32,
}

impl LegacyGeometry {
    /// Decodes `num_lines` against the bit-array length as RocksDB's
    /// `GetBuiltinFilterBitsReader` does, inferring a non-native line size.
    /// Returns a description of the mismatch when no power-of-two line size
    /// fits (RocksDB then reads the block as "always true").
    pub fn parse(len: usize, num_probes: u32, num_lines: u32) -> std::result::Result<Self, String> {
        let len = len as u64;
        let lines = num_lines as u64;
        if lines == 0 || !len.is_multiple_of(lines) {
            return Err(format!(
                "legacy Bloom trailer declares {num_lines} cache lines, which do not divide the {len}-byte bit array"
            ));
        }
        let line_bytes = len / lines;
        if !line_bytes.is_power_of_two() {
            return Err(format!(
                "legacy Bloom cache-line size {line_bytes} bytes ({len} bytes / {num_lines} lines) is not a power of two"
            ));
        }
        Ok(LegacyGeometry { num_lines, num_probes, log2_line_bytes: line_bytes.trailing_zeros() })
    }

    #[inline(always)]
    fn line_offset(&self, h: u32) -> usize {
        ((h % self.num_lines) as usize) << self.log2_line_bytes
    }

    /// Mask selecting a bit within one line. RocksDB computes
    /// `(1 << log2_line_bits) - 1` in 32 bits; for lines of 512 MiB or more
    /// that is undefined there, and every bit of h is in range here anyway.
    #[inline(always)]
    fn bit_mask(&self) -> u32 {
        let bits = self.log2_line_bytes + 3;
        if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        }
    }

    #[inline]
    pub fn may_match_hash(&self, data: &[u8], h: u32) -> bool {
        self.query_prepared(data, self.line_offset(h), h)
    }

    #[inline]
    pub fn prepare(&self, data: &[u8], h: u32) -> usize {
        let off = self.line_offset(h);
        // Lines are RocksDB's CACHE_LINE_SIZE, 64 bytes, in every file it
        // writes; other sizes get the 64 bytes from the line's start.
        prefetch_line(data, off);
        off
    }

    #[inline]
    pub fn query_prepared(&self, data: &[u8], off: usize, h: u32) -> bool {
        let line = &data[off..off + (1usize << self.log2_line_bytes)];
        let mask = self.bit_mask();
        let delta = h.rotate_right(17);
        let mut h = h;
        for _ in 0..self.num_probes {
            let bit = (h & mask) as usize;
            if line[bit / 8] & (1 << (bit % 8)) == 0 {
                return false;
            }
            h = h.wrapping_add(delta);
        }
        true
    }
}

/// The legacy filter has one query kernel: its probes are serial (each
/// depends on the last), so no extension speeds them up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel;

impl Format for LegacyGeometry {
    type Kernel = Kernel;

    fn decode(block: &[u8]) -> Result<Option<Self>> {
        let len = block.len() - METADATA_LEN;
        let t = &block[len..];
        let num_lines = u32::from_le_bytes([t[1], t[2], t[3], t[4]]);
        // A line count that does not divide the bit array into power-of-two
        // lines (0 included) has no solution; RocksDB's
        // GetBuiltinFilterBitsReader reads it as "always true".
        Ok(LegacyGeometry::parse(len, u32::from(t[0]), num_lines).ok())
    }

    fn estimated_fp_rate(&self, num_keys: usize, block_len: usize) -> f64 {
        estimated_fp_rate(num_keys, block_len, self.num_probes)
    }

    fn kernel(&self, _: Features) -> Kernel {
        Kernel
    }

    fn may_match_batch<'k>(&self, _: Kernel, data: &[u8], key: &impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        const BATCH: usize = 64;
        let mut hashes = [0u32; BATCH];
        let mut offs = [0usize; BATCH];
        let n = results.len();
        for start in (0..n).step_by(BATCH) {
            let m = BATCH.min(n - start);
            for j in 0..m {
                hashes[j] = crate::hash::bloom_hash(key(start + j));
                offs[j] = self.prepare(data, hashes[j]);
            }
            for j in 0..m {
                results[start + j] = self.query_prepared(data, offs[j], hashes[j]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_number_of_lines() {
        assert_eq!(geometry_for(1, 10), (512, 1));
        assert_eq!(geometry_for(52, 10), (1536, 3)); // 520 bits -> 2 lines -> 3
        assert_eq!(geometry_for(102, 10), (1536, 3));
    }

    #[test]
    fn probes_follow_ln2() {
        assert_eq!(choose_num_probes(1), 1);
        assert_eq!(choose_num_probes(10), 6);
        assert_eq!(choose_num_probes(100), 30);
    }

    #[test]
    fn foreign_line_sizes_are_inferred() {
        assert_eq!(LegacyGeometry::parse(3 * 128, 6, 3).unwrap().log2_line_bytes, 7);
        assert!(LegacyGeometry::parse(3 * 96, 6, 3).is_err());
        assert!(LegacyGeometry::parse(100, 6, 3).is_err());
        assert!(LegacyGeometry::parse(100, 6, 0).is_err());
    }
}
