//! `rocksfilter report DBDIR`: what a database's filters cost and what they
//! save, per level, from its MANIFEST and its live SSTs' filters; what a
//! change of format, policy or bits/key would do; with `--probe`, the
//! filter answers RocksDB's `Get` would get for a file of keys.
//!
//! The arithmetic: an absent key's `Get` probes every L0 file whose key range
//! holds it, then at most one file per deeper level; each probe whose filter
//! answers "may match" costs a data-block read for nothing. So the expected
//! wasted reads per absent `Get` are at most the sum of the L0 files' FP
//! rates plus, per deeper level, its files' FP rate (weighted by entries):
//! an upper bound, reached when the key falls in every range.
//!
//! Memory: the files are opened one at a time, each reading its filter
//! through one shared cache of `--cache-bytes` (64 MiB by default), and only
//! a row of figures (about 200 bytes) and the MANIFEST's entry (two keys)
//! stay per file: the cache plus about 1 KiB a file (100,000 files: 79 MiB
//! peak RSS, sst_fixtures/dbreport/manyfiles.py, checked against 180 MiB).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use rocksfilter::manifest::{self, LiveFile};
use rocksfilter::{FilterBuilder, FilterCache, Policy, Sst, SstOptions};

use crate::inspect::{filter_geometry, json_str};

/// A live file's filter, as read.
struct Row {
    cf: String,
    file: String,
    level: u32,
    entries: u64,
    /// Entries the filter was built over (prefixes included); bits/key's base.
    filter_entries: u64,
    /// FastLocalBloom, Standard128Ribbon, LegacyBloom (as `inspect` names
    /// them), or none, block_based, unsupported, missing.
    filter: String,
    partitioned: bool,
    partitions: usize,
    filter_bytes: u64,
    fp_rate: Option<f64>,
    whole_key_filtering: bool,
    prefix_extractor: Option<String>,
    error: Option<String>,
    /// [`Row::configured_bits`], found once per file (Ribbon's search prices
    /// 59 settings) for every what-if that reads it.
    configured: Option<f64>,
}

impl Row {
    fn bits_per_key(&self) -> Option<f64> {
        (self.filter_entries > 0 && self.filter_bytes > 0)
            .then(|| 8.0 * self.filter_bytes as f64 / self.filter_entries as f64)
    }
    fn policy(&self) -> Option<Policy> {
        match self.filter.as_str() {
            "FastLocalBloom" => Some(Policy::Bloom),
            "Standard128Ribbon" => Some(Policy::Ribbon),
            "LegacyBloom" => Some(Policy::LegacyBloom),
            _ => None,
        }
    }
    /// The bits/key the file was configured with (RocksDB's `bits_per_key`),
    /// recovered from its size: Bloom's is its size over its keys; Ribbon's is
    /// the Bloom-equivalent setting whose estimated size is nearest.
    fn configured_bits(&self) -> Option<f64> {
        let actual = self.bits_per_key()?;
        match self.policy()? {
            Policy::Ribbon => {
                let n = self.filter_entries as usize;
                let per = (self.filter_bytes as f64 / self.partitions.max(1) as f64).max(1.0);
                let n_per = (n / self.partitions.max(1)).max(1);
                (2..=60)
                    .map(|half| half as f64 / 2.0)
                    .filter_map(|b| {
                        FilterBuilder::new(Policy::Ribbon, b).ok().map(|fb| (b, fb.estimate(n_per).0 as f64))
                    })
                    .min_by(|a, b| (a.1 - per).abs().total_cmp(&(b.1 - per).abs()))
                    .map(|(b, _)| b)
            }
            _ => Some((actual * 2.0).round() / 2.0),
        }
    }
}

/// Which policy and bits/key a file would have under a what-if (None:
/// unchanged).
type Choice = dyn Fn(&Row) -> Option<(Policy, f64)>;

/// A change to price.
struct WhatIf {
    name: String,
    choose: Box<Choice>,
}

/// Per (column family, level) figures.
type Levels = BTreeMap<(String, u32), Level>;

/// A what-if's name and its levels.
type Priced = (String, Levels);

