//! Structure-aware SST fuzzing: the input picks a synthetic base SST (full
//! or partitioned, Bloom, Ribbon or legacy; format_version 5 or 6; crc32c
//! or XXH3; or a block-based filter of RocksDB < 7.0) and a list of edits to its metaindex, properties, filter blocks
//! and partition index. Every checksum is recomputed after the edits
//! (`tests/support/craft.rs`), so the reader's logic behind the checksums
//! is what gets fuzzed, not the checksum check.
//!
//! Checked: opening never panics and costs no large allocation (the
//! harness runs with -malloc_limit_mb), queries never panic, and after
//! edits RocksDB's readers treat as no-ops (names and properties the
//! readers ignore, trailing bytes after varints, longer restart intervals,
//! the old properties name) every key of the base still may match.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocksfilter::{Sst, SstFilter};
use rocksfilter_fuzz::craft::{Crafted, Handle};
use rocksfilter_fuzz::{check_filter, probe_keys};

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = (self.byte() as usize).min(max).min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a.to_vec()
    }
    fn u16(&mut self) -> usize {
        self.byte() as usize | (self.byte() as usize) << 8
    }
}

/// Each of the 256 bases is built once.
fn base(sel: u8) -> (Crafted, Vec<Vec<u8>>) {
    static BASES: [std::sync::OnceLock<(Crafted, Vec<Vec<u8>>)>; 256] = [const { std::sync::OnceLock::new() }; 256];
    BASES[sel as usize].get_or_init(|| make_base(sel)).clone()
}

fn make_base(sel: u8) -> (Crafted, Vec<Vec<u8>>) {
    let n = [1usize, 50, 300, 2000][(sel & 3) as usize];
    let keys: Vec<Vec<u8>> = (0..n).map(|i| format!("key{i:06}").into_bytes()).collect();
    let policy = match (sel >> 2) % 3 {
        0 => rocksfilter::Policy::Bloom,
        1 => rocksfilter::Policy::Ribbon,
        _ => rocksfilter::Policy::LegacyBloom,
    };
    let partitioned = match (sel >> 4) & 3 {
        0 => None,
        1 => Some(7),
        2 => Some(64),
        _ => Some(1),
    };
    let fv = if sel & 0x80 != 0 { 6 } else { 5 };
    let checksum = if sel & 0x40 != 0 { 4 } else { 1 }; // XXH3 or crc32c
    if policy == rocksfilter::Policy::LegacyBloom && fv == 6 {
        // The block-based filter of RocksDB < 7.0 (format_version 4), with a
        // binary-search or two-level index, and a prefix extractor for some.
        let two_level = partitioned.map(|p| p.min(16));
        let prefix = (checksum == 4).then_some(4);
        return (Crafted::block_based(&keys, 7, 200, two_level, prefix), keys);
    }
    let c = Crafted::synthetic_as(&keys, policy, partitioned, fv, checksum);
    (c, keys)
}

