//! The golden vectors of tests/golden.rs (repo root), re-derived from real
//! RocksDB by golden-gen.c: hashes by RocksDB 11.12's own code (the oracle),
//! filter blocks cut out of SSTs RocksDB 7.8.3 (librocksdb-dev) writes.
//!
//!   ROCKSFILTER_C_TESTS_ROCKSDB=1 cargo test --release -p rocksfilter-c-tests \
//!       --test golden_gen -- --ignored
//!
//! checks the committed tests/golden/ equals what RocksDB writes now; with
//! ROCKSFILTER_REGENERATE_GOLDEN=1 as well it rewrites tests/golden/ instead.

mod support;

#[cfg(rocksfilter_c_tests_rocksdb)]
extern "C" {
    fn rfct_golden_main(argc: std::ffi::c_int, argv: *mut *mut std::ffi::c_char) -> std::ffi::c_int;
    fn rfct_golden_counts(passed: *mut std::ffi::c_int, failed: *mut std::ffi::c_int);
}

#[test]
#[ignore = "needs librocksdb-dev; build with ROCKSFILTER_C_TESTS_ROCKSDB=1"]
fn regenerate_golden() {
    #[cfg(not(rocksfilter_c_tests_rocksdb))]
    support::rocksdb_not_built();
    #[cfg(rocksfilter_c_tests_rocksdb)]
    {
        use std::collections::BTreeMap;
        use std::path::{Path, PathBuf};

        fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
            std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
                .collect()
        }

        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap();
        let committed = root.join("tests/golden");
        let regenerate = std::env::var("ROCKSFILTER_REGENERATE_GOLDEN").as_deref() == Ok("1");
        let out = if regenerate {
            std::fs::create_dir_all(&committed).unwrap();
            committed.clone()
        } else {
            let d = std::env::temp_dir().join(format!("rocksfilter-golden-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            d
        };
        let o = support::run("golden-gen", rfct_golden_main, rfct_golden_counts, &[out.to_str().unwrap()]);
        assert_eq!((o.rc, o.failed), (0, 0), "golden-gen failed (FAIL lines above)");
        assert!(o.passed > 0);
        if regenerate {
            println!("rewrote {} files in {}", o.passed, committed.display());
            return;
        }
        let (now, have) = (files(&out), files(&committed));
        std::fs::remove_dir_all(&out).unwrap();
        let now_names: Vec<_> = now.keys().collect();
        let have_names: Vec<_> = have.keys().filter(|n| n.ends_with(".bin") || n.ends_with(".txt")).collect();
        assert_eq!(now_names, have_names, "tests/golden/ holds other files than RocksDB writes now");
        for (name, bytes) in &now {
            assert!(
                &have[name] == bytes,
                "tests/golden/{name} differs from what RocksDB writes now \
                 (rerun with ROCKSFILTER_REGENERATE_GOLDEN=1 if that is intended)"
            );
        }
        println!("tests/golden/: {} files equal RocksDB's output", now.len());
    }
}