/// A plot panel: its title and the figure it draws per level.
type Panel = (&'static str, Box<dyn Fn(&Level, u32) -> f64>);

/// Per level: (files, entries, filter bytes, FP sum (L0) or weighted mean).
#[derive(Default, Clone)]
struct Level {
    files: u64,
    entries: u64,
    filter_bytes: u64,
    fp_weighted: f64,
    fp_sum: f64,
    fp_weight: f64,
}

impl Level {
    fn add(&mut self, entries: u64, bytes: u64, fp: f64) {
        self.files += 1;
        self.entries += entries;
        self.filter_bytes += bytes;
        self.fp_sum += fp;
        self.fp_weighted += fp * entries.max(1) as f64;
        self.fp_weight += entries.max(1) as f64;
    }
    /// The level's FP rate: entries-weighted mean of its files'.
    fn fp_rate(&self) -> f64 {
        if self.fp_weight > 0.0 {
            self.fp_weighted / self.fp_weight
        } else {
            0.0
        }
    }
    /// Expected wasted reads per absent Get: every L0 file is probed; one
    /// file per deeper level.
    fn wasted(&self, level: u32) -> f64 {
        if level == 0 {
            self.fp_sum
        } else {
            self.fp_rate().min(1.0)
        }
    }
}

/// A file with no usable filter answers "may match" to every probe.
fn fp_of(row: &Row) -> f64 {
    row.fp_rate.unwrap_or(1.0)
}

fn levels_of(rows: &[Row], cost: impl Fn(&Row) -> (u64, f64)) -> Levels {
    let mut levels: Levels = BTreeMap::new();
    for r in rows {
        let (bytes, fp) = cost(r);
        levels.entry((r.cf.clone(), r.level)).or_default().add(r.entries, bytes, fp);
    }
    levels
}

fn wasted_total(levels: &Levels) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for ((cf, level), l) in levels {
        *out.entry(cf.clone()).or_insert(0.0) += l.wasted(*level);
    }
    out
}

pub struct Options<'a> {
    pub json: bool,
    pub probe: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub cache_bytes: usize,
}

pub fn report(dir: &Path, opts: &Options<'_>) -> Result<(), String> {
    let (manifest_path, m) = manifest::read_db(dir).map_err(|e| e.to_string())?;
    let mut warnings: Vec<String> = m.warnings.clone();
    let cache = FilterCache::new(opts.cache_bytes);
    let sst_options = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(true);
    let mut rows = Vec::new();
    for cf in &m.column_families {
        if let Some(c) = cf.comparator.as_deref().filter(|c| *c != "leveldb.BytewiseComparator") {
            warnings.push(format!(
                "column family {}: comparator {c}: --probe compares keys bytewise, as leveldb.BytewiseComparator does",
                cf.name
            ));
        }
        for f in &cf.files {
            rows.push(read_row(dir, &cf.name, f, &sst_options));
        }
    }
    file_warnings(&rows, &mut warnings);

    let today = levels_of(&rows, |r| (r.filter_bytes, fp_of(r)));
    let what_ifs = what_ifs(&rows);
    let priced: Vec<Priced> =
        what_ifs.iter().map(|w| (w.name.clone(), levels_of(&rows, |r| price(r, &w.choose)))).collect();

    let probe = match opts.probe {
        Some(keys) => Some(probe(dir, &m, keys, &sst_options)?),
        None => None,
    };
    if let Some(svg) = opts.plot {
        std::fs::write(svg, plot(&today, &priced)).map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    }
    if opts.json {
        print_json(dir, &manifest_path, &rows, &today, &priced, probe.as_ref(), &warnings);
    } else {
        print_text(dir, &manifest_path, &m, &rows, &today, &priced, probe.as_ref(), &warnings);
    }
    Ok(())
}

fn read_row(dir: &Path, cf: &str, f: &LiveFile, options: &SstOptions) -> Row {
    let mut row = Row {
        cf: cf.to_string(),
        file: f.file_name(),
        level: f.level,
        entries: 0,
        filter_entries: 0,
        filter: "missing".into(),
        partitioned: false,
        partitions: 0,
        filter_bytes: 0,
        fp_rate: None,
        whole_key_filtering: true,
        prefix_extractor: None,
        error: None,
        configured: None,
    };
    let path = dir.join(&row.file);
    let sst = match Sst::open_with(&path, options.clone()) {
        Ok(s) => s,
        Err(e) => {
            row.error = Some(if f.path_id > 0 {
                format!("{e} (the MANIFEST places it in db_paths[{}], not the database directory)", f.path_id)
            } else {
                e.to_string()
            });
            return row;
        }
    };
    let p = sst.properties();
    row.entries = p.num_entries.unwrap_or(0);
    row.filter_entries = p.num_filter_entries.or(p.num_entries).unwrap_or(0);
    row.whole_key_filtering = sst.whole_key_filtering();
    row.prefix_extractor = p.prefix_extractor_name.clone().filter(|n| n != "nullptr");
    let (desc, geom) = filter_geometry(&sst, Some(row.filter_entries));
    row.partitioned = desc == "partitioned";
    match geom {
        Some(g) => {
            row.filter = g.kind.to_string();
            row.filter_bytes = g.bytes;
            row.partitions = g.partitions;
            row.fp_rate = g.est_fp;
        }
        None => {
            row.filter = desc;
            if let rocksfilter::SstFilter::BlockBased(b) = sst.filter() {
                row.filter_bytes = b.block_bytes() as u64;
            }
        }
    }
    row.configured = row.configured_bits();
    row
}

