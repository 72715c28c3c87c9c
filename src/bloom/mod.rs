//! Bloom filters as RocksDB builds them: the cache-local FastLocalBloom of
//! format_version >= 5 (`fast_local`), the legacy filter of format_version < 5
//! (`legacy`), and RocksDB's false-positive estimates (`BloomMath` in
//! `util/bloom_impl.h`), which also size the Ribbon filter.

pub(crate) mod fast_local;
pub(crate) mod legacy;

pub use fast_local::calculate_space as fast_local_calculate_space;
pub use fast_local::choose_num_probes;

/// FP rate of a standard (not cache-local) Bloom filter:
/// `(1 - e^(-k/b))^k` for b bits/key and k probes.
pub fn standard_fp_rate(bits_per_key: f64, num_probes: u32) -> f64 {
    let k = num_probes as f64;
    (1.0 - (-k / bits_per_key).exp()).powf(k)
}

/// RocksDB's `BloomMath::CacheLocalFpRate`: when every probe of a key lands in
/// one cache line, lines receive a Poisson-distributed number of keys, so the
/// FP rate is the average of a crowded line (one standard deviation more keys)
/// and an uncrowded one (one less).
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

/// Hint the CPU to pull a cache line in; a no-op where unsupported.
#[inline(always)]
pub(crate) fn prefetch(data: &[u8], offset: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if offset < data.len() {
            // SAFETY: `_mm_prefetch` never faults and has no memory effects
            // visible to the program; the pointer is in bounds anyway (checked
            // above). SSE is part of the x86_64 baseline.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    data.as_ptr().add(offset) as *const i8,
                )
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (data, offset);
    }
}

/// CPU features used by the query and build paths, detected once at run
/// time (no `-C target-cpu` needed) and cached in one relaxed atomic byte,
/// so that a hot path's check is a load and a compare, with the detection
/// itself out of line.
pub(crate) mod cpu {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// Bit 7: detected. Bit 0: AVX2. Bit 1: POPCNT. Bit 2: BMI2.
    static FEATURES: AtomicU8 = AtomicU8::new(0);
    const DETECTED: u8 = 0x80;
    pub(crate) const AVX2: u8 = 1;
    pub(crate) const POPCNT: u8 = 2;
    pub(crate) const BMI2: u8 = 4;

    #[cold]
    #[inline(never)]
    pub(crate) fn detect() -> u8 {
        #[allow(unused_mut)]
        let mut f = DETECTED;
        // For testing and benchmarking the portable paths.
        let portable = std::env::var_os("ROCKSFILTER_PORTABLE").is_some_and(|v| v != "0");
        #[cfg(target_arch = "x86_64")]
        if !portable {
            if std::is_x86_feature_detected!("avx2") {
                f |= AVX2;
            }
            if std::is_x86_feature_detected!("popcnt") {
                f |= POPCNT;
            }
            if std::is_x86_feature_detected!("bmi2") {
                f |= BMI2;
            }
        }
        let _ = portable;
        FEATURES.store(f, Ordering::Relaxed);
        f
    }

    /// The feature bits, or 0 if not detected yet (call [`detect`] then).
    #[inline(always)]
    pub(crate) fn cached() -> u8 {
        FEATURES.load(Ordering::Relaxed)
    }

    #[inline(always)]
    pub(crate) fn get() -> u8 {
        match cached() {
            0 => detect(),
            f => f,
        }
    }
}
