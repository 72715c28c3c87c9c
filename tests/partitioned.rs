//! Partitioned filters' lookups (issue #23): the bucket table's fast
//! lookup and the routed batch kernels answer every key as the textbook
//! definition does: the first partition whose separator is not before the
//! key (the last one past every separator), queried with that partition's
//! own `Filter`. Keys of many shapes (hex, decimal, binary, shorter than 8
//! bytes, a common prefix longer than 16 bytes, byte values no separator
//! has), Bloom and Ribbon partitions (with the small last partition
//! RocksDB's Ribbon policy writes as Bloom), single and batch calls, batch
//! lengths that are not multiples of the kernels' 32 and 64. Counts answers,
//! never time.

#[path = "support/craft.rs"]
mod craft;

use rocksfilter::{Kind, Policy, Sst, SstFilter};

/// SplitMix64.
fn rng(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Key sets of different shapes, sorted and distinct.
fn key_sets() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let mut seed = 23;
    let mut sets: Vec<(&'static str, Vec<Vec<u8>>)> = vec![
        ("hex", (0..40_000u64).map(|_| format!("user{:016x}", rng(&mut seed) >> 8).into_bytes()).collect()),
        ("decimal", (0..40_000u64).map(|i| format!("k{:019}", 2 * i).into_bytes()).collect()),
        ("binary", (0..40_000u64).map(|_| rng(&mut seed).to_be_bytes().to_vec()).collect()),
        ("short", (0..40_000u64).map(|i| format!("s{i}").into_bytes()).collect()),
        ("long prefix", (0..40_000u64).map(|i| format!("tenant-0042/table-users/{:08}", 3 * i).into_bytes()).collect()),
    ];
    for (_, ks) in &mut sets {
        ks.sort();
        ks.dedup();
    }
    sets
}

/// Keys to ask: the present ones, and absent ones next to them (a byte
/// changed by one, shortened, extended), outside the range, and random.
fn probes(ks: &[Vec<u8>], seed: &mut u64) -> Vec<Vec<u8>> {
    let mut p: Vec<Vec<u8>> = ks.iter().step_by(7).cloned().collect();
    for k in ks.iter().step_by(11) {
        let mut m = k.clone();
        let at = rng(seed) as usize % m.len();
        m[at] = m[at].wrapping_add(if rng(seed) & 1 == 0 { 1 } else { 255 });
        p.push(m);
        p.push(k[..k.len() - 1].to_vec());
        p.push([k.as_slice(), b"\x00"].concat());
    }
    p.extend([vec![], vec![0], b"\xff\xff\xff\xff\xff\xff\xff\xff\xff".to_vec(), b"a".to_vec()]);
    p.extend((0..2_000).map(|_| (0..1 + rng(seed) % 24).map(|_| rng(seed) as u8).collect()));
    p
}

/// Bits per key of each partition (by index).
type BitsPerKey<'a> = &'a dyn Fn(usize) -> f64;