fn file_warnings(rows: &[Row], warnings: &mut Vec<String>) {
    for r in rows {
        let at = format!("{} (L{}, column family {})", r.file, r.level, r.cf);
        if let Some(e) = &r.error {
            warnings.push(format!("{at}: unreadable, counted as a file with no filter: {e}"));
            continue;
        }
        match r.filter.as_str() {
            "none" => warnings.push(format!("{at}: no filter: every Get whose key falls in its range reads its data")),
            f if f.starts_with("unsupported") => warnings.push(format!("{at}: {f}")),
            "LegacyBloom" if r.filter_entries > 3_000_000 => warnings.push(format!(
                "{at}: legacy Bloom over {} keys: its 32-bit hash and 512-bit lines inflate the FP rate to {:.3}% \
                 (RocksDB warns from 3M keys); format_version 5 would hold the same bits/key at its estimate",
                r.filter_entries,
                100.0 * fp_of(r)
            )),
            _ => {}
        }
        if r.prefix_extractor.is_some() && r.whole_key_filtering && r.filter_bytes > 0 {
            warnings.push(format!(
                "{at}: prefix extractor {} with whole-key filtering: the filter holds prefixes and whole keys, \
                 and point lookups use only the whole keys",
                r.prefix_extractor.as_deref().unwrap_or("")
            ));
        }
        if r.partitioned && r.partitions > 1 && r.filter_bytes / (r.partitions as u64) < 1024 {
            warnings.push(format!(
                "{at}: {} partitions of {} bytes on average: too small for optimize_filters_for_memory to round much \
                 (metadata_block_size sets them)",
                r.partitions,
                r.filter_bytes / r.partitions as u64
            ));
        }
    }
    // A level whose files differ in kind: trivial moves keep the kind a file
    // got at its creation level (bloom_before_level keys on that level).
    let mut kinds: BTreeMap<(String, u32), BTreeMap<String, u64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.policy().is_some()) {
        *kinds.entry((r.cf.clone(), r.level)).or_default().entry(r.filter.clone()).or_default() += 1;
    }
    for ((cf, level), k) in &kinds {
        if k.len() > 1 {
            let list: Vec<String> = k.iter().map(|(name, n)| format!("{n} {name}")).collect();
            warnings.push(format!(
                "L{level} (column family {cf}) mixes filter kinds ({}): files moved down without rewriting keep the kind of \
                 the level they were written for (bloom_before_level keys on it)",
                list.join(", ")
            ));
        }
    }
}

/// The what-if rows: legacy rebuilt as format_version 5; Ribbon from level
/// N (RocksDB's `bloom_before_level`); other bits/key.
fn what_ifs(rows: &[Row]) -> Vec<WhatIf> {
    let mut out = Vec::new();
    if rows.iter().any(|r| r.filter == "LegacyBloom") {
        out.push(WhatIf {
            name: "legacy Bloom rebuilt as format_version 5 (FastLocalBloom), same bits/key".into(),
            choose: Box::new(|r: &Row| {
                let b = r.configured?;
                Some((if r.filter == "LegacyBloom" { Policy::Bloom } else { r.policy()? }, b))
            }),
        });
    }
    let max_level = rows.iter().map(|r| r.level).max().unwrap_or(0);
    for from in 0..=max_level {
        out.push(WhatIf {
            name: format!("Ribbon from L{from} (bloom_before_level = {from}), Bloom above, same bits/key"),
            choose: Box::new(move |r: &Row| {
                let b = r.configured?;
                Some((if r.level >= from { Policy::Ribbon } else { Policy::Bloom }, b))
            }),
        });
    }
    for bits in [6.0, 8.0, 10.0, 12.0, 16.0] {
        out.push(WhatIf {
            name: format!("every filter at {bits} bits/key, kinds as today (legacy as format_version 5)"),
            choose: Box::new(move |r: &Row| {
                let p = match r.policy()? {
                    Policy::LegacyBloom => Policy::Bloom,
                    p => p,
                };
                Some((p, bits))
            }),
        });
    }
    out
}

