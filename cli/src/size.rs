//! `rocksfilter size`: what N keys at a target FP rate cost, each way a
//! block can be sized, beside the information-theoretic floor, binary fuse
//! filters (built with the `xorf` crate) and filters that can delete
//! (counting Bloom, cuckoo, quotient: `deletable.rs`); those are not RocksDB
//! formats, only comparison rows.

use rocksfilter::{BuilderOptions, FilterBuilder, Policy, RibbonFailure};
use xorf::{BinaryFuse16, BinaryFuse8};

use crate::inspect::json_str;

/// One line of the report.
struct Row {
    /// What the row is.
    filter: String,
    /// The block's format, or what it is instead.
    format: &'static str,
    /// Whether RocksDB reads it.
    rocksdb: bool,
    /// How to get it: a RocksDB setting or `rocksfilter build` flags.
    how: String,
    /// RocksDB's bits/key setting for the row, if it is one.
    bits_per_key_setting: Option<f64>,
    bytes: usize,
    fp_rate: f64,
    /// "estimate" (RocksDB's), "exact" (the format's fixed rate), "floor"
    /// or "measured" (on at least 1,000,000 absent keys).
    fp_rate_is: &'static str,
    /// Whether keys can be deleted.
    deletes: bool,
    /// How inserts fail (filters that can delete), measured.
    insert_failure: Option<String>,
}

/// Smallest policy bits/key (RocksDB's millibit resolution, 1.0..=100.0)
/// whose RocksDB-estimated FP rate for `keys` entries is at most `fpr`.
/// The estimate is not strictly monotone in bits/key (probe counts step),
/// so this scans upward rather than bisecting.
fn smallest_bits(policy: Policy, keys: usize, fpr: f64) -> Option<f64> {
    (1000..=100_000u32)
        .map(|m| f64::from(m) / 1000.0)
        .find(|&bpk| FilterBuilder::new(policy, bpk).is_ok_and(|b| b.estimate(keys).1 <= fpr))
}

/// The row of a block `opts` sizes for `keys` entries.
fn planned(
    filter: String,
    how: String,
    setting: Option<f64>,
    opts: &BuilderOptions,
    keys: usize,
) -> Result<Row, String> {
    let b = FilterBuilder::with_options(opts).map_err(|e| e.to_string())?;
    let (bytes, fp_rate) = b.estimate(keys);
    Ok(Row {
        filter,
        format: b.planned_kind(keys).name(),
        rocksdb: true,
        how,
        bits_per_key_setting: setting,
        bytes,
        fp_rate,
        fp_rate_is: "estimate",
        deletes: false,
        insert_failure: None,
    })
}

fn rows(keys: usize, fpr: f64, max_bytes: Option<usize>) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let one_in_1000 = RibbonFailure::OneIn1000;
    for (policy, name) in [(Policy::Bloom, "Bloom"), (Policy::Ribbon, "Ribbon")] {
        match smallest_bits(policy, keys, fpr) {
            Some(bpk) => {
                let how = match policy {
                    Policy::Ribbon => format!("NewRibbonFilterPolicy({bpk})"),
                    _ => format!("NewBloomFilterPolicy({bpk})"),
                };
                let opts = BuilderOptions::new(policy).bits_per_key(bpk);
                rows.push(planned(format!("{name} at RocksDB's bits/key"), how, Some(bpk), &opts, keys)?);
                if policy == Policy::Ribbon {
                    let how = format!("--bits-per-key {bpk} --ribbon-failure 1000");
                    let opts = opts.ribbon_failure(one_in_1000);
                    rows.push(planned(
                        format!("{name} at RocksDB's bits/key, 1-in-1000"),
                        how,
                        Some(bpk),
                        &opts,
                        keys,
                    )?);
                }
            }
            None => eprintln!("rocksfilter: {name} cannot reach {fpr} below 100 bits/key"),
        }
    }
    let fp = BuilderOptions::new(Policy::Bloom).fp_rate(fpr);
    rows.push(planned("Bloom sized for the rate".into(), format!("--fpr {fpr}"), None, &fp, keys)?);
    let fp = BuilderOptions::new(Policy::Ribbon).fp_rate(fpr);
    rows.push(planned("Ribbon sized for the rate".into(), format!("--fpr {fpr}"), None, &fp, keys)?);
    let how = format!("--fpr {fpr} --ribbon-failure 1000");
    rows.push(planned(
        "Ribbon sized for the rate, 1-in-1000".into(),
        how,
        None,
        &fp.ribbon_failure(one_in_1000),
        keys,
    )?);
    if let Some(b) = max_bytes {
        for (policy, name) in [(Policy::Bloom, "Bloom"), (Policy::Ribbon, "Ribbon")] {
            let opts = BuilderOptions::new(policy).max_bytes(b);
            rows.push(planned(format!("{name} in {b} bytes"), format!("--max-bytes {b}"), None, &opts, keys)?);
        }
    }
    rows.push(Row {
        filter: "information-theoretic floor".into(),
        format: "log2(1/p) bits/key",
        rocksdb: false,
        how: "-".into(),
        bits_per_key_setting: None,
        bytes: (keys as f64 * (1.0 / fpr).log2() / 8.0).ceil() as usize,
        fp_rate: fpr,
        fp_rate_is: "floor",
        deletes: false,
        insert_failure: None,
    });
    let hashes: Vec<u64> = crate::deletable::keys(0, keys as u64).collect();
    let fuse8 = BinaryFuse8::try_from(&hashes).map(|f| f.fingerprints.len());
    let fuse16 = BinaryFuse16::try_from(&hashes).map(|f| f.fingerprints.len() * 2);
    for (name, bytes, bits) in [("BinaryFuse8 (xorf)", fuse8, 8), ("BinaryFuse16 (xorf)", fuse16, 16)] {
        let bytes = bytes.map_err(|e| format!("xorf {name} on {keys} keys: {e}"))?;
        rows.push(Row {
            filter: name.into(),
            format: "not a RocksDB format, for comparison",
            rocksdb: false,
            how: "-".into(),
            bits_per_key_setting: None,
            bytes,
            fp_rate: 0.5f64.powi(bits),
            fp_rate_is: "exact",
            deletes: false,
            insert_failure: None,
        });
    }
    for m in crate::deletable::rows(keys as u64, fpr)? {
        rows.push(Row {
            filter: m.name.into(),
            format: "not a RocksDB format, for comparison",
            rocksdb: false,
            how: m.how,
            bits_per_key_setting: None,
            bytes: m.bytes,
            fp_rate: m.fp_rate,
            fp_rate_is: "measured",
            deletes: true,
            insert_failure: Some(m.insert_failure),
        });
    }
    Ok(rows)
}

