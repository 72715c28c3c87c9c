//! What a shared filter cache costs the process, counted in resident
//! bytes (`/proc/self/statm`) under glibc's malloc (the host's allocator:
//! no global allocator here), never in time.
//!
//! The RSS test is issue #58's setup: 400 handles on a partitioned SST of
//! 1,000,000 keys (321 partitions of ~3.9 KB: 1.25 MB of filter per
//! handle) share one cache, and 4 threads make 150,000 queries each (two
//! threads with uniformly random keys, two with Zipf-distributed keys over
//! the handles and the keys). RSS growth from before the opens to after the
//! queries must stay within capacity x 1.1 + 64 KiB per handle, and
//! freeing the handles and the cache must give back at least what the
//! queries added, less 1 MiB; and so must closing the handles alone
//! (the emptied cache's pages go back to the system). Each capacity (8, 32, 128 MiB) runs in a
//! child process of its own (this binary, re-run with a filter), so that
//! one capacity's pages, and glibc's heaps, do not count in another's.
//!
//! `#[ignore]`d (about 10 s per capacity on 2 cores): `make rust-test` runs
//! it with `--ignored --nocapture`, which prints the figures.

// glibc's malloc, and /proc/self/statm, are what the RSS test measures.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

#[path = "support/craft.rs"]
mod craft;

use std::path::{Path, PathBuf};

use craft::Crafted;
use rocksfilter::sst::SstOptions;
use rocksfilter::{FilterCache, Policy, Sst};

const KEYS: usize = 1_000_000;
/// 1,000,000 / 321 partitions, as RocksDB 7.8.3 cut the file
/// (~3.9 KB of filter each at 10 bits/key).
const PER_PARTITION: usize = 3_116;
const HANDLES: usize = 400;
const THREADS: usize = 4;
const QUERIES: usize = 150_000;
const MIB: f64 = (1 << 20) as f64;

