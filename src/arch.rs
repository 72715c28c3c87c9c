//! The CPU: which instruction-set extensions the fast paths may use, detected
//! once per process, and the prefetch hint.
//!
//! Every path that has a faster form for some CPU asks [`features`]; nothing
//! else in the crate detects CPU features. Queries never ask at all: a
//! filter picks its query kernel for this CPU when it is loaded
//! (`Filter::assemble`), so a query is one indirect call. Builds and long
//! hashes ask once per call, which is one relaxed atomic load.
//!
//! `ROCKSFILTER_PORTABLE=1` in the environment (read at detection, i.e. by
//! the first call that needs it) turns every extension off, so the portable
//! (x86-64 baseline: SSE2) code runs everywhere: for testing those paths and
//! for measuring what the extensions buy. `ROCKSFILTER_NO_AVX512=1` turns
//! AVX-512 alone off (the AVX2 kernels then run on AVX-512 machines).
//!
//! What each extension is used for (and what it buys, measured on Zen 3):
//! * AVX2: FastLocalBloom probes, eight per instruction sequence (RocksDB's
//!   own AVX2 path); Ribbon queries, two solution columns per register and
//!   a window of up to 8 columns in one straight pass (masked loads, the
//!   8 parities by shifts and one VMOVMSKPS); the
//!   hash of keys over 240 bytes (`XXPH3_accumulate_512`, ~2.5x).
//! * POPCNT: Ribbon queries and back-substitution (parities of 128-bit rows).
//! * BMI1: Ribbon banding (`tzcnt` to find a row's first coefficient).
//! * BMI2: FastLocalBloom builds (three-operand shifts in the probe loop).
//! * AVX-512 F and VPOPCNTDQ (built with Rust 1.89 or later): Ribbon
//!   queries, four solution columns per register and their parities in one
//!   instruction (on Zen 4: a full-filter batch 16.0 -> 13.9 ns per key);
//!   windows of up to 8 columns in one straight pass, the 8 parities
//!   compared as one mask (on a Xeon: a full-filter batch 18.8-19.5 -> 15.7-16.2
//!   ns per key).

use std::sync::atomic::{AtomicU8, Ordering};

/// A set of CPU features the fast paths use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Features(u8);

impl Features {
    const AVX2: u8 = 1;
    const POPCNT: u8 = 2;
    #[cfg(target_arch = "x86_64")]
    const BMI1: u8 = 4;
    #[cfg(target_arch = "x86_64")]
    const BMI2: u8 = 8;
    const AVX512: u8 = 16;
    /// Set once detection ran, so that a detected empty set is not 0.
    const DETECTED: u8 = 0x80;

    /// No extension: the x86-64 baseline (or another architecture).
    #[cfg(test)]
    pub(crate) const PORTABLE: Features = Features(Features::DETECTED);

    /// AVX2 (which implies AVX: `vptest`).
    #[inline(always)]
    pub(crate) fn avx2(self) -> bool {
        self.0 & Self::AVX2 != 0
    }

    #[inline(always)]
    pub(crate) fn popcnt(self) -> bool {
        self.0 & Self::POPCNT != 0
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn bmi1(self) -> bool {
        self.0 & Self::BMI1 != 0
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn bmi2(self) -> bool {
        self.0 & Self::BMI2 != 0
    }

    /// AVX-512 F and VPOPCNTDQ, with AVX2 and POPCNT (only set when the
    /// compiler has their intrinsics: `rocksfilter_avx512`, build.rs).
    #[inline(always)]
    pub(crate) fn avx512(self) -> bool {
        self.0 & Self::AVX512 != 0
    }
}

/// The detected set, or 0 before detection.
static FEATURES: AtomicU8 = AtomicU8::new(0);

/// The features of this CPU, less any the environment turns off; detected
/// on the first call, then one relaxed load.
#[inline(always)]
pub(crate) fn features() -> Features {
    match FEATURES.load(Ordering::Relaxed) {
        0 => detect(),
        f => Features(f),
    }
}

#[cold]
#[inline(never)]
fn detect() -> Features {
    #[allow(unused_mut)]
    let mut f = Features::DETECTED;
    let portable = std::env::var_os("ROCKSFILTER_PORTABLE").is_some_and(|v| v != "0");
    #[cfg(target_arch = "x86_64")]
    if !portable {
        if std::is_x86_feature_detected!("avx2") {
            f |= Features::AVX2;
        }
        if std::is_x86_feature_detected!("popcnt") {
            f |= Features::POPCNT;
        }
        if std::is_x86_feature_detected!("bmi1") {
            f |= Features::BMI1;
        }
        if std::is_x86_feature_detected!("bmi2") {
            f |= Features::BMI2;
        }
        #[cfg(rocksfilter_avx512)]
        if f & (Features::AVX2 | Features::POPCNT) == Features::AVX2 | Features::POPCNT
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vpopcntdq")
            && std::env::var_os("ROCKSFILTER_NO_AVX512").is_none_or(|v| v == "0")
        {
            f |= Features::AVX512;
        }
    }
    let _ = portable;
    // Racing first calls store the same value.
    FEATURES.store(f, Ordering::Relaxed);
    Features(f)
}

/// Prefetches the 64 bytes at `data[offset..]`, `offset` a multiple of 64:
/// one cache line, or the two they straddle when `data` is not aligned to
/// 64 bytes. Filter lines are 64-byte aligned only if the block is, and a
/// block in a `malloc` or `Vec` buffer or inside an SST file generally is
/// not; RocksDB's `PrepareHash` prefetches both ends of a line for the same
/// reason. Prefetching only the first measured 10-20% slower on
/// FastLocalBloom batch queries at 1M and 10M keys: every probe then waited
/// for its second half.
#[inline(always)]
pub(crate) fn prefetch_line(data: &[u8], offset: usize) {
    prefetch(data, offset);
    if !(data.as_ptr() as usize).is_multiple_of(64) {
        prefetch(data, offset + 63);
    }
}

/// Hints the CPU to pull the cache line holding `data[offset]` in (where
/// supported). No bounds test: a prefetch never faults and changes nothing
/// the program can see, so an `offset` past the end merely hints at a line
/// nobody reads, and the address is formed with `wrapping_add`, defined
/// for any offset. A test per call was a compare and branch per prefetch:
/// two per key in a FastLocalBloom batch, where callgrind counted 13
/// branches per key against RocksDB's 6 (`bench/compare`, 1M keys).
#[inline(always)]
pub(crate) fn prefetch(data: &[u8], offset: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` never faults and has no memory effects visible
    // to the program, whatever the address; SSE is part of the x86_64
    // baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            data.as_ptr().wrapping_add(offset) as *const i8
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (data, offset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_is_stable_and_marks_itself() {
        let a = features();
        assert_eq!(a, features());
        assert_ne!(a.0, 0, "a detected set is never 0");
        assert!(!Features::PORTABLE.avx2() && !Features::PORTABLE.popcnt());
    }
}
