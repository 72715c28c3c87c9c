//! Runs a C test program compiled by build.rs (its `main` renamed
//! `rfct_NAME_main`) in this process and returns its exit code and counts.
#![allow(dead_code)]

use std::ffi::{c_char, c_int, c_void, CString};

// The rlib's #[no_mangle] rocksfilter_* functions are what the C objects call.
use rocksfilter as _;

pub type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char) -> c_int;
pub type CountsFn = unsafe extern "C" fn(*mut c_int, *mut c_int);

extern "C" {
    fn fflush(stream: *mut c_void) -> c_int;
}

pub struct Outcome {
    pub rc: i32,
    pub passed: i32,
    pub failed: i32,
}

/// Calls `main(argc, argv)` with argv[0] = `name`, flushes C stdio so the C
/// output lands before ours, and reads the program's pass/fail counts.
pub fn run(name: &str, main: MainFn, counts: CountsFn, args: &[&str]) -> Outcome {
    let owned: Vec<CString> =
        std::iter::once(name).chain(args.iter().copied()).map(|a| CString::new(a).unwrap()).collect();
    let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let (mut passed, mut failed) = (0, 0);
    // SAFETY: argv is a NULL-terminated array of NUL-terminated strings that
    // outlive the call; the C programs only read it. Each program is called
    // once per process (its counters are static).
    let rc = unsafe {
        let rc = main(owned.len() as c_int, argv.as_mut_ptr());
        fflush(std::ptr::null_mut());
        counts(&mut passed, &mut failed);
        rc
    };
    println!("{name} {}: exit {rc}, {passed} passed, {failed} failed", args.join(" "));
    Outcome { rc, passed, failed }
}

/// What an explicitly run RocksDB test says when build.rs did not build it.
pub fn rocksdb_not_built() -> ! {
    panic!(
        "RocksDB C tests not built: install librocksdb-dev 7.8.3 and g++ (Debian: apt-get install \
         librocksdb-dev g++), then run with ROCKSFILTER_C_TESTS_ROCKSDB=1"
    )
}
