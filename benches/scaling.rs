//! Bloom build strategies at scale (plain timing, not criterion):
//! RocksDB-style buffered builder vs the direct build (no hash buffer) vs
//! the multi-threaded build at 1, 2, ... threads; every result is checked
//! byte-identical to the buffered builder's.
//!
//!   cargo bench --bench scaling            10,000,000 keys (and 1,000,000)
//!   cargo bench --bench scaling -- --keys N
//!   cargo test --benches --release         quick run (10,000 keys)

use std::time::Instant;

use rocksfilter::{FilterBuilder, Policy};

fn keys(n: usize) -> Vec<[u8; 20]> {
    (0..n as u64)
        .map(|i| {
            let mut k = [0u8; 20];
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            k[..8].copy_from_slice(&x.to_le_bytes());
            k[8..16].copy_from_slice(&x.rotate_left(29).to_le_bytes());
            k[16..].copy_from_slice(&(i as u32).to_le_bytes());
            k
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time<T>(rounds: usize, n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut ts = Vec::new();
    let mut last = None;
    for _ in 0..rounds {
        let t = Instant::now();
        let r = f();
        ts.push(t.elapsed().as_nanos() as f64 / n as f64);
        last = Some(r);
    }
    (median(ts), last.unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let full = args.iter().any(|a| a == "--bench");
    let mut sizes = if full { vec![1_000_000, 10_000_000] } else { vec![10_000] };
    if let Some(i) = args.iter().position(|a| a == "--keys") {
        sizes = vec![args[i + 1].parse().expect("--keys N")];
    }
    let rounds = if full { 5 } else { 1 };
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    println!("{:>10} {:<26} {:>9} {:>9}", "keys", "bloom build (10 bits/key)", "ns/key", "speedup");
    for n in sizes {
        let ks = keys(n);
        let (base, want) = time(rounds, n, || {
            let mut b = FilterBuilder::new(Policy::Bloom, 10.0).unwrap();
            for k in &ks {
                b.add_key(k);
            }
            b.finish().unwrap()
        });
        println!("{n:>10} {:<26} {base:>9.2} {:>9.2}", "buffered (RocksDB-style)", 1.0);
        let (t, got) = time(rounds, n, || FilterBuilder::build_bloom_exact(ks.iter().map(|k| &k[..]), 10.0).unwrap());
        assert_eq!(got, want, "exact build differs");
        println!("{n:>10} {:<26} {t:>9.2} {:>9.2}", "direct (build_bloom_exact)", base / t);
        let mut threads = 1;
        while threads <= cpus.max(2) {
            let (t, got) = time(rounds, n, || FilterBuilder::build_bloom_parallel(&ks, 10.0, threads).unwrap());
            assert_eq!(got, want, "parallel build differs");
            println!("{n:>10} {:<26} {t:>9.2} {:>9.2}", format!("parallel, {threads} thread(s)"), base / t);
            threads *= 2;
        }
    }
    println!("(all outputs byte-identical to the buffered builder; {cpus} CPUs)");
}
