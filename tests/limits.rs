//! Size limits and hostile geometry, without allocating gigabytes:
//! * FastLocalBloom's 0xffffffc0-byte cap, legacy Bloom's 0xffff0000-bit cap
//!   and Ribbon's 950,000,000-entry fallback, through `FilterBuilder::space_for`;
//! * Ribbon trailers declaring up to 0xffffff blocks over short data;
//! * blocks of (and just over) 4 GiB, as sparse memory-mapped files: the
//!   pages are never written, so this costs address space, not memory.
//!
//! The 4 GiB cases touch only a few pages; they are normal tests. Set
//! `ROCKSFILTER_SKIP_HUGE=1` on machines without 9 GiB of free address space
//! or a /tmp that can hold sparse files.

use std::io::Write;

#[path = "support/craft.rs"]
mod craft;

use rocksfilter::{hash64, ErrorKind, Filter, FilterBuilder, FilterInfo, Kind, Policy, Sst, SstFilter, SstOptions};

const FAST_LOCAL_MAX_LEN: usize = 0xffff_ffc0;
const TRAILER: usize = 5;

fn builder(policy: Policy, bpk: f64) -> FilterBuilder {
    FilterBuilder::new(policy, bpk).unwrap()
}

#[test]
fn fast_local_bloom_caps_at_0xffffffc0_bytes() {
    let b = builder(Policy::Bloom, 10.0);
    // 10 bits/key: 0xffffffc0 bytes hold ~3.4e9 keys' worth of bits.
    let at_cap = (FAST_LOCAL_MAX_LEN as u128 * 8000 / 10_000) as usize;
    assert_eq!(b.space_for(at_cap), FAST_LOCAL_MAX_LEN + TRAILER);
    assert!(b.space_for(at_cap - 1000) < FAST_LOCAL_MAX_LEN + TRAILER);
    for n in [at_cap + 1, 1 << 40, usize::MAX / 2, usize::MAX] {
        assert_eq!(b.space_for(n), FAST_LOCAL_MAX_LEN + TRAILER, "n = {n}");
    }
    // 100 bits/key reaches the cap sooner; 1 bit/key later; never above it.
    for bpk in [1.0, 100.0, f64::INFINITY] {
        let b = builder(Policy::Bloom, bpk);
        assert_eq!(b.space_for(usize::MAX), FAST_LOCAL_MAX_LEN + TRAILER, "bpk {bpk}");
        let mut prev = 0;
        for shift in 0..64 {
            let s = b.space_for(1usize << shift);
            assert!(s >= prev, "space_for not monotonic at 2^{shift}");
            assert!(s <= FAST_LOCAL_MAX_LEN + TRAILER);
            assert_eq!((s - TRAILER) % 64, 0, "not whole cache lines at 2^{shift}");
            prev = s;
        }
    }
    assert_eq!(b.space_for(0), 0);
}

#[test]
fn legacy_bloom_caps_at_0xffff0000_bits() {
    let b = builder(Policy::LegacyBloom, 10.0);
    // Total bits capped at 0xffff0000, rounded up to an odd number of
    // 512-bit lines: 0xffff0000 / 512 = 8388480 lines (even) -> 8388481.
    let max = 8_388_481 * 64 + TRAILER;
    for n in [1usize << 32, 1 << 40, usize::MAX] {
        assert_eq!(b.space_for(n), max, "n = {n}");
    }
    assert!(b.space_for(1_000_000) < max);
}

#[test]
fn ribbon_falls_back_to_bloom_above_950_million_entries() {
    for bpk in [1.0, 7.5, 10.0, 23.45, 100.0] {
        let ribbon = builder(Policy::Ribbon, bpk);
        let bloom = builder(Policy::Bloom, bpk);
        let at = ribbon.space_for(950_000_000);
        let above = ribbon.space_for(950_000_001);
        assert!(at < bloom.space_for(950_000_000), "bpk {bpk}: Ribbon at the limit is not smaller than Bloom ({at})");
        assert_eq!((at - TRAILER) % 16, 0, "bpk {bpk}: Ribbon size not whole segments");
        assert_eq!(above, bloom.space_for(950_000_001), "bpk {bpk}: above 950M entries Ribbon must size as Bloom");
        assert_eq!(ribbon.space_for(usize::MAX), bloom.space_for(usize::MAX));
    }
}

