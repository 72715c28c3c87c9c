//! Hostile files, judged by real RocksDB: crafted SSTs whose checksums are
//! all valid (`tests/support/craft.rs` rewrites them), made from real SSTs
//! of RocksDB 7.8.3 (`sst_fixtures/`), each fed to RocksDB 7.8.3 itself
//! (`sst_fixtures/judge78.c`: ingest into a fresh DB, then `Get` every key)
//! and to this library. Asserted, for every file:
//! - never "absent" for a key RocksDB finds;
//! - never a refusal of a file RocksDB reads, unless its class is one the
//!   COMPATIBILITY.md lists as a deliberate difference (none today).
//!
//! Run with `make sst-test`, or:
//! ```sh
//! sst_fixtures/generate.sh /tmp/fx && gcc -O2 -o /tmp/judge78 sst_fixtures/judge78.c -lrocksdb
//! ROCKSFILTER_SST_FIXTURES=/tmp/fx ROCKSFILTER_JUDGE=/tmp/judge78 \
//!   cargo test --release --test hostile -- --ignored --nocapture
//! ```

#[path = "support/callback.rs"]
mod callback;
#[path = "support/craft.rs"]
mod craft;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use craft::{Crafted, Entry, Handle};
use rocksfilter::{Sst, SstFilter};

/// COMPATIBILITY.md's list of deliberate refusals (classes of files RocksDB
/// reads and this library refuses). Empty: every file RocksDB reads opens.
const LISTED_REFUSALS: &[&str] = &[];

struct Base {
    name: &'static str,
    prefix_len: usize,
    whole_key: bool,
    crafted: Crafted,
    keys: Vec<Vec<u8>>,
}

struct Case {
    class: &'static str,
    base: &'static str,
    file: Vec<u8>,
}

fn hex_keys(path: &Path) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
        .collect()
}

fn load_base(dir: &Path, name: &'static str, prefix_len: usize, whole_key: bool) -> Base {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let crafted = Crafted::parse(&bytes).unwrap_or_else(|| panic!("{name}: not a block-based SST"));
    let keys = hex_keys(&path.with_extension("keys"));
    Base { name, prefix_len, whole_key, crafted, keys }
}

/// An internal key: user key + (sequence << 8 | type) little-endian.
fn ikey(user: &[u8], seq: u64, t: u8) -> Vec<u8> {
    let mut k = user.to_vec();
    k.extend_from_slice(&((seq << 8) | t as u64).to_le_bytes());
    k
}

