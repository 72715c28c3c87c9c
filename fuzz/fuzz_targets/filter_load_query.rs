//! Arbitrary bytes as a filter block: loading never panics; a loaded filter
//! answers every query form consistently (Rust API and C ABI alike).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocksfilter::internal_ffi::*;
use rocksfilter::{ErrorKind, Filter};
use rocksfilter_fuzz::{check_filter, probe_keys};

fuzz_target!(|data: &[u8]| {
    let keys = probe_keys(data);
    let loaded = Filter::new(data);
    match &loaded {
        Ok(f) => {
            assert_eq!(f.as_bytes(), data);
            check_filter(f, &keys);
            let owned = Filter::from_vec(data.to_vec()).expect("from_vec disagrees with new");
            assert_eq!(owned.kind(), f.kind());
            let a: Vec<bool> = keys.iter().map(|k| f.may_match(k)).collect();
            let b: Vec<bool> = keys.iter().map(|k| owned.may_match(k)).collect();
            assert_eq!(a, b);
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Corruption, "{e}");
            assert!(!e.message().is_empty());
            assert!(Filter::from_vec(data.to_vec()).is_err());
        }
    }

    // The same through the C ABI: status agrees, packed == single.
    let mut f = std::ptr::null_mut();
    let mut err = std::ptr::null_mut();
    let st = unsafe { rocksfilter_filter_load(data.as_ptr(), data.len(), &mut f, &mut err) };
    assert_eq!(st == ROCKSFILTER_OK, loaded.is_ok());
    if st == ROCKSFILTER_OK {
        assert!(!f.is_null() && err.is_null());
        let mut buf = Vec::new();
        let mut offsets = vec![0usize];
        for k in &keys {
            buf.extend_from_slice(k);
            offsets.push(buf.len());
        }
        let mut packed = vec![false; keys.len()];
        let st = unsafe {
            rocksfilter_filter_may_match_packed(
                f,
                buf.as_ptr(),
                buf.len(),
                offsets.as_ptr(),
                keys.len(),
                packed.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(st, ROCKSFILTER_OK);
        let single: Vec<bool> =
            keys.iter().map(|k| unsafe { rocksfilter_filter_may_match(f, k.as_ptr(), k.len()) }).collect();
        assert_eq!(packed, single);
        unsafe { rocksfilter_filter_free(f) };
    } else {
        assert!(f.is_null() && !err.is_null());
        unsafe { rocksfilter_string_free(err) };
    }
});
