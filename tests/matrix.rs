//! The RocksDB version matrix: SST files written by RocksJava 5.18.4 to
//! 11.8.1, Debian's RocksDB 7.8.3 and RocksDB 11.12 built from source, each
//! with RocksDB's own answers for its keys (`sst_fixtures/matrix/README.md`).
//! Run with `make matrix-test`, or:
//!
//! ```sh
//! sst_fixtures/matrix/java/run.sh /tmp/mx && sst_fixtures/matrix/cpp/run.sh /tmp/mx
//! ROCKSFILTER_MATRIX=/tmp/mx cargo test --release --test matrix -- --ignored --nocapture
//! ```
//!
//! For every file: it opens verified; its format_version, checksum and filter
//! are what the writer configured; every key written may match; on every
//! probe the library's answer equals RocksDB's filter decision (a `Get` that
//! raised `rocksdb.bloom.filter.useful`, a `Seek` that raised
//! `rocksdb.bloom.filter.prefix.useful`); and full filter blocks are
//! byte-identical to this library's builder where RocksDB did not round
//! their size to its allocator's (optimize_filters_for_memory off).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rocksfilter::sst::SstOptions;
use rocksfilter::{Filter, FilterCache, Kind, Policy, Sst, SstFilter};
use serde_json::Value;

#[path = "support/callback.rs"]
mod callback;
#[path = "support/rebuild.rs"]
mod rebuild;

fn hex(h: &str) -> Vec<u8> {
    (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex")).collect()
}

fn lines(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| !f.is_empty())
        .collect()
}

/// How our answer on an absent key or prefix compares with a judge's.
enum Outcome {
    Agree,
    /// A filter policy this library does not read: we answer "may match".
    UnknownPolicy,
    /// A partitioned filter under an unknown comparator: every partition asked.
    AskedAll,
    /// A filter of prefixes this library cannot form (Pebble v2's `Split`
    /// files, which do not say so): every key may match.
    SplitPrefixes,
    Differs,
}

/// The one rule for every judge: the same answer, or "may match" where the
/// library cannot read what the judge did (see COMPATIBILITY.md).
fn compare(ours: bool, rejected: bool, foreign_policy: bool, split: bool, custom: bool) -> Outcome {
    match (ours != rejected, ours) {
        (true, _) => Outcome::Agree,
        (false, true) if foreign_policy => Outcome::UnknownPolicy,
        (false, true) if split => Outcome::SplitPrefixes,
        (false, true) if custom => Outcome::AskedAll,
        _ => Outcome::Differs,
    }
}

/// The prefix Pebble's `Split` of the family writers' MVCC-like keys gives
/// (sst_fixtures/family/pebble/NOTES.md): the last byte is the suffix
/// length; a key whose last byte is no valid length is its own prefix.
fn pebble_split(k: &[u8]) -> &[u8] {
    match k.last() {
        Some(&n) if n > 0 && (n as usize) <= k.len() => &k[..k.len() - n as usize],
        _ => k,
    }
}

/// One judge's decisions on a writer's absent keys, against ours.
#[derive(Default)]
struct Verdicts {
    files: usize,
    absent: usize,
    rejected: usize,
    agree: usize,
    /// Written keys this judge did not find (its own false absents).
    missed: usize,
    /// ... and of those, how many this library answers "may match".
    missed_ours_may_match: usize,
    /// Absent keys of block-based filters, which RocksDB >= 7.0 does not
    /// read, that this library's reading of the filter rejects.
    bb_unread: usize,
}