/// Every crafted file, by class.
fn cases(bases: &BTreeMap<&'static str, Base>) -> Vec<Case> {
    let mut out = Vec::new();
    let mut extra = Vec::new();
    let mut add =
        |class: &'static str, base: &Base, c: &Crafted| out.push(Case { class, base: base.name, file: c.finish() });
    let full = &bases["full"];
    let ribbon = &bases["ribbon"];
    let legacy = &bases["legacy"];
    let part = &bases["part"];
    let part_internal = &bases["part_internal"];
    let prefix_only = &bases["prefix_only"];
    let prefix_only_part = &bases["prefix_only_part"];

    for b in bases.values() {
        add("original (rewritten, unchanged)", b, &b.crafted);
    }

    // --- the oldest footers: format_version 0 (LevelDB's 48-byte footer
    // with the legacy magic) and 1, which RocksDB 7.x-10.x still read, over
    // the same blocks (uncompressed, crc32c, so nothing else differs)
    for b in [full, legacy, part, prefix_only, prefix_only_part] {
        for (fv, class) in
            [(0, "footer rewritten as format_version 0 (legacy magic)"), (1, "footer rewritten as format_version 1")]
        {
            let mut c = b.crafted.clone();
            assert_eq!(c.checksum_type, 1, "{}: the legacy footer implies crc32c", b.name);
            c.format_version = fv;
            add(class, b, &c);
        }
    }

    // --- metaindex names
    for b in [full, part] {
        let (name, _) = b.crafted.filter_entry().unwrap();
        // A name that only starts with the built-in one, over an empty
        // ("always false") block: RocksDB does not take it as the filter.
        let mut c = b.crafted.clone();
        let mut longer = name.clone();
        longer.push(b'X');
        c.rename_meta(&name, &longer);
        let h = c.add_block(&[]);
        c.set_meta(&longer, h.encode());
        add("filter name that only starts with the built-in one", b, &c);
        // A 7.0.x alias name over the real filter (RocksDB 7.0-9.11.0 use it).
        let mut c = b.crafted.clone();
        let prefix = &name[..name.iter().position(|&x| x == b'.').unwrap() + 1];
        c.rename_meta(&name, &[prefix, b"bloomfilter"].concat());
        add("filter under a 7.0.x alias name", b, &c);
        // Another filter name sorting before the built-in one, over an empty
        // block: 7.x seeks to the prefix, lands on it and uses no filter.
        let mut c = b.crafted.clone();
        let h = c.add_block(&[]);
        c.set_meta(&[prefix, b"aaa"].concat(), h.encode());
        add("foreign filter name before the built-in one", b, &c);
        // ... and after it: every release takes the built-in one.
        let mut c = b.crafted.clone();
        let h = c.add_block(&[]);
        c.set_meta(&[prefix, b"zzz"].concat(), h.encode());
        add("foreign filter name after the built-in one", b, &c);
    }
    // Duplicate rocksdb.properties: the second claims prefix-only filtering.
    for b in [full, part] {
        let mut c = b.crafted.clone();
        let real = c.meta_value(b"rocksdb.properties").unwrap().to_vec();
        let mut fake = c.properties();
        for e in &mut fake {
            if e.0 == b"rocksdb.block.based.table.whole.key.filtering" {
                e.1 = b"0".to_vec();
            }
        }
        let fake_h = c.add_block(&craft::kv_block(&fake, 1, true));
        let at = c.meta.iter().position(|(k, _)| k == b"rocksdb.properties").unwrap();
        c.meta.insert(at + 1, (b"rocksdb.properties".to_vec(), fake_h.encode()));
        add("duplicate rocksdb.properties (first real)", b, &c);
        let mut c2 = c.clone();
        c2.meta[at].1 = fake_h.encode();
        c2.meta[at + 1].1 = real;
        add("duplicate rocksdb.properties (second real)", b, &c2);
    }
    // Properties under the old name rocksdb.stats, on prefix-only filters.
    for b in [prefix_only, prefix_only_part] {
        let mut c = b.crafted.clone();
        c.rename_meta(b"rocksdb.properties", b"rocksdb.stats");
        add("properties block named rocksdb.stats", b, &c);
    }
    // A malformed entry after the real ones (a key running past the block).
    for b in [full, prefix_only] {
        let entries: Vec<Entry> = b.crafted.meta.clone();
        let mut meta = craft::kv_block(&entries, 1, true);
        let restarts_at = meta.len() - 4 * (entries.len() + 1);
        meta.splice(restarts_at..restarts_at, [0u8, 0x7f, 0]);
        let file = b.crafted.finish_with_metaindex(&meta);
        extra.push(Case { class: "metaindex with a malformed last entry", base: b.name, file });
    }
    // Metaindex entries out of order.
    for b in [full, prefix_only] {
        let mut c = b.crafted.clone();
        c.meta.reverse();
        add("metaindex out of order", b, &c);
    }

    // --- property values
    for b in [part, prefix_only_part] {
        let mut c = b.crafted.clone();
        c.edit_property("rocksdb.index.key.is.user.key", vec![1, 0x00]);
        add("varint property with a trailing byte (index.key.is.user.key)", b, &c);
        let mut c = b.crafted.clone();
        c.edit_property("rocksdb.index.value.is.delta.encoded", vec![1, 0x07]);
        add("varint property with a trailing byte (index.value.is.delta.encoded)", b, &c);
    }
    {
        let mut c = full.crafted.clone();
        c.edit_property("rocksdb.block.based.table.whole.key.filtering", b"2".to_vec());
        add("whole.key.filtering neither 0 nor 1", full, &c);
        let mut c = prefix_only.crafted.clone();
        c.edit_property("rocksdb.prefix.extractor.name", b"rocksdb.FixedPrefix.04".to_vec());
        add("prefix extractor name spelled differently", prefix_only, &c);
        let mut c = prefix_only.crafted.clone();
        let mut props = c.properties();
        props.swap(0, 1);
        c.set_properties(&props, 1);
        add("properties unsorted", prefix_only, &c);
        let mut c = full.crafted.clone();
        let props = c.properties();
        c.set_properties_with_rewritten_global_seqno(&props, 7);
        add("global seqno rewritten without its checksum", full, &c);
    }

    // --- filter blocks
    {
        let mut c = legacy.crafted.clone();
        let mut f = c.full_filter();
        let n = f.len();
        for (label, lines) in
            [("legacy Bloom declaring 0 cache lines", 0u32), ("legacy Bloom with lines that do not divide it", 7)]
        {
            f[n - 4..].copy_from_slice(&lines.to_le_bytes());
            c.set_full_filter(&f);
            add(label, legacy, &c);
        }
        let mut c = full.crafted.clone();
        let mut short = vec![0u8; 40];
        short.extend_from_slice(&[0xff, 0, 6, 0, 0]);
        c.set_full_filter(&short);
        add("FastLocalBloom shorter than a cache line", full, &c);
        let mut c = ribbon.crafted.clone();
        let f = c.full_filter();
        let (data, trailer) = f.split_at(f.len() - 5);
        c.set_full_filter(&[data, &[0xa5; 7], trailer].concat());
        add("Ribbon with a partial segment", ribbon, &c);
        for (b, label) in [(full, "full filter with a bad checksum"), (ribbon, "Ribbon filter with a bad checksum")] {
            let mut c = b.crafted.clone();
            let f = c.full_filter();
            let (name, _) = c.filter_entry().unwrap();
            let h = c.add_damaged_block(&f);
            c.set_meta(&name, h.encode());
            add(label, b, &c);
        }
        let mut c = full.crafted.clone();
        let f = c.full_filter();
        let (name, _) = c.filter_entry().unwrap();
        let h = c.add_block_typed(&f, 1);
        c.set_meta(&name, h.encode());
        add("filter block marked compressed", full, &c);
        let mut c = full.crafted.clone();
        c.meta_compression = 7;
        add("metaindex marked compressed", full, &c);
        let mut c = full.crafted.clone();
        let props = c.properties();
        let h = c.add_block_typed(&craft::kv_block(&props, 1, true), 1);
        c.set_meta(b"rocksdb.properties", h.encode());
        add("properties block marked compressed", full, &c);
        let mut c = full.crafted.clone();
        let (name, _) = c.filter_entry().unwrap();
        c.set_meta(&name, Handle { offset: 1 << 40, size: 100 }.encode());
        add("filter handle past the end of the file", full, &c);
    }

    // --- partitioned filters
    for b in [part, part_internal, prefix_only_part] {
        let (_, entries) = b.crafted.partition_index().unwrap();
        let mut c = b.crafted.clone();
        let mut rev = entries.clone();
        rev.reverse();
        c.set_partition_index(&rev);
        add("partition index reversed", b, &c);
        let mut c = b.crafted.clone();
        let mut swapped = entries.clone();
        swapped.swap(0, 1);
        c.set_partition_index(&swapped);
        add("partition index with two separators swapped", b, &c);
        // One partition damaged, the index itself damaged.
        let mut c = b.crafted.clone();
        let mut e = entries.clone();
        let bad = c.block(e[1].1).to_vec();
        e[1].1 = c.add_damaged_block(&bad);
        c.set_partition_index(&e);
        add("one filter partition with a bad checksum", b, &c);
        let mut c = b.crafted.clone();
        let delta = c.delta_encoded();
        let (name, _) = c.filter_entry().unwrap();
        let h = c.add_damaged_block(&craft::index_block(&entries, delta));
        c.set_meta(&name, h.encode());
        add("partition index with a bad checksum", b, &c);
        // The partition index marked compressed (RocksDB would try to
        // decompress it).
        let mut c = b.crafted.clone();
        let delta = c.delta_encoded();
        let (name, _) = c.filter_entry().unwrap();
        let h = c.add_block_typed(&craft::index_block(&entries, delta), 1);
        c.set_meta(&name, h.encode());
        add("partition index marked compressed", b, &c);
        // Every entry pointing at the same partition.
        let mut c = b.crafted.clone();
        let same: Vec<(Vec<u8>, Handle)> = entries.iter().map(|(k, _)| (k.clone(), entries[0].1)).collect();
        c.set_partition_index(&same);
        add("every partition entry pointing at one block", b, &c);
    }
    // Internal-key separators whose user key is the next partition's first
    // key, with a sequence number above any read's: RocksDB's lookup goes
    // to the next partition, where the key is.
    {
        let b = part_internal;
        let (_, entries) = b.crafted.partition_index().unwrap();
        let mut sorted = b.keys.clone();
        sorted.sort();
        let mut moved = entries.clone();
        for i in 0..moved.len() - 1 {
            let user = &entries[i].0[..entries[i].0.len() - 8];
            let next_first = sorted.iter().find(|k| k.as_slice() > user).unwrap();
            moved[i].0 = ikey(next_first, (1 << 56) - 1, 1);
        }
        let mut c = b.crafted.clone();
        c.set_partition_index(&moved);
        add("internal-key separators equal to the next partition's first key", b, &c);
        // Internal-key separators shorter than 8 bytes.
        let mut c = b.crafted.clone();
        let mut short = entries.clone();
        short[0].0 = b"ab".to_vec();
        c.set_partition_index(&short);
        add("internal-key separator shorter than 8 bytes", b, &c);
    }

    // --- resource classes, at sizes RocksDB reads in seconds
    {
        // Properties whose names each extend the previous one (sorted: '~'
        // sorts after every rocksdb.* name).
        let mut c = full.crafted.clone();
        let mut props = c.properties();
        for i in 1..=3000 {
            props.push((vec![b'~'; i], b"v".to_vec()));
        }
        c.set_properties(&props, 1 << 20);
        add("properties whose names each extend the previous one", full, &c);
        // The same in the metaindex.
        let mut c = full.crafted.clone();
        for i in 1..=3000 {
            c.meta.push((vec![b'~'; i], Handle { offset: 0, size: 0 }.encode()));
        }
        c.meta_interval = 1 << 20;
        add("metaindex names each extending the previous one", full, &c);
        // A partition index of 20,000 separators each extending the last
        // (internal keys, no value delta encoding: explicit handles).
        let b = part_internal;
        let (_, entries) = b.crafted.partition_index().unwrap();
        let mut e = entries.clone();
        let (last, lh) = e.pop().unwrap();
        let user = last[..last.len() - 8].to_vec();
        let mut chain_user = user.clone();
        for _ in 0..2000 {
            chain_user.push(0xff);
            e.push((ikey(&chain_user, 0, 1), lh));
        }
        let idx: Vec<Entry> = e.iter().map(|(k, h)| (k.clone(), h.encode())).collect();
        let mut c = b.crafted.clone();
        let (name, _) = c.filter_entry().unwrap();
        let h = c.add_block(&craft::kv_block(&idx, 1 << 20, true));
        c.set_meta(&name, h.encode());
        add("partition index separators each extending the previous one", b, &c);
    }
    out.extend(extra);
    out
}

