//! Statistical calibration against RocksDB's design targets, with tolerant
//! bounds (deterministic seeds, so no flakiness):
//! * Ribbon sizes its slots for a 1-in-20 chance that the first seed fails to
//!   solve; measured rates should be near that, never far above.
//! * Measured FP rates track RocksDB's own estimates across bits/key.
//!
//! * Blocks sized by a target FP rate or a byte budget (`BuilderOptions`)
//!   meet the target, and their RocksDB estimate, within sampling error: a
//!   binomial 4-sigma band around the rate (`sigma = sqrt(p (1 - p) / m)`
//!   for m absent keys), plus 3/m for rates too small to sample.
//!
//! The longer calibration (more trials, 1,000,000 keys, both banding tables;
//! its table is in BENCHMARKS.md) is
//! `cargo test --release --test calibration -- --ignored --nocapture`.

use rocksfilter::{BuilderOptions, Filter, FilterBuilder, FilterInfo, Kind, Policy, RibbonFailure};

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
fn first_seed_failure_rate(n: usize, trials: usize, cfc: RibbonFailure, rng: &mut Rng) -> f64 {
    let mut failed = 0;
    let opts = BuilderOptions::new(Policy::Ribbon).ribbon_failure(cfc);
    for _ in 0..trials {
        let mut b = FilterBuilder::with_options(&opts).unwrap();
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

/// The 4-sigma binomial band for a rate `p` measured on `m` trials.
fn four_sigma(p: f64, m: usize) -> f64 {
    4.0 * (p * (1.0 - p) / m as f64).sqrt()
}

/// Measures first-seed failures for each banding table and key count and
/// prints one table row per count; checks each rate against twice the
/// table's target plus 4 sigma (RocksDB's tables are themselves measured:
/// at 1-in-20 they fail a little more often than 5% at a million keys).
fn failure_calibration(runs: &[(usize, usize)], seed: u64) {
    let mut rng = Rng(seed);
    // One print at the end: tests run in parallel, their lines interleave.
    let mut table = String::from("Ribbon first-seed failures by banding table (RocksDB's util/ribbon_config.cc):\n");
    table += "| keys | 1-in-20: first-seed failures | 1-in-1000: first-seed failures | 1-in-1000 slots vs 1-in-20 |\n";
    table += "|---|---|---|---|\n";
    for &(n, trials) in runs {
        let mut cells = Vec::new();
        for cfc in [RibbonFailure::OneIn20, RibbonFailure::OneIn1000] {
            let rate = first_seed_failure_rate(n, trials, cfc, &mut rng);
            let target = 1.0 / f64::from(cfc.one_in());
            let bound = 2.0 * target + four_sigma(2.0 * target, trials);
            assert!(rate <= bound, "{n} keys, 1 in {}: {rate} > {bound}", cfc.one_in());
            cells.push(format!("{:.2}% of {trials}", 100.0 * rate));
        }
        let slots = |cfc| {
            let mut b = FilterBuilder::with_options(&BuilderOptions::new(Policy::Ribbon).ribbon_failure(cfc)).unwrap();
            (0..n as u64).for_each(|i| b.add_hash(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            let block = b.finish().unwrap();
            match Filter::new(&block).unwrap().info() {
                FilterInfo::Standard128Ribbon { num_blocks, .. } => f64::from(num_blocks),
                other => panic!("{other:?}"),
            }
        };
        let more = slots(RibbonFailure::OneIn1000) / slots(RibbonFailure::OneIn20);
        table += &format!("| {n} | {} | {} | {:+.2}% |\n", cells[0], cells[1], 100.0 * (more - 1.0));
    }
    print!("{table}");
}

#[test]
fn ribbon_first_seed_failure_rates_by_banding_table() {
    // A few seconds: the figures are printed in the log.
    failure_calibration(&[(1000, 2000), (10_000, 300), (100_000, 40)], 1);
}

#[test]
#[ignore = "long calibration run (several minutes): the table of BENCHMARKS.md"]
fn ribbon_first_seed_failure_rate_long() {
    failure_calibration(&[(1000, 20_000), (10_000, 5000), (100_000, 2000), (1_000_000, 500)], 2);
}

fn measured_fp(policy: Policy, bpk: f64, n: usize, probes: usize, rng: &mut Rng) -> (f64, f64, usize) {
    measured_fp_with(&BuilderOptions::new(policy).bits_per_key(bpk), n, probes, rng)
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

/// Builds `n` random keys with `opts`, then measures the FP rate on `probes`
/// absent keys: (measured, the block's estimate, bytes).
fn measured_fp_with(opts: &BuilderOptions, n: usize, probes: usize, rng: &mut Rng) -> (f64, f64, usize) {
    let mut b = FilterBuilder::with_options(opts).unwrap();
    let keys: Vec<[u8; 16]> =
        (0..n).map(|_| (rng.next() as u128 | ((rng.next() as u128) << 64)).to_le_bytes()).collect();
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
fn sized_blocks_meet_their_targets() {
    let mut rng = Rng(4);
    let (n, m) = (100_000, 1_000_000);
    for policy in [Policy::Bloom, Policy::Ribbon] {
        for cfc in [RibbonFailure::OneIn20, RibbonFailure::OneIn1000] {
            if policy == Policy::Bloom && cfc != RibbonFailure::OneIn20 {
                continue;
            }
            for target in [0.05, 0.01, 0.001] {
                let opts = BuilderOptions::new(policy).fp_rate(target).ribbon_failure(cfc);
                let (measured, estimate, bytes) = measured_fp_with(&opts, n, m, &mut rng);
                let banding =
                    if policy == Policy::Ribbon { format!(" (1-in-{} banding)", cfc.one_in()) } else { String::new() };
                println!(
                    "{policy:?}{banding} at FP target {:.2}%: {bytes} bytes ({:.2} bits/key), measured {:.4}%, estimate {:.4}%",
                    100.0 * target,
                    8.0 * bytes as f64 / n as f64,
                    100.0 * measured,
                    100.0 * estimate
                );
                assert!(estimate <= target * (1.0 + 1e-3), "{policy:?} {target}: estimate {estimate}");
                let slack = four_sigma(target, m) + 3.0 / m as f64;
                assert!(measured <= target + slack, "{policy:?} {target}: measured {measured}");
                assert!((measured - estimate).abs() <= four_sigma(estimate, m) + 3.0 / m as f64, "{policy:?} {target}");
            }
        }
        for budget in [16_384usize, 131_072] {
            let opts = BuilderOptions::new(policy).max_bytes(budget);
            let (measured, estimate, bytes) = measured_fp_with(&opts, n, m, &mut rng);
            println!(
                "{policy:?} in {budget} bytes: {bytes} bytes, measured {:.4}%, estimate {:.4}%",
                100.0 * measured,
                100.0 * estimate
            );
            assert!(bytes <= budget && bytes + 64 > budget, "{policy:?} {budget}: {bytes}");
            assert!((measured - estimate).abs() <= four_sigma(estimate, m) + 3.0 / m as f64, "{policy:?} {budget}");
        }
    }
}

/// README.md's table of FastLocalBloom's FP rates (1,000,000 keys, 1,000,000
/// absent ones) beside the standard formula at the optimal probe count and
/// RocksDB's `CacheLocalFpRate`: the rows this run computes must be the
/// README's, character for character (the run is deterministic).
#[test]
fn the_readme_bloom_fp_table_is_this_run() {
    use rocksfilter::{cache_local_fp_rate, choose_num_probes, standard_fp_rate};
    let mut rows = Vec::new();
    for bpk in [6u32, 8, 10, 16, 20] {
        let mut rng = Rng(59 + bpk as u64);
        let (measured, _, _) = measured_fp(Policy::Bloom, bpk as f64, 1_000_000, 1_000_000, &mut rng);
        let k = choose_num_probes(bpk * 1000);
        let k_opt = (bpk as f64 * std::f64::consts::LN_2).round().max(1.0) as u32;
        let standard = standard_fp_rate(bpk as f64, k_opt);
        let cache_local = cache_local_fp_rate(bpk as f64, k, 512);
        rows.push(format!(
            "| {bpk} | {k} | {:.3}% | {:.3}% (k = {k_opt}) | {:.3}% | {:.2}x |",
            100.0 * measured,
            100.0 * standard,
            100.0 * cache_local,
            measured / standard
        ));
    }
    println!("{}", rows.join("\n"));
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let missing: Vec<&String> = rows.iter().filter(|r| !readme.lines().any(|l| l == r.as_str())).collect();
    assert!(missing.is_empty(), "README.md lacks these rows of the FP table (this run's, above): {missing:?}");
}
