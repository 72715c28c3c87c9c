//! Arbitrary bytes as an SST file, checksums verified and not: opening never
//! panics, an opened file answers queries, and verification only ever adds
//! errors or takes filters out of use (as RocksDB does not use a filter block
//! that fails its checksum): a file that opens verified opens unverified,
//! and every key the unverified file may hold the verified one may hold too.
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
        _ => (4, 0),
    }
}

/// (may_match answers, prefix_may_match answers where the file has a prefix filter).
fn exercise(s: &Sst<'_>, keys: &[&[u8]]) -> (Vec<bool>, Option<Vec<Option<bool>>>) {
    let _ = (s.format_version(), s.checksum_type(), s.properties(), s.filter_block_name());
    let _ = (s.prefix_extractor(), s.whole_key_filtering(), s.has_prefix_filter(), s.properties_error());
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
        _ => {}
    }
    let answers: Vec<bool> = keys.iter().map(|k| s.may_match(k)).collect();
    let mut batch = vec![false; keys.len()];
    s.may_match_batch(keys, &mut batch);
    assert_eq!(batch, answers, "the batch query differs from the single one");
    let prefix = s.has_prefix_filter().then(|| {
        keys.iter()
            .map(|k| match s.prefix_may_match(k) {
                Ok(b) => Some(b),
                Err(e) => {
                    assert!(!e.message().is_empty());
                    None
                }
            })
            .collect()
    });
    if matches!(s.filter(), SstFilter::None | SstFilter::Unsupported(_)) {
        assert!(answers.iter().all(|&a| a), "a file without a usable filter answered absent");
    }
    (answers, prefix)
}

fuzz_target!(|data: &[u8]| {
    let keys = probe_keys(data);
    let verified = Sst::from_bytes_with(data, SstOptions::default().with_verify_checksums(true));
    let unverified = Sst::from_bytes_with(data, SstOptions::default().with_verify_checksums(false));
    if let Err(e) = &verified {
        assert!(!e.message().is_empty());
    }
    if let Err(e) = &unverified {
        assert!(!e.message().is_empty());
    }
    let u = unverified.as_ref().ok().map(|s| (shape(s), exercise(s, &keys)));
    if let Ok(v) = &verified {
        let (u_shape, (u_answers, u_prefix)) = u.expect("opens with checksums verified but not without");
        let (v_answers, v_prefix) = exercise(v, &keys);
        let v_shape = shape(v);
        // Verification may only take a filter (or partitions) out of use.
        assert!(v_shape == u_shape || v_shape == (3, 0), "verified {v_shape:?}, unverified {u_shape:?}");
        for (i, (&va, &ua)) in v_answers.iter().zip(&u_answers).enumerate() {
            assert!(va || !ua, "key {i}: absent when verified, may match when not");
        }
        if let (Some(vp), Some(up)) = (v_prefix, u_prefix) {
            for (va, ua) in vp.iter().zip(&up) {
                if let (Some(va), Some(ua)) = (va, ua) {
                    assert!(*va || !*ua, "prefix absent when verified, may match when not");
                }
            }
        }
    }
});
