//! Criterion benchmarks of the Rust API (short by design).
//!
//! Full run:        cargo bench --bench filters
//! CI smoke check:  cargo bench --bench filters -- --warm-up-time 0.1 --measurement-time 0.2
//!                  (or just compile + run once: cargo test --benches --release)
//! Side-by-side with RocksDB's own code: bench/compare (see BENCHMARKS.md).

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rocksfilter::{hash64, Filter, FilterBuilder, Policy};

const N: usize = 100_000;

fn keys(n: usize, tag: u64) -> Vec<[u8; 20]> {
    (0..n as u64)
        .map(|i| {
            let mut k = [0u8; 20];
            let x = (i ^ (tag << 56)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            k[..8].copy_from_slice(&x.to_le_bytes());
            k[8..16].copy_from_slice(&(x ^ 0xdead_beef).rotate_left(17).to_le_bytes());
            k[16..].copy_from_slice(&(i as u32).to_le_bytes());
            k
        })
        .collect()
}

fn build(policy: Policy, ks: &[[u8; 20]]) -> Vec<u8> {
    let mut b = FilterBuilder::new(policy, 10.0).unwrap();
    for k in ks {
        b.add_key(k);
    }
    b.finish().unwrap()
}

fn benches(c: &mut Criterion) {
    let present = keys(N, 1);
    let absent = keys(N, 2);
    let hashes: Vec<u64> = present.iter().map(|k| hash64(k)).collect();
    for (name, policy) in [("bloom", Policy::Bloom), ("ribbon", Policy::Ribbon)] {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(N as u64));
        g.sample_size(10);
        g.bench_function("build", |b| b.iter(|| build(policy, black_box(&present))));
        let block = build(policy, &present);
        let f = Filter::new(&block).unwrap();
        g.bench_function("query_hit", |b| b.iter(|| present.iter().filter(|k| f.may_match(&k[..])).count()));
        g.bench_function("query_miss", |b| b.iter(|| absent.iter().filter(|k| f.may_match(&k[..])).count()));
        g.bench_function("query_hashed", |b| b.iter(|| hashes.iter().filter(|&&h| f.may_match_hash(h)).count()));
        let mut results = vec![false; N];
        g.bench_function("query_batch", |b| {
            b.iter(|| {
                f.may_match_batch(&present, &mut results);
                results.iter().filter(|&&r| r).count()
            })
        });
        g.finish();
    }
    let mut g = c.benchmark_group("bloom_direct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("build_bloom_exact", |b| {
        b.iter(|| FilterBuilder::build_bloom_exact(present.iter().map(|k| &k[..]), 10.0).unwrap())
    });
    g.bench_function("build_bloom_parallel_2", |b| {
        b.iter_batched(
            || (),
            |_| FilterBuilder::build_bloom_parallel(&present, 10.0, 2).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(filters, benches);
criterion_main!(filters);
