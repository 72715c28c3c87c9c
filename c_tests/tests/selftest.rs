//! selftest.c: the oracle and the SST extractor against RocksDB 7.8.3 alone
//! (no rocksfilter code involved).
//! Needs librocksdb-dev: `ROCKSFILTER_C_TESTS_ROCKSDB=1 cargo test -p
//! rocksfilter-c-tests -- --include-ignored` (see c_tests/README.md).

mod support;

#[cfg(rocksfilter_c_tests_rocksdb)]
extern "C" {
    fn rfct_selftest_main(argc: std::ffi::c_int, argv: *mut *mut std::ffi::c_char) -> std::ffi::c_int;
    fn rfct_selftest_counts(passed: *mut std::ffi::c_int, failed: *mut std::ffi::c_int);
}

#[test]
#[ignore = "needs librocksdb-dev; build with ROCKSFILTER_C_TESTS_ROCKSDB=1"]
fn selftest() {
    #[cfg(not(rocksfilter_c_tests_rocksdb))]
    support::rocksdb_not_built();
    #[cfg(rocksfilter_c_tests_rocksdb)]
    {
        let o = support::run("selftest", rfct_selftest_main, rfct_selftest_counts, &[]);
        assert_eq!(o.failed, 0, "selftest: {} cases failed (FAIL lines above)", o.failed);
        assert_eq!(o.rc, 0, "selftest exited {}", o.rc);
        assert!(o.passed > 0, "selftest ran no case");
    }
}