/// A file's bytes and FP rate under a what-if (unchanged when it has no
/// filter this library reads, or the what-if leaves it alone).
fn price(r: &Row, choose: &Choice) -> (u64, f64) {
    let Some((policy, bits)) = choose(r) else { return (r.filter_bytes, fp_of(r)) };
    let Ok(b) = FilterBuilder::new(policy, bits) else { return (r.filter_bytes, fp_of(r)) };
    // Partitions are priced one by one, with the file's keys spread evenly.
    let parts = r.partitions.max(1);
    let n = (r.filter_entries as usize).div_ceil(parts).max(1);
    let (bytes, fp) = b.estimate(n);
    (bytes as u64 * parts as u64, fp)
}

/// `--probe`'s counts.
struct Probe {
    keys: u64,
    files_probed: u64,
    may_match: u64,
    /// Probes of files with no filter this library reads (always a read).
    no_filter: u64,
    column_family: String,
}

/// Asks each key of `keys_file` exactly as RocksDB's `Get` would, in the
/// default column family: every L0 file whose range holds it, then on each
/// deeper level the one file whose range holds it. Keys are grouped per file
/// so that each file is opened once.
fn probe(dir: &Path, m: &manifest::Manifest, keys_file: &Path, options: &SstOptions) -> Result<Probe, String> {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    crate::for_each_key(keys_file, false, |k| keys.push(k.to_vec()))?;
    let Some(cf) = m.column_families.iter().find(|c| c.id == 0).or(m.column_families.first()) else {
        return Ok(Probe {
            keys: keys.len() as u64,
            files_probed: 0,
            may_match: 0,
            no_filter: 0,
            column_family: "default".into(),
        });
    };
    let mut per_file: Vec<Vec<u32>> = vec![Vec::new(); cf.files.len()];
    let mut by_level: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, f) in cf.files.iter().enumerate() {
        by_level.entry(f.level).or_default().push(i);
    }
    for (ki, key) in keys.iter().enumerate() {
        for (&level, files) in &by_level {
            let holds =
                |f: &LiveFile| f.smallest_user_key() <= key.as_slice() && key.as_slice() <= f.largest_user_key();
            if level == 0 {
                for &i in files {
                    if holds(&cf.files[i]) {
                        per_file[i].push(ki as u32);
                    }
                }
            } else {
                // Sorted by smallest key and disjoint: the first file whose
                // largest key is not below the key.
                let at = files.partition_point(|&i| cf.files[i].largest_user_key() < key.as_slice());
                if let Some(&i) = files.get(at) {
                    if holds(&cf.files[i]) {
                        per_file[i].push(ki as u32);
                    }
                }
            }
        }
    }
    let mut out =
        Probe { keys: keys.len() as u64, files_probed: 0, may_match: 0, no_filter: 0, column_family: cf.name.clone() };
    let mut answers = Vec::new();
    for (i, asked) in per_file.iter().enumerate() {
        if asked.is_empty() {
            continue;
        }
        out.files_probed += asked.len() as u64;
        let path = dir.join(cf.files[i].file_name());
        let Ok(sst) = Sst::open_with(&path, options.clone()) else {
            out.no_filter += asked.len() as u64;
            continue;
        };
        if matches!(sst.filter(), rocksfilter::SstFilter::None | rocksfilter::SstFilter::Unsupported(_)) {
            out.no_filter += asked.len() as u64;
            continue;
        }
        answers.clear();
        answers.resize(asked.len(), false);
        sst.may_match_indexed(asked.len(), |j| keys[asked[j] as usize].as_slice(), &mut answers);
        out.may_match += answers.iter().filter(|&&a| a).count() as u64;
    }
    Ok(out)
}

