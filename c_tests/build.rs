//! Builds the C tests with the `cc` crate; the one place they are declared.
//!
//! Always: `api.c` (the C API test; needs only the library, whose rlib the
//! test binaries link) as `librfct_api.a`, its `main` renamed
//! `rfct_api_main`, and `golden_check.c` (the golden vectors through the C
//! ABI) the same way. These two are what the cross targets run too.
//!
//! With `ROCKSFILTER_C_TESTS_ROCKSDB=1` (needs Debian's librocksdb-dev 7.8.3,
//! g++, and the RocksDB 11.12 sources `oracle/rocksdb-src.sh` finds or
//! fetches): the oracle (`oracle/build.sh`, RocksDB 11.12's filter code),
//! `selftest.c`, `compat.c`, `compat.c -DCOMPAT_TAMPER` and `golden-gen.c`,
//! each with its `main` renamed, and `-lrocksdb -lstdc++`; then the cfg
//! `rocksfilter_c_tests_rocksdb` is set. Without it the tests that need them
//! fail with a line saying what to install (they are `#[ignore]`d).
//!
//! Every C file is compiled with `-std=c11 -Wall -Wextra -Werror`; `CC` and
//! `CFLAGS` are honoured as the `cc` crate does (e.g. sanitizers).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROCKSDB_ENV: &str = "ROCKSFILTER_C_TESTS_ROCKSDB";

fn c_build(here: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.include(here)
        .include(here.join("oracle"))
        .include(here.join("../include"))
        .flag("-std=c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true);
    b
}

/// A C test program as a static library: `main` becomes `rfct_NAME_main` and
/// the counts accessor `rfct_NAME_counts` (see the end of each .c file).
fn program(here: &Path, src: &str, name: &str, defines: &[&str]) {
    let mut b = c_build(here);
    b.file(here.join(src))
        .define("main", format!("rfct_{name}_main").as_str())
        .define("RFCT_COUNTS", format!("rfct_{name}_counts").as_str());
    for d in defines {
        b.define(d, None);
    }
    b.compile(&format!("rfct_{name}"));
}

fn main() {
    let here = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rustc-check-cfg=cfg(rocksfilter_c_tests_rocksdb)");
    println!("cargo:rerun-if-env-changed={ROCKSDB_ENV}");
    for v in ["ROCKSDB_SRC", "CXX", "ORACLE_CXXFLAGS"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    for f in [
        "api.c",
        "golden_check.c",
        "selftest.c",
        "compat.c",
        "golden-gen.c",
        "sst_extract.c",
        "sst_extract.h",
        "testutil.c",
        "testutil.h",
        "oracle",
        "../include/rocksfilter.h",
    ] {
        println!("cargo:rerun-if-changed={}", here.join(f).display());
    }

    // Link order (the linker resolves left to right): the programs, their
    // shared helpers, the oracle, then the system libraries; the rocksfilter
    // rlib comes after all of this crate's native libraries.
    program(&here, "api.c", "api", &[]);
    program(&here, "golden_check.c", "golden_check", &[]);

    let rocksdb = match env::var(ROCKSDB_ENV).as_deref() {
        Ok("1") => true,
        Ok("") | Ok("0") | Err(_) => false,
        Ok(v) => panic!("{ROCKSDB_ENV}={v}: use 1 (build the RocksDB C tests) or 0/unset"),
    };
    if !rocksdb {
        return;
    }

    // One clear failure when RocksDB's C API is not installed.
    let probe = out.join("probe_rocksdb.c");
    std::fs::write(
        &probe,
        "#include <rocksdb/c.h>\nvoid rfct_probe(void) { rocksdb_options_destroy(rocksdb_options_create()); }\n",
    )
    .unwrap();
    if c_build(&here).file(&probe).cargo_metadata(false).try_compile("rfct_probe").is_err() {
        panic!(
            "{ROCKSDB_ENV}=1 but <rocksdb/c.h> does not compile: install librocksdb-dev \
             (Debian/Ubuntu: apt-get install librocksdb-dev g++)"
        );
    }

    program(&here, "selftest.c", "selftest", &[]);
    program(&here, "compat.c", "compat", &[]);
    program(&here, "compat.c", "compat_tamper", &["COMPAT_TAMPER"]);
    program(&here, "golden-gen.c", "golden", &[]);
    let mut common = c_build(&here);
    common.file(here.join("sst_extract.c")).file(here.join("testutil.c"));
    common.compile("rfct_common");

    // The oracle: RocksDB 11.12's header-only filter code (oracle/build.sh).
    let oracle_dir = out.join("oracle");
    let status = Command::new("sh")
        .arg(here.join("oracle/build.sh"))
        .arg(&oracle_dir)
        .status()
        .expect("running oracle/build.sh");
    assert!(status.success(), "oracle/build.sh failed ({status}); see its output above");
    println!("cargo:rustc-link-search=native={}", oracle_dir.display());
    println!("cargo:rustc-link-lib=static=oracle");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=rocksdb");
    println!("cargo:rustc-cfg=rocksfilter_c_tests_rocksdb");
}
