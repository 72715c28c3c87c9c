//! SST files written by real RocksDB (7.8.3 through its C API, 9.8.4 through
//! rocksdict), generated at test time by `sst_fixtures/generate.sh DIR`.
//! Run with `make sst-test`, or:
//!
//! ```sh
//! sst_fixtures/generate.sh /tmp/fx
//! ROCKSFILTER_SST_FIXTURES=/tmp/fx cargo test --release --test sst_fixtures -- --ignored
//! ```

use std::path::PathBuf;

use rocksfilter::sst::PrefixExtractor;
use rocksfilter::{ErrorKind, Filter, Kind, Policy, Sst, SstFilter, SstOptions};
use serde_json::Value;

#[path = "support/callback.rs"]
mod callback;
#[path = "support/rebuild.rs"]
mod rebuild;

struct Fixture {
    path: PathBuf,
    row: Value,
    keys: Vec<Vec<u8>>,
}

impl Fixture {
    fn str(&self, k: &str) -> &str {
        self.row[k].as_str().unwrap_or("")
    }
    fn num(&self, k: &str) -> f64 {
        self.row[k].as_f64().unwrap_or(0.0)
    }
    fn flag(&self, k: &str) -> bool {
        self.row[k].as_bool().unwrap_or(false)
    }
    fn name(&self) -> &str {
        self.str("file")
    }
}

fn fixtures() -> Vec<Fixture> {
    let dir = PathBuf::from(
        std::env::var("ROCKSFILTER_SST_FIXTURES")
            .expect("set ROCKSFILTER_SST_FIXTURES to a directory made by sst_fixtures/generate.sh"),
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl")).expect("manifest.jsonl");
    let out: Vec<Fixture> = manifest
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let row: Value = serde_json::from_str(l).expect("manifest row");
            let keys_text = std::fs::read_to_string(dir.join(row["keys"].as_str().unwrap())).expect("keys file");
            let keys = keys_text
                .lines()
                .filter(|l| !l.is_empty() || keys_text.len() == 1)
                .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
                .collect();
            Fixture { path: dir.join(row["file"].as_str().unwrap()), row, keys }
        })
        .collect();
    assert!(out.len() >= 100, "expected the full fixture set, found {}", out.len());
    out
}

/// Absent keys: the present keys with a byte appended, and some random ones.
fn absent_keys(f: &Fixture, n: usize) -> Vec<Vec<u8>> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 2 == 0 && !f.keys.is_empty() {
                let mut k = f.keys[i % f.keys.len()].clone();
                k.extend_from_slice(&x.to_le_bytes()[..1 + (x % 4) as usize]);
                k
            } else {
                x.to_le_bytes()[..1 + (x % 8) as usize].to_vec()
            }
        })
        .collect()
}

fn rebuild(f: &Fixture, policy: Policy, sst: &Sst) -> Vec<u8> {
    rebuild::rebuild(&f.keys, f.str("writer"), policy, f.num("bits_per_key"), sst)
}

