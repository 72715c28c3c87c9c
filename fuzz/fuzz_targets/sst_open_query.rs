//! Arbitrary bytes as an SST file, checksums verified and not: opening never
//! panics, an opened file answers queries, and verification only ever adds
//! errors (a file that opens verified opens unverified, with the same filter).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocksfilter::{Sst, SstFilter, SstOptions};
use rocksfilter_fuzz::{check_filter, probe_keys};

fn shape(s: &Sst<'_>) -> (u8, usize) {
    match s.filter() {
        SstFilter::None => (0, 0),
        SstFilter::Full(_) => (1, 1),
        SstFilter::Partitioned(p) => (2, p.len()),
        SstFilter::Unsupported(_) => (3, 0),
    }
}

fn exercise(s: &Sst<'_>, keys: &[&[u8]]) -> Vec<bool> {
    let _ = (s.format_version(), s.checksum_type(), s.properties(), s.filter_block_name());
    let _ = (s.prefix_extractor(), s.whole_key_filtering(), s.has_prefix_filter());
    match s.filter() {
        SstFilter::Full(f) => check_filter(f, keys),
        SstFilter::Partitioned(p) => {
            assert!(!p.is_empty());
            for i in 0..p.len() {
                let _ = p.separator(i);
            }
            for f in p.filters().iter().take(8) {
                check_filter(f, keys);
            }
        }
        SstFilter::None | SstFilter::Unsupported(_) => {}
    }
    let mut answers: Vec<bool> = keys.iter().map(|k| s.may_match(k)).collect();
    for k in keys {
        match s.prefix_may_match(k) {
            Ok(b) => answers.push(b),
            Err(e) => assert!(!e.message().is_empty()),
        }
    }
    answers
}

fuzz_target!(|data: &[u8]| {
    let keys = probe_keys(data);
    let verified = Sst::from_bytes_with(data, SstOptions { verify_checksums: true });
    let unverified = Sst::from_bytes_with(data, SstOptions { verify_checksums: false });
    if let Err(e) = &verified {
        assert!(!e.message().is_empty());
    }
    if let Err(e) = &unverified {
        assert!(!e.message().is_empty());
    }
    let b = unverified.as_ref().ok().map(|s| exercise(s, &keys));
    if let Ok(v) = &verified {
        let u = unverified.as_ref().expect("opens with checksums verified but not without");
        assert_eq!(shape(v), shape(u));
        assert_eq!(Some(exercise(v, &keys)), b);
    }
});
