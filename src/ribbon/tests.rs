//! Oracle-free tests. Byte identity with RocksDB itself is proven by the
//! oracle comparison (c_tests/oracle/oracle_ribbon.cc); the golden values
//! below were produced by that oracle (RocksDB 11.12 ribbon headers) and pin
//! the output so a regression shows up without a C++ toolchain.

use super::*;
use crate::policy::{BitsPerKey, Plan, Policy, Sizer};

/// splitmix64: deterministic, dependency-free key hashes.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn hashes(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next()).collect()
    }
}

/// What `Standard128RibbonBitsBuilder::Finish` produces for some hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RibbonBuild {
    /// The whole filter block, trailer included.
    Ribbon(Vec<u8>),
    /// RocksDB would hand the same entries to its FastLocalBloom builder.
    FallBackToBloom,
}

/// The sanitised setting (the policy's derivation, not a copy of it).
fn policy(bits_per_key: f64) -> BitsPerKey {
    BitsPerKey::new(bits_per_key).unwrap()
}

/// What the builder does with these hashes: the policy's plan, then the
/// banding (all seeds failing is a fallback too).
fn build(hashes: &[u64], bits: BitsPerKey) -> RibbonBuild {
    let Some(&first) = hashes.first() else { return RibbonBuild::FallBackToBloom };
    match Plan::new(&Sizer::rocksdb(Policy::Ribbon, bits), hashes.len(), first) {
        Plan::Ribbon(sizing) => solved_block(hashes, sizing),
        _ => RibbonBuild::FallBackToBloom,
    }
}

/// A Ribbon block at an arbitrary FP target, bypassing the policy.
fn build_raw(hashes: &[u64], one_in: f64) -> RibbonBuild {
    solved_block(hashes, sizing(hashes.len(), hashes[0], one_in, RibbonFailure::OneIn20).unwrap())
}

fn solved_block(hashes: &[u64], sizing: Sizing) -> RibbonBuild {
    match solve(&[hashes], sizing) {
        Some(solved) => {
            let mut block = vec![0u8; solved.len()];
            write_into(solved, &mut block);
            RibbonBuild::Ribbon(block)
        }
        None => RibbonBuild::FallBackToBloom,
    }
}

/// The planned Ribbon block length, `None` when the plan is Bloom.
fn calculate_space(n: usize, first: u64, bits: BitsPerKey) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    match Plan::new(&Sizer::rocksdb(Policy::Ribbon, bits), n, first) {
        Plan::Ribbon(sizing) => Some(sizing.len),
        _ => None,
    }
}

fn build_bpk(hashes: &[u64], bits_per_key: f64) -> RibbonBuild {
    build(hashes, policy(bits_per_key))
}

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3))
}

fn expect_ribbon(r: RibbonBuild) -> Vec<u8> {
    match r {
        RibbonBuild::Ribbon(v) => v,
        RibbonBuild::FallBackToBloom => panic!("expected a Ribbon filter"),
    }
}

#[test]
fn golden_blocks_from_rocksdb_oracle() {
    // (n, bits_per_key, rng seed, block length, FNV-1a of block), from
    // oracle_ribbon_build on the same splitmix64 hashes.
    let golden: [(usize, f64, u64, usize, u64); 6] = [
        (1000, 10.0, 1, 885, 0xb729_35e4_cfbd_7507),
        (3000, 1.5, 2, 437, 0x845c_e11e_e180_dda7),
        (10000, 23.45, 3, 18677, 0xa288_f45f_c765_acc2),
        (2087, 6.5, 4, 1253, 0x06b0_a54d_0b87_296e),
        (50000, 99.99, 5, 206853, 0x08ef_5a9f_786a_d403),
        (500, 16.0, 6, 853, 0xac6a_0975_6a4e_e7a0),
    ];
    for (n, bpk, seed, len, hash) in golden {
        let h = Rng(seed).hashes(n);
        let block = expect_ribbon(build_bpk(&h, bpk));
        assert_eq!(block.len(), len, "n={n} bpk={bpk}");
        assert_eq!(fnv1a(&block), hash, "n={n} bpk={bpk}");
    }
}

