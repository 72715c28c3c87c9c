//! Partitioned against full filters on the same keys (issue #23): crafted
//! SSTs (`tests/support/craft.rs`: a full filter, or partitions of 3,300
//! keys, about 4 KiB each at 10 bits/key, as RocksDB's
//! `metadata_block_size` 4096 makes them), Bloom and Ribbon; absent and
//! present keys mixed; batch (`may_match_batch`, 4,096 keys) and single
//! queries, the four alternating round by round (best of the rounds), so
//! that the ratio is not skewed by a shared machine. Plain timing; nothing
//! asserts on time. The answers of batch and single are compared.
//!
//!   cargo bench --bench partitioned              1,000,000 keys, 7 rounds
//!   cargo bench --bench partitioned -- --keys N --rounds R
//!   ... -- --only M --policy bloom|ribbon   one method (0 full batch,
//!   1 partitioned batch, 2 full single, 3 partitioned single): to profile
//!   ... -- --decimal   keys "k" + 19 zero-padded decimal digits (as
//!   bench/sst writes them: a common prefix of 13 bytes at 1M keys, a
//!   7-byte tail) instead of "user" + 16 scrambled hex digits
//!   ... -- --reads   open both files through reads (`Sst::open_source`,
//!   as a path or an engine's callback opens them: the handle owns the
//!   bytes it read, from a cache line on) instead of borrowing them in
//!   memory (`Sst::from_bytes`: the filters stay where the buffer has them)
//!   ... -- --sorted   each batch of 4,096 probes in key order, as
//!   RocksDB's MultiGet sorts its keys before it asks the filter (the
//!   single queries take them in that order too)
//!   cargo test --benches --release              quick run (20,000 keys)

#[path = "../tests/support/craft.rs"]
mod craft;

use std::time::Instant;

use rocksfilter::{Policy, Sst, SstFilter, SstOptions};

fn key(i: u64) -> Vec<u8> {
    if DECIMAL.load(std::sync::atomic::Ordering::Relaxed) {
        return format!("k{i:019}").into_bytes();
    }
    format!("user{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8).into_bytes()
}

/// --decimal (see above).
static DECIMAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let quick = !args.iter().any(|a| a == "--bench");
    DECIMAL.store(args.iter().any(|a| a == "--decimal"), std::sync::atomic::Ordering::Relaxed);
    let n = arg("--keys", if quick { 20_000 } else { 1_000_000 });
    let rounds = arg("--rounds", if quick { 1 } else { 7 });
    let only = arg("--only", usize::MAX);
    let reads = args.iter().any(|a| a == "--reads");
    let policy_arg = args.iter().position(|a| a == "--policy").and_then(|i| args.get(i + 1)).cloned();
    let mut keys: Vec<Vec<u8>> = (0..n as u64).map(|i| key(2 * i)).collect();
    keys.sort();
    keys.dedup();
    // Probes: half absent (odd ids), half present, in a scrambled order.
    // One array of fixed-size keys, as a batch from an engine lies in
    // memory (separate allocations would add a cache miss per key to both
    // sides).
    let mut probes: Vec<[u8; 20]> = (0..n as u64)
        .map(|i| {
            let j = i.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64;
            let k = if i % 2 == 0 { key(2 * j + 1) } else { key(2 * j) };
            k.try_into().expect("20-byte keys")
        })
        .collect();
    if args.iter().any(|a| a == "--sorted") {
        probes.chunks_mut(4096).for_each(<[[u8; 20]]>::sort_unstable);
    }
    println!(
        "{n} keys, {} probes, batches of 4096{}, best of {rounds} alternating rounds, ns/key",
        probes.len(),
        if args.iter().any(|a| a == "--sorted") { " in key order" } else { "" }
    );
    println!(
        "{:<8} {:>10} {:>12} {:>10} {:>12} {:>8} {:>8}",
        "filter", "full batch", "part. batch", "full 1", "part. 1", "batch x", "single x"
    );
    for policy in [Policy::Bloom, Policy::Ribbon] {
        if policy_arg.as_ref().is_some_and(|p| !format!("{policy:?}").eq_ignore_ascii_case(p)) {
            continue;
        }
        let full = craft::Crafted::synthetic(&keys, policy, None).finish();
        let part = craft::Crafted::synthetic(&keys, policy, Some(3300)).finish();
        fn open(file: &[u8], reads: bool) -> rocksfilter::Result<Sst<'_>> {
            if reads {
                Sst::open_source(file, SstOptions::default())
            } else {
                Sst::from_bytes(file)
            }
        }
        let full = open(&full, reads).expect("full opens");
        let part = open(&part, reads).expect("partitioned opens");
        let parts = match part.filter() {
            SstFilter::Partitioned(p) => p.len(),
            _ => panic!("not partitioned"),
        };
        let mut best = [f64::MAX; 4];
        let mut out = vec![false; 4096];
        let mut sink = 0usize;
        for r in 0..rounds {
            for m in 0..4 {
                let m = if r % 2 == 0 { m } else { 3 - m };
                if only != usize::MAX && m != only {
                    continue;
                }
                let sst = if m % 2 == 0 { &full } else { &part };
                let t = Instant::now();
                if m < 2 {
                    for chunk in probes.chunks(4096) {
                        sst.may_match_batch(chunk, &mut out);
                        sink += out[..chunk.len()].iter().filter(|&&b| b).count();
                    }
                } else {
                    sink += probes.iter().filter(|k| sst.may_match(&k[..])).count();
                }
                best[m] = best[m].min(t.elapsed().as_nanos() as f64 / probes.len() as f64);
            }
        }
        // The partition lookup alone (no hashing, no filter line).
        let SstFilter::Partitioned(pf) = part.filter() else { unreachable!() };
        let mut lookup = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            for k in &probes {
                sink += std::hint::black_box(pf.candidates_for_key(&k[..])).map_or(0, |r| r.start);
            }
            lookup = lookup.min(t.elapsed().as_nanos() as f64 / probes.len() as f64);
        }
        for sst in [&full, &part] {
            for chunk in probes.chunks(4096) {
                sst.may_match_batch(chunk, &mut out);
                assert!(chunk.iter().zip(&out).all(|(k, &b)| b == sst.may_match(&k[..])), "batch and single differ");
            }
        }
        // Methods left out with --only print "-".
        let ratio = |a: f64, b: f64| if a < f64::MAX / 2.0 && b < f64::MAX / 2.0 { a / b } else { f64::MAX };
        let f = |v: f64, w: usize, p: usize| {
            if v.is_finite() && v < f64::MAX / 2.0 {
                format!("{v:>w$.p$}")
            } else {
                format!("{:>w$}", "-")
            }
        };
        println!(
            "{:<8} {} {} {} {} {} {}   ({parts} partitions, lookup alone {lookup:.1} ns; checksum {sink})",
            format!("{policy:?}"),
            f(best[0], 10, 1),
            f(best[1], 12, 1),
            f(best[2], 10, 1),
            f(best[3], 12, 1),
            f(ratio(best[1], best[0]), 8, 2),
            f(ratio(best[3], best[2]), 8, 2)
        );
    }
}
