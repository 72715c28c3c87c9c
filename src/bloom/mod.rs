//! Bloom filters as RocksDB builds them: the cache-local FastLocalBloom of
//! format_version >= 5 (`fast_local`), the legacy filter of format_version < 5
//! (`legacy`), the per-range filter of the obsolete block-based filter
//! (`block_based`), and RocksDB's false-positive estimates (`BloomMath` in
//! `util/bloom_impl.h`), which also size the Ribbon filter.

pub(crate) mod block_based;
pub(crate) mod fast_local;
pub(crate) mod legacy;

pub use fast_local::choose_num_probes;

/// FP rate of a standard (not cache-local) Bloom filter:
/// `(1 - e^(-k/b))^k` for b bits/key and k probes.
///
/// ```
/// let fp = rocksfilter::standard_fp_rate(10.0, 6);
/// assert!((0.0084..0.0085).contains(&fp));
/// ```
pub fn standard_fp_rate(bits_per_key: f64, num_probes: u32) -> f64 {
    let k = num_probes as f64;
    (1.0 - (-k / bits_per_key).exp()).powf(k)
}

/// RocksDB's `BloomMath::CacheLocalFpRate`: when every probe of a key lands in
/// one cache line, lines receive a Poisson-distributed number of keys, so the
/// FP rate is the average of a crowded line (one standard deviation more keys)
/// and an uncrowded one (one less).
///
/// ```
/// use rocksfilter::{cache_local_fp_rate, standard_fp_rate};
/// // Confining the probes to one 512-bit line costs a little accuracy.
/// assert!(cache_local_fp_rate(10.0, 6, 512) > standard_fp_rate(10.0, 6));
/// ```
pub fn cache_local_fp_rate(bits_per_key: f64, num_probes: u32, cache_line_bits: u32) -> f64 {
    if bits_per_key <= 0.0 {
        return 1.0;
    }
    let keys_per_line = cache_line_bits as f64 / bits_per_key;
    let stddev = keys_per_line.sqrt();
    let crowded = standard_fp_rate(cache_line_bits as f64 / (keys_per_line + stddev), num_probes);
    let uncrowded = standard_fp_rate(cache_line_bits as f64 / (keys_per_line - stddev), num_probes);
    (crowded + uncrowded) / 2.0
}

/// RocksDB's `BloomMath::FingerprintFpRate`: the chance that an absent key's
/// `fingerprint_bits`-bit hash equals some added key's hash.
pub fn fingerprint_fp_rate(num_keys: usize, fingerprint_bits: u32) -> f64 {
    let base = num_keys as f64 * 0.5f64.powi(fingerprint_bits as i32);
    if base > 0.0001 {
        1.0 - (-base).exp()
    } else {
        // Taylor expansion: more accurate than 1 - exp(-x) for tiny x.
        base - base * base * 0.5
    }
}

/// RocksDB's `BloomMath::IndependentProbabilitySum`.
pub fn independent_probability_sum(a: f64, b: f64) -> f64 {
    a + b - a * b
}