#[test]
fn ribbon_small_filters_take_the_smaller_of_ribbon_and_bloom() {
    // Below 1024 slots RocksDB picks Bloom when it is smaller; the built
    // block must have exactly the predicted size and kind.
    for n in [1usize, 2, 10, 50, 100, 200, 500, 1000, 3000] {
        let mut b = builder(Policy::Ribbon, 10.0);
        for i in 0..n as u64 {
            b.add_hash(hash64(&i.to_le_bytes()));
        }
        let predicted = b.space_for(b.num_entries());
        let block = b.finish().unwrap();
        assert_eq!(block.len(), predicted, "n = {n}");
        let f = Filter::new(&block).unwrap();
        assert!(matches!(f.kind(), Kind::Standard128Ribbon | Kind::FastLocalBloom));
        for i in 0..n as u64 {
            assert!(f.may_match_hash(hash64(&i.to_le_bytes())), "false negative n = {n} key {i}");
        }
    }
}

/// A Ribbon trailer: marker 0xfe, seed, 24-bit block count.
fn ribbon_block(data_len: usize, seed: u8, num_blocks: u32, fill: u8) -> Vec<u8> {
    let mut b = vec![fill; data_len];
    let nb = num_blocks.to_le_bytes();
    b.extend_from_slice(&[0xfe, seed, nb[0], nb[1], nb[2]]);
    b
}

/// Queries that would read outside the block panic (slices are bounds
/// checked) or, under AddressSanitizer, are reported.
fn hammer(f: &Filter<'_>, rounds: u64) -> (usize, usize) {
    let mut yes = 0;
    let keys: Vec<Vec<u8>> = (0..rounds).map(|i| i.to_le_bytes().to_vec()).collect();
    let mut batch = vec![false; keys.len()];
    f.may_match_batch(&keys, &mut batch);
    for (i, k) in keys.iter().enumerate() {
        let a = f.may_match(k);
        assert_eq!(a, batch[i]);
        if !matches!(f.kind(), Kind::LegacyBloom) {
            assert_eq!(a, f.may_match_hash(hash64(k)));
        }
        yes += a as usize;
    }
    (yes, keys.len())
}

#[test]
fn ribbon_trailer_with_0xffffff_blocks_over_short_data() {
    // RocksDB derives columns per block from len / num_blocks: with far more
    // blocks than segments most blocks have 0 columns and answer "may
    // match". Either way nothing may be read outside the block.
    for data_len in [0usize, 16, 32, 64, 160, 4096, 1 << 20] {
        for num_blocks in [2u32, 3, 1000, 0x7fffff, 0xffffff] {
            for fill in [0x00u8, 0xff, 0x5a] {
                let block = ribbon_block(data_len, 7, num_blocks, fill);
                match Filter::new(&block) {
                    Ok(f) => {
                        // A 5-byte block (no data) is RocksDB's always-false.
                        let ok = matches!(f.kind(), Kind::Standard128Ribbon | Kind::AlwaysTrue)
                            || (data_len == 0 && f.kind() == Kind::AlwaysFalse);
                        assert!(ok, "len {data_len} blocks {num_blocks}: {:?}", f.kind());
                        if let FilterInfo::Standard128Ribbon { num_blocks: got, .. } = f.info() {
                            assert_eq!(got, num_blocks);
                        }
                        hammer(&f, 300);
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::Corruption);
                        panic!("len {data_len} blocks {num_blocks}: whole segments must load: {e}");
                    }
                }
            }
        }
    }
    // Not whole 16-byte segments: the whole ones are used (RocksDB's
    // InternalConfigure floors), never read past.
    for data_len in [17usize, 31, 4097] {
        let block = ribbon_block(data_len, 0, 0xffffff, 0);
        let f = Filter::new(&block).unwrap();
        assert_eq!(f.kind(), Kind::Standard128Ribbon);
        hammer(&f, 300);
    }
    // 0 or 1 blocks: RocksDB's always-true.
    for nb in [0, 1] {
        assert_eq!(Filter::new(&ribbon_block(64, 0, nb, 0)).unwrap().kind(), Kind::AlwaysTrue);
    }
}

