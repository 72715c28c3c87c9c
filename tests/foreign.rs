//! Files that are not RocksDB block-based tables, and the oldest footer
//! RocksDB still reads: each open names what the file is.
//!
//! The real files (Pebble's, RocksJava 5.18-10.10's format_version 0 and 1)
//! are in the family and version matrices (`make family-test`,
//! `make matrix-test`); here the footers are crafted, so this runs anywhere.

#[path = "support/craft.rs"]
mod craft;

use craft::{checksum, kv_block, Entry, Handle, LEGACY_MAGIC};
use rocksfilter::{ErrorKind, Sst, SstFilterType};

/// `len` bytes ending in `footer`.
fn ending_in(len: usize, footer: &[u8]) -> Vec<u8> {
    let mut f = vec![0x5a; len - footer.len()];
    f.extend_from_slice(footer);
    f
}

/// A 53-byte footer of the new layout with this version and magic (bytes).
fn footer53(version: u32, magic: [u8; 8]) -> Vec<u8> {
    let mut f = vec![1u8];
    f.resize(41, 0);
    f.extend_from_slice(&version.to_le_bytes());
    f.extend_from_slice(&magic);
    f
}

fn refusal(file: &[u8]) -> (ErrorKind, String) {
    let e = Sst::from_bytes(file).expect_err("refused");
    (e.kind(), e.message().to_string())
}

#[test]
fn pebble_formats_are_named() {
    // Pebble's magic: the bytes f0 9f aa b3 f0 9f aa b3 (sstable/format.go).
    let magic = [0xf0, 0x9f, 0xaa, 0xb3, 0xf0, 0x9f, 0xaa, 0xb3];
    for v in [1, 3, 4, 5, 6] {
        let (kind, msg) = refusal(&ending_in(4096, &footer53(v, magic)));
        assert_eq!(kind, ErrorKind::NotSupported, "{msg}");
        assert!(msg.contains("Pebble") && msg.contains(&format!("TableFormatPebblev{v}")), "{msg}");
        assert!(msg.contains("TableFormatLevelDB") && msg.contains("TableFormatRocksDBv2"), "says what is read: {msg}");
    }
}

#[test]
fn other_table_formats_are_named() {
    for (magic, name) in [
        (0x8242_2296_63bf_9564u64, "PlainTable"),
        (0x4f34_18eb_7a8f_13b8, "PlainTable"),
        (0x9267_89d0_c5f1_7873, "CuckooTable"),
    ] {
        let (kind, msg) = refusal(&ending_in(4096, &footer53(0, magic.to_le_bytes())));
        assert_eq!(kind, ErrorKind::NotSupported, "{msg}");
        assert!(msg.contains(name) && msg.contains("not a block-based table"), "{msg}");
    }
}

#[test]
fn damaged_and_short_files_are_corruption_with_the_offset() {
    let (kind, msg) = refusal(&ending_in(1000, &footer53(5, *b"notmagic")));
    assert_eq!(kind, ErrorKind::Corruption);
    assert!(msg.contains("bad magic number at offset 992") && msg.contains("truncated"), "{msg}");
    for len in [0, 10, 47] {
        let (kind, msg) = refusal(&vec![0u8; len]);
        assert_eq!(kind, ErrorKind::Corruption);
        assert!(msg.contains(&format!("file is {len} bytes, too short")), "{msg}");
    }
    // 48 to 52 bytes: long enough for the legacy footer only.
    let mut f = vec![0u8; 50];
    f[42..].copy_from_slice(&craft::MAGIC.to_le_bytes());
    let (kind, msg) = refusal(&f);
    assert_eq!(kind, ErrorKind::Corruption);
    assert!(msg.contains("too short for a format_version >= 1 SST footer"), "{msg}");
}

/// A block and its trailer (no compression, crc32c), appended to `file`.
fn block(file: &mut Vec<u8>, data: &[u8]) -> Handle {
    let h = Handle { offset: file.len() as u64, size: data.len() as u64 };
    let mut covered = data.to_vec();
    covered.push(0);
    file.extend_from_slice(&covered);
    file.extend_from_slice(&checksum(1, &covered).to_le_bytes());
    h
}