#[test]
fn golden_num_slots_from_rocksdb_oracle() {
    let golden = [
        (1u32, 256u32),
        (100, 256),
        (200, 256),
        (249, 384),
        (250, 384),
        (1000, 1024),
        (4096, 4224),
        (100_000, 103_552),
        (131_072, 135_936),
        (1_000_000, 1_047_552),
        (950_000_000, 1_031_068_672),
    ];
    for (n, slots) in golden {
        assert_eq!(config::num_entries_to_num_slots(RibbonFailure::OneIn20, n), slots, "n={n}");
    }
    // GetNumToAdd is a near-inverse of GetNumSlots.
    for n in [1000u32, 5000, 100_000, 1_000_000] {
        let back =
            config::get_num_to_add(RibbonFailure::OneIn20, config::num_entries_to_num_slots(RibbonFailure::OneIn20, n));
        assert!(back >= n && back < n + n / 50 + 200, "n={n} back={back}");
    }
}

#[test]
fn round_trip_no_false_negatives() {
    let mut rng = Rng(42);
    for &n in &[1usize, 2, 3, 7, 10, 50, 87, 100, 200, 255, 500, 1000, 1024, 2087, 5000, 20_000, 100_000] {
        for &bpk in &[1.0, 1.5, 2.0, 4.0, 7.0, 10.0, 15.5, 23.45, 40.0, 99.99] {
            let h = rng.hashes(n);
            let bits = policy(bpk);
            let expected_len = calculate_space(n, h[0], bits);
            match build(&h, bits) {
                RibbonBuild::FallBackToBloom => assert_eq!(expected_len, None, "n={n} bpk={bpk}"),
                RibbonBuild::Ribbon(block) => {
                    assert_eq!(Some(block.len()), expected_len, "n={n} bpk={bpk}");
                    let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
                    let data = &block[..block.len() - METADATA_LEN];
                    for &k in &h {
                        assert!(geo.may_match_hash(data, k), "false negative n={n} bpk={bpk}");
                        assert!(geo.query_prepared(data, &geo.prepare(k)));
                    }
                }
            }
        }
    }
}

#[test]
fn duplicates_are_harmless() {
    let mut rng = Rng(7);
    let mut h = rng.hashes(5000);
    for i in 0..1000 {
        h[i * 5] = h[4999 - i]; // non-adjacent duplicates, as RocksDB keeps them
    }
    h.extend_from_slice(&h.clone()[..100]);
    let block = expect_ribbon(build_bpk(&h, 10.0));
    let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
    let data = &block[..block.len() - METADATA_LEN];
    assert!(h.iter().all(|&k| geo.may_match_hash(data, k)));
}

#[test]
fn trailer_layout() {
    let h = Rng(3).hashes(10_000);
    let block = expect_ribbon(build_bpk(&h, 10.0));
    let len = block.len() - METADATA_LEN;
    let t = &block[len..];
    assert_eq!(t[0], 0xFE, "marker -2");
    let num_blocks = u32::from_le_bytes([t[2], t[3], t[4], 0]);
    assert_eq!(num_blocks, config::num_entries_to_num_slots(RibbonFailure::OneIn20, 10_000) / 128);
    // Seeds are tried from the low byte of the first hash upwards (mod 256),
    // and failures are rare.
    let tries = u32::from(t[1].wrapping_sub(h[0] as u8));
    assert!(tries < 8, "seed {} first {}", t[1], h[0] as u8);
    let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
    assert_eq!(geo.seed, t[1]);
    assert_eq!(geo.num_blocks, num_blocks);
    assert_eq!(len % 16, 0);
    assert_eq!(geo.num_segments as usize * 16, len);
    let (lower, upper_blocks) = geo.num_columns_fraction();
    assert_eq!(lower + 1, geo.upper_num_columns);
    assert_eq!(upper_blocks, num_blocks - geo.upper_start_block);
    assert_eq!(lower * num_blocks + upper_blocks, geo.num_segments);
    assert_eq!(geo.num_starts, num_blocks * 128 - 127);
    // 10 bits/key Bloom-equivalent ~ 0.95% FP: 6 or 7 columns.
    assert_eq!(lower, 6);
}

