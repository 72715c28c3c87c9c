//! The block-based filter of RocksDB < 7.0 on synthetic files
//! (`Crafted::block_based`): lookups go through the data index to the
//! filter of the 2 KiB range holding the key's data block. Real files from
//! RocksJava 5.18.4 and 6.29.5, judged by RocksDB itself, are in the version
//! matrix (`tests/matrix.rs`).

#[path = "support/craft.rs"]
mod craft;

use craft::{leveldb_bloom, Crafted};
use rocksfilter::{Sst, SstFilter, SstFilterType};

fn keys(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("{:03}/{:06}", i / 100, 2 * i).into_bytes()).collect()
}

/// The test's own model of RocksDB's lookup: the first data block whose last
/// key is >= the key, then a LevelDB Bloom over the keys of every data block
/// starting in the same 2 KiB range.
fn model(keys: &[Vec<u8>], per_block: usize, block_bytes: usize, key: &[u8]) -> bool {
    let blocks: Vec<&[Vec<u8>]> = keys.chunks(per_block).collect();
    let Some(b) = blocks.iter().position(|ks| ks.last().unwrap().as_slice() >= key) else { return false };
    let stride = (block_bytes + 5) as u64;
    let range = (b as u64 * stride) >> 11;
    let in_range: Vec<Vec<u8>> = blocks
        .iter()
        .enumerate()
        .filter(|(i, _)| (*i as u64 * stride) >> 11 == range)
        .flat_map(|(_, ks)| ks.iter().cloned())
        .collect();
    let f = leveldb_bloom(&in_range, 10);
    let mut h = rocksfilter::bloom_hash(key);
    let delta = h.rotate_right(17);
    let bits = (f.len() as u32 - 1) * 8;
    (0..f[f.len() - 1]).all(|_| {
        let bit = h % bits;
        h = h.wrapping_add(delta);
        f[(bit / 8) as usize] & (1 << (bit % 8)) != 0
    })
}

#[test]
fn block_based_filters_answer_through_the_index() {
    let ks = keys(5000);
    for two_level in [None, Some(7)] {
        let file = Crafted::block_based(&ks, 20, 300, two_level, None).finish();
        let sst = Sst::from_bytes(&file).unwrap();
        assert_eq!(sst.filter().filter_type(), SstFilterType::BlockBased, "{:?}", sst.filter());
        let SstFilter::BlockBased(b) = sst.filter() else { unreachable!() };
        assert_eq!(b.num_data_blocks(), 250);
        assert_eq!(b.base_lg(), Some(11));
        assert_eq!(b.num_filters(), ((249 * 305) >> 11) + 1);
        for k in &ks {
            assert!(sst.may_match(k), "{:?}", String::from_utf8_lossy(k));
        }
        // Absent keys between the written ones: exactly the model's answers.
        let (mut rejected, mut n) = (0, 0);
        for i in 0..5000 {
            let k = format!("{:03}/{:06}", i / 100, 2 * i + 1).into_bytes();
            let ours = sst.may_match(&k);
            assert_eq!(ours, model(&ks, 20, 300, &k), "{:?} two_level {two_level:?}", String::from_utf8_lossy(&k));
            rejected += !ours as usize;
            n += 1;
        }
        // ~200 keys per 2 KiB range at 10 bits/key: ~1% false positives.
        assert!(rejected > n * 97 / 100, "{rejected} of {n} rejected");
        // Past the last separator no data block can hold the key.
        assert!(!sst.may_match(b"999/"));
        // Before the first: the first block's range decides.
        assert_eq!(sst.may_match(b"0"), model(&ks, 20, 300, b"0"));
    }
}

#[test]
fn block_based_prefix_queries_follow_rocksdb_6() {
    let ks = keys(5000);
    let file = Crafted::block_based(&ks, 20, 300, None, Some(4)).finish();
    let sst = Sst::from_bytes(&file).unwrap();
    assert!(sst.has_prefix_filter());
    for k in &ks {
        assert!(sst.may_match(k));
        assert_eq!(sst.prefix_may_match(&k[..4]), Ok(true));
    }
    // A prefix past every key: no.
    assert_eq!(sst.prefix_may_match(b"999/"), Ok(false));
    // Prefixes that fall between blocks: decided by one block's filter,
    // and mostly rejected.
    let absent: Vec<bool> = (0..50).map(|i| sst.prefix_may_match(format!("{i:03}-").as_bytes()).unwrap()).collect();
    assert!(absent.iter().filter(|&&m| !m).count() >= 45, "{absent:?}");
}

#[test]
fn damaged_block_based_filters_never_lose_a_key() {
    let ks = keys(2000);
    let base = Crafted::block_based(&ks, 20, 300, None, None);
    let name = b"filter.rocksdb.BuiltinBloomFilter".to_vec();
    let h = base.meta_handle(&name).unwrap();
    let block = base.block(h).to_vec();
    let n = block.len();
    let mut variants: Vec<(&str, Vec<u8>)> = Vec::new();
    // base_lg 0: every data offset maps past the filters ("may match").
    let mut v = block.clone();
    v[n - 1] = 0;
    variants.push(("base_lg 0", v));
    let mut v = block.clone();
    v[n - 1] = 200;
    variants.push(("base_lg 200", v));
    // The offset-array offset past the block: unreadable, may match.
    let mut v = block.clone();
    v[n - 5..n - 1].copy_from_slice(&u32::MAX.to_le_bytes());
    variants.push(("array offset past the block", v));
    variants.push(("4-byte block", block[..4].to_vec()));
    // Probe counts above 30: reserved, match everything.
    let mut v = block.clone();
    let array = u32::from_le_bytes(v[n - 5..n - 1].try_into().unwrap()) as usize;
    for i in 0..(n - 5 - array) / 4 {
        let end = if i + 1 < (n - 5 - array) / 4 {
            u32::from_le_bytes(v[array + 4 * i + 4..array + 4 * i + 8].try_into().unwrap()) as usize
        } else {
            array
        };
        if end > 0 {
            v[end - 1] = 31;
        }
    }
    variants.push(("probe counts 31", v));
    for (what, v) in variants {
        let mut c = base.clone();
        let h2 = c.add_block(&v);
        c.set_meta(&name, h2.encode());
        let file = c.finish();
        let sst = Sst::from_bytes(&file).unwrap();
        for k in &ks {
            assert!(sst.may_match(k), "{what}: {:?}", String::from_utf8_lossy(k));
        }
    }
}