/// A table with no data and a metaindex of `meta`, ending in a format_version
/// 0 footer (metaindex and index handles padded to 40 bytes, legacy magic).
fn legacy_table(meta: &[Entry]) -> Vec<u8> {
    let mut f = Vec::new();
    let index = block(&mut f, &kv_block(&[], 1, true));
    let mh = block(&mut f, &kv_block(meta, 1, true));
    let mut footer = mh.encode();
    footer.extend_from_slice(&index.encode());
    footer.resize(40, 0);
    footer.extend_from_slice(&LEGACY_MAGIC.to_le_bytes());
    f.extend_from_slice(&footer);
    f
}

#[test]
fn format_version_0_footer_opens_with_crc32c() {
    let f = legacy_table(&[]);
    let sst = Sst::from_bytes(&f).expect("a format_version 0 table opens");
    assert_eq!(sst.format_version(), 0);
    assert_eq!(sst.checksum_type().name(), "crc32c");
    assert_eq!(sst.filter().filter_type(), SstFilterType::None);
    assert!(sst.may_match(b"anything"));
    // The blocks are verified with crc32c: a flipped byte in the metaindex is
    // caught and named.
    let mut bad = f.clone();
    let meta_at = bad.len() - 48 - 5 - 4;
    bad[meta_at] ^= 0x40;
    let (kind, msg) = refusal(&bad);
    assert_eq!(kind, ErrorKind::Corruption, "{msg}");
    assert!(msg.contains("metaindex") && msg.contains("crc32c"), "{msg}");
    // A handle running past the footer is named with the footer's offset.
    let mut past = f.clone();
    let at = past.len() - 48;
    past[at] = 0x7f;
    let (kind, msg) = refusal(&past);
    assert_eq!(kind, ErrorKind::Corruption, "{msg}");
}

/// Pebble v2 with a `Split` comparer adds only each key's prefix to the
/// filter and records neither `whole.key.filtering` nor a prefix extractor
/// (sst_fixtures/family/pebble/NOTES.md). A whole-key lookup there would
/// answer "absent" for keys the file holds; every key may match instead,
/// and the filter stays readable for a caller that can split keys itself.
#[test]
fn a_filter_of_prefixes_under_an_unknown_comparator_is_not_asked_for_whole_keys() {
    // MVCC-like keys: prefix, 0x00, an 8-byte version, the suffix length.
    let key = |id: u32, version: u64| {
        let mut k = format!("tbl/{id:08x}").into_bytes();
        k.push(0);
        k.extend_from_slice(&version.to_be_bytes());
        k.push(9);
        k
    };
    let prefix = |k: &[u8]| k[..k.len() - 9].to_vec();
    let keys: Vec<Vec<u8>> = (0..3000u32).map(|i| key(2 * i, 7)).collect();
    let mut prefixes: Vec<Vec<u8>> = keys.iter().map(|k| prefix(k)).collect();
    prefixes.dedup();
    for partitioned in [None, Some(256)] {
        let base = craft::Crafted::synthetic(&prefixes, rocksfilter::Policy::Bloom, partitioned);
        assert!(base.property("rocksdb.block.based.table.whole.key.filtering").is_none());
        let mut pebble = base.clone();
        pebble.edit_property("rocksdb.comparator", b"cockroach_comparator".to_vec());
        let file = pebble.finish();
        let sst = Sst::from_bytes(&file).expect("opens");
        assert!(!sst.whole_key_filtering(), "{partitioned:?}: no property, unknown comparator: prefixes");
        assert!(keys.iter().all(|k| sst.may_match(k)), "{partitioned:?}: a written key answered absent");
        let mut batch = vec![false; keys.len()];
        sst.may_match_batch(&keys, &mut batch);
        assert!(batch.iter().all(|&b| b));
        // The caller who can split keys still has the filter.
        if let Some(f) = sst.full_filter() {
            assert!(prefixes.iter().all(|p| f.may_match(p)));
            let absent = (0..3000u32).filter(|i| !f.may_match(&prefix(&key(2 * i + 1, 7)))).count();
            assert!(absent > 2800, "the prefix filter rejects absent prefixes ({absent} of 3000)");
        }
        // The same file recording whole-key filtering (as every RocksDB
        // release does) is read as it says, comparator or not.
        let mut recorded = pebble.clone();
        recorded.edit_property("rocksdb.block.based.table.whole.key.filtering", b"1".to_vec());
        let file = recorded.finish();
        assert!(Sst::from_bytes(&file).unwrap().whole_key_filtering());
        // And under the bytewise comparator a file without the property
        // holds whole keys (a reader's default).
        let file = base.finish();
        assert!(Sst::from_bytes(&file).unwrap().whole_key_filtering());
    }
}