pub fn size(keys: usize, fpr: f64, max_bytes: Option<usize>, json: bool) -> Result<(), String> {
    if keys == 0 {
        return Err("--keys must be at least 1".into());
    }
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err("--fpr must be between 0 and 1 (exclusive), e.g. 0.01".into());
    }
    let rows = rows(keys, fpr, max_bytes)?;
    let bpk = |bytes: usize| 8.0 * bytes as f64 / keys as f64;
    if json {
        let items: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"filter\":{},\"format\":{},\"rocksdb_reads_it\":{},\"how\":{},\"bits_per_key_setting\":{},\"bytes\":{},\"bits_per_key\":{:.4},\"fp_rate\":{},\"fp_rate_is\":{},\"meets_target\":{},\"deletes\":{},\"insert_failure\":{}}}",
                    json_str(&r.filter),
                    json_str(r.format),
                    r.rocksdb,
                    json_str(&r.how),
                    r.bits_per_key_setting.map_or("null".into(), |b| b.to_string()),
                    r.bytes,
                    bpk(r.bytes),
                    r.fp_rate,
                    json_str(r.fp_rate_is),
                    r.fp_rate <= fpr * (1.0 + 1e-9),
                    r.deletes,
                    r.insert_failure.as_deref().map_or("null".into(), json_str)
                )
            })
            .collect();
        let max = max_bytes.map_or("null".into(), |b| b.to_string());
        println!("{{\"keys\":{keys},\"fpr\":{fpr},\"max_bytes\":{max},\"rows\":[\n  {}\n]}}", items.join(",\n  "));
        return Ok(());
    }
    println!("{keys} keys, target FP rate {}% (RocksDB's estimates; bytes include the 5-byte trailer)", 100.0 * fpr);
    println!("{:<40} {:<19} {:>12} {:>9} {:>11}  how", "filter", "format", "bytes", "bits/key", "FP rate");
    for r in &rows {
        let format = if r.rocksdb {
            r.format
        } else if r.fp_rate_is == "floor" {
            "-"
        } else {
            "not RocksDB's"
        };
        println!(
            "{:<40} {:<19} {:>12} {:>9.3} {:>10.4}%  {}",
            r.filter,
            format,
            r.bytes,
            bpk(r.bytes),
            100.0 * r.fp_rate,
            r.how
        );
    }
    println!("bits_per_key: the value to pass to NewBloomFilterPolicy / NewRibbonFilterPolicy (Ribbon's means");
    println!(
        "\"the FP rate of Bloom at this bits/key\"); --fpr, --max-bytes, --ribbon-failure: `rocksfilter build` flags."
    );
    println!("Binary fuse rows: xorf's filters built on {keys} keys (fingerprint bytes), not a RocksDB format, for comparison.");
    println!("Counting Bloom, cuckoo, quotient: filters that can delete, built on {keys} keys, FP rates measured on");
    println!("{} absent keys; not RocksDB formats, for comparison. How their inserts fail:", keys.max(1_000_000));
    for r in rows.iter().filter_map(|r| r.insert_failure.as_ref().map(|f| (&r.filter, f))) {
        println!("  {}: {}", r.0, r.1);
    }
    Ok(())
}