fn fmt_bytes(b: u64) -> String {
    match b {
        b if b >= 10 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 10 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 10 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[allow(clippy::too_many_arguments)]
fn print_text(
    dir: &Path,
    manifest_path: &Path,
    m: &manifest::Manifest,
    rows: &[Row],
    today: &Levels,
    priced: &[Priced],
    probe: Option<&Probe>,
    warnings: &[String],
) {
    println!("database:  {}", dir.display());
    println!("manifest:  {} ({} edits, {} column families)", manifest_path.display(), m.edits, m.column_families.len());
    let mut kinds: BTreeMap<(String, u32), BTreeMap<&str, u64>> = BTreeMap::new();
    for r in rows {
        *kinds.entry((r.cf.clone(), r.level)).or_default().entry(r.filter.as_str()).or_default() += 1;
    }
    println!();
    println!(
        "{:<10} {:>5} {:>7} {:>13} {:>12} {:>8} {:>9}  kinds",
        "cf", "level", "files", "entries", "filter", "bits/key", "FP rate"
    );
    for ((cf, level), l) in today {
        let bpk = if l.entries > 0 { 8.0 * l.filter_bytes as f64 / l.entries as f64 } else { 0.0 };
        let k: Vec<String> = kinds[&(cf.clone(), *level)].iter().map(|(n, c)| format!("{c} {n}")).collect();
        println!(
            "{:<10} {:>5} {:>7} {:>13} {:>12} {:>8.2} {:>8.3}%  {}",
            cf,
            format!("L{level}"),
            l.files,
            l.entries,
            fmt_bytes(l.filter_bytes),
            bpk,
            100.0 * l.fp_rate(),
            k.join(", ")
        );
    }
    let total_bytes: u64 = today.values().map(|l| l.filter_bytes).sum();
    println!();
    println!("filter memory: {} in all", fmt_bytes(total_bytes));
    for (cf, w) in wasted_total(today) {
        println!(
            "expected wasted data-block reads per absent Get in {cf}: {w:.4} (an upper bound: every L0 file's FP rate \
             plus one file's per deeper level, as if the key fell in every range)"
        );
    }
    if !priced.is_empty() {
        println!();
        println!("what if (RocksDB's estimates for each file's keys):");
        for (name, levels) in priced {
            let bytes: u64 = levels.values().map(|l| l.filter_bytes).sum();
            let w: f64 = wasted_total(levels).values().sum();
            println!(
                "  {:<86} {:>12} ({:+.1}%)  wasted reads {w:.4}",
                name,
                fmt_bytes(bytes),
                100.0 * (bytes as f64 / total_bytes.max(1) as f64 - 1.0)
            );
        }
    }
    if let Some(p) = probe {
        println!();
        println!(
            "probe ({}): {} keys, {} file probes, {} may match ({:.4} per key), {} probes of files without a filter",
            p.column_family,
            p.keys,
            p.files_probed,
            p.may_match,
            p.may_match as f64 / p.keys.max(1) as f64,
            p.no_filter
        );
    }
    if !warnings.is_empty() {
        println!();
        println!("warnings:");
        for w in warnings {
            println!("  {w}");
        }
    }
}

fn print_json(
    dir: &Path,
    manifest_path: &Path,
    rows: &[Row],
    today: &Levels,
    priced: &[Priced],
    probe: Option<&Probe>,
    warnings: &[String],
) {
    let num = |v: f64| if v.is_finite() { format!("{v}") } else { "null".into() };
    let mut o = String::from("{");
    let _ = write!(o, "\"db\":{},", json_str(&dir.display().to_string()));
    let _ = write!(o, "\"manifest\":{},", json_str(&manifest_path.display().to_string()));
    o.push_str("\"files\":[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(
            o,
            "{{\"file\":{},\"column_family\":{},\"level\":{},\"entries\":{},\"filter\":{},\"partitioned\":{},\"filter_bytes\":{},\"bits_per_key\":{},\"fp_rate\":{}",
            json_str(&r.file),
            json_str(&r.cf),
            r.level,
            r.entries,
            json_str(&r.filter),
            r.partitioned,
            r.filter_bytes,
            r.bits_per_key().map_or("null".into(), num),
            r.fp_rate.map_or("null".into(), num)
        );
        if let Some(e) = &r.error {
            let _ = write!(o, ",\"error\":{}", json_str(e));
        }
        o.push('}');
    }
    o.push_str("],\"levels\":[");
    for (i, ((cf, level), l)) in today.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(
            o,
            "{{\"column_family\":{},\"level\":{level},\"files\":{},\"entries\":{},\"filter_bytes\":{},\"fp_rate\":{},\"wasted_reads\":{}}}",
            json_str(cf),
            l.files,
            l.entries,
            l.filter_bytes,
            num(l.fp_rate()),
            num(l.wasted(*level))
        );
    }
    o.push_str("],\"expected_wasted_reads\":{");
    let w: Vec<String> = wasted_total(today).iter().map(|(cf, v)| format!("{}:{}", json_str(cf), num(*v))).collect();
    o.push_str(&w.join(","));
    o.push_str("},\"expected_wasted_reads_is\":\"upper bound\",");
    if let Some(p) = probe {
        let _ = write!(
            o,
            "\"probe\":{{\"column_family\":{},\"keys\":{},\"files_probed\":{},\"may_match\":{},\"no_filter\":{}}},",
            json_str(&p.column_family),
            p.keys,
            p.files_probed,
            p.may_match,
            p.no_filter
        );
    }
    o.push_str("\"what_if\":[");
    for (i, (name, levels)) in priced.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let bytes: u64 = levels.values().map(|l| l.filter_bytes).sum();
        let w: f64 = wasted_total(levels).values().sum();
        let _ = write!(o, "{{\"name\":{},\"filter_bytes\":{bytes},\"wasted_reads\":{}}}", json_str(name), num(w));
    }
    o.push_str("],\"warnings\":[");
    let ws: Vec<String> = warnings.iter().map(|w| json_str(w)).collect();
    o.push_str(&ws.join(","));
    o.push_str("]}");
    println!("{o}");
}

