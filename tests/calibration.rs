//! Statistical calibration against RocksDB's design targets, with tolerant
//! bounds (deterministic seeds, so no flakiness):
//! * Ribbon sizes its slots for a 1-in-20 chance that the first seed fails to
//!   solve; measured rates should be near that, never far above.
//! * Measured FP rates track RocksDB's own estimates across bits/key.
//!
//! The longer calibration (more trials, 1,000,000 keys) is
//! `cargo test --release --test calibration -- --ignored --nocapture`.

use rocksfilter::{Filter, FilterBuilder, FilterInfo, Kind, Policy};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Fraction of Ribbon builds of `n` random hashes whose first seed failed.
/// RocksDB starts the seed search at the low byte of the first hash and
/// stores the seed it settled on in the trailer, so a first-seed failure is
/// visible as a trailer seed different from that byte.
fn first_seed_failure_rate(n: usize, trials: usize, rng: &mut Rng) -> f64 {
    let mut failed = 0;
    for _ in 0..trials {
        let mut b = FilterBuilder::new(Policy::Ribbon, 10.0).unwrap();
        let first = rng.next();
        b.add_hash(first);
        for _ in 1..n {
            b.add_hash(rng.next());
        }
        let block = b.finish().unwrap();
        let f = Filter::new(&block).unwrap();
        assert_eq!(f.kind(), Kind::Standard128Ribbon);
        let FilterInfo::Standard128Ribbon { seed, .. } = f.info() else { panic!("{:?}", f.info()) };
        if u64::from(seed) != first & 255 {
            failed += 1;
        }
    }
    failed as f64 / trials as f64
}

#[test]
fn ribbon_first_seed_failure_rate_is_near_one_in_twenty() {
    let mut rng = Rng(1);
    for (n, trials) in [(10_000, 300), (100_000, 60)] {
        let rate = first_seed_failure_rate(n, trials, &mut rng);
        println!("ribbon first-seed failure at {n} keys: {:.2}% of {trials} builds", 100.0 * rate);
        // RocksDB aims at 5%; an independent check measured 0.5% to 5.8%.
        // Far above would mean our sizing is smaller than RocksDB's.
        assert!(rate <= 0.15, "{n} keys: {rate}");
    }
}

#[test]
#[ignore = "long calibration run (about a minute)"]
fn ribbon_first_seed_failure_rate_long() {
    let mut rng = Rng(2);
    for (n, trials) in [(10_000, 4000), (100_000, 800), (1_000_000, 150)] {
        let rate = first_seed_failure_rate(n, trials, &mut rng);
        println!("ribbon first-seed failure at {n} keys: {:.2}% of {trials} builds", 100.0 * rate);
        assert!(rate <= 0.10, "{n} keys: {rate}");
    }
}

fn measured_fp(policy: Policy, bpk: f64, n: usize, probes: usize, rng: &mut Rng) -> (f64, f64, usize) {
    let mut b = FilterBuilder::new(policy, bpk).unwrap();
    let keys: Vec<[u8; 16]> = (0..n).map(|_| (rng.next() as u128 | ((rng.next() as u128) << 64)).to_le_bytes()).collect();
    for k in &keys {
        b.add_key(k);
    }
    let block = b.finish().unwrap();
    let f = Filter::new(&block).unwrap();
    assert!(keys.iter().all(|k| f.may_match(k)));
    let fp = (0..probes).filter(|_| f.may_match(&rng.next().to_le_bytes())).count();
    (fp as f64 / probes as f64, f.estimated_fp_rate(n), block.len())
}

#[test]
fn measured_fp_rates_track_rocksdb_estimates() {
    let mut rng = Rng(3);
    for policy in [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom] {
        for bpk in [2.0, 5.0, 10.0, 16.0, 23.45] {
            let (measured, estimate, bytes) = measured_fp(policy, bpk, 50_000, 400_000, &mut rng);
            println!(
                "{policy:?} {bpk} bits/key: {bytes} bytes, measured FP {:.4}%, RocksDB estimate {:.4}%",
                100.0 * measured,
                100.0 * estimate
            );
            // Enough probes that a 35% band (or 3 expected hits) holds
            // comfortably for an estimate that is right.
            let slack = (estimate * 0.35).max(3.0 / 400_000.0 * 3.0);
            assert!((measured - estimate).abs() <= slack, "{policy:?} {bpk}: measured {measured}, estimate {estimate}");
        }
    }
}
