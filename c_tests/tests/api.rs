//! The C API test (api.c: the whole C ABI, misuse included), compiled by
//! build.rs and linked against the rocksfilter rlib. Needs no RocksDB.

mod support;

use std::ffi::{c_char, c_int};

extern "C" {
    fn rfct_api_main(argc: c_int, argv: *mut *mut c_char) -> c_int;
    fn rfct_api_counts(passed: *mut c_int, failed: *mut c_int);
}

/// api.c had 254 checks when this test was written (fewer would mean checks
/// stopped running; more is fine).
const MIN_CHECKS: i32 = 254;

#[test]
fn c_api() {
    let o = support::run("api", rfct_api_main, rfct_api_counts, &[]);
    assert_eq!(o.failed, 0, "C API test: {} checks failed (FAIL lines above)", o.failed);
    assert_eq!(o.rc, 0, "C API test exited {}", o.rc);
    assert!(o.passed >= MIN_CHECKS, "C API test ran only {} checks (expected >= {MIN_CHECKS})", o.passed);
}