#[test]
fn lookups_and_batches_answer_as_the_textbook_partition() {
    let mut seed = 5;
    let mut checked = 0;
    for (shape, ks) in key_sets() {
        // Bloom: 37 keys per partition, about 1,000 partitions. Ribbon:
        // 30 partitions large enough for Ribbon, and a last one of 10 keys
        // that RocksDB's policy (and so the builder) writes as Bloom; and
        // 40 partitions, all Ribbon; and Bloom in about 40 partitions,
        // each key's lines from the table the handle keeps
        // (`fast_local::may_match_lines_avx2`); and that again
        // with partitions of 6, 7 and 8 probes (10, 11 and 12 bits per
        // key, as RocksDB's `optimize_filters_for_memory` varies them) and
        // a last one of 11 (20 bits per key), which no one-round kernel
        // takes (answered through its own `Filter`).
        // And Bloom with one partition in ten at 11 bits per key (7
        // probes), as RocksDB 11.12 varies a few partitions' counts.
        let varied = |i: usize| if i == 40_000 / 1000 - 1 { 20.0 } else { [10.0, 11.0, 12.0][i % 3] };
        let few = |i: usize| if i % 10 == 3 { 11.0 } else { 10.0 };
        let cases: [(Policy, usize, BitsPerKey, &[u32]); 6] = [
            (Policy::Bloom, 37, &|_| 10.0, &[]),
            (Policy::Bloom, 1000, &|_| 10.0, &[6]),
            (Policy::Bloom, 1000, &varied, &[6, 7, 8, 11]),
            (Policy::Bloom, 1000, &few, &[6, 7]),
            (Policy::Ribbon, (ks.len() - 10) / 30, &|_| 10.0, &[]),
            (Policy::Ribbon, 1000, &|_| 10.0, &[]),
        ];
        for (policy, per, bits, want_probes) in cases {
            let bytes = craft::Crafted::synthetic_bits(&ks, policy, Some(per), 5, 1, bits).finish();
            let sst = Sst::from_bytes(&bytes).expect("opens");
            let SstFilter::Partitioned(pf) = sst.filter() else { panic!("{shape}: not partitioned") };
            let kinds: Vec<Kind> = pf.filters().iter().map(|f| f.kind()).collect();
            match policy {
                Policy::Bloom if per == 1000 => {
                    assert!(
                        kinds.iter().all(|&k| k == Kind::FastLocalBloom) && kinds.len() >= 40,
                        "{shape}: {kinds:?}"
                    );
                    let probes: std::collections::BTreeSet<u32> =
                        pf.filters().iter().filter_map(|f| f.info().num_probes()).collect();
                    assert_eq!(probes.into_iter().collect::<Vec<_>>(), want_probes, "{shape}: probe counts");
                }
                Policy::Bloom => assert!(pf.len() > 900, "{shape}: {} partitions", pf.len()),
                _ if per == 1000 => assert!(
                    kinds.iter().all(|&k| k == Kind::Standard128Ribbon) && kinds.len() >= 40,
                    "{shape}: {kinds:?}"
                ),
                _ => {
                    assert_eq!(kinds.iter().filter(|&&k| k == Kind::FastLocalBloom).count(), 1, "{shape}: {kinds:?}");
                    assert_eq!(
                        kinds.iter().filter(|&&k| k == Kind::Standard128Ribbon).count(),
                        30,
                        "{shape}: {kinds:?}"
                    );
                }
            }
            let probes = probes(&ks, &mut seed);
            // The textbook answer: the first separator not before the key
            // (separators are user keys here), else the last partition.
            let textbook = |k: &[u8]| {
                let i = (0..pf.len()).find(|&i| pf.separator(i) >= k).unwrap_or(pf.len() - 1);
                pf.filter(i).expect("loaded").may_match(k)
            };
            let want: Vec<bool> = probes.iter().map(|k| textbook(k)).collect();
            for (k, &w) in probes.iter().zip(&want) {
                assert_eq!(sst.may_match(k), w, "{shape} {policy:?}: single query of {k:?}");
            }
            // The probes as they come, and in key order (as MultiGet sends
            // them: the batch's one-compare runs).
            let mut sorted: Vec<(Vec<u8>, bool)> = probes.iter().cloned().zip(want.iter().copied()).collect();
            sorted.sort();
            let (sorted, sorted_want): (Vec<Vec<u8>>, Vec<bool>) = sorted.into_iter().unzip();
            for (order, probes, want) in [("as they come", &probes, &want), ("in order", &sorted, &sorted_want)] {
                for &len in &[1usize, 31, 33, 63, 65, 1000, probes.len()] {
                    for (c, chunk) in probes.chunks(len).enumerate() {
                        let mut out = vec![false; chunk.len()];
                        sst.may_match_batch(chunk, &mut out);
                        for (j, (&got, k)) in out.iter().zip(chunk).enumerate() {
                            assert_eq!(got, want[c * len + j], "{shape} {policy:?}: batch of {len} {order}, key {k:?}");
                        }
                    }
                }
            }
            // Every present key may match.
            assert!(ks.iter().all(|k| sst.may_match(k)), "{shape} {policy:?}: a present key answered absent");
            checked += probes.len();
        }
    }
    assert!(checked > 50_000, "{checked}");
}
