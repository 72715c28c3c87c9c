//! compat.c (default `all`; ROCKSFILTER_COMPAT_ARGS="ribbon -v" picks groups and
//! flags, as run-compat.sh does): rocksfilter's blocks byte for byte against
//! SSTs RocksDB 7.8.3 writes, queries against the RocksDB 11.12 oracle.
//! Needs librocksdb-dev: `ROCKSFILTER_C_TESTS_ROCKSDB=1 cargo test -p
//! rocksfilter-c-tests -- --include-ignored` (see c_tests/README.md).

mod support;

#[cfg(rocksfilter_c_tests_rocksdb)]
extern "C" {
    fn rfct_compat_main(argc: std::ffi::c_int, argv: *mut *mut std::ffi::c_char) -> std::ffi::c_int;
    fn rfct_compat_counts(passed: *mut std::ffi::c_int, failed: *mut std::ffi::c_int);
}

#[test]
#[ignore = "needs librocksdb-dev; build with ROCKSFILTER_C_TESTS_ROCKSDB=1"]
fn compat() {
    #[cfg(not(rocksfilter_c_tests_rocksdb))]
    support::rocksdb_not_built();
    #[cfg(rocksfilter_c_tests_rocksdb)]
    {
        // run-compat.sh passes its arguments (groups, -v, -k) here.
        let args = std::env::var("ROCKSFILTER_COMPAT_ARGS").unwrap_or_else(|_| "all".into());
        let args: Vec<&str> = args.split_whitespace().collect();
        let args = if args.is_empty() { vec!["all"] } else { args };
        let o = support::run("compat", rfct_compat_main, rfct_compat_counts, &args);
        assert_eq!(o.failed, 0, "compat {}: {} cases failed (FAIL lines above)", args.join(" "), o.failed);
        assert_eq!(o.rc, 0, "compat exited {}", o.rc);
        assert!(o.passed > 0, "compat ran no case");
    }
}
