//! Golden vectors written by real RocksDB, so a plain `cargo test` (no
//! RocksDB installed) catches a format regression. Data: tests/golden/.
//!
//! Who produced them (c_tests/golden-gen.c, run by the ignored test
//! `regenerate_golden` in c_tests/tests/golden_gen.rs):
//! * `hashes.txt`: `LEN HASH64 BLOOMHASH` (hex) per key of [`hash_key`]:
//!   GetSliceHash64 (XXPH3) and the legacy BloomHash computed by RocksDB
//!   11.12's own `util/hash.h` code (c_tests/oracle, sources from the crate
//!   rust-librocksdb-sys 0.49.0+11.12.0).
//! * `{bloom,legacy,ribbon}-BPK-N.bin`: the full filter block RocksDB 7.8.3
//!   (Debian librocksdb-dev 7.8.3, C API) wrote into an SST made by
//!   `rocksdb_sstfilewriter` over the N keys [`filter_key`] (empty values, no
//!   compression), cut out by c_tests/sst_extract.c: `bloom` =
//!   `rocksdb_filterpolicy_create_bloom_full(BPK)` at format_version 5
//!   (FastLocalBloom), `legacy` = the same at format_version 4 (legacy Bloom),
//!   `ribbon` = `rocksdb_filterpolicy_create_ribbon(BPK)` at format_version 5
//!   (100 keys: RocksDB's Bloom fallback; 3000, 20000 and 200000: real
//!   Ribbon, the last past RocksDB's table of known slot counts).
//!
//! Re-derive (needs librocksdb-dev) with `make -C c_tests golden`; check the
//! committed files against RocksDB with `make c-test`.

use rocksfilter::{bloom_hash, hash64, Filter, FilterBuilder, Policy};
use std::path::PathBuf;

/// (file prefix, policy, bits/key as in the file name, keys); the same list
/// as `cases` in c_tests/golden-gen.c.
const CASES: &[(&str, Policy, &str, usize)] = &[
    ("bloom", Policy::Bloom, "1", 1),
    ("bloom", Policy::Bloom, "1", 50),
    ("bloom", Policy::Bloom, "1", 1000),
    ("bloom", Policy::Bloom, "10", 1),
    ("bloom", Policy::Bloom, "10", 50),
    ("bloom", Policy::Bloom, "10", 1000),
    ("bloom", Policy::Bloom, "23.45", 1),
    ("bloom", Policy::Bloom, "23.45", 50),
    ("bloom", Policy::Bloom, "23.45", 1000),
    ("legacy", Policy::LegacyBloom, "1", 1),
    ("legacy", Policy::LegacyBloom, "1", 50),
    ("legacy", Policy::LegacyBloom, "1", 1000),
    ("legacy", Policy::LegacyBloom, "10", 1),
    ("legacy", Policy::LegacyBloom, "10", 50),
    ("legacy", Policy::LegacyBloom, "10", 1000),
    ("legacy", Policy::LegacyBloom, "23.45", 1),
    ("legacy", Policy::LegacyBloom, "23.45", 50),
    ("legacy", Policy::LegacyBloom, "23.45", 1000),
    ("ribbon", Policy::Ribbon, "10", 100),
    ("ribbon", Policy::Ribbon, "10", 3000),
    ("ribbon", Policy::Ribbon, "10", 20000),
    // Past RocksDB's table of known slot counts (2^17 slots), so num_slots
    // comes from GetFactorForLarge.
    ("ribbon", Policy::Ribbon, "10", 200000),
];

/// Key lengths in hashes.txt, in order.
fn hash_lens() -> impl Iterator<Item = usize> {
    (0..=300).chain([1000, 4096, 5000])
}

/// The hashed key of length `len`: byte j is (j * 131 + len * 7 + 17) mod 256.
fn hash_key(len: usize) -> Vec<u8> {
    (0..len).map(|j| ((j * 131 + len * 7 + 17) & 0xff) as u8).collect()
}

/// Key i of a filter case (keys 0..N are sorted and unique, as an SST's are).
fn filter_key(i: usize) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

fn golden(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn hashes_equal_rocksdb() {
    let text = String::from_utf8(golden("hashes.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let lens: Vec<usize> = hash_lens().collect();
    assert_eq!(lines.len(), lens.len(), "hashes.txt: line count");
    for (line, &len) in lines.iter().zip(&lens) {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 3, "hashes.txt: bad line {line:?}");
        assert_eq!(f[0].parse::<usize>().unwrap(), len, "hashes.txt: lengths out of order");
        let key = hash_key(len);
        let h64 = u64::from_str_radix(f[1], 16).unwrap();
        let h32 = u32::from_str_radix(f[2], 16).unwrap();
        assert_eq!(hash64(&key), h64, "hash64 of the {len}-byte key: {:016x} vs RocksDB {h64:016x}", hash64(&key));
        assert_eq!(
            bloom_hash(&key),
            h32,
            "bloom_hash of the {len}-byte key: {:08x} vs RocksDB {h32:08x}",
            bloom_hash(&key)
        );
    }
}

#[test]
fn filter_blocks_equal_rocksdb() {
    for &(prefix, policy, bpk, n) in CASES {
        let name = format!("{prefix}-{bpk}-{n}.bin");
        let want = golden(&name);
        let mut b = FilterBuilder::new(policy, bpk.parse().unwrap()).unwrap();
        for i in 0..n {
            b.add_key(&filter_key(i));
        }
        let got = b.finish().unwrap();
        if got != want {
            let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
            panic!(
                "{name}: built block differs from RocksDB's ({} vs {} bytes, first difference at byte {first})",
                got.len(),
                want.len()
            );
        }
        let f = Filter::new(&want).unwrap_or_else(|e| panic!("{name}: Filter::new on RocksDB's block: {e}"));
        for i in 0..n {
            assert!(f.may_match(&filter_key(i)), "{name}: RocksDB's block loaded by Filter::new misses key {i}");
        }
    }
}

#[test]
fn golden_dir_holds_exactly_the_cases() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut have: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    have.sort();
    let mut want: Vec<String> = CASES.iter().map(|(p, _, b, n)| format!("{p}-{b}-{n}.bin")).collect();
    want.push("hashes.txt".into());
    want.sort();
    assert_eq!(have, want, "tests/golden/ vs CASES (and c_tests/golden-gen.c)");
}