#[test]
fn fast_local_and_legacy_hostile_trailers() {
    // FastLocalBloom with every probe count and a bit array of 64 bytes .. 64+63.
    for len in 64..128usize {
        for probes in 0..32u8 {
            let mut b = vec![0xffu8; len];
            b.extend_from_slice(&[0xff, 0, probes, 0, 0]);
            let f = Filter::new(&b).unwrap();
            hammer(&f, 50);
        }
    }
    // Under one cache line: RocksDB would probe past the block; always true.
    for len in 1..64usize {
        let mut b = vec![0u8; len];
        b.extend_from_slice(&[0xff, 0, 6, 0, 0]);
        assert_eq!(Filter::new(&b).unwrap().kind(), Kind::AlwaysTrue, "{len} bytes");
    }
    // Legacy Bloom: every line count that divides the array into
    // power-of-two lines loads; the rest are always true, as in RocksDB's
    // GetBuiltinFilterBitsReader (no solution to num_lines * x == len).
    for len in [1usize, 2, 64, 96, 128, 192, 1024] {
        for lines in [0u32, 1, 2, 3, 7, 16, 64, 1024, u32::MAX] {
            let mut b = vec![0xffu8; len];
            b.push(6);
            b.extend_from_slice(&lines.to_le_bytes());
            let f = Filter::new(&b).unwrap();
            let solvable = lines != 0
                && (len as u64).is_multiple_of(lines as u64)
                && (len as u64 / lines as u64).is_power_of_two();
            assert_eq!(
                f.kind(),
                if solvable { Kind::LegacyBloom } else { Kind::AlwaysTrue },
                "{len} bytes, {lines} lines"
            );
            hammer(&f, 50);
        }
    }
}

// ---------------------------------------------------------------- ~4 GiB

fn huge_enabled() -> bool {
    if std::env::var_os("ROCKSFILTER_SKIP_HUGE").is_some() {
        eprintln!("ROCKSFILTER_SKIP_HUGE set: skipping the 4 GiB sparse-file tests");
        return false;
    }
    true
}

/// A sparse file of `len` bytes whose last bytes are `tail`, memory-mapped
/// read-only. Only the tail's page is ever written.
fn sparse_map(name: &str, len: u64, tail: &[u8]) -> memmap2::Mmap {
    let path = std::env::temp_dir().join(format!("rocksfilter-limits-{}-{name}", std::process::id()));
    let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
    file.set_len(len).unwrap();
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(len - tail.len() as u64)).unwrap();
    file.write_all(tail).unwrap();
    // SAFETY: private file, not modified while mapped (removed right away;
    // the mapping keeps the inode alive).
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    std::fs::remove_file(&path).unwrap();
    map
}

#[test]
fn blocks_over_4_gib_are_refused_without_reading_them() {
    if !huge_enabled() {
        return;
    }
    let len = (1u64 << 32) + 69;
    let map = sparse_map("over4g", len, &[0xff, 0, 6, 0, 0]);
    let e = Filter::new(&map[..]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corruption);
    assert!(e.to_string().contains(&len.to_string()) && e.to_string().contains("4 GiB"), "{e}");
    // Exactly u32::MAX + 1 too.
    let e = Filter::new(&map[..1 << 32]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Corruption, "{e}");
}

#[test]
fn fast_local_bloom_of_the_maximum_size_loads_and_answers() {
    if !huge_enabled() {
        return;
    }
    // The largest block RocksDB writes: 0xffffffc0 bytes of bits + trailer,
    // all zero (sparse), so every key is absent. Queries touch one line each.
    let len = (FAST_LOCAL_MAX_LEN + TRAILER) as u64;
    let map = sparse_map("fastlocal-max", len, &[0xff, 0, 6, 0, 0]);
    let f = Filter::new(&map[..]).unwrap();
    assert_eq!(f.kind(), Kind::FastLocalBloom);
    // (Each first touch of a sparse page costs a page-cache fault, ~0.5 ms.)
    let (yes, n) = hammer(&f, 256);
    assert_eq!(yes, 0, "an all-zero Bloom filter matched {yes} of {n} keys");
    // Hashes aimed at the very last line.
    for h in [u64::MAX, u32::MAX as u64, 0xffff_fffe] {
        assert!(!f.may_match_hash(h));
    }
    // And u32::MAX total bytes (a length RocksDB can still express; the bit
    // array is not whole lines, the tail is never addressed).
    let map = sparse_map("fastlocal-u32max", u32::MAX as u64, &[0xff, 0, 6, 0, 0]);
    let f = Filter::new(&map[..]).unwrap();
    assert_eq!(hammer(&f, 256).0, 0);
}

