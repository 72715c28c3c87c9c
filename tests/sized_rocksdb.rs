//! Blocks sized by a target FP rate, a byte budget or Ribbon's 1-in-1000
//! banding table, read by real RocksDB: each replaces the full filter of an
//! SST RocksDB 7.8.3 wrote (25,000 keys; `tests/support/craft.rs` rewrites
//! the handle and every checksum), and RocksDB itself judges the file
//! (`sst_fixtures/judge78.c`: ingest into a fresh DB, `Get` every key and
//! 100,000 absent keys inside the file's key range, read the
//! `rocksdb.bloom.filter.useful` ticker). Asserted for every block:
//! - RocksDB finds every key;
//! - RocksDB's filter rejects exactly the absent keys this library's filter
//!   rejects (the ticker equals our count), so its measured FP rate is ours;
//! - that rate is within a binomial 4-sigma band (plus 3/m) of the block's
//!   estimate, and of the target when there is one.
//!
//! And the default options give the block RocksDB wrote, byte for byte.
//!
//! Run with `make sst-test`, or (see `tests/hostile.rs` for the set-up):
//! ```sh
//! ROCKSFILTER_SST_FIXTURES=/tmp/fx ROCKSFILTER_JUDGE=/tmp/judge78 \
//!   cargo test --release --test sized_rocksdb -- --ignored --nocapture
//! ```

#[path = "support/craft.rs"]
mod craft;

use std::collections::BTreeSet;
use std::path::PathBuf;

use craft::Crafted;
use rocksfilter::{BuilderOptions, Filter, FilterBuilder, Kind, Policy, RibbonFailure};

const BASE: &str = "r78_fv5_crc32c_bloom10_none_ascii25000";
const ABSENT: usize = 100_000;