const KNOWN_PROPS: &[&str] = &[
    "rocksdb.comparator",
    "rocksdb.index.key.is.user.key",
    "rocksdb.index.value.is.delta.encoded",
    "rocksdb.prefix.extractor.name",
    "rocksdb.block.based.table.whole.key.filtering",
    "rocksdb.block.based.table.prefix.filtering",
    "rocksdb.num.entries",
    "rocksdb.external_sst_file.global_seqno",
];

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let (mut c, keys) = base(inp.byte());
    let mut benign = true;
    for _ in 0..(inp.byte() % 8) {
        match inp.byte() % 16 {
            // --- edits every RocksDB reader ignores
            0 => {
                let mut name = b"~".to_vec();
                name.extend(inp.bytes(40));
                let v = inp.bytes(40);
                let mut props = c.properties();
                if !props.iter().any(|(k, _)| *k == name) {
                    props.push((name, v));
                    props.sort();
                    c.set_properties(&props, 1);
                }
            }
            1 => {
                let mut name = b"~".to_vec();
                name.extend(inp.bytes(40));
                let v = inp.bytes(12);
                if c.meta_value(&name).is_none() {
                    c.set_meta(&name, v);
                }
            }
            2 => {
                let mut props = c.properties();
                for (k, v) in &mut props {
                    if k == b"rocksdb.index.key.is.user.key" || k == b"rocksdb.index.value.is.delta.encoded" {
                        v.push(inp.byte());
                    }
                }
                c.set_properties(&props, 1);
            }
            3 => {
                let interval = 1 + inp.byte() as usize;
                let props = c.properties();
                c.set_properties(&props, interval);
            }
            4 => c.meta_interval = 1 + inp.byte() as usize,
            5 => {
                if c.meta_value(b"rocksdb.stats").is_none() {
                    c.rename_meta(b"rocksdb.properties", b"rocksdb.stats");
                }
            }
            // --- hostile edits: anything may happen but a panic
            6 => {
                benign = false;
                let name = KNOWN_PROPS[inp.byte() as usize % KNOWN_PROPS.len()];
                let v = inp.bytes(24);
                c.edit_property(name, v);
            }
            7 => {
                benign = false;
                if let Some((name, h)) = c.filter_entry() {
                    if name.starts_with(b"fullfilter.") {
                        let mut f = c.block(h).to_vec();
                        if !f.is_empty() {
                            let at = inp.u16() % f.len();
                            f[at] = inp.byte();
                            // Trailer bytes more often than bit-array bytes.
                            if inp.byte() & 1 == 0 {
                                let n = f.len();
                                f[n.saturating_sub(1 + inp.byte() as usize % 5)] = inp.byte();
                            }
                        }
                        c.set_full_filter(&f);
                    }
                }
            }
            8 => {
                benign = false;
                let i = inp.byte() as usize;
                if !c.meta.is_empty() {
                    let i = i % c.meta.len();
                    let mut name = c.meta[i].0.clone();
                    match inp.byte() % 3 {
                        0 => name.truncate(name.len().saturating_sub(1)),
                        1 => name.push(inp.byte()),
                        _ => {
                            let e = c.meta[i].clone();
                            c.meta.insert(i, e);
                        }
                    }
                    c.meta[i].0 = name;
                }
            }
            9 => {
                benign = false;
                let (a, b) = (inp.byte() as usize, inp.byte() as usize);
                if c.meta.len() > 1 {
                    let n = c.meta.len();
                    c.meta.swap(a % n, b % n);
                }
            }
            10 | 11 => {
                benign = false;
                if let Some((_, mut entries)) = c.partition_index().filter(|(_, e)| !e.is_empty()) {
                    let n = entries.len();
                    let (a, b) = (inp.byte() as usize % n, inp.byte() as usize % n);
                    match inp.byte() % 6 {
                        0 => entries.swap(a, b),
                        1 => entries[a].0 = inp.bytes(20),
                        2 => entries[a].1 = entries[b].1,
                        3 => entries[a].1 = Handle { offset: inp.u16() as u64, size: inp.u16() as u64 },
                        4 => {
                            let e = entries[a].clone();
                            let copies = inp.u16() % 3000;
                            entries.splice(a..a, std::iter::repeat_n(e, copies));
                        }
                        _ => {
                            let mut k = entries[a].0.clone();
                            for i in 0..inp.u16() % 1500 {
                                k.push(i as u8);
                                entries.push((k.clone(), entries[b].1));
                            }
                        }
                    }
                    c.set_partition_index(&entries);
                }
            }
            12 => {
                benign = false;
                // A chain of properties each extending the previous name.
                let mut props = c.properties();
                let mut name = b"~".to_vec();
                for _ in 0..inp.u16() % 1500 {
                    name.push(b'~');
                    props.push((name.clone(), vec![]));
                }
                c.set_properties(&props, 1 << 20);
            }
            13 => {
                benign = false;
                if let Some((name, h)) = c.filter_entry() {
                    let b = c.block(h).to_vec();
                    let nh = c.add_damaged_block(&b);
                    c.set_meta(&name, nh.encode());
                }
            }
            14 => {
                benign = false;
                let props = c.properties();
                let seq = inp.u16() as u64;
                c.set_properties_with_rewritten_global_seqno(&props, seq);
            }
            _ => {
                benign = false;
                let v = inp.bytes(20);
                if !c.meta.is_empty() {
                    let i = inp.byte() as usize % c.meta.len();
                    c.meta[i].1 = v;
                }
            }
        }
    }
    let file = c.finish();
    let probe = probe_keys(data);
    match Sst::from_bytes(&file) {
        Err(e) => {
            assert!(!e.message().is_empty());
            assert!(!benign, "a file with only benign edits was refused: {e}");
        }
        Ok(sst) => {
            if let SstFilter::Full(f) = sst.filter() {
                check_filter(f, &probe);
            }
            let mut batch = vec![false; probe.len()];
            sst.may_match_batch(&probe, &mut batch);
            for (k, b) in probe.iter().zip(batch) {
                assert_eq!(sst.may_match(k), b, "the batch query differs from the single one");
                let _ = sst.prefix_may_match(k);
            }
            // The same keys in order (the partitioned batch's runs).
            let mut sorted = probe.clone();
            sorted.sort();
            let mut batch = vec![false; sorted.len()];
            sst.may_match_batch(&sorted, &mut batch);
            for (k, b) in sorted.iter().zip(batch) {
                assert_eq!(sst.may_match(k), b, "the batch query in key order differs from the single one");
            }
            if benign {
                for k in &keys {
                    assert!(sst.may_match(k), "benign edits lost key {:?}", String::from_utf8_lossy(k));
                }
                let mut batch = vec![false; keys.len()];
                sst.may_match_batch(&keys, &mut batch);
                assert!(batch.iter().all(|&b| b), "benign edits lost a key in a batch in key order");
            }
        }
    }
});