#[test]
#[ignore = "needs the RocksDB fixtures and judge: make sst-test"]
fn crafted_files_answer_as_rocksdb_does() {
    let dir = PathBuf::from(std::env::var("ROCKSFILTER_SST_FIXTURES").expect("ROCKSFILTER_SST_FIXTURES"));
    let judge = PathBuf::from(
        std::env::var("ROCKSFILTER_JUDGE").expect("ROCKSFILTER_JUDGE (built from sst_fixtures/judge78.c)"),
    );
    let mut bases = BTreeMap::new();
    for (role, name, prefix_len, whole_key) in [
        ("full", "r78_fv5_crc32c_bloom10_none_ascii1000.sst", 0, true),
        ("full_xxh3", "r78_fv5_xxh3_bloom10_none_ascii1000.sst", 0, true),
        ("ribbon", "r78_fv5_crc32c_ribbon10_none_ascii1000.sst", 0, true),
        ("legacy", "r78_fv4_crc32c_bloom10_none_ascii1000.sst", 0, true),
        ("part", "r78_fv5_crc32c_partbloom10_none_ascii25000_mbs512.sst", 0, true),
        ("part_internal", "r78_fv2_xxhash32_partbloom10_none_bin5000_mbs256.sst", 0, true),
        ("prefix_only", "r78_fv5_crc32c_bloom10_pfx4nowk_none_pfx2000.sst", 4, false),
        ("prefix_only_part", "r78_fv5_crc32c_partbloom10_pfx4nowk_none_pfx20000_mbs256.sst", 4, false),
    ] {
        bases.insert(role, load_base(&dir, name, prefix_len, whole_key));
    }
    let by_name: BTreeMap<&str, &Base> = bases.values().map(|b| (b.name, b)).collect();
    let cases = cases(&bases);
    let work = std::env::temp_dir().join(format!("rocksfilter-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();

    #[derive(Default)]
    struct Tally {
        files: usize,
        rocksdb_refused: usize,
        rocksdb_crashed: usize,
        we_refused: usize,
        found_by_rocksdb: usize,
        false_absents: usize,
        filtered_by_us: usize,
        /// Files opened (or refused) alike from memory, through the
        /// callback source and through the path.
        callback_opens: usize,
    }
    let mut per_class: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total_keys = 0usize;
    for (i, case) in cases.iter().enumerate() {
        let base = by_name[case.base];
        let sst = work.join(format!("case{i}.sst"));
        std::fs::write(&sst, &case.file).unwrap();
        let keys_path = dir.join(base.name).with_extension("keys");
        let db = work.join(format!("db{i}"));
        let out = std::process::Command::new(&judge)
            .args([&sst, &keys_path])
            .arg(base.prefix_len.to_string())
            .arg(if base.whole_key { "1" } else { "0" })
            .arg(&db)
            .output()
            .expect("run judge78");
        let t = per_class.entry(case.class).or_default();
        t.files += 1;
        let ours = Sst::from_bytes(&case.file);
        if let Err(e) = &ours {
            // Whatever RocksDB does, an error must say what and where.
            assert!(e.message().contains("offset"), "{}: error without a location: {e}", case.class);
        }
        // Through the C callback source (and through the path): refused
        // alike, or the same answer for every key.
        let path_open = Sst::open(&sst);
        match (&ours, callback::open_bytes(&case.file), &path_open) {
            (Ok(m), Ok(cb), Ok(p)) => {
                t.callback_opens += 1;
                if let Some(k) =
                    base.keys.iter().find(|k| cb.may_match(k) != m.may_match(k) || p.may_match(k) != m.may_match(k))
                {
                    failures.push(format!(
                        "{}: memory, callback and path opens answer {:?} differently",
                        case.class,
                        String::from_utf8_lossy(k)
                    ));
                }
            }
            (Err(_), Err(_), Err(_)) => t.callback_opens += 1,
            (m, cb, p) => failures.push(format!(
                "{}: memory open {:?}, callback open {:?}, path open {:?}",
                case.class,
                m.as_ref().err(),
                cb.as_ref().err(),
                p.as_ref().err()
            )),
        }
        // RocksDB itself may crash on a hostile file (it trusts checksummed
        // metadata): that is a file it does not read. (judge78 runs where
        // librocksdb-dev does: on Unix.)
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if out.status.signal().is_some() {
                t.rocksdb_refused += 1;
                t.rocksdb_crashed += 1;
                continue;
            }
        }
        assert!(out.status.success(), "judge78 failed on {}: {}", case.class, String::from_utf8_lossy(&out.stderr));
        let verdict = String::from_utf8(out.stdout).unwrap();
        let line = verdict.lines().next().unwrap_or("");
        if line.starts_with("REFUSED ") {
            t.rocksdb_refused += 1;
            continue;
        }
        assert_eq!(line.len(), base.keys.len(), "{}: judge output length", case.class);
        let sst = match ours {
            Ok(s) => s,
            Err(e) => {
                t.we_refused += 1;
                if !LISTED_REFUSALS.contains(&case.class) {
                    failures.push(format!("{} ({}): RocksDB reads it, we refuse: {e}", case.class, case.base));
                }
                continue;
            }
        };
        for (k, c) in base.keys.iter().zip(line.bytes()) {
            total_keys += 1;
            let ours = sst.may_match(k);
            if !ours {
                t.filtered_by_us += 1;
            }
            if c == b'1' {
                t.found_by_rocksdb += 1;
                if !ours {
                    t.false_absents += 1;
                    if t.false_absents <= 3 {
                        failures.push(format!(
                            "{} ({}): RocksDB finds {:?}, we say absent (filter: {:?})",
                            case.class,
                            case.base,
                            String::from_utf8_lossy(k),
                            match sst.filter() {
                                SstFilter::Unsupported(w) => w.clone(),
                                f => format!("{:?}", std::mem::discriminant(f)),
                            }
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!("hostile files, judged by RocksDB 7.8.3 (ingest + Get):");
    println!(
        "  {:<72} {:>5} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7}",
        "class", "files", "rdb-refs", "rdb-crs", "our-refs", "rdb-found", "f-abs", "we-filt"
    );
    let (mut files, mut absents, mut refusals, mut alike) = (0, 0, 0, 0);
    for (class, t) in &per_class {
        alike += t.callback_opens;
        println!(
            "  {class:<72} {:>5} {:>8} {:>7} {:>8} {:>9} {:>7} {:>7}",
            t.files,
            t.rocksdb_refused,
            t.rocksdb_crashed,
            t.we_refused,
            t.found_by_rocksdb,
            t.false_absents,
            t.filtered_by_us
        );
        files += t.files;
        absents += t.false_absents;
        if !LISTED_REFUSALS.contains(class) {
            refusals += t.we_refused;
        }
    }
    println!(
        "hostile: {} classes, {files} files, {total_keys} keys, {absents} false absents, {refusals} unlisted refusals; \
         {alike} files opened or refused alike from memory, through the callback source and through the path",
        per_class.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