#[test]
fn ordinal_seed_mapping_is_rocksdb_bijection() {
    // StandardHasher::GetOrdinalSeed inverts SetOrdinalSeed.
    const FROM_RAW_SEED_FACTOR: u64 = 0xfe1a_137d_14b4_75ab;
    let mut raws = std::collections::HashSet::new();
    for ordinal in 0u32..256 {
        let raw = hasher::ordinal_to_raw_seed(ordinal);
        let mut tmp = u64::from(raw);
        tmp ^= (tmp & 0xf0f0_f0f0_f0f0_f0f0) >> 4;
        assert_eq!(tmp.wrapping_mul(FROM_RAW_SEED_FACTOR) as u32, ordinal);
        assert!(raws.insert(raw));
    }
    assert_eq!(hasher::ordinal_to_raw_seed(0), 0);
}

#[test]
fn geometry_validation() {
    // Queries per odd geometry (fewer under Miri, which is ~1000x slower).
    let rounds = if cfg!(miri) { 50 } else { 2000 };
    // Too short for the trailer.
    for len in 0..METADATA_LEN {
        assert!(RibbonGeometry::parse(&vec![0xFE; len]).is_err());
    }
    // Wrong marker.
    let mut b = vec![0u8; 32 + 5];
    b[32..].copy_from_slice(&[0xFF, 0, 2, 0, 0]);
    let e = RibbonGeometry::parse(&b).unwrap_err();
    assert!(e.contains("offset 32") && e.contains("0xff"), "{e}");
    // num_blocks 0 and 1: always true (Ok(None)), whatever the length.
    for nb in [0u8, 1] {
        b[32..].copy_from_slice(&[0xFE, 9, nb, 0, 0]);
        assert_eq!(RibbonGeometry::parse(&b), Ok(None));
    }
    // Data length not a whole number of 16-byte segments: the whole
    // segments are used, as RocksDB's InternalConfigure does.
    for data_len in [1usize, 15, 17, 33, 1000] {
        let mut b = vec![0u8; data_len + 5];
        b[data_len..].copy_from_slice(&[0xFE, 0, 2, 0, 0]);
        let geo = RibbonGeometry::parse(&b).unwrap().unwrap();
        assert_eq!(geo.num_segments as usize, data_len / 16, "data length {data_len}");
        let mut rng = Rng(data_len as u64);
        for _ in 0..rounds {
            geo.may_match_hash(&b[..data_len], rng.next());
        }
    }
    // Truncated block from a real filter: reparsed with fewer segments,
    // never out of bounds.
    let h = Rng(11).hashes(3000);
    let block = expect_ribbon(build_bpk(&h, 10.0));
    let trailer: [u8; 5] = block[block.len() - 5..].try_into().unwrap();
    for cut in [1usize, 16, 17, 160, 1000, block.len() - 5] {
        let mut b = block[..block.len() - 5 - cut].to_vec();
        b.extend_from_slice(&trailer);
        match RibbonGeometry::parse(&b) {
            Err(e) => panic!("cut {cut}: {e}"),
            Ok(geo) => {
                let geo = geo.unwrap();
                assert!(geo.num_segments as usize * 16 <= b.len() - 5);
                let mut rng = Rng(cut as u64);
                for _ in 0..rounds {
                    geo.may_match_hash(&b[..b.len() - 5], rng.next());
                }
            }
        }
    }
}