/// An SVG of filter memory and expected wasted reads per level: today's bar
/// and each what-if's, side by side.
fn plot(today: &Levels, priced: &[Priced]) -> String {
    let series: Vec<(&str, &Levels)> =
        std::iter::once(("today", today)).chain(priced.iter().map(|(n, l)| (n.as_str(), l))).collect();
    let keys: Vec<&(String, u32)> = today.keys().collect();
    let colors = [
        "#333333", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
        "#17becf",
    ];
    let (w, panel_h, top) = (960.0, 260.0, 40.0);
    let legend_h = 18.0 * series.len() as f64 + 20.0;
    let h = top + 2.0 * (panel_h + 60.0) + legend_h;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let panels: [Panel; 2] = [
        ("filter memory per level (MiB)", Box::new(|l: &Level, _| l.filter_bytes as f64 / (1u64 << 20) as f64)),
        ("expected wasted reads per absent Get, per level (upper bound)", Box::new(|l: &Level, lv| l.wasted(lv))),
    ];
    for (p, (title, value)) in panels.iter().enumerate() {
        let y0 = top + p as f64 * (panel_h + 60.0);
        let max = series
            .iter()
            .flat_map(|(_, lv)| keys.iter().map(|k| lv.get(*k).map_or(0.0, |l| value(l, k.1))))
            .fold(0.0f64, f64::max)
            .max(1e-12);
        let _ = writeln!(s, "<text x=\"60\" y=\"{}\" font-size=\"14\">{title}</text>", y0 - 10.0);
        let _ = writeln!(
            s,
            "<line x1=\"60\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>",
            y0 + panel_h,
            w - 20.0,
            y0 + panel_h
        );
        let _ = writeln!(s, "<text x=\"55\" y=\"{}\" text-anchor=\"end\">{}</text>", y0 + 10.0, fmt_num(max));
        let _ = writeln!(s, "<text x=\"55\" y=\"{}\" text-anchor=\"end\">0</text>", y0 + panel_h);
        let group = (w - 90.0) / keys.len().max(1) as f64;
        let bar = (group - 10.0) / series.len() as f64;
        for (g, k) in keys.iter().enumerate() {
            let gx = 65.0 + g as f64 * group;
            for (i, (_, lv)) in series.iter().enumerate() {
                let v = lv.get(*k).map_or(0.0, |l| value(l, k.1));
                let bh = panel_h * v / max;
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>",
                    gx + i as f64 * bar,
                    y0 + panel_h - bh,
                    bar.max(1.0),
                    bh,
                    colors[i % colors.len()],
                    fmt_num(v)
                );
            }
            let label =
                if today.keys().any(|o| o.0 != k.0) { format!("{} L{}", k.0, k.1) } else { format!("L{}", k.1) };
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
                gx + group / 2.0 - 5.0,
                y0 + panel_h + 16.0
            );
        }
    }
    let ly = top + 2.0 * (panel_h + 60.0);
    for (i, (name, _)) in series.iter().enumerate() {
        let y = ly + 18.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"60\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
            y - 10.0,
            colors[i % colors.len()]
        );
        let _ = writeln!(s, "<text x=\"78\" y=\"{y}\">{}</text>", name.replace('&', "&amp;").replace('<', "&lt;"));
    }
    s.push_str("</svg>\n");
    s
}

fn fmt_num(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}
