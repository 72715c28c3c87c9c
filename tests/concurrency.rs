//! Many threads querying one Filter, one Sst and one C-ABI filter handle
//! while other threads build and load filters: every answer must equal the
//! single-threaded answer, and no added key may ever be absent. Bounded
//! iterations, no timing assertions. scripts/hardening.sh also runs this
//! under ThreadSanitizer when the toolchain allows.
//!
//! With `ROCKSFILTER_SST_FIXTURES=DIR` (from `sst_fixtures/generate.sh DIR`)
//! real RocksDB files are used too; otherwise a synthetic SST built here.

use std::sync::{Arc, Barrier};
use std::thread;

use rocksfilter::internal_ffi::*;

#[path = "support/craft.rs"]
mod craft;
use rocksfilter::{hash64, Filter, FilterBuilder, Policy, Sst, SstFilter};

const QUERY_THREADS: usize = 16;
const BUILD_THREADS: usize = 4;
const ROUNDS: usize = 20;

fn keys(n: usize, tag: &str) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("{tag}{i:08}").into_bytes()).collect()
}

fn build(policy: Policy, bpk: f64, keys: &[Vec<u8>]) -> Vec<u8> {
    let mut b = FilterBuilder::new(policy, bpk).unwrap();
    keys.iter().for_each(|k| b.add_key(k));
    b.finish().unwrap()
}

/// Answers for `probes`, single-threaded: (may_match, may_match_hash, batch).
fn answers(f: &Filter<'_>, probes: &[Vec<u8>]) -> (Vec<bool>, Vec<bool>, Vec<bool>) {
    let single = probes.iter().map(|k| f.may_match(k)).collect();
    let hashed = probes.iter().map(|k| f.may_match_hash(hash64(k))).collect();
    let mut batch = vec![false; probes.len()];
    f.may_match_batch(probes, &mut batch);
    (single, hashed, batch)
}

/// Background builders: build, load, check every key, repeatedly.
fn spawn_builders(start: Arc<Barrier>) -> Vec<thread::JoinHandle<()>> {
    (0..BUILD_THREADS)
        .map(|t| {
            let start = start.clone();
            thread::spawn(move || {
                start.wait();
                let policy = [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom][t % 3];
                for round in 0..ROUNDS * 2 {
                    let ks = keys(2000 + 37 * round, &format!("t{t}r{round}-"));
                    let block = build(policy, 6.0 + t as f64, &ks);
                    let f = Filter::from_vec(block).unwrap();
                    for k in &ks {
                        assert!(f.may_match(k), "builder thread {t}: false negative");
                    }
                }
            })
        })
        .collect()
}