#[test]
fn odd_but_accepted_geometries_never_read_out_of_bounds() {
    let mut rng = Rng(5);
    // Huge num_blocks over tiny data (zero-column blocks answer true), data
    // beyond 32 columns per block (ignored), zero data.
    for (num_blocks, data_len) in [(0xFF_FFFFu32, 0usize), (0xFF_FFFF, 16), (2, 16), (2, 2048), (3, 160), (1000, 48)] {
        let mut b: Vec<u8> = (0..data_len).map(|_| rng.next() as u8).collect();
        b.push(0xFE);
        b.push(rng.next() as u8);
        b.extend_from_slice(&num_blocks.to_le_bytes()[..3]);
        let geo = RibbonGeometry::parse(&b).unwrap().unwrap();
        assert!(geo.upper_num_columns <= 32);
        assert!(geo.num_segments as usize * 16 <= data_len);
        let data = &b[..data_len];
        // (Fewer under Miri, which runs this test ~1000x slower.)
        for _ in 0..if cfg!(miri) { 400 } else { 5000 } {
            let k = rng.next();
            let p = geo.prepare(k);
            assert!(p.byte_range().end <= data_len);
            assert_eq!(geo.may_match_hash(data, k), geo.query_prepared(data, &p));
        }
        if data_len == 0 {
            assert!(geo.may_match_hash(data, rng.next()));
        }
    }
    // Data slice shorter than the geometry: "may match", no panic.
    let block = expect_ribbon(build_bpk(&Rng(8).hashes(1000), 10.0));
    let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
    for _ in 0..if cfg!(miri) { 100 } else { 1000 } {
        assert!(geo.may_match_hash(&[], rng.next()));
    }
}

#[test]
fn measured_fp_rate_near_estimate() {
    let mut rng = Rng(99);
    for &(n, bpk) in &[(100_000usize, 10.0), (50_000, 3.0), (20_000, 6.5), (100_000, 1.5)] {
        let h = rng.hashes(n);
        let block = expect_ribbon(build_bpk(&h, bpk));
        let est = estimated_fp_rate(n, block.len());
        let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
        assert_eq!(geo.expected_fp_rate(), est);
        let data = &block[..block.len() - METADATA_LEN];
        let queries = 400_000;
        let fp = (0..queries).filter(|_| geo.may_match_hash(data, rng.next())).count();
        let measured = fp as f64 / queries as f64;
        // ~6 sigma for the smallest rate (~0.95%: sigma ~ 0.016 relative),
        // plus Ribbon's small per-filter variance.
        assert!((measured / est - 1.0).abs() < 0.12, "n={n} bpk={bpk} measured={measured} est={est}");
        // And Ribbon meets the Bloom-equivalent target it was sized for.
        let one_in = policy(bpk).desired_one_in_fp_rate();
        assert!((est * one_in - 1.0).abs() < 0.05, "est={est} target={}", 1.0 / one_in);
    }
}

#[test]
fn estimated_fp_rate_edges() {
    assert_eq!(estimated_fp_rate(0, 5), 0.0);
    assert_eq!(estimated_fp_rate(10, 5), 1.0);
    assert_eq!(estimated_fp_rate(10, 0), 1.0);
    assert!(estimated_fp_rate(0, 100).is_nan(), "RocksDB divides 0 by 0 here");
    // 32 columns everywhere: 2^-32.
    let slots = config::num_entries_to_num_slots(RibbonFailure::OneIn20, 1000);
    assert_eq!(estimated_fp_rate(1000, slots as usize * 4 + 5), 0.5f64.powi(32));
}

#[test]
fn fallback_decisions() {
    // 1 key at 10 bits/key: two Ribbon blocks (>= 192 bytes) vs 69-byte Bloom.
    let bits = policy(10.0);
    assert_eq!(build(&[0x1234_5678_9abc_def0], bits), RibbonBuild::FallBackToBloom);
    assert_eq!(calculate_space(1, 0x1234_5678_9abc_def0, bits), None);
    // Small filters choose the smaller of the two while num_slots < 1024.
    assert_eq!(calculate_space(100, 7, bits), None);
    assert!(calculate_space(1000, 7, bits).is_some());
    // At 1.5 bits/key a tiny Ribbon (one segment) ties Bloom's 69 bytes: Ribbon.
    let bits15 = policy(1.5);
    assert_eq!(calculate_space(1, 7, bits15), Some(69));
    // Entry count limit, decided without allocating.
    assert_eq!(calculate_space(MAX_RIBBON_ENTRIES + 1, 7, bits), None);
    assert_eq!(calculate_space(usize::MAX, 7, bits), None);
    let max = calculate_space(MAX_RIBBON_ENTRIES, 7, bits).unwrap();
    let slots = config::num_entries_to_num_slots(RibbonFailure::OneIn20, MAX_RIBBON_ENTRIES as u32) as usize;
    assert!(max > slots * 6 / 8 && max < slots * 7 / 8 + 16, "max={max} slots={slots}");
    assert!(slots / 128 < 0x100_0000, "num_blocks fits 24 bits");
    // Zero entries: RocksDB's "always false" filter has length 0.
    assert_eq!(calculate_space(0, 0, bits), Some(0));
    assert_eq!(build(&[], bits), RibbonBuild::FallBackToBloom);
    // Extreme targets: FP rate >= 100% (one segment) and < 2^-32 (32 columns).
    assert_eq!(sizing(5000, 7, 1.0, RibbonFailure::OneIn20).map(|s| s.len), Some(16 + 5));
    assert_eq!(sizing(5000, 7, f64::NAN, RibbonFailure::OneIn20).map(|s| s.len), Some(16 + 5));
    let s = config::num_entries_to_num_slots(RibbonFailure::OneIn20, 5000) as usize;
    assert_eq!(sizing(5000, 7, 1e12, RibbonFailure::OneIn20).map(|s| s.len), Some(s * 4 + 5));
}