#[test]
#[ignore = "needs real SST fixtures: make sst-test"]
fn every_fixture_opens_verified_and_every_key_matches() {
    let all = fixtures();
    let (mut keys_checked, mut identical, mut compared, mut absent_checked) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    // Opens through the C callback source: (files, reads, bytes read, most reads of one open).
    let (mut cb_files, mut cb_reads, mut cb_bytes, mut cb_max) = (0usize, 0u64, 0u64, 0u64);
    for f in &all {
        let sst = match Sst::open(&f.path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: open failed: {e}", f.name()));
                continue;
            }
        };
        assert_eq!(sst.format_version() as f64, f.num("format_version"), "{}", f.name());
        assert_eq!(sst.checksum_type().name(), f.str("checksum"), "{}", f.name());
        // The filter's shape is what the manifest says was written.
        let policy = f.str("filter");
        match (policy, sst.filter()) {
            ("none", SstFilter::None) => {}
            ("none", other) => failures.push(format!("{}: expected no filter, found {other:?}", f.name())),
            (_, SstFilter::Full(_)) if !f.flag("partitioned") => {}
            (_, SstFilter::Partitioned(_)) if f.flag("partitioned") => {}
            (_, other) => failures.push(format!("{}: unexpected filter {other:?}", f.name())),
        }
        let kinds: Vec<Kind> = match sst.filter() {
            SstFilter::Full(x) => vec![x.kind()],
            SstFilter::Partitioned(p) => p.filters().iter().map(Filter::kind).collect(),
            _ => vec![],
        };
        for k in &kinds {
            let ok = match (policy, f.num("format_version") as u32) {
                ("bloom", v) if v < 5 => *k == Kind::LegacyBloom,
                ("bloom", _) => *k == Kind::FastLocalBloom,
                // Ribbon falls back to FastLocalBloom for small filters.
                ("ribbon", _) => matches!(k, Kind::Standard128Ribbon | Kind::FastLocalBloom),
                _ => false,
            };
            if !ok {
                failures.push(format!("{}: {policy} fv{} gave a {k:?} block", f.name(), f.num("format_version")));
            }
        }
        // Every key written may match, and so does its prefix.
        for k in &f.keys {
            if !sst.may_match(k) {
                failures.push(format!("{}: key {k:02x?} answered absent", f.name()));
                break;
            }
            if sst.has_prefix_filter() {
                if let Some(p) = sst.prefix_extractor().and_then(|x| x.prefix(k)) {
                    if sst.prefix_may_match(p) != Ok(true) {
                        failures.push(format!("{}: prefix {p:02x?} answered absent", f.name()));
                        break;
                    }
                }
            }
            keys_checked += 1;
        }
        // The same file through the callback: the same answers on every key
        // and on absent ones, in at most two reads (full and partitioned).
        match callback::open_path(&f.path) {
            Err((st, msg)) => failures.push(format!("{}: callback open failed ({st}): {msg}", f.name())),
            Ok(cb) => {
                let absent = absent_keys(f, 2000);
                if let Some(k) = f.keys.iter().chain(&absent).find(|k| cb.may_match(k) != sst.may_match(k)) {
                    failures.push(format!("{}: callback and path opens answer {k:02x?} differently", f.name()));
                }
                let st = cb.stats();
                if st.reads != cb.calls || st.reads > callback::max_reads(cb.filter_type()) {
                    failures.push(format!(
                        "{}: {} reads through the callback ({} calls)",
                        f.name(),
                        st.reads,
                        cb.calls
                    ));
                }
                if sst.open_stats().reads != st.reads {
                    failures.push(format!(
                        "{}: the path open read {} times, the callback {}",
                        f.name(),
                        sst.open_stats().reads,
                        st.reads
                    ));
                }
                cb_files += 1;
                cb_reads += st.reads;
                cb_bytes += st.bytes_read;
                cb_max = cb_max.max(st.reads);
            }
        }
        // Byte identity of our builder with the block RocksDB wrote, where
        // RocksDB did not round the size to its allocator's (that is
        // optimize_filters_for_memory, on by default in newer RocksDB).
        if let SstFilter::Full(block) = sst.filter() {
            let offm = f.row.get("optimize_filters_for_memory").and_then(Value::as_bool).unwrap_or(false)
                || f.str("extra_table_options").contains("optimize_filters_for_memory=true");
            let policy = match (policy, f.num("format_version") as u32) {
                ("ribbon", _) => Policy::Ribbon,
                (_, v) if v < 5 => Policy::LegacyBloom,
                _ => Policy::Bloom,
            };
            if !offm {
                compared += 1;
                let ours = rebuild(f, policy, &sst);
                if ours == block.as_bytes() {
                    identical += 1;
                } else {
                    let at = ours.iter().zip(block.as_bytes()).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{}: our {policy:?} block differs: {} vs {} bytes, first difference at {at:?}",
                        f.name(),
                        ours.len(),
                        block.as_bytes().len()
                    ));
                }
            }
            // The SST answer is the full filter's answer (whole key) on absent keys.
            if sst.whole_key_filtering() {
                for k in absent_keys(f, 2000) {
                    assert_eq!(sst.may_match(&k), block.may_match(&k), "{}", f.name());
                    absent_checked += 1;
                }
            }
        }
    }
    println!(
        "sst fixtures: {} files, {keys_checked} keys matched, {identical}/{compared} full filters byte-identical to RocksDB's, {absent_checked} absent-key answers consistent",
        all.len()
    );
    println!(
        "sst fixtures through the callback source: {cb_files} files, same answers as the path open, {:.2} reads and {} bytes per open on average, at most {cb_max} reads",
        cb_reads as f64 / cb_files.max(1) as f64,
        cb_bytes / cb_files.max(1) as u64
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(compared >= 50 && keys_checked > 100_000);
}

