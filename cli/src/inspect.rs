//! `rocksfilter inspect FILE.sst`: a readable (or JSON) report of an SST
//! file's format and filter.

use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use rocksfilter::sst::PrefixExtractor;
use rocksfilter::{CacheStats, Filter, FilterCache, FilterInfo, Sst, SstFilter, SstOptions};

/// True when the file ends with the block-based table magic number.
pub fn looks_like_sst(path: &Path) -> bool {
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let mut magic = [0u8; 8];
    f.seek(SeekFrom::End(-8)).is_ok()
        && f.read_exact(&mut magic).is_ok()
        && u64::from_le_bytes(magic) == rocksfilter::sst::BLOCK_BASED_MAGIC
}

pub(crate) fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn printable(v: &[u8]) -> String {
    match std::str::from_utf8(v) {
        Ok(s) if s.chars().all(|c| !c.is_control()) => s.to_string(),
        _ => v.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(""),
    }
}

pub(crate) struct Geometry {
    pub(crate) kind: &'static str,
    pub(crate) bytes: u64,
    pub(crate) probes: u32,
    pub(crate) partitions: usize,
    pub(crate) est_fp: Option<f64>,
}

/// The geometry of `n` filters that `with(i, f)` hands to `f` one at a
/// time (from the handle, or read through a cache: then twice, the bytes
/// first, then the estimates).
fn geometry(n: usize, with: impl Fn(usize, &mut dyn FnMut(&Filter<'_>)), keys: Option<u64>) -> Geometry {
    let mut first: Option<FilterInfo> = None;
    let mut sizes = Vec::with_capacity(n);
    for i in 0..n {
        with(i, &mut |f| {
            first.get_or_insert(f.info());
            sizes.push(f.as_bytes().len() as u64);
        });
    }
    let bytes: u64 = sizes.iter().sum();
    let est_fp = keys.filter(|&k| k > 0).map(|k| {
        // Keys spread over partitions in proportion to their bytes.
        let mut sum = 0.0;
        for (i, &size) in sizes.iter().enumerate() {
            let share = size as f64 / bytes.max(1) as f64;
            with(i, &mut |f| sum += share * f.estimated_fp_rate(((k as f64) * share).round().max(1.0) as usize));
        }
        sum
    });
    Geometry {
        kind: first.map_or("none", |i| i.kind().name()),
        bytes,
        probes: first.and_then(|i| i.num_probes()).unwrap_or(0),
        partitions: n,
        est_fp,
    }
}

/// What an SST's filter is ("full", "partitioned", ...) and, when this
/// library reads it, its geometry with RocksDB's FP estimate for `keys`.
pub(crate) fn filter_geometry(sst: &Sst<'_>, keys: Option<u64>) -> (String, Option<Geometry>) {
    match sst.filter() {
        SstFilter::None => ("none".to_string(), None),
        SstFilter::Unsupported(why) => (format!("unsupported: {why}"), None),
        SstFilter::Full(f) => ("full".to_string(), Some(geometry(1, |_, g| g(f), keys))),
        SstFilter::CachedFull(c) => ("full".to_string(), Some(geometry(1, |_, g| c.with_filter(|f| g(f)), keys))),
        SstFilter::Partitioned(parts) => {
            ("partitioned".to_string(), Some(geometry(parts.distinct(), |i, g| parts.with_distinct(i, |f| g(f)), keys)))
        }
        other => (other.filter_type().name().to_string(), None),
    }
}

/// `rocksfilter inspect`; `cache`: read the filter through a cache of this
/// many bytes (partitions and full filters on demand) and report it.
pub fn inspect(path: &Path, json: bool, verify: bool, cache: Option<usize>) -> Result<(), String> {
    let mut options = SstOptions::default().with_verify_checksums(verify);
    let cache = cache.map(FilterCache::new);
    if let Some(c) = &cache {
        options = options.with_cache(c.clone()).with_cache_full_filters(true);
    }
    let sst = Sst::open_with(path, options).map_err(|e| e.to_string())?;
    // A file written without checksums (ChecksumType none) has nothing to verify.
    let verified = verify && sst.checksum_type() != rocksfilter::ChecksumType::None;
    let p = sst.properties();
    let keys = p.num_filter_entries.or(p.num_entries);
    let (filter_desc, geom) = filter_geometry(&sst, keys);
    let prefix = match sst.prefix_extractor() {
        Some(PrefixExtractor::Fixed(n)) => format!("fixed {n}"),
        Some(PrefixExtractor::Capped(n)) => format!("capped {n}"),
        None => p.prefix_extractor_name.clone().unwrap_or_else(|| "none".into()),
    };
    let bits_per_key = geom.as_ref().and_then(|g| keys.filter(|&k| k > 0).map(|k| 8.0 * g.bytes as f64 / k as f64));
    if json {
        let mut o = String::from("{");
        let _ = write!(o, "\"file\":{},", json_str(&path.display().to_string()));
        let _ = write!(o, "\"format_version\":{},", sst.format_version());
        let _ = write!(o, "\"checksum\":{},", json_str(sst.checksum_type().name()));
        let _ = write!(o, "\"checksums_verified\":{verified},");
        if let Some(why) = sst.properties_error() {
            let _ = write!(o, "\"properties_error\":{},", json_str(why));
        }
        if let SstFilter::Partitioned(parts) = sst.filter() {
            let _ = write!(o, "\"unreadable_partitions\":{},", parts.unreadable().len());
        }
        if let SstFilter::BlockBased(b) = sst.filter() {
            let _ = write!(
                o,
                "\"block_based\":{{\"filter_bytes\":{},\"filters\":{},\"base_lg\":{},\"data_blocks\":{}}},",
                b.block_bytes(),
                b.num_filters(),
                b.base_lg().map_or("null".to_string(), |v| v.to_string()),
                b.num_data_blocks()
            );
        }
        let _ = write!(o, "\"filter\":{},", json_str(&filter_desc));
        let _ = write!(o, "\"filter_block\":{},", sst.filter_block_name().map_or("null".into(), json_str));
        if let Some(g) = &geom {
            let _ = write!(
                o,
                "\"filter_kind\":{},\"filter_bytes\":{},\"num_probes\":{},\"partitions\":{},",
                json_str(g.kind),
                g.bytes,
                g.probes,
                g.partitions
            );
            if let Some(fp) = g.est_fp {
                let _ = write!(o, "\"estimated_fp_rate\":{fp},");
            }
        }
        if let Some(b) = bits_per_key {
            let _ = write!(o, "\"bits_per_key\":{b},");
        }
        let _ = write!(o, "\"whole_key_filtering\":{},", sst.whole_key_filtering());
        let _ = write!(o, "\"prefix_extractor\":{},", json_str(&prefix));
        let st = sst.open_stats();
        let _ = write!(
            o,
            "\"open\":{{\"file_bytes\":{},\"reads\":{},\"bytes_read\":{},\"bytes_held\":{}}},",
            sst.file_size(),
            st.reads,
            st.bytes_read,
            st.bytes_held
        );
        if let Some(c) = &cache {
            let s = c.stats();
            let _ = write!(
                o,
                "\"cache\":{{\"capacity\":{},\"bytes_held\":{},\"entries\":{},\"hits\":{},\"misses\":{},\"reads\":{},\"bytes_read\":{},\"read_errors\":{},\"bad_blocks\":{},\"evictions\":{},\"uncached\":{}}},",
                s.capacity, s.bytes_held, s.entries, s.hits, s.misses, s.reads, s.bytes_read, s.read_errors, s.bad_blocks, s.evictions, s.uncached
            );
        }
        o.push_str("\"properties\":{");
        let props: Vec<String> =
            p.raw().iter().map(|(k, v)| format!("{}:{}", json_str(k), json_str(&display_property(k, v)))).collect();
        o.push_str(&props.join(","));
        o.push_str("}}");
        println!("{o}");
        return Ok(());
    }
    println!("file:               {}", path.display());
    println!("format_version:     {}", sst.format_version());
    println!(
        "checksum:           {}{}",
        sst.checksum_type().name(),
        if verified { " (verified)" } else { " (not verified)" }
    );
    if let Some(why) = sst.properties_error() {
        println!("properties:         unreadable: {why}");
    }
    if let SstFilter::Partitioned(parts) = sst.filter() {
        for why in parts.unreadable() {
            println!("unreadable partition (answers \"may match\"): {why}");
        }
    }
    println!("filter:             {filter_desc}");
    if let Some(name) = sst.filter_block_name() {
        println!("filter block:       {name}");
    }
    if let SstFilter::BlockBased(b) = sst.filter() {
        println!("filter bytes:       {}", b.block_bytes());
        println!(
            "range filters:      {} (one per {} bytes of data-block offsets)",
            b.num_filters(),
            b.base_lg().map_or(0, |l| 1u64 << l.min(63))
        );
        println!("data blocks:        {} (looked up through the index)", b.num_data_blocks());
    }
    if let Some(g) = &geom {
        println!("filter kind:        {}", g.kind);
        println!("filter bytes:       {}", g.bytes);
        if g.probes > 0 {
            println!("num_probes:         {}", g.probes);
        }
        if g.partitions > 1 || matches!(sst.filter(), SstFilter::Partitioned(_)) {
            println!("partitions:         {}", g.partitions);
        }
        if let Some(b) = bits_per_key {
            println!("bits/key:           {b:.3}");
        }
        if let Some(fp) = g.est_fp {
            println!("estimated FP rate:  {:.4}% (RocksDB's estimate)", 100.0 * fp);
        }
    }
    // Say why when the file does not record it (Sst::whole_key_filtering).
    let why = match (sst.properties().whole_key_filtering, sst.whole_key_filtering()) {
        (Some(_), _) => "",
        (None, true) => " (not recorded: RocksDB's default)",
        (None, false) => {
            " (not recorded, and the comparator is not one this library knows: taken as a filter of prefixes, \
             as Pebble v2 writes with a Split comparer; every key may match)"
        }
    };
    println!("whole-key filter:   {}{why}", sst.whole_key_filtering());
    println!("prefix extractor:   {prefix}");
    let st = sst.open_stats();
    println!(
        "opening read:       {} bytes in {} reads of the {}-byte file; the handle holds {} bytes",
        st.bytes_read,
        st.reads,
        sst.file_size(),
        st.bytes_held
    );
    if let Some(c) = &cache {
        println!("filter cache:       {}", cache_line(&c.stats()));
    }
    println!("properties:");
    for (k, v) in p.raw() {
        println!("  {k:<48} {}", display_property(k, v));
    }
    Ok(())
}

/// A cache's counters on one line (`inspect` and `query --cache-bytes`).
pub(crate) fn cache_line(s: &CacheStats) -> String {
    format!(
        "{} of {} bytes held ({} blocks); {} hits, {} misses, {} reads of {} bytes, {} read errors, {} bad blocks, {} evictions, {} not cached",
        s.bytes_held, s.capacity, s.entries, s.hits, s.misses, s.reads, s.bytes_read, s.read_errors, s.bad_blocks, s.evictions, s.uncached
    )
}

/// Numeric properties are varints; show them as numbers.
fn display_property(name: &str, v: &[u8]) -> String {
    // The index type is a little-endian u32 (BlockBasedTableOptions::IndexType).
    if name == "rocksdb.block.based.table.index.type" && v.len() == 4 {
        let t = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        let what = match t {
            0 => " (binary search)",
            1 => " (hash search)",
            2 => " (two-level: partitioned index)",
            3 => " (binary search with first key)",
            _ => "",
        };
        return format!("{t}{what}");
    }
    const STRINGS: [&str; 9] = [
        "rocksdb.filter.policy",
        "rocksdb.comparator",
        "rocksdb.prefix.extractor.name",
        "rocksdb.compression",
        "rocksdb.compression_options",
        "rocksdb.column.family.name",
        "rocksdb.merge.operator",
        "rocksdb.property.collectors",
        "rocksdb.creating.db.identity",
    ];
    let numeric = name.starts_with("rocksdb.")
        && !name.starts_with("rocksdb.block.based.table.")
        && !STRINGS.contains(&name)
        && !name.contains("identity")
        && !name.contains("seqno.time.map");
    if numeric {
        let mut n: u64 = 0;
        let mut shift = 0;
        let mut ok = false;
        for (i, b) in v.iter().enumerate() {
            if shift >= 64 {
                break;
            }
            n |= ((b & 0x7f) as u64) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                ok = i + 1 == v.len();
                break;
            }
        }
        if ok {
            return n.to_string();
        }
    }
    printable(v)
}