#[test]
fn shared_filters_answer_identically_under_load() {
    let added = keys(20_000, "added-");
    let probes: Vec<Vec<u8>> = added.iter().step_by(7).cloned().chain(keys(3000, "absent-")).collect();
    let filters: Vec<Arc<Filter<'static>>> =
        [(Policy::Bloom, 10.0), (Policy::Ribbon, 10.0), (Policy::LegacyBloom, 10.0)]
            .into_iter()
            .map(|(p, bpk)| Arc::new(Filter::from_vec(build(p, bpk, &added)).unwrap()))
            .collect();
    let expected: Vec<_> = filters.iter().map(|f| answers(f, &probes)).collect();
    let added = Arc::new(added);
    let probes = Arc::new(probes);
    let expected = Arc::new(expected);

    let start = Arc::new(Barrier::new(QUERY_THREADS + BUILD_THREADS));
    let mut handles = spawn_builders(start.clone());
    for t in 0..QUERY_THREADS {
        let (filters, added, probes, expected, start) =
            (filters.clone(), added.clone(), probes.clone(), expected.clone(), start.clone());
        handles.push(thread::spawn(move || {
            start.wait();
            for round in 0..ROUNDS {
                for i in 0..filters.len() {
                    // Threads take different orders so queries interleave.
                    let f = &filters[(i + t + round) % filters.len()];
                    let e = &expected[(i + t + round) % filters.len()];
                    assert_eq!(&answers(f, &probes), e, "thread {t} round {round}: answers changed");
                    for k in added.iter().skip(t).step_by(QUERY_THREADS) {
                        assert!(f.may_match(k), "thread {t}: added key absent");
                    }
                }
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
}

/// The same through the C ABI: one handle, many threads, single/hash/batch/packed.
#[test]
fn shared_c_handle_answers_identically_under_load() {
    struct Handle(*mut rocksfilter_filter);
    // SAFETY: the header documents rocksfilter_filter as immutable and
    // queryable from many threads at once; it is freed after every join.
    unsafe impl Send for Handle {}
    unsafe impl Sync for Handle {}

    let added = keys(10_000, "c-added-");
    let probes: Vec<Vec<u8>> = added.iter().step_by(5).cloned().chain(keys(2000, "c-absent-")).collect();
    for policy in [ROCKSFILTER_POLICY_BLOOM, ROCKSFILTER_POLICY_RIBBON, ROCKSFILTER_POLICY_LEGACY_BLOOM] {
        let (block, f) = unsafe {
            let mut b = std::ptr::null_mut();
            assert_eq!(rocksfilter_builder_new(policy, 10.0, &mut b, std::ptr::null_mut()), ROCKSFILTER_OK);
            for k in &added {
                rocksfilter_builder_add_key(b, k.as_ptr(), k.len());
            }
            let (mut data, mut len) = (std::ptr::null_mut(), 0usize);
            assert_eq!(rocksfilter_builder_finish(b, &mut data, &mut len, std::ptr::null_mut()), ROCKSFILTER_OK);
            rocksfilter_builder_free(b);
            let block = std::slice::from_raw_parts(data, len).to_vec();
            rocksfilter_bytes_free(data, len);
            let mut f = std::ptr::null_mut();
            assert_eq!(
                rocksfilter_filter_load_borrowed(block.as_ptr(), block.len(), &mut f, std::ptr::null_mut()),
                ROCKSFILTER_OK
            );
            (block, Handle(f))
        };
        let expected: Vec<bool> =
            probes.iter().map(|k| unsafe { rocksfilter_filter_may_match(f.0, k.as_ptr(), k.len()) }).collect();
        let handle = Arc::new(f);
        let (probes, added) = (Arc::new(probes.clone()), Arc::new(added.clone()));
        let expected = Arc::new(expected);
        let start = Arc::new(Barrier::new(QUERY_THREADS + BUILD_THREADS));
        let mut threads = spawn_builders(start.clone());
        for t in 0..QUERY_THREADS {
            let (h, probes, added, expected, start) =
                (handle.clone(), probes.clone(), added.clone(), expected.clone(), start.clone());
            threads.push(thread::spawn(move || {
                start.wait();
                let f = h.0 as *const rocksfilter_filter;
                let ptrs: Vec<*const u8> = probes.iter().map(|k| k.as_ptr()).collect();
                let lens: Vec<usize> = probes.iter().map(|k| k.len()).collect();
                let mut buf = Vec::new();
                let mut offsets = vec![0usize];
                for k in probes.iter() {
                    buf.extend_from_slice(k);
                    offsets.push(buf.len());
                }
                for round in 0..ROUNDS {
                    let mut batch = vec![false; probes.len()];
                    let mut packed = vec![false; probes.len()];
                    unsafe {
                        rocksfilter_filter_may_match_batch(
                            f,
                            ptrs.as_ptr(),
                            lens.as_ptr(),
                            probes.len(),
                            batch.as_mut_ptr(),
                        );
                        let st = rocksfilter_filter_may_match_packed(
                            f,
                            buf.as_ptr(),
                            buf.len(),
                            offsets.as_ptr(),
                            probes.len(),
                            packed.as_mut_ptr(),
                            std::ptr::null_mut(),
                        );
                        assert_eq!(st, ROCKSFILTER_OK);
                    }
                    assert_eq!(&batch, &*expected, "thread {t} round {round}: batch differs");
                    assert_eq!(&packed, &*expected, "thread {t} round {round}: packed differs");
                    for k in added.iter().skip(t).step_by(QUERY_THREADS) {
                        assert!(
                            unsafe { rocksfilter_filter_may_match(f, k.as_ptr(), k.len()) },
                            "thread {t}: added key absent"
                        );
                        if policy != ROCKSFILTER_POLICY_LEGACY_BLOOM {
                            let h = unsafe { rocksfilter_hash64(k.as_ptr(), k.len()) };
                            assert!(unsafe { rocksfilter_filter_may_match_hash(f, h) });
                        }
                    }
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        unsafe { rocksfilter_filter_free(handle.0) };
        drop(block);
    }
}

/// A synthetic SST (format_version 5, crc32c) whose full filter holds `keys`.
fn synthetic_sst(keys: &[Vec<u8>]) -> Vec<u8> {
    craft::Crafted::minimal(&build(Policy::Ribbon, 10.0, keys))
}

/// (SST, its keys): real fixtures when ROCKSFILTER_SST_FIXTURES is set (a
/// few full and partitioned ones), else one synthetic file.
fn ssts() -> Vec<(Arc<Sst<'static>>, Vec<Vec<u8>>, String)> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("ROCKSFILTER_SST_FIXTURES") {
        let dir = std::path::PathBuf::from(dir);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| {
                n.ends_with(".sst")
                    && (n.contains("part")
                        || (n.contains("_ascii1000") && (n.contains("ribbon10") || n.contains("bloom10"))))
            })
            .collect();
        // A spread of partitioned and of full filters.
        names.sort();
        let (part, full): (Vec<String>, Vec<String>) = names.into_iter().partition(|n| n.contains("part"));
        let chosen = part.into_iter().step_by(2).take(5).chain(full.into_iter().step_by(4).take(4));
        for name in chosen {
            let sst = Sst::open(dir.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let keys_path = dir.join(name.replace(".sst", ".keys"));
            let keys: Vec<Vec<u8>> = std::fs::read_to_string(keys_path)
                .unwrap()
                .lines()
                .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
                .collect();
            // Only files whose filter holds whole keys.
            if sst.whole_key_filtering() && !matches!(sst.filter(), SstFilter::None | SstFilter::Unsupported(_)) {
                eprintln!("concurrency: using {name}");
                out.push((Arc::new(sst), keys, name));
            }
        }
        eprintln!("concurrency: {} real SST fixtures from {}", out.len(), dir.display());
    } else {
        eprintln!("concurrency: ROCKSFILTER_SST_FIXTURES not set; using a synthetic SST (set it to also use real RocksDB files)");
    }
    // Through a file, so the memory-mapped backing is shared across threads
    // too (the mapping outlives the removed path).
    let keys = keys(5000, "sst-");
    let path = std::env::temp_dir().join(format!("rocksfilter-concurrency-{}.sst", std::process::id()));
    std::fs::write(&path, synthetic_sst(&keys)).unwrap();
    let sst = Sst::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    out.push((Arc::new(sst), keys, "synthetic".into()));
    out
}

#[test]
fn shared_sst_answers_identically_under_load() {
    for (sst, added, name) in ssts() {
        let probes: Vec<Vec<u8>> =
            added.iter().step_by(3).cloned().chain((0..2000).map(|i| format!("absent{i}").into_bytes())).collect();
        let expected: Vec<bool> = probes.iter().map(|k| sst.may_match(k)).collect();
        let (added, probes, expected) = (Arc::new(added), Arc::new(probes), Arc::new(expected));
        let start = Arc::new(Barrier::new(QUERY_THREADS + BUILD_THREADS));
        let mut threads = spawn_builders(start.clone());
        for t in 0..QUERY_THREADS {
            let (sst, added, probes, expected, start, name) =
                (sst.clone(), added.clone(), probes.clone(), expected.clone(), start.clone(), name.clone());
            threads.push(thread::spawn(move || {
                start.wait();
                for round in 0..ROUNDS {
                    let got: Vec<bool> = probes.iter().map(|k| sst.may_match(k)).collect();
                    assert_eq!(got, *expected, "{name}: thread {t} round {round}: answers changed");
                    for k in added.iter().skip(t).step_by(QUERY_THREADS) {
                        assert!(sst.may_match(k), "{name}: thread {t}: added key absent");
                    }
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
    }
}

/// Handles reading partitions on demand through one small cache: threads
/// query (single and batch) while others open and close handles on the
/// same cache, so that entries are inserted, pinned, evicted and forgotten
/// all at once. Every answer equals the handle loaded at open; the cache
/// never holds more than its capacity. (ThreadSanitizer runs this too.)
#[test]
fn cached_handles_answer_identically_under_eviction_and_churn() {
    use rocksfilter::sst::{Source, SstOptions};
    let ks = keys(20_000, "cache");
    let file: Arc<Vec<u8>> = Arc::new(craft::Crafted::synthetic(&ks, Policy::Bloom, Some(100)).finish());
    let probes: Vec<Vec<u8>> = ks.iter().step_by(7).cloned().chain(keys(3_000, "absent")).collect();
    let loaded = Sst::from_bytes(&file).unwrap();
    let want: Vec<bool> = probes.iter().map(|k| loaded.may_match(k)).collect();
    let cache = rocksfilter::FilterCache::new(4 << 10);
    let opts = SstOptions::default().with_cache(cache.clone());
    let source = || -> Arc<dyn Source + Send + Sync> { Arc::new(file.as_ref().clone()) };
    let shared = Arc::new(Sst::open_shared(source(), opts.clone()).unwrap());
    let rounds = if cfg!(debug_assertions) { 2 } else { ROUNDS };
    let start = Arc::new(Barrier::new(QUERY_THREADS / 2 + 2));
    let mut threads = Vec::new();
    for t in 0..QUERY_THREADS / 2 {
        let (shared, probes, want, cache, start) =
            (shared.clone(), probes.clone(), want.clone(), cache.clone(), start.clone());
        threads.push(thread::spawn(move || {
            start.wait();
            for r in 0..rounds {
                if (t + r) % 2 == 0 {
                    for (i, k) in probes.iter().enumerate().skip(t).step_by(3) {
                        assert_eq!(shared.may_match(k), want[i], "thread {t}: key {i}");
                    }
                } else {
                    let mut got = vec![false; probes.len()];
                    shared.may_match_batch(&probes, &mut got);
                    assert_eq!(got, want, "thread {t}: batch");
                }
                assert!(cache.bytes_held() <= cache.capacity());
            }
        }));
    }
    for t in 0..2 {
        let (probes, want, opts, start) = (probes.clone(), want.clone(), opts.clone(), start.clone());
        let src = source();
        threads.push(thread::spawn(move || {
            start.wait();
            for r in 0..rounds * 5 {
                let h = Sst::open_shared(src.clone(), opts.clone()).unwrap();
                for (i, k) in probes.iter().enumerate().skip(r + t).step_by(97) {
                    assert_eq!(h.may_match(k), want[i], "churn {t}: key {i}");
                }
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let st = cache.stats();
    assert!(st.evictions > 0 && st.hits > 0 && st.bytes_held <= st.capacity, "{st:?}");
    drop(shared);
    assert_eq!(cache.bytes_held(), 0);
}
