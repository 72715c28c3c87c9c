//! Structured input -> build -> load: every added key must match (a false
//! negative is a bug), batch == single, and the block has the size
//! `space_for` predicted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocksfilter::{hash64, ErrorKind, Filter, FilterBuilder, Kind, Policy};
use rocksfilter_fuzz::{check_filter, decode_build_input, AddOp};

fuzz_target!(|data: &[u8]| {
    let Some(input) = decode_build_input(data) else { return };
    let policy = [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom][input.policy as usize];
    let bpk = input.bits_per_key;
    let mut b = match FilterBuilder::new(policy, bpk) {
        Ok(b) => b,
        Err(e) => {
            assert!(bpk.is_nan() || bpk < 0.5, "bits/key {bpk} refused: {e}");
            assert_eq!(e.kind(), ErrorKind::InvalidArgument);
            return;
        }
    };
    assert!(!(bpk.is_nan() || bpk < 0.5), "bits/key {bpk} accepted");

    let gen: Vec<Vec<u8>> = (0..input.generated).map(|i| format!("gen{i:08}").into_bytes()).collect();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();
    let mut used_hash = false;
    for &(op, k) in &input.ops {
        match op {
            AddOp::Key => {
                b.add_key(k);
                keys.push(k);
            }
            AddOp::KeyAndAlt => {
                let alt = &k[..k.len() / 2];
                b.add_key_and_alt(k, alt);
                keys.push(k);
                keys.push(alt);
            }
            AddOp::Hash => {
                b.add_hash(hash64(k));
                hashes.push(hash64(k));
                used_hash = true;
            }
        }
    }
    for k in &gen {
        b.add_key(k);
        keys.push(k);
    }

    let n = b.num_entries();
    let predicted = b.space_for(n);
    let block = match b.finish() {
        Ok(block) => block,
        Err(e) => {
            assert!(used_hash && policy == Policy::LegacyBloom, "finish failed: {e}");
            assert_eq!(e.kind(), ErrorKind::InvalidArgument);
            assert_eq!(b.num_entries(), 0, "failed finish must empty the builder");
            return;
        }
    };
    assert!(!(used_hash && policy == Policy::LegacyBloom), "add_hash on a legacy builder was accepted");
    assert_eq!(b.num_entries(), 0, "finish must empty the builder");

    let f = Filter::new(&block).unwrap_or_else(|e| panic!("our own {policy:?} block does not load: {e}"));
    if n == 0 {
        assert!(block.is_empty());
        assert_eq!(f.kind(), Kind::AlwaysFalse);
        return;
    }
    match (policy, f.kind()) {
        (Policy::Bloom, Kind::FastLocalBloom)
        | (Policy::Ribbon, Kind::Standard128Ribbon | Kind::FastLocalBloom)
        | (Policy::LegacyBloom, Kind::LegacyBloom) => {}
        (p, k) => panic!("{p:?} built a {k:?} block"),
    }
    // Ribbon may fall back to Bloom after predicting a Ribbon size only when
    // all 256 seeds fail, which these sizes never hit.
    assert_eq!(block.len(), predicted, "{policy:?} with {n} entries: space_for said {predicted}");

    for k in &keys {
        assert!(f.may_match(k), "false negative: {policy:?} bpk {bpk} key {k:?} ({n} entries)");
    }
    for &h in &hashes {
        assert!(f.may_match_hash(h), "false negative by hash: {policy:?} bpk {bpk} hash {h:#x}");
    }
    let mut batch = vec![false; keys.len()];
    f.may_match_batch(&keys, &mut batch);
    assert!(batch.iter().all(|&x| x), "batch false negative");
    check_filter(&f, &keys[..keys.len().min(64)]);

    // The builder is reusable and deterministic: the same keys again give
    // the same bytes.
    for &(op, k) in &input.ops {
        match op {
            AddOp::Key => b.add_key(k),
            AddOp::KeyAndAlt => b.add_key_and_alt(k, &k[..k.len() / 2]),
            AddOp::Hash => b.add_hash(hash64(k)),
        }
    }
    for k in &gen {
        b.add_key(k);
    }
    assert_eq!(b.finish().expect("second finish"), block, "builder reuse changed the block");
});