#[test]
fn ribbon_of_the_maximum_size_loads_and_answers() {
    if !huge_enabled() {
        return;
    }
    // 0xfffffff0 bytes of segments (the most whole segments a 32-bit length
    // allows) over the most blocks a 24-bit count allows.
    let data_len = 0xffff_fff0u64;
    for num_blocks in [0xffffffu32, 2, 1 << 20] {
        let nb = num_blocks.to_le_bytes();
        let map = sparse_map("ribbon-max", data_len + 5, &[0xfe, 3, nb[0], nb[1], nb[2]]);
        let f = Filter::new(&map[..]).unwrap();
        assert_eq!(f.kind(), Kind::Standard128Ribbon);
        assert!(matches!(f.info(), FilterInfo::Standard128Ribbon { num_blocks: got, .. } if got == num_blocks));
        // All-zero solution: every key's result is 0 == its fingerprint only
        // by chance; just require no out-of-bounds read and consistency.
        hammer(&f, 256);
    }
}

// ---------------------------------------------------------------- SST

#[test]
fn synthetic_sst_with_a_full_filter_opens_and_answers() {
    let mut b = builder(Policy::Ribbon, 10.0);
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| format!("user{i:07}").into_bytes()).collect();
    keys.iter().for_each(|k| b.add_key(k));
    let block = b.finish().unwrap();
    let sst = craft::Crafted::minimal(&block);
    for verify in [true, false] {
        let s = Sst::from_bytes_with(&sst, SstOptions::default().with_verify_checksums(verify)).unwrap();
        let f = s.full_filter().expect("full filter");
        assert_eq!(f.as_bytes(), &block[..]);
        assert!(keys.iter().all(|k| s.may_match(k)));
    }
}

#[test]
fn sst_whose_filter_handle_spans_over_4_gib_is_not_used() {
    if !huge_enabled() {
        return;
    }
    // A sparse file: 4 GiB + 100 bytes of "filter" at offset 0, then a
    // metaindex pointing at it and a footer. With checksums skipped the
    // handle is in bounds and the filter loader must refuse the length.
    let filter_len: u64 = (1 << 32) + 100;
    // The metaindex starts right after the filter and its 5-byte trailer.
    let base = filter_len + 5;
    let filter = craft::Handle { offset: 0, size: filter_len };
    let meta = craft::kv_block(&[(b"fullfilter.rocksdb.BuiltinBloomFilter".to_vec(), filter.encode())], 1, true);
    let mut tail = Vec::new();
    tail.extend_from_slice(&meta);
    tail.push(0);
    tail.extend_from_slice(&[0, 0, 0, 0]); // checksum not verified
    let metaindex = craft::Handle { offset: base, size: meta.len() as u64 };
    tail.extend_from_slice(&craft::legacy_footer(1, metaindex, craft::Handle { offset: 0, size: 0 }, 5));
    // The filter's own trailer sits at filter_len - 5 .. filter_len, and the
    // block trailer (compression 0) at filter_len; both are zero in a sparse file.
    let map = sparse_map("sst-over4g", base + tail.len() as u64, &tail);
    // RocksDB would truncate the length to 32 bits and read garbage; this
    // library does not use such a filter: every key may match.
    let sst = Sst::from_bytes_with(&map[..], SstOptions::default().with_verify_checksums(false)).unwrap();
    let SstFilter::Unsupported(m) = sst.filter() else { panic!("a filter block over 4 GiB was used: {sst:?}") };
    assert!(m.contains("filter block at offset 0") && m.contains("4 GiB"), "{m}");
    assert!(sst.may_match(b"anything"));
}
