//! Harness self-check: compat.c built with -DCOMPAT_TAMPER corrupts both our
//! bytes and the block our reader sees, so every case must fail (proves
//! mismatches are detected). `make -C c_tests compat-tamper`.
//! Needs librocksdb-dev: `ROCKSFILTER_C_TESTS_ROCKSDB=1 cargo test -p
//! rocksfilter-c-tests -- --include-ignored` (see c_tests/README.md).

mod support;

#[cfg(rocksfilter_c_tests_rocksdb)]
extern "C" {
    fn rfct_compat_tamper_main(argc: std::ffi::c_int, argv: *mut *mut std::ffi::c_char) -> std::ffi::c_int;
    fn rfct_compat_tamper_counts(passed: *mut std::ffi::c_int, failed: *mut std::ffi::c_int);
}

#[test]
#[ignore = "needs librocksdb-dev; build with ROCKSFILTER_C_TESTS_ROCKSDB=1"]
fn compat_tamper() {
    #[cfg(not(rocksfilter_c_tests_rocksdb))]
    support::rocksdb_not_built();
    #[cfg(rocksfilter_c_tests_rocksdb)]
    {
        let o = support::run(
            "compat_tamper",
            rfct_compat_tamper_main,
            rfct_compat_tamper_counts,
            &["bloom", "legacy", "ribbon", "prefix", "sized"],
        );
        assert!(o.failed > 0, "compat-tamper ran no case");
        assert_eq!(o.passed, 0, "compat-tamper: harness missed tampering in {} cases", o.passed);
        assert_ne!(o.rc, 0, "compat-tamper exited 0");
        println!("compat-tamper: OK, every case failed");
    }
}
