//! Writes seed inputs for the fuzz targets into DIR/<target>/:
//!   cargo run --manifest-path fuzz/Cargo.toml --example gen_seeds -- DIR
//! * filter_load_query: blocks our builder makes for every policy at a few
//!   sizes and bits/key, plus the trailer-only edge cases;
//! * build_roundtrip: encoded structured inputs (every policy and edge bpk);
//! * sst_source_faults: fault descriptions over the synthetic bases and over
//!   whole crafted SSTs (full, partitioned, block-based).
//!
//! SST seeds come from real RocksDB files (sst_fixtures/generate.sh; the
//! hardening script copies small ones in).

use std::path::Path;

use rocksfilter::{FilterBuilder, Policy};
use rocksfilter_fuzz::craft;
use rocksfilter_fuzz::{encode_build_input, AddOp, BITS_PER_KEY};

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn main() {
    let out = std::env::args().nth(1).expect("usage: gen_seeds DIR");
    let out = Path::new(&out);
    let fl = out.join("filter_load_query");
    let policies = [(Policy::Bloom, "bloom"), (Policy::Ribbon, "ribbon"), (Policy::LegacyBloom, "legacy")];
    for (policy, pname) in policies {
        for bpk in [1.0, 10.0, 23.5] {
            for n in [1usize, 7, 200, 1500] {
                let mut b = FilterBuilder::new(policy, bpk).unwrap();
                for i in 0..n {
                    b.add_key(format!("key{i:06}").as_bytes());
                }
                let block = b.finish().unwrap();
                if block.len() <= 4096 {
                    write(&fl, &format!("{pname}_bpk{bpk}_n{n}"), &block);
                }
            }
        }
    }
    // Trailer-only oddities: reserved markers, tiny Ribbon, legacy line sizes.
    write(&fl, "empty", b"");
    write(&fl, "ribbon_1block", &[0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0, 1, 0, 0]);
    write(&fl, "ribbon_max_blocks", &[0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 7, 0xff, 0xff, 0xff]);
    let mut legacy128 = vec![0u8; 256];
    legacy128.extend_from_slice(&[6, 2, 0, 0, 0]);
    write(&fl, "legacy_128byte_lines", &legacy128);
    let mut fastlocal = vec![0xffu8; 64];
    fastlocal.extend_from_slice(&[0xff, 0, 6, 0, 0]);
    write(&fl, "fastlocal_one_line", &fastlocal);

    let br = out.join("build_roundtrip");
    let keys: Vec<Vec<u8>> = (0..20).map(|i| format!("k{i}").into_bytes()).collect();
    for policy in 0..3u8 {
        for sel in 0..BITS_PER_KEY.len() as u8 {
            let ops: Vec<(AddOp, &[u8])> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| ([AddOp::Key, AddOp::KeyAndAlt, AddOp::Hash][i % 3], k.as_slice()))
                .filter(|(op, _)| policy != 2 || *op != AddOp::Hash)
                .collect();
            write(&br, &format!("p{policy}_bpk{sel}"), &encode_build_input(policy, sel, None, 0, &ops));
        }
        write(&br, &format!("p{policy}_gen3000"), &encode_build_input(policy, 7, None, 3000, &[]));
        write(
            &br,
            &format!("p{policy}_raw_bpk"),
            &encode_build_input(policy, 0xff, Some(3.3), 50, &[(AddOp::Key, b"")]),
        );
    }

    // Fault descriptions (mode, nth, position, xor, base) over synthetic
    // bases (no file after the six bytes) and crafted files.
    let sf = out.join("sst_source_faults");
    for mode in [0u8, 1, 2, 3, 0x22, 0x12] {
        for base in [0u8, 3, 4 | 3, 8 | 2, 8 | 4 | 3, 16 | 2, 24 | 1, 32 | 3] {
            write(&sf, &format!("m{mode:02x}_b{base}"), &[mode, 1, 0x10, 0, 0x40, base]);
        }
    }
    // Whole crafted files after the description: full, partitioned and
    // block-based, each failing its second read.
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| format!("key{i:06}").into_bytes()).collect();
    let files = [
        ("full", craft::Crafted::synthetic(&keys, Policy::Bloom, None).finish()),
        ("partitioned", craft::Crafted::synthetic(&keys, Policy::Ribbon, Some(100)).finish()),
        ("block_based", craft::Crafted::block_based(&keys, 20, 300, Some(7), None).finish()),
    ];
    for (name, file) in files {
        for nth in 1..=3u8 {
            let mut input = vec![0u8, nth - 1, 0, 0, 0, 0];
            input.extend_from_slice(&file);
            write(&sf, &format!("crafted_{name}_fail{nth}"), &input);
        }
    }
}
