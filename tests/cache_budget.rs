//! The filter cache's budget under concurrent load, counted by the
//! allocator: with a cache of capacity C, the library's memory beyond what
//! the open handles held after open stays at most C plus, per querying
//! thread, the one block it is reading (the cache's blocks are in its own
//! arena, not the allocator's: that bound now holds with the capacity to
//! spare, and `tests/cache_rss.rs` counts the arena's resident pages); and
//! a soak of millions of queries
//! from many threads, with handles opened and closed all the while, whose
//! every answer equals the fully loaded handle's and which leaks nothing.
//! (One test: the allocator counts the whole process.)

#[path = "support/craft.rs"]
mod craft;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering};

use craft::Crafted;
use rocksfilter::sst::SstOptions;
use rocksfilter::{FilterCache, Policy, Sst};

/// Live bytes and their peak since the last reset.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Ordering::Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Ordering::Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            let now =
                LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed) + new as isize - l.size() as isize;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::SeqCst)
}

/// SplitMix64.
fn next(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct File {
    path: PathBuf,
    /// Probe keys (present and absent) and the fully loaded handle's answers.
    probes: Vec<Vec<u8>>,
    want: Vec<bool>,
    present: usize,
}

const FILES: usize = 16;
const KEYS: usize = 100_000;
/// Keys per partition: about 2.5 KB partitions at 10 bits/key.
const PER_PARTITION: usize = 2_000;
const THREADS: usize = 8;
const CAPACITY: usize = 256 << 10;

fn files(dir: &std::path::Path) -> Vec<File> {
    (0..FILES)
        .map(|f| {
            let ks: Vec<Vec<u8>> = (0..KEYS).map(|i| format!("file{f:02}-key{i:09}").into_bytes()).collect();
            let policy = if f % 2 == 0 { Policy::Bloom } else { Policy::Ribbon };
            let bytes = Crafted::synthetic(&ks, policy, Some(PER_PARTITION)).finish();
            let path = dir.join(format!("{f:02}.sst"));
            std::fs::write(&path, &bytes).unwrap();
            let mut probes: Vec<Vec<u8>> = ks.iter().step_by(10).cloned().collect();
            let present = probes.len();
            probes.extend(ks.iter().step_by(10).map(|k| [k.as_slice(), b"~absent"].concat()));
            let loaded = Sst::from_bytes(&bytes).unwrap();
            let want = probes.iter().map(|k| loaded.may_match(k)).collect();
            File { path, probes, want, present }
        })
        .collect()
}

#[test]
fn the_budget_holds_under_concurrent_queries_and_a_soak_leaks_nothing() {
    let dir = std::env::temp_dir().join(format!("rocksfilter-cache-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = files(&dir);
    let queries_per_thread: usize =
        std::env::var("ROCKSFILTER_SOAK_QUERIES").ok().and_then(|v| v.parse().ok()).unwrap_or(300_000);

    let before_open = live();
    let cache = FilterCache::new(CAPACITY);
    let opts = SstOptions::default().with_cache(cache.clone());
    let handles: Vec<Sst<'static>> = files.iter().map(|f| Sst::open_with(&f.path, opts.clone()).unwrap()).collect();
    // The largest block a thread may hold beyond the cache: a partition
    // (read into an aligned buffer) and its entry.
    let max_block: usize = {
        let probe = Sst::open(&files[0].path).unwrap();
        let rocksfilter::SstFilter::Partitioned(p) = probe.filter() else { panic!("partitioned") };
        let r = Sst::open(&files[1].path).unwrap();
        let rocksfilter::SstFilter::Partitioned(q) = r.filter() else { panic!("partitioned") };
        p.filters().iter().chain(q.filters()).map(|f| f.as_bytes().len()).max().unwrap() + 64 + 128 + 5
    };
    let queries = AtomicU64::new(0);
    let absent_rejected = AtomicU64::new(0);
    let opened = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let baseline = live();
    PEAK.store(baseline, Ordering::SeqCst);

    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (files, handles, cache, queries, absent_rejected) =
                (&files, &handles, &cache, &queries, &absent_rejected);
            s.spawn(move || {
                let mut x = t as u64 * 7919 + 1;
                let mut batch_keys: Vec<&[u8]> = Vec::with_capacity(256);
                let mut batch_want = Vec::with_capacity(256);
                let mut results = vec![false; 256];
                let mut done = 0;
                while done < queries_per_thread {
                    let f = next(&mut x) as usize % FILES;
                    let file = &files[f];
                    if t % 2 == 0 {
                        // Single queries, uniform over the file's probes.
                        let i = next(&mut x) as usize % file.probes.len();
                        let got = handles[f].may_match(&file.probes[i]);
                        assert_eq!(got, file.want[i], "file {f} probe {i}");
                        if !got {
                            absent_rejected.fetch_add(1, Ordering::Relaxed);
                        }
                        done += 1;
                    } else {
                        // Batches of 256 random probes of one file.
                        batch_keys.clear();
                        batch_want.clear();
                        for _ in 0..256 {
                            let i = next(&mut x) as usize % file.probes.len();
                            batch_keys.push(&file.probes[i]);
                            batch_want.push(file.want[i]);
                        }
                        handles[f].may_match_batch(&batch_keys, &mut results);
                        assert_eq!(&results[..], &batch_want[..], "file {f}: batch");
                        done += 256;
                    }
                    assert!(cache.bytes_held() <= CAPACITY, "the cache holds {} > {CAPACITY}", cache.bytes_held());
                }
                queries.fetch_add(done as u64, Ordering::Relaxed);
            });
        }
    });
    let peak = PEAK.load(Ordering::SeqCst) - baseline;
    let stats = cache.stats();
    let bound = CAPACITY as isize + THREADS as isize * (max_block as isize + 8192) + (64 << 10);
    println!(
        "budget: {} queries from {THREADS} threads on {FILES} files ({} partitions of up to {max_block} bytes, filters {}x the capacity): peak {peak} bytes beyond the open handles, bound {bound} (capacity {CAPACITY}); cache: {stats:?}",
        queries.load(Ordering::Relaxed),
        FILES * KEYS / PER_PARTITION,
        FILES * KEYS / PER_PARTITION * max_block / CAPACITY,
    );
    assert!(peak <= bound, "memory beyond the handles peaked at {peak} bytes, above {bound}");
    assert!(stats.evictions > 1000 && stats.hits > 1000 && stats.read_errors == 0, "{stats:?}");
    // The blocks live in the cache's own arena, which the allocator does
    // not see (tests/cache_rss.rs counts its pages): what it sees now is
    // the rings' and the arena's bookkeeping only (7,440 bytes measured).
    let now = live() - baseline;
    assert!(now <= 32 << 10, "{now} live beyond the handles, the cache holds {}", stats.bytes_held);

    // The soak: the same queries, while two threads open and close
    // handles on the same cache (each queried a little, then dropped).
    let soak_start = live();
    std::thread::scope(|s| {
        for t in 0..2 {
            let (files, opts, stop, opened) = (&files, &opts, &stop, &opened);
            s.spawn(move || {
                let mut x = 99 + t;
                while !stop.load(Ordering::Relaxed) {
                    let f = next(&mut x) as usize % FILES;
                    let h = Sst::open_with(&files[f].path, opts.clone()).unwrap();
                    for _ in 0..20 {
                        let i = next(&mut x) as usize % files[f].probes.len();
                        assert_eq!(h.may_match(&files[f].probes[i]), files[f].want[i]);
                    }
                    opened.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        let workers: Vec<_> = (0..THREADS - 2)
            .map(|t| {
                let (files, handles) = (&files, &handles);
                s.spawn(move || {
                    let mut x = 1000 + t as u64;
                    for _ in 0..queries_per_thread {
                        let f = next(&mut x) as usize % FILES;
                        let i = next(&mut x) as usize % files[f].probes.len();
                        let got = handles[f].may_match(&files[f].probes[i]);
                        assert!(got || i >= files[f].present, "file {f}: a present key answered absent");
                        assert_eq!(got, files[f].want[i]);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
    });
    let soak = cache.stats();
    println!(
        "soak: {} more queries from {} threads while {} handles were opened and closed; live bytes {} then {}; cache: {soak:?}",
        (THREADS - 2) * queries_per_thread,
        THREADS - 2,
        opened.load(Ordering::Relaxed),
        soak_start - baseline,
        live() - baseline
    );
    assert!(opened.load(Ordering::Relaxed) > 10);
    assert!(soak.bytes_held <= CAPACITY as u64);
    drop(handles);
    assert_eq!((cache.bytes_held(), cache.stats().entries), (0, 0), "closed handles leave nothing in the cache");
    drop((cache, opts));
    // Nothing of the handles or the cache is left (the thread-local counter
    // stripes hold no heap memory).
    let left = live() - before_open;
    assert!(left.abs() < 4096, "{left} bytes left after every handle and the cache were dropped");
    std::fs::remove_dir_all(&dir).unwrap();
}
