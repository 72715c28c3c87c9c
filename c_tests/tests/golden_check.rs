//! The golden vectors through the C ABI (golden_check.c, compiled by
//! build.rs and linked against the rocksfilter rlib): RocksDB's hashes and
//! filter blocks (tests/golden/) rebuilt and loaded from C. Needs no RocksDB;
//! runs natively and on every cross target (scripts/cross-test.sh).

mod support;

use std::ffi::{c_char, c_int};

extern "C" {
    fn rfct_golden_check_main(argc: c_int, argv: *mut *mut c_char) -> c_int;
    fn rfct_golden_check_counts(passed: *mut c_int, failed: *mut c_int);
}

/// 304 keys of hashes.txt with two hashes each and the line count, then 22
/// blocks with five checks each (builder created, finished, equal bytes,
/// RocksDB's block loaded, every key found): 719 checks.
const CHECKS: i32 = 304 * 2 + 1 + 22 * 5;

#[test]
fn golden_vectors_through_the_c_abi() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden");
    let o = support::run("golden_check", rfct_golden_check_main, rfct_golden_check_counts, &[dir]);
    assert_eq!(o.failed, 0, "golden_check: {} checks failed (FAIL lines above)", o.failed);
    assert_eq!(o.rc, 0, "golden_check exited {}", o.rc);
    assert_eq!(o.passed, CHECKS, "golden_check ran {} checks, expected {CHECKS}", o.passed);
}