#[test]
fn all_seeds_failing_is_detected() {
    // Far too many keys for 256 slots: every one of the 256 seeds fails.
    let h = Rng(1).hashes(1000);
    let mut b = banding::Banding::new(256);
    assert_eq!(b.find_seed_to_solve(&[&h], 200), None);
    // Normal load solves, trying seeds in order from the starting one.
    let h = Rng(2).hashes(200);
    let s = b.find_seed_to_solve(&[&h], 250).unwrap();
    assert!(!(10..250).contains(&s), "seed {s}");
}

#[test]
fn extreme_fp_targets_round_trip() {
    let h = Rng(17).hashes(3000);
    for one_in in [1.0, 1.5, 2.0, 3.9, 1e10, f64::INFINITY] {
        let block = expect_ribbon(build_raw(&h, one_in));
        let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
        let data = &block[..block.len() - METADATA_LEN];
        assert!(h.iter().all(|&k| geo.may_match_hash(data, k)), "one_in={one_in}");
    }
}

/// The AVX2 query (two columns per register), the AVX-512 one (four; where
/// the CPU and the compiler have it) and the SSE2/portable one give the
/// same answer for every column count (1 to 32: every remainder of 2 and
/// of 4), both window shapes (start_bit 0 and not), present and absent
/// keys (the vector queries' reads are held to the window by
/// `assert_query_reads_only_its_window`).
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_query_equals_portable_query() {
    let cpu = crate::arch::features();
    if !(cpu.avx2() && cpu.popcnt()) {
        return;
    }
    let mut rng = Rng(7);
    let mut columns_seen = std::collections::BTreeSet::new();
    #[allow(unused_mut, unused_variables)]
    let mut wide_checked = 0usize;
    for bpk in [1.0, 1.5, 2.0, 3.0, 4.0, 5.5, 7.0, 8.0, 10.0, 12.0, 15.5, 20.0, 23.45, 30.0, 40.0, 60.0, 99.99] {
        let h = rng.hashes(3000);
        let RibbonBuild::Ribbon(block) = build_bpk(&h, bpk) else { continue };
        let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
        columns_seen.insert(geo.upper_num_columns);
        let data = &block[..];
        let mut start_zero = 0;
        for k in h.iter().copied().chain(rng.hashes(20_000)) {
            let p = geo.prepare(k);
            start_zero += usize::from(p.start_bit == 0);
            // SAFETY: AVX2 and POPCNT detected above.
            let fast = unsafe { geo.query_prepared_avx2(data, &p) };
            assert_eq!(fast, geo.query_prepared_impl(data, &p), "bpk={bpk} key={k:#x}");
            #[cfg(rocksfilter_avx512)]
            if cpu.avx512() {
                // SAFETY: AVX-512 F and VPOPCNTDQ detected (with AVX2 and
                // POPCNT: Features::avx512).
                let wide = unsafe { geo.query_prepared_avx512(data, &p) };
                assert_eq!(wide, fast, "AVX-512, bpk={bpk} key={k:#x}");
                wide_checked += 1;
            }
        }
        assert!(start_zero > 0, "no window with start_bit 0 at bpk={bpk}");
    }
    // Every remainder of the column count by 4 was exercised.
    assert!((0..4).all(|r| columns_seen.iter().any(|c| c % 4 == r)), "{columns_seen:?}");
    #[cfg(rocksfilter_avx512)]
    if cpu.avx512() {
        assert!(wide_checked > 100_000, "{wide_checked}");
    }
}