impl Verdicts {
    fn add(&mut self, o: &Verdicts) {
        self.files += o.files;
        self.absent += o.absent;
        self.rejected += o.rejected;
        self.agree += o.agree;
        self.missed += o.missed;
        self.missed_ours_may_match += o.missed_ours_may_match;
        self.bb_unread += o.bb_unread;
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    keys: usize,
    probes_absent: usize,
    rocksdb_rejected: usize,
    agree: usize,
    prefix_probes: usize,
    prefix_agree: usize,
    compared: usize,
    identical: usize,
    /// Absent keys a hash index answered before RocksDB's filter.
    hash_answered: usize,
    /// Absent keys of partitioned filters under a custom comparator that
    /// RocksDB's filter rejected and this library, asking every partition,
    /// did not.
    custom_asked_all: usize,
    /// Opens through the C callback source, their reads, the most of one.
    callback_reads: u64,
    callback_max: u64,
    /// Full and partitioned files opened again with a small filter cache
    /// (partitions and full filters read on demand), and the cache's reads.
    cached_files: usize,
    cached_reads: u64,
    cases: BTreeMap<String, usize>,
    /// The family matrix: RocksDB 7.8.3's verdict on another writer's files
    /// (`rocksdb78_probes`), and the writer's own filter where the writer is
    /// not RocksDB (`writer_filter_probes`).
    r78: Verdicts,
    own: Verdicts,
    /// Files RocksDB 7.8.3 refused to ingest.
    r78_refused: usize,
    /// The writer's own table formats (Pebble's), each refused with its name.
    foreign: std::collections::BTreeSet<String>,
    /// Absent keys of Pebble Split files (a filter of prefixes the file does
    /// not describe) that a judge rejected and this library answered "may
    /// match"; and the writer's verdicts checked against the filter asked
    /// directly with Pebble's prefixes (how many, how many the same).
    split_may_match: usize,
    split_direct: usize,
    split_direct_agree: usize,
    /// Absent keys a filter policy this library does not read (Speedb's)
    /// rejected and this library answered "may match".
    unknown_policy: usize,
    format_versions: std::collections::BTreeSet<u32>,
    filters: std::collections::BTreeSet<String>,
    checksums: std::collections::BTreeSet<String>,
    compressions: std::collections::BTreeSet<String>,
    version: String,
}

/// The writers a complete run has (sst_fixtures/matrix/README.md).
const ALL_WRITERS: [&str; 9] = [
    "rocksdb-11.12.0",
    "rocksdb-7.8.3",
    "rocksjava-10.10.1.1",
    "rocksjava-11.8.1",
    "rocksjava-5.18.4",
    "rocksjava-6.29.5",
    "rocksjava-7.10.2",
    "rocksjava-8.11.4",
    "rocksjava-9.11.2",
];

/// The writers a complete family run has (sst_fixtures/family/README.md).
const FAMILY_WRITERS: [&str; 6] =
    ["forst-0.1.8", "frocksdb-6.20.3", "frocksdb-8.10.0", "pebble-1.1.5", "pebble-2.1.7", "speedb-2.8.0"];

/// Where each family writer comes from, for COMPATIBILITY.md's table.
fn family_source(writer: &str) -> &'static str {
    match writer.split('-').next().unwrap_or("") {
        "frocksdb" => "FRocksDB `com.ververica:frocksdbjni` (Flink's RocksDB)",
        "forst" => "ForSt `com.ververica:forstjni` (Flink's ForSt backend)",
        "speedb" => "Speedb `io.github.speedb-io:speedbjni`",
        "pebble" => "Pebble `github.com/cockroachdb/pebble` (Go module proxy)",
        _ => "?",
    }
}

