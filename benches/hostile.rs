//! Time to open each hostile file of `craft::resource_files` (about 1 MB
//! each, checksums valid): properties, metaindex and partition-index
//! chains of names each extending the previous, 50,000 partition entries
//! pointing at one 512 KiB block, and a prefix query over 60,000
//! partitions. The limit asserted nowhere but shown here: well under 50 ms
//! per open. Memory is counted, not timed, by `tests/resources.rs`.
//!
//! `cargo bench --bench hostile`

#[path = "../tests/support/craft.rs"]
mod craft;

use criterion::{criterion_group, criterion_main, Criterion};
use rocksfilter::Sst;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("hostile_open");
    g.sample_size(10);
    for (name, file, prefix) in craft::resource_files() {
        g.bench_function(name, |b| b.iter(|| Sst::from_bytes(&file).unwrap()));
        if !prefix.is_empty() {
            let sst = Sst::from_bytes(&file).unwrap();
            g.bench_function(format!("{name} (query)"), |b| b.iter(|| sst.prefix_may_match(&prefix).unwrap()));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