fn hex(k: &[u8]) -> String {
    k.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
#[ignore = "needs the RocksDB fixtures and judge: make sst-test"]
fn sized_blocks_are_read_by_rocksdb() {
    let dir = PathBuf::from(std::env::var("ROCKSFILTER_SST_FIXTURES").expect("ROCKSFILTER_SST_FIXTURES"));
    let judge = PathBuf::from(
        std::env::var("ROCKSFILTER_JUDGE").expect("ROCKSFILTER_JUDGE (built from sst_fixtures/judge78.c)"),
    );
    let file = std::fs::read(dir.join(BASE).with_extension("sst")).unwrap();
    let text = std::fs::read_to_string(dir.join(BASE).with_extension("keys")).unwrap();
    let keys: Vec<Vec<u8>> = text
        .lines()
        .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
        .collect();
    // The keys are "k" and 8 digits with gaps: the missing numbers between
    // the first and the last key are absent keys RocksDB's Get must ask the
    // filter about (keys outside a file's range never reach it).
    let present: BTreeSet<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let number = |k: &[u8]| std::str::from_utf8(&k[1..]).unwrap().parse::<u64>().unwrap();
    let (lo, hi) = (number(present.first().unwrap()), number(present.last().unwrap()));
    let absent: Vec<Vec<u8>> =
        (lo..hi).map(|i| format!("k{i:08}").into_bytes()).filter(|k| !present.contains(&k[..])).take(ABSENT).collect();
    assert_eq!(absent.len(), ABSENT, "not enough gaps in {BASE}");
    let work = std::env::temp_dir().join(format!("rocksfilter-sized-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let keys_path = work.join("keys");
    let lines: Vec<String> = keys.iter().chain(&absent).map(|k| hex(k)).collect();
    std::fs::write(&keys_path, lines.join("\n") + "\n").unwrap();
    let base = Crafted::parse(&file).unwrap();

    let ribbon = BuilderOptions::new(Policy::Ribbon);
    let cases: Vec<(&str, BuilderOptions, Option<f64>)> = vec![
        ("Bloom, default options", BuilderOptions::new(Policy::Bloom), None),
        ("Bloom, FP target 1%", BuilderOptions::new(Policy::Bloom).fp_rate(0.01), Some(0.01)),
        ("Bloom, FP target 0.1%", BuilderOptions::new(Policy::Bloom).fp_rate(0.001), Some(0.001)),
        ("Bloom, 16 KiB budget", BuilderOptions::new(Policy::Bloom).max_bytes(16_384), None),
        ("Ribbon, FP target 1%", ribbon.fp_rate(0.01), Some(0.01)),
        ("Ribbon, FP target 1%, 1-in-1000", ribbon.fp_rate(0.01).ribbon_failure(RibbonFailure::OneIn1000), Some(0.01)),
        ("Ribbon, FP target 0.1%", ribbon.fp_rate(0.001), Some(0.001)),
        ("Ribbon, 16 KiB budget", ribbon.max_bytes(16_384), None),
        ("Ribbon, 10 bits/key, 1-in-1000", ribbon.ribbon_failure(RibbonFailure::OneIn1000), None),
    ];
    println!("| block | bytes | bits/key | estimate | RocksDB's measured FP rate ({ABSENT} absent keys) |");
    println!("|---|---|---|---|---|");
    for (i, (name, opts, target)) in cases.iter().enumerate() {
        let mut b = FilterBuilder::with_options(opts).unwrap();
        keys.iter().for_each(|k| b.add_key(k));
        let block = b.finish().unwrap();
        if i == 0 {
            assert_eq!(block, base.full_filter(), "default options: not the block RocksDB wrote");
        }
        let f = Filter::new(&block).unwrap();
        let kind = if opts.get_policy() == Policy::Bloom { Kind::FastLocalBloom } else { Kind::Standard128Ribbon };
        assert_eq!(f.kind(), kind, "{name}");
        let ours_rejected = absent.iter().filter(|k| !f.may_match(k)).count();
        let mut c = Crafted::parse(&file).unwrap();
        c.set_full_filter(&block);
        let sst = work.join(format!("sized{i}.sst"));
        std::fs::write(&sst, c.finish()).unwrap();
        let out = std::process::Command::new(&judge)
            .args([&sst, &keys_path])
            .args(["0", "1"])
            .arg(work.join(format!("db{i}")))
            .output()
            .expect("run judge78");
        assert!(out.status.success(), "judge78 failed on {name}: {}", String::from_utf8_lossy(&out.stderr));
        let verdict = String::from_utf8(out.stdout).unwrap();
        let mut lines = verdict.lines();
        let found = lines.next().unwrap();
        assert!(!found.starts_with("REFUSED"), "{name}: RocksDB refused the file: {found}");
        assert_eq!(found.len(), keys.len() + ABSENT, "{name}: judge output length");
        assert!(found[..keys.len()].bytes().all(|c| c == b'1'), "{name}: RocksDB does not find every key");
        assert!(found[keys.len()..].bytes().all(|c| c == b'0'), "{name}: RocksDB finds an absent key");
        let useful: usize = lines.next().unwrap().strip_prefix("useful ").unwrap().parse().unwrap();
        assert_eq!(
            useful, ours_rejected,
            "{name}: RocksDB's filter rejected {useful} absent keys, ours {ours_rejected}"
        );
        let measured = 1.0 - useful as f64 / ABSENT as f64;
        let estimate = f.estimated_fp_rate(keys.len());
        let band = |p: f64| 4.0 * (p * (1.0 - p) / ABSENT as f64).sqrt() + 3.0 / ABSENT as f64;
        println!(
            "| {name} | {} | {:.2} | {:.4}% | {:.4}% |",
            block.len(),
            8.0 * block.len() as f64 / keys.len() as f64,
            100.0 * estimate,
            100.0 * measured
        );
        assert!((measured - estimate).abs() <= band(estimate), "{name}: measured {measured}, estimate {estimate}");
        if let Some(t) = target {
            assert!(estimate <= t * (1.0 + 1e-3), "{name}: estimate {estimate} above the target");
            assert!(measured <= t + band(*t), "{name}: measured {measured} above the target {t}");
        }
        if let Some(b) = opts.get_max_bytes() {
            assert!(block.len() <= b, "{name}: {} bytes", block.len());
        }
    }
    std::fs::remove_dir_all(&work).ok();
}