/// A vector query (`query`, on a CPU that has its features) reads only
/// its window: each window copied so that it ends where a page no one may
/// read begins (a read past it faults), at every column count the
/// straight pass (1 to 8) and the loop (9 and up) take, answers as in the
/// block, and one byte short answers "may match".
#[cfg(all(target_arch = "x86_64", unix))]
fn assert_query_reads_only_its_window(query: impl Fn(&RibbonGeometry, &[u8], &RibbonPrepared) -> bool) {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("a page size");
    // SAFETY: a fresh anonymous mapping of two pages; no memory of ours is
    // touched. The second is made unreadable.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            2 * page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(map, libc::MAP_FAILED);
    // SAFETY: the second page lies within the mapping.
    assert_eq!(unsafe { libc::mprotect(map.cast::<u8>().add(page).cast(), page, libc::PROT_NONE) }, 0);
    let mut rng = Rng(11);
    let mut columns_seen = std::collections::BTreeSet::new();
    for bpk in [1.0, 2.0, 3.0, 4.0, 5.5, 7.0, 8.0, 10.0, 12.0, 13.0, 15.5, 23.45] {
        let h = rng.hashes(2000);
        let RibbonBuild::Ribbon(block) = build_bpk(&h, bpk) else { continue };
        let geo = RibbonGeometry::parse(&block).unwrap().unwrap();
        columns_seen.insert(geo.upper_num_columns);
        for k in h.iter().copied().chain(rng.hashes(2000)) {
            let p = geo.prepare(k);
            let range = p.byte_range();
            assert!(range.len() <= page);
            // SAFETY: the first page is readable and writable; the window
            // (at most 1 KiB) ends at its end, where the unreadable page
            // begins; nothing else refers to those bytes while `window`
            // lives.
            let window = unsafe {
                let at = map.cast::<u8>().add(page - range.len());
                std::ptr::copy_nonoverlapping(block[range.clone()].as_ptr(), at, range.len());
                std::slice::from_raw_parts(at, range.len())
            };
            // The window alone, at offset 0 of its own prepared state.
            let shifted = RibbonPrepared { segment_num: 0, ..p };
            let (whole, alone) = (query(&geo, &block, &p), query(&geo, window, &shifted));
            assert_eq!(whole, alone, "bpk={bpk} key={k:#x}");
            // One byte short of the window (blocks without columns have
            // none): "may match".
            if let Some(short) = window.len().checked_sub(1) {
                assert!(query(&geo, &window[..short], &shifted));
            }
        }
    }
    // SAFETY: the mapping made above, no longer referred to.
    assert_eq!(unsafe { libc::munmap(map, 2 * page) }, 0);
    // Column counts on both sides of the straight pass's 4 and 8.
    for c in [3, 4, 5, 7, 8] {
        assert!(columns_seen.contains(&c), "{c} columns not seen: {columns_seen:?}");
    }
    assert!(columns_seen.iter().any(|&c| c > 8), "{columns_seen:?}");
}

#[cfg(all(target_arch = "x86_64", unix))]
#[test]
fn avx2_query_reads_only_its_window() {
    let cpu = crate::arch::features();
    if !(cpu.avx2() && cpu.popcnt()) {
        return;
    }
    // SAFETY: AVX2 and POPCNT detected above.
    assert_query_reads_only_its_window(|geo, data, p| unsafe { geo.query_prepared_avx2(data, p) });
}

#[cfg(all(target_arch = "x86_64", rocksfilter_avx512, unix))]
#[test]
fn avx512_query_reads_only_its_window() {
    let cpu = crate::arch::features();
    if !cpu.avx512() {
        return;
    }
    // SAFETY: AVX-512 F and VPOPCNTDQ detected (Features::avx512).
    assert_query_reads_only_its_window(|geo, data, p| unsafe { geo.query_prepared_avx512(data, p) });
}
