//! What every built-in filter format provides, and the one rule they share.
//!
//! A filter block is the format's bits followed by a 5-byte trailer whose
//! first byte selects the format (`BuiltinFilterPolicy::
//! GetBuiltinFilterBitsReader` in RocksDB's `table/block_based/
//! filter_policy.cc`):
//!
//! ```text
//!   0 +------------------------------+
//!     | filter bits                  |
//! len +------------------------------+
//!     | marker: -1 FastLocalBloom,   |
//!     |  -2 Ribbon, 0 / other < 0    |
//!     |  reserved, 1..=127 legacy    |
//!     |  Bloom num_probes            |
//! len+1 +----------------------------+
//!     | 4 bytes, meaning per marker  |
//!     +------------------------------+
//! ```
//!
//! Each format module (`bloom::fast_local`, `bloom::legacy`, `ribbon`) owns
//! everything else about its blocks: its marker, the meaning of its four
//! trailer bytes (written by its builder, read by its [`Format::decode`]),
//! its sizing, its FP-rate estimate and its query kernels.

use crate::arch::Features;
use crate::error::Result;

/// Length of the trailer of every built-in format (`kMetadataLen` of
/// `XXPH3FilterBitsBuilder` and `LegacyBloomBitsBuilder` in
/// `filter_policy.cc`). Blocks of this length or shorter hold no keys
/// (RocksDB's "always false" filter).
pub(crate) const METADATA_LEN: usize = 5;

/// The interface a format offers the reader ([`crate::Filter`]).
pub(crate) trait Format: Copy + std::fmt::Debug {
    /// Which query code runs for a geometry on a CPU, chosen once at load.
    type Kernel: Copy + std::fmt::Debug;

    /// Decodes and validates a whole block (trailer included) whose marker
    /// byte selects this format, as RocksDB's reader does. `Ok(None)`: a
    /// block RocksDB reads as "always true" (a degenerate or reserved
    /// geometry). `Err`: bytes RocksDB's writer never produces and its
    /// reader would misread.
    fn decode(block: &[u8]) -> Result<Option<Self>>;

    /// RocksDB's estimate of the FP rate of this block (`block_len` bytes,
    /// trailer included) holding `num_keys` keys.
    fn estimated_fp_rate(&self, num_keys: usize, block_len: usize) -> f64;

    /// The query kernel for this geometry on a CPU with `features`.
    fn kernel(&self, features: Features) -> Self::Kernel;

    /// Answers `results.len()` keys, `key(i)` giving key i, hashing and
    /// prefetching ahead of probing. `data` is the whole block.
    fn may_match_batch<'k>(
        &self,
        kernel: Self::Kernel,
        data: &[u8],
        key: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    );
}

/// Where a routed batch (a batch over many filters of one format, each key
/// sent to one of them: a partitioned filter's partitions) sends one key.
/// `G`: the format's geometry (or a reference to it).
#[cfg(target_arch = "x86_64")]
pub(crate) enum Route<'d, 'k, G> {
    /// Probe `key` in the filter with these bytes (the whole block) and
    /// geometry.
    Probe(&'d [u8], G, &'k [u8]),
    /// The answer, found otherwise.
    Answered(bool),
}