/// Offsets worth damaging: every block start and end the footer and
/// metaindex lead to, and the footer itself.
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let n = bytes.len();
    let mut v = vec![0, 1, n - 53, n - 52, n - 45, n - 41, n - 12, n - 8, n - 1];
    // Scan the metaindex for handles via the library: every filter block.
    if let Ok(sst) = Sst::from_bytes(bytes) {
        let base = bytes.as_ptr() as usize;
        let mut add = |f: &Filter| {
            let s = f.as_bytes().as_ptr() as usize - base;
            v.extend([s, s + 1, s + f.as_bytes().len() - 5, s + f.as_bytes().len() - 1, s + f.as_bytes().len()]);
        };
        match sst.filter() {
            SstFilter::Full(f) => add(f),
            SstFilter::Partitioned(p) => p.filters().iter().for_each(&mut add),
            _ => {}
        }
    }
    v.sort_unstable();
    v.dedup();
    v.retain(|&o| o < n);
    v
}

#[test]
#[ignore = "needs real SST fixtures: make sst-test"]
fn damaged_files_fail_cleanly_and_never_lose_a_key() {
    let all = fixtures();
    let (mut opened, mut refused, mut cases) = (0usize, 0usize, 0usize);
    for f in &all {
        let bytes = std::fs::read(&f.path).unwrap();
        let checksummed = f.str("checksum") != "none";
        let probe: Vec<&Vec<u8>> = f.keys.iter().step_by((f.keys.len() / 50).max(1)).collect();
        let check = |damaged: &[u8], what: &str| -> bool {
            match Sst::from_bytes(damaged) {
                Ok(sst) => {
                    if checksummed {
                        // With checksums, damage to what we read is caught;
                        // damage elsewhere must not change any answer.
                        for k in &probe {
                            assert!(sst.may_match(k), "{} {what}: a present key answered absent", f.name());
                        }
                    }
                    true
                }
                Err(e) => {
                    assert!(
                        matches!(e.kind(), ErrorKind::Corruption | ErrorKind::NotSupported),
                        "{} {what}: {e}",
                        f.name()
                    );
                    assert!(!e.message().is_empty());
                    false
                }
            }
        };
        for &at in &boundaries(&bytes) {
            for cut in [at.saturating_sub(1), at, at + 1] {
                if cut < bytes.len() {
                    cases += 1;
                    if check(&bytes[..cut], &format!("truncated to {cut}")) {
                        opened += 1
                    } else {
                        refused += 1
                    }
                }
            }
            for bit in [0, 3, 7] {
                let mut m = bytes.clone();
                m[at] ^= 1 << bit;
                cases += 1;
                if check(&m, &format!("bit {bit} flipped at {at}")) {
                    opened += 1
                } else {
                    refused += 1
                }
            }
        }
        // Extension: trailing garbage moves the footer; must be refused or safe.
        let mut m = bytes.clone();
        m.extend_from_slice(&[0u8; 7]);
        cases += 1;
        if check(&m, "extended") {
            opened += 1
        } else {
            refused += 1
        }
    }
    println!("sst damage sweep: {cases} damaged files, {refused} refused with an error, {opened} opened and answered every present key");
    assert!(cases > 5000 && refused > 0);
}

#[test]
#[ignore = "needs real SST fixtures: make sst-test"]
fn skip_checksums_still_reads_and_prefix_rules_hold() {
    for f in fixtures() {
        let sst = Sst::open_with(&f.path, SstOptions::default().with_verify_checksums(false)).unwrap();
        if f.num("prefix_len") > 0.0 {
            let n = f.num("prefix_len") as usize;
            assert_eq!(sst.prefix_extractor(), Some(PrefixExtractor::Fixed(n)), "{}", f.name());
            assert_eq!(sst.whole_key_filtering(), f.flag("whole_key_filtering"), "{}", f.name());
            assert_eq!(sst.prefix_may_match(&vec![b'x'; n + 1]).unwrap_err().kind(), ErrorKind::InvalidArgument);
        } else if !sst.has_prefix_filter() {
            assert_eq!(sst.prefix_may_match(b"abc").unwrap_err().kind(), ErrorKind::NotSupported);
        }
        for k in f.keys.iter().step_by(97) {
            assert!(sst.may_match(k), "{}", f.name());
        }
    }
}