fn key(i: usize, out: &mut [u8; 12]) {
    out[..3].copy_from_slice(b"key");
    let mut n = i;
    for b in out[3..].iter_mut().rev() {
        *b = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

fn keys() -> Vec<Vec<u8>> {
    let mut k = [0u8; 12];
    (0..KEYS)
        .map(|i| {
            key(i, &mut k);
            k.to_vec()
        })
        .collect()
}

/// The test's SST, written once per test directory.
fn sst(dir: &Path) -> PathBuf {
    let path = dir.join("part1m.sst");
    if !path.exists() {
        std::fs::create_dir_all(dir).unwrap();
        let bytes = Crafted::synthetic(&keys(), Policy::Bloom, Some(PER_PARTITION)).finish();
        let tmp = dir.join("part1m.sst.tmp");
        std::fs::write(&tmp, &bytes).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

fn test_dir() -> PathBuf {
    std::env::temp_dir().join(format!("rocksfilter-cache-rss-{}", std::process::id()))
}

/// Resident bytes of this process.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf only reads a constant.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize
}

/// SplitMix64.
fn next(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A Zipf-like rank below `n` (density ~ 1/rank: n^u for uniform u).
fn zipf(x: &mut u64, n: usize) -> usize {
    let u = (next(x) >> 11) as f64 / (1u64 << 53) as f64;
    ((n as f64).powf(u) as usize).clamp(1, n) - 1
}

/// One capacity, in this process: the figures, asserted.
fn measure(capacity_mib: usize, path: &Path) {
    let capacity = capacity_mib << 20;
    let before = rss();
    let cache = FilterCache::new(capacity);
    let handles: Vec<Sst<'static>> =
        (0..HANDLES).map(|_| Sst::open_with(path, SstOptions::default().with_cache(cache.clone())).unwrap()).collect();
    assert!(matches!(handles[0].filter(), rocksfilter::sst::SstFilter::Partitioned(_)));
    let opened = rss();
    let mut peak_held = 0;
    std::thread::scope(|s| {
        let ts: Vec<_> = (0..THREADS)
            .map(|t| {
                let handles = &handles;
                s.spawn(move || {
                    let mut x = t as u64 + 1;
                    let mut k = [0u8; 12];
                    let mut yes = 0usize;
                    for _ in 0..QUERIES {
                        let (h, i) = if t % 2 == 0 {
                            ((next(&mut x) % HANDLES as u64) as usize, (next(&mut x) % KEYS as u64) as usize)
                        } else {
                            // Popular ranks spread over handles and keys.
                            let h = (zipf(&mut x, HANDLES) * 151) % HANDLES;
                            let i = (zipf(&mut x, KEYS) * 7919 + 12345) % KEYS;
                            (h, i)
                        };
                        key(i, &mut k);
                        yes += handles[h].may_match(&k) as usize;
                    }
                    assert_eq!(yes, QUERIES, "present keys all match");
                })
            })
            .collect();
        while !ts.iter().all(|t| t.is_finished()) {
            peak_held = peak_held.max(cache.bytes_held());
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for t in ts {
            t.join().unwrap();
        }
    });
    let queried = rss();
    let st = cache.stats();
    // Closing the handles empties the cache, whose free pages then go back
    // to the system (MADV_DONTNEED) though the cache lives on.
    drop(handles);
    assert_eq!(cache.bytes_held(), 0);
    let closed = rss();
    drop(cache);
    let freed = rss();
    let growth = queried as f64 - before as f64;
    let bound = capacity as f64 * 1.1 + (HANDLES * (64 << 10)) as f64;
    let added = queried as f64 - opened as f64;
    let gave_back = queried as f64 - freed as f64;
    println!(
        "cache_rss: capacity {capacity_mib} MiB, {HANDLES} handles, {THREADS} threads x {QUERIES} queries: \
         opens +{:.1} MiB, queries +{:.1} MiB, growth {:.1} MiB (bound {:.1}), closing the handles -{:.1} MiB, \
         freeing handles and cache -{:.1} MiB; bytes_held peak {:.1} MiB; hits {} misses {} evictions {} uncached {}",
        (opened as f64 - before as f64) / MIB,
        added / MIB,
        growth / MIB,
        bound / MIB,
        (queried as f64 - closed as f64) / MIB,
        gave_back / MIB,
        peak_held as f64 / MIB,
        st.hits,
        st.misses,
        st.evictions,
        st.uncached,
    );
    assert!(peak_held <= capacity, "bytes_held {peak_held} over the capacity");
    assert!(growth <= bound, "RSS grew {:.1} MiB, more than {:.1}", growth / MIB, bound / MIB);
    assert!(
        gave_back >= added - MIB,
        "freeing gave back {:.1} MiB of the {:.1} the queries added",
        gave_back / MIB,
        added / MIB
    );
    let on_close = queried as f64 - closed as f64;
    assert!(
        on_close >= added - MIB,
        "closing the handles gave back {:.1} MiB of the {:.1} the queries added",
        on_close / MIB,
        added / MIB
    );
}

/// Run by [`rss_stays_within_the_capacity`] in a child process, once per
/// capacity (`ROCKSFILTER_RSS_CAPACITY_MIB`, `ROCKSFILTER_RSS_SST`).
#[test]
#[ignore = "a child of rss_stays_within_the_capacity"]
fn rss_child() {
    let (Some(cap), Some(path)) =
        (std::env::var_os("ROCKSFILTER_RSS_CAPACITY_MIB"), std::env::var_os("ROCKSFILTER_RSS_SST"))
    else {
        return;
    };
    measure(cap.to_str().unwrap().parse().unwrap(), Path::new(&path));
}

#[test]
#[ignore = "about 30 s: make rust-test runs it"]
fn rss_stays_within_the_capacity() {
    let dir = test_dir();
    let path = sst(&dir);
    let caps: Vec<usize> = match std::env::var("ROCKSFILTER_RSS_CAPACITIES") {
        Ok(v) => v.split(',').map(|c| c.trim().parse().unwrap()).collect(),
        Err(_) => vec![8, 32, 128],
    };
    let mut failed = Vec::new();
    for cap in caps {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "rss_child", "--ignored", "--nocapture", "--test-threads=1"])
            .env("ROCKSFILTER_RSS_CAPACITY_MIB", cap.to_string())
            .env("ROCKSFILTER_RSS_SST", &path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines().filter(|l| l.contains("cache_rss:") || l.contains("panicked") || l.contains("RSS")) {
            println!("{line}");
        }
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            failed.push(cap);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failed.is_empty(), "capacities (MiB) over their bound: {failed:?}");
}