/// COMPATIBILITY.md's family table, from this run.
fn family_table(tallies: &BTreeMap<String, Tally>) -> String {
    let mut o = String::new();
    o.push_str("| writer | from | RocksDB inside | files | format_version | filters | checksums | keys (all may match) | absent keys: the writer's own filter rejected / same answer | absent keys: RocksDB 7.8.3's filter rejected / same answer | notes |\n");
    o.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (w, t) in tallies {
        // The forks judged their own files (`probes`); Pebble's filter is
        // asked by its writer (`writer_filter_probes`).
        let (own_rej, own_agree, own_abs) = if t.own.files > 0 {
            (t.own.rejected, t.own.agree, t.own.absent)
        } else {
            (t.rocksdb_rejected, t.agree, t.probes_absent)
        };
        let mut notes = Vec::new();
        if t.unknown_policy > 0 {
            notes.push(format!("{} absent keys rejected by Speedb's paired Bloom filter may match here (a policy RocksDB does not read either)", t.unknown_policy));
        }
        if t.r78_refused > 0 {
            notes.push(format!("{} files refused by RocksDB 7.8.3", t.r78_refused));
        }
        if !t.foreign.is_empty() {
            notes.push(format!(
                "its own formats {} refused as not supported, naming them",
                t.foreign.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        if t.r78.missed > 0 {
            notes.push(format!(
                "{} written keys RocksDB 7.8.3 does not find (Split filters), {} of them may match here",
                t.r78.missed, t.r78.missed_ours_may_match
            ));
        }
        if t.custom_asked_all > 0 {
            notes.push(format!("{} may match under a custom comparator", t.custom_asked_all));
        }
        if t.split_may_match > 0 {
            notes.push(format!(
                "{} absent keys of Split files rejected by a judge may match here (the file does not say its filter holds prefixes); asked with Pebble's prefixes, its filter answers as Pebble's on {} of {} keys",
                t.split_may_match, t.split_direct_agree, t.split_direct
            ));
        }
        if t.r78.bb_unread > 0 {
            notes.push(format!(
                "{} absent keys of block-based filters rejected here, which RocksDB 7.8.3 no longer reads (the writer's own RocksDB rejects them)",
                t.r78.bb_unread
            ));
        }
        o.push_str(&format!(
            "| {w} | {} | {} | {} | {} | {} | {} | {} | {own_rej} / {own_agree} of {own_abs} | {} / {} of {} | {} |\n",
            family_source(w),
            if t.version.is_empty() { "-" } else { &t.version },
            t.files,
            ranges(&t.format_versions),
            t.filters.iter().map(|f| &f[2..]).collect::<Vec<_>>().join(", "),
            t.checksums.iter().cloned().collect::<Vec<_>>().join(", "),
            t.keys,
            t.r78.rejected,
            t.r78.agree,
            t.r78.absent,
            if notes.is_empty() { "-".to_string() } else { notes.join("; ") },
        ));
    }
    o
}

/// "2-5" for a run of consecutive versions, "2-5, 7" otherwise.
fn ranges(v: &std::collections::BTreeSet<u32>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut it = v.iter().copied().peekable();
    while let Some(a) = it.next() {
        let mut b = a;
        while it.peek() == Some(&(b + 1)) {
            b = it.next().unwrap();
        }
        out.push(if a == b { a.to_string() } else { format!("{a}-{b}") });
    }
    out.join(", ")
}

/// COMPATIBILITY.md's version-matrix table, from this run.
fn table(tallies: &BTreeMap<String, Tally>) -> String {
    let mut rows: Vec<(&String, &Tally)> = tallies.iter().collect();
    // By RocksDB version, then writer.
    let key = |v: &str| v.split('.').map(|x| x.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>();
    rows.sort_by(|a, b| key(&a.1.version).cmp(&key(&b.1.version)).then(a.0.cmp(b.0)));
    let mut o = String::new();
    o.push_str("| RocksDB | written by | files | format_version | filters | checksums | compression | keys (all may match) | absent keys: RocksDB's filter rejected / same answer | prefix Seeks: same answer | full filters byte-identical |\n");
    o.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (w, t) in rows {
        let how = if let Some(v) = w.strip_prefix("rocksjava-") {
            format!("RocksJava `rocksdbjni` {v}")
        } else if t.version.starts_with("7.8") {
            "Debian `librocksdb-dev`, C++ API".to_string()
        } else {
            "source (`rust-librocksdb-sys` 0.49.0), C++ API".to_string()
        };
        let mut hash = String::new();
        if t.hash_answered > 0 {
            hash += &format!(" (+{} answered by its hash index)", t.hash_answered);
        }
        if t.custom_asked_all > 0 {
            hash += &format!(" ({} may match under a custom comparator)", t.custom_asked_all);
        }
        o.push_str(&format!(
            "| {} | {how} | {} | {} | {} | {} | {} | {} | {} / {} of {}{hash} | {} of {} | {} of {} |\n",
            t.version,
            t.files,
            ranges(&t.format_versions),
            t.filters.iter().map(|f| &f[2..]).collect::<Vec<_>>().join(", "),
            t.checksums.iter().cloned().collect::<Vec<_>>().join(", "),
            t.compressions.iter().cloned().collect::<Vec<_>>().join(", "),
            t.keys,
            t.rocksdb_rejected,
            t.agree,
            t.probes_absent,
            t.prefix_agree,
            t.prefix_probes,
            t.identical,
            t.compared
        ));
    }
    o
}

#[test]
#[ignore = "needs the version matrix: make matrix-test"]
fn every_matrix_file_answers_as_the_rocksdb_that_wrote_it() {
    let dir = PathBuf::from(
        std::env::var("ROCKSFILTER_MATRIX").expect("set ROCKSFILTER_MATRIX to the directory the matrix writers filled"),
    );
    check(&dir, &ALL_WRITERS, "matrix", table);
}

/// The family matrix (`sst_fixtures/family/README.md`): RocksDB's forks and
/// Pebble, each file judged by RocksDB 7.8.3 and, where the writer has one,
/// by the writer's own filter.
#[test]
#[ignore = "needs the family matrix: make family-test"]
fn every_family_file_answers_as_rocksdb_does() {
    let dir = PathBuf::from(
        std::env::var("ROCKSFILTER_FAMILY").expect("set ROCKSFILTER_FAMILY to the directory the family writers filled"),
    );
    check(&dir, &FAMILY_WRITERS, "family", family_table);
}

/// Checks every file under `dir`; when every writer of `all_writers` is
/// there, COMPATIBILITY.md's table between `<!-- {marker}:begin -->` and
/// `<!-- {marker}:end -->` must be `render`'s.
fn check(dir: &Path, all_writers: &[&str], marker: &str, render: fn(&BTreeMap<String, Tally>) -> String) {
    let mut writers: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("matrix dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.jsonl").is_file())
        .collect();
    writers.sort();
    assert!(!writers.is_empty(), "no <writer>/manifest.jsonl under {}", dir.display());
    let mut failures: Vec<String> = Vec::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for wdir in &writers {
        // Files in a writer's own table formats (Pebble's): refused, named.
        if let Ok(foreign) = std::fs::read_to_string(wdir.join("foreign.jsonl")) {
            for line in foreign.lines().filter(|l| !l.trim().is_empty()) {
                let row: Value = serde_json::from_str(line).expect("foreign.jsonl row");
                let (file, format) = (row["file"].as_str().unwrap_or(""), row["table_format"].as_str().unwrap_or(""));
                let writer = row["writer"].as_str().unwrap_or("").to_string();
                let named = format!("TableFormat{format}");
                match Sst::open(wdir.join(file)) {
                    Err(e) if e.kind() == rocksfilter::ErrorKind::NotSupported && e.message().contains(&named) => {
                        tallies.entry(writer).or_default().foreign.insert(format.to_string());
                    }
                    Err(e) => failures
                        .push(format!("{writer}/{file}: {:?} {e} (expected NotSupported naming {named})", e.kind())),
                    Ok(_) => failures.push(format!("{writer}/{file}: a {format} table opened")),
                }
            }
        }
        let manifest = std::fs::read_to_string(wdir.join("manifest.jsonl")).unwrap();
        for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
            let row: Value = serde_json::from_str(line).expect("manifest row");
            let s = |k: &str| row[k].as_str().unwrap_or("").to_string();
            let writer = s("writer");
            let name = format!("{writer}/{}", s("file"));
            let t = tallies.entry(writer.clone()).or_default();
            t.files += 1;
            let fail = |failures: &mut Vec<String>, msg: String| failures.push(format!("{name}: {msg}"));
            let sst = match Sst::open(wdir.join(s("file"))) {
                Ok(x) => x,
                Err(e) => {
                    fail(&mut failures, format!("open failed: {e}"));
                    continue;
                }
            };
            let fv = row["format_version"].as_u64().unwrap_or(0) as u32;
            if sst.format_version() != fv {
                fail(&mut failures, format!("format_version {} (written as {fv})", sst.format_version()));
            }
            // The contract says "xxhash" for RocksDB's kxxHash (xxHash32).
            let checksum = match sst.checksum_type().name() {
                "xxhash32" => "xxhash",
                other => other,
            };
            if checksum != s("checksum") {
                fail(&mut failures, format!("checksum {} (written as {})", sst.checksum_type().name(), s("checksum")));
            }
            let want = s("filter");
            let foreign_policy = s("policy") == "speedb_paired_bloom";
            let got = sst.filter().filter_type().name();
            if got != want && !foreign_policy {
                let why = match sst.filter() {
                    SstFilter::Unsupported(w) => format!(": {w}"),
                    _ => String::new(),
                };
                fail(&mut failures, format!("filter {got} (written as {want}){why}"));
            }
            // The kind of each filter block is what the policy writes; a
            // policy of a fork that RocksDB does not read is not read.
            let policy = s("policy");
            if foreign_policy && got != "unsupported" {
                fail(&mut failures, format!("Speedb's paired Bloom filter read as {got}"));
            }
            let kinds: Vec<Kind> = match sst.filter() {
                SstFilter::Full(f) => vec![f.kind()],
                SstFilter::Partitioned(p) => p.filters().iter().map(Filter::kind).collect(),
                _ => vec![],
            };
            for k in &kinds {
                let ok = match policy.as_str() {
                    "bloom" if fv < 5 => *k == Kind::LegacyBloom,
                    "bloom" => *k == Kind::FastLocalBloom,
                    // Ribbon falls back to Bloom (legacy below fv 5) for small
                    // filters and, in some releases, for files of unknown level.
                    "ribbon" => matches!(k, Kind::Standard128Ribbon | Kind::FastLocalBloom | Kind::LegacyBloom),
                    _ => false,
                };
                if !ok {
                    fail(&mut failures, format!("{policy} at format_version {fv} gave a {k:?} block"));
                }
            }
            *t.cases.entry(format!("{want}/{policy}")).or_default() += 1;
            t.version = s("rocksdb_version");
            t.format_versions.insert(fv);
            t.checksums.insert(s("checksum"));
            // The writers record the options string they used.
            let options = s("options");
            let compression = options
                .split([';', '{', '}'])
                .filter_map(|kv| kv.strip_prefix("compression="))
                .next_back()
                .unwrap_or("kNoCompression");
            t.compressions.insert(
                match compression {
                    "kNoCompression" => "none",
                    "kSnappyCompression" => "snappy",
                    "kZlibCompression" => "zlib",
                    "kLZ4Compression" => "lz4",
                    "kLZ4HCCompression" => "lz4hc",
                    "kZSTD" => "zstd",
                    other => other,
                }
                .to_string(),
            );
            // Kinds first (sorted by a leading digit), then layouts.
            let kind = match (want.as_str(), policy.as_str()) {
                ("none", _) => None,
                ("block_based", _) => Some("4 block-based"),
                (_, "bloom") if fv < 5 => Some("2 legacy Bloom"),
                (_, "bloom") => Some("1 Bloom"),
                (_, "ribbon") => Some("3 Ribbon"),
                (_, "speedb_paired_bloom") => Some("3 Speedb paired Bloom (not read: may match)"),
                _ => None,
            };
            t.filters.extend(kind.map(str::to_string));
            match want.as_str() {
                "full" => t.filters.insert("5 full".into()),
                "partitioned" => t.filters.insert("6 partitioned".into()),
                "none" => t.filters.insert("9 none".into()),
                _ => false,
            };
            if row["split"].as_bool().unwrap_or(false) {
                t.filters.insert("7 Split prefixes".into());
            } else if row["prefix_extractor"].as_str().is_some() {
                t.filters.insert("7 prefix".into());
            }
            if row["timestamp_size"].as_u64().unwrap_or(0) > 0 {
                t.filters.insert("8 user-defined timestamps".into());
            }
            // Every key written may match.
            let keys: Vec<Vec<u8>> = lines(&wdir.join(s("keys"))).iter().map(|l| hex(&l[0])).collect();
            if let Some(k) = keys.iter().find(|k| !sst.may_match(k)) {
                fail(
                    &mut failures,
                    format!("FALSE ABSENT: key {} written but answered absent", String::from_utf8_lossy(k)),
                );
            }
            t.keys += keys.len();
            // The batch query answers every key and probe as the single one.
            // The keys asked about: the writer's probes, or (a writer that is
            // not RocksDB) its candidates, which RocksDB 7.8.3 judged.
            let probe_file = row["probes"].as_str().or(row["candidates"].as_str()).expect("probes or candidates");
            let probe_keys: Vec<Vec<u8>> = lines(&wdir.join(probe_file)).iter().map(|p| hex(&p[0])).collect();
            let all: Vec<&[u8]> = keys.iter().chain(&probe_keys).map(Vec::as_slice).collect();
            // The same file through the C callback source: the same answers,
            // in at most two reads (three for block-based filters).
            match callback::open_path(&wdir.join(s("file"))) {
                Err((st, msg)) => fail(&mut failures, format!("callback open failed ({st}): {msg}")),
                Ok(cb) => {
                    if let Some(k) = all.iter().find(|k| cb.may_match(k) != sst.may_match(k)) {
                        fail(
                            &mut failures,
                            format!("callback and path opens answer {} differently", String::from_utf8_lossy(k)),
                        );
                    }
                    if let Some(pp) = row["prefix_probes"].as_str() {
                        let prefixes: Vec<Vec<u8>> = lines(&wdir.join(pp)).iter().map(|p| hex(&p[0])).collect();
                        if let Some(p) =
                            prefixes.iter().find(|p| cb.prefix_may_match(p).ok() != sst.prefix_may_match(p).ok())
                        {
                            fail(
                                &mut failures,
                                format!(
                                    "callback and path opens answer prefix {} differently",
                                    String::from_utf8_lossy(p)
                                ),
                            );
                        }
                    }
                    let reads = cb.stats().reads;
                    if reads != cb.calls || reads > callback::max_reads(cb.filter_type()) {
                        fail(&mut failures, format!("{reads} reads through the callback ({} calls)", cb.calls));
                    }
                    t.callback_reads += reads;
                    t.callback_max = t.callback_max.max(reads);
                }
            }
            let mut batch = vec![false; all.len()];
            sst.may_match_batch(&all, &mut batch);
            if let Some(i) = (0..all.len()).find(|&i| batch[i] != sst.may_match(all[i])) {
                fail(
                    &mut failures,
                    format!(
                        "BATCH DIFFERS: key {} batch {} single {}",
                        String::from_utf8_lossy(all[i]),
                        batch[i],
                        !batch[i]
                    ),
                );
            }
            // Read on demand through a cache of 32 KiB (a few partitions at
            // a time): the same answers, single, batch and prefix.
            if matches!(want.as_str(), "full" | "partitioned") {
                let cache = FilterCache::new(32 << 10);
                let opts = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(true);
                match Sst::open_with(wdir.join(s("file")), opts) {
                    Err(e) => fail(&mut failures, format!("open with a cache failed: {e}")),
                    Ok(c) => {
                        if let Some(k) = all.iter().find(|k| c.may_match(k) != sst.may_match(k)) {
                            fail(&mut failures, format!("CACHED DIFFERS: key {}", String::from_utf8_lossy(k)));
                        }
                        let mut cached = vec![false; all.len()];
                        c.may_match_batch(&all, &mut cached);
                        if cached != batch {
                            fail(&mut failures, "CACHED BATCH DIFFERS".into());
                        }
                        if let Some(pp) = row["prefix_probes"].as_str() {
                            let prefixes: Vec<Vec<u8>> = lines(&wdir.join(pp)).iter().map(|p| hex(&p[0])).collect();
                            if let Some(p) =
                                prefixes.iter().find(|p| c.prefix_may_match(p).ok() != sst.prefix_may_match(p).ok())
                            {
                                fail(&mut failures, format!("CACHED DIFFERS on prefix {}", String::from_utf8_lossy(p)));
                            }
                        }
                        let st = cache.stats();
                        if st.read_errors > 0 || st.bytes_held > st.capacity {
                            fail(&mut failures, format!("cache: {st:?}"));
                        }
                        t.cached_files += 1;
                        t.cached_reads += st.reads;
                    }
                }
            }
            // RocksDB's own decisions. With a block-based filter and a hash
            // index (kHashSearch), a key whose prefix no key of the file has
            // is answered by the hash index before the filter is asked (a
            // full filter is asked first): there RocksDB's Get (not found)
            // is the answer to compare with, and any answer of ours agrees
            // with it.
            let hash_prefix = match (s("index_type").as_str(), sst.prefix_extractor()) {
                ("hash", Some(pe)) if want == "block_based" => Some((
                    pe,
                    keys.iter()
                        .filter_map(|k| pe.prefix(k).map(<[u8]>::to_vec))
                        .collect::<std::collections::HashSet<_>>(),
                )),
                _ => None,
            };
            // A comparator this library does not know: every partition of a
            // partitioned filter is asked (it cannot tell which one RocksDB's
            // seek lands on), so it may answer "may match" where RocksDB's
            // filter rejected; never the other way.
            let comparator = row["comparator"].as_str().unwrap_or("leveldb.BytewiseComparator");
            let custom = !matches!(
                comparator,
                "leveldb.BytewiseComparator"
                    | "rocksdb.ReverseBytewiseComparator"
                    | "leveldb.BytewiseComparator.u64ts"
                    | "rocksdb.ReverseBytewiseComparator.u64ts"
            ) && want == "partitioned";
            // A Pebble file written with a Split comparer (the row says so):
            // the filter holds prefixes the file does not describe.
            let split_row = row["split"].as_bool().unwrap_or(false);
            let split = split_row && !sst.whole_key_filtering() && sst.prefix_extractor().is_none();
            if split_row && keys.iter().any(|k| !sst.full_filter().is_none_or(|f| f.may_match(pebble_split(k)))) {
                fail(&mut failures, "a written key's Split prefix is not in the filter".into());
            }
            let split_filter = sst.full_filter().filter(|_| split);
            let mut disagreements = Vec::new();
            for p in row["probes"].as_str().map(|f| lines(&wdir.join(f))).unwrap_or_default() {
                let (key, in_file, found, rejected) = (hex(&p[0]), p[1] == "1", p[2] == "1", p[3] == "1");
                let ours = sst.may_match(&key);
                if in_file {
                    if !found || rejected {
                        fail(&mut failures, format!("RocksDB itself did not find written key {}", p[0]));
                    }
                    if !ours {
                        fail(&mut failures, format!("FALSE ABSENT: probe {}", p[0]));
                    }
                    continue;
                }
                if let Some((pe, present)) = &hash_prefix {
                    if !pe.prefix(&key).is_some_and(|p| present.contains(p)) {
                        t.hash_answered += 1;
                        continue;
                    }
                }
                t.probes_absent += 1;
                t.rocksdb_rejected += rejected as usize;
                match compare(ours, rejected, foreign_policy, split, custom) {
                    Outcome::Agree => t.agree += 1,
                    Outcome::UnknownPolicy => t.unknown_policy += 1,
                    Outcome::AskedAll => t.custom_asked_all += 1,
                    Outcome::SplitPrefixes => t.split_may_match += 1,
                    Outcome::Differs => {
                        disagreements.push(format!("{} (RocksDB rejected: {rejected}, ours may match: {ours})", p[0]))
                    }
                }
            }
            if let Some(pp) = row["prefix_probes"].as_str() {
                for p in lines(&wdir.join(pp)) {
                    let (prefix, in_file, rejected) = (hex(&p[0]), p[1] == "1", p[2] == "1");
                    let ours = match sst.prefix_may_match(&prefix) {
                        Ok(b) => b,
                        // A filter this library does not read is no prefix
                        // filter: the caller learns so, and every prefix may match.
                        Err(e) if foreign_policy && e.kind() == rocksfilter::ErrorKind::NotSupported => true,
                        Err(e) => {
                            fail(&mut failures, format!("prefix query failed: {e}"));
                            break;
                        }
                    };
                    if in_file && !ours {
                        fail(&mut failures, format!("FALSE ABSENT: prefix {}", p[0]));
                    }
                    // A hash index answers absent prefixes itself (see above).
                    if hash_prefix.is_some() && !in_file {
                        t.hash_answered += 1;
                        continue;
                    }
                    t.prefix_probes += 1;
                    match compare(ours, rejected, foreign_policy, split, custom) {
                        Outcome::Agree => t.prefix_agree += 1,
                        Outcome::UnknownPolicy => t.unknown_policy += 1,
                        Outcome::AskedAll => t.custom_asked_all += 1,
                        Outcome::SplitPrefixes => t.split_may_match += 1,
                        Outcome::Differs => {
                            disagreements.push(format!("prefix {} (RocksDB rejected: {rejected}, ours: {ours})", p[0]))
                        }
                    }
                }
            }
            // The family's second opinions: RocksDB 7.8.3 on every file, and
            // the writer's own filter where the writer is not RocksDB.
            if row["rocksdb78_refused"].is_string() {
                t.r78_refused += 1;
            }
            for (field, judge, columns) in
                [("rocksdb78_probes", "RocksDB 7.8.3", 4), ("writer_filter_probes", "the writer's filter", 3)]
            {
                let Some(f) = row[field].as_str() else { continue };
                let mut v = Verdicts { files: 1, ..Verdicts::default() };
                let (mut unknown, mut asked_all, mut split_may_match) = (0, 0, 0);
                for p in lines(&wdir.join(f)) {
                    let (key, in_file) = (hex(&p[0]), p[1] == "1");
                    // A filter's verdict alone (3 columns) finds nothing: a
                    // written key it passes counts as found.
                    let (found, rejected) =
                        if columns == 4 { (p[2] == "1", p[3] == "1") } else { (in_file && p[2] == "0", p[2] == "1") };
                    let ours = sst.may_match(&key);
                    // Pebble's Split files: the filter, asked with the
                    // prefix a caller who has the Split forms, answers as
                    // the writer's filter (it is read right, only not
                    // askable by key).
                    if let (Some(f), 3) = (split_filter, columns) {
                        let direct = f.may_match(pebble_split(&key));
                        t.split_direct += 1;
                        if direct != rejected {
                            t.split_direct_agree += 1;
                        } else {
                            fail(&mut failures, format!("Split prefix of {}: the filter asked directly says {direct}, the writer's filter rejected: {rejected}", p[0]));
                        }
                    }
                    if in_file {
                        if found && !rejected && !ours {
                            fail(
                                &mut failures,
                                format!("FALSE ABSENT: {} finds {} and this library answers absent", judge, p[0]),
                            );
                        } else if !found || rejected {
                            // The judge itself misses a written key (Pebble's
                            // Split filters under RocksDB: COMPATIBILITY.md says why).
                            v.missed += 1;
                            v.missed_ours_may_match += ours as usize;
                        }
                        continue;
                    }
                    if found {
                        fail(&mut failures, format!("{judge} found absent key {}", p[0]));
                    }
                    v.absent += 1;
                    v.rejected += rejected as usize;
                    match compare(ours, rejected, foreign_policy, split, custom) {
                        Outcome::Agree => v.agree += 1,
                        Outcome::UnknownPolicy => unknown += 1,
                        Outcome::AskedAll => asked_all += 1,
                        Outcome::SplitPrefixes => split_may_match += 1,
                        // RocksDB 7.0 and later no longer read block-based
                        // filters: 7.8.3 asks none, this library the file's.
                        Outcome::Differs if columns == 4 && want == "block_based" && !rejected => v.bb_unread += 1,
                        Outcome::Differs => disagreements
                            .push(format!("{} ({judge} rejected: {rejected}, ours may match: {ours})", p[0])),
                    }
                }
                t.unknown_policy += unknown;
                t.custom_asked_all += asked_all;
                t.split_may_match += split_may_match;
                let into = if columns == 4 { &mut t.r78 } else { &mut t.own };
                into.add(&v);
            }
            if !disagreements.is_empty() {
                fail(
                    &mut failures,
                    format!(
                        "{} answers differ from RocksDB's filter, e.g. {}",
                        disagreements.len(),
                        disagreements[..disagreements.len().min(3)].join(", ")
                    ),
                );
            }
            // Byte identity of full filter blocks (no allocator rounding).
            if let SstFilter::Full(block) = sst.filter() {
                if !row["optimize_filters_for_memory"].as_bool().unwrap_or(false)
                    && row["timestamp_size"].as_u64().unwrap_or(0) == 0
                {
                    let p = match (policy.as_str(), fv) {
                        ("ribbon", _) => Policy::Ribbon,
                        (_, v) if v < 5 => Policy::LegacyBloom,
                        _ => Policy::Bloom,
                    };
                    t.compared += 1;
                    let bits = row["bits_per_key"].as_f64().unwrap_or(10.0);
                    let ours = if split_row {
                        rebuild::entries(keys.iter().map(|k| pebble_split(k)), p, bits)
                    } else {
                        rebuild::rebuild(&keys, &format!("rocksdb-{}", s("rocksdb_version")), p, bits, &sst)
                    };
                    if ours == block.as_bytes() {
                        t.identical += 1;
                    } else {
                        let at = ours.iter().zip(block.as_bytes()).position(|(a, b)| a != b);
                        fail(
                            &mut failures,
                            format!(
                                "our {p:?} block differs: {} vs {} bytes, first difference at {at:?}",
                                ours.len(),
                                block.as_bytes().len()
                            ),
                        );
                    }
                }
            }
        }
    }
    println!("{marker} ({}):", dir.display());
    println!("| writer | files | keys | absent keys | RocksDB's filter rejected | same answer | prefix probes | same answer | answered by a hash index | full filters byte-identical |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (w, t) in &tallies {
        println!(
            "| {w} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} |",
            t.files,
            t.keys,
            t.probes_absent,
            t.rocksdb_rejected,
            t.agree,
            t.prefix_probes,
            t.prefix_agree,
            t.hash_answered,
            t.identical,
            t.compared
        );
        println!("  cases: {}", t.cases.iter().map(|(k, v)| format!("{k} x{v}")).collect::<Vec<_>>().join(", "));
        println!(
            "  through the callback source: {} files, same answers as the path open, {:.2} reads per open, at most {}",
            t.files,
            t.callback_reads as f64 / t.files.max(1) as f64,
            t.callback_max
        );
        println!(
            "  with a 32 KiB filter cache: {} full and partitioned files, same answers as loaded at open, {} block reads on demand",
            t.cached_files, t.cached_reads
        );
    }
    let total: usize = tallies.values().map(|t| t.files).sum();
    println!("{marker}: {} writers, {total} files, {} failures", tallies.len(), failures.len());
    for (w, t) in tallies.iter().filter(|(_, t)| t.r78.files + t.own.files + t.r78_refused > 0) {
        println!(
            "  {w}: RocksDB 7.8.3 judged {} files ({} refused): its filter rejected {} of {} absent keys, same answer {}; {} written keys it did not find ({} may match here); \
             the writer's own filter: {} of {} rejected, same answer {}; unknown policy, may match: {}",
            t.r78.files, t.r78_refused, t.r78.rejected, t.r78.absent, t.r78.agree, t.r78.missed, t.r78.missed_ours_may_match,
            t.own.rejected, t.own.absent, t.own.agree, t.unknown_policy
        );
    }
    // COMPATIBILITY.md's table is this run's: written next to the files,
    // and compared with COMPATIBILITY.md's when the run is complete.
    let t = render(&tallies);
    std::fs::write(dir.join("compatibility.md"), &t).unwrap();
    println!("{t}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    let complete = all_writers.iter().all(|w| tallies.contains_key(*w));
    if complete {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/COMPATIBILITY.md")).unwrap();
        let (b, e) = (format!("<!-- {marker}:begin -->\n"), format!("<!-- {marker}:end -->"));
        let start = doc.find(&b).unwrap_or_else(|| panic!("COMPATIBILITY.md has a {b} marker")) + b.len();
        let end = doc[start..].find(&e).unwrap_or_else(|| panic!("COMPATIBILITY.md has a {e} marker")) + start;
        assert_eq!(
            &doc[start..end],
            t,
            "COMPATIBILITY.md's {marker} table is not this run's: replace the lines between the {marker} markers with {}",
            dir.join("compatibility.md").display()
        );
        println!("COMPATIBILITY.md's {marker} table matches this run");
    } else {
        println!(
            "partial run ({} of {} writers): COMPATIBILITY.md's table not compared",
            tallies.len(),
            all_writers.len()
        );
    }
}
