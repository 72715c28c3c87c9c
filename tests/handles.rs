//! 200,000 SST handles open at once in one process, as an engine with
//! `max_open_files = -1` holds them: files whose filters are below and
//! above glibc's 128 KiB mmap threshold, opened by path (each file
//! descriptor closed at open), then churned (every other handle closed and
//! opened again, as compactions replace files). Counts the process's
//! mappings (`/proc/self/maps`) and the bytes each handle holds beyond its
//! filter (a counting allocator), never time.
//!
//! `#[ignore]`d (about 4 GB and 20 s): `make rust-test` runs it with
//! `--ignored` in its own binary, so no other test allocates meanwhile;
//! its two tests take [`ONE_AT_A_TIME`] as well, since each counts the
//! whole process's bytes (run in parallel, one test's handles used to land
//! in the other's count: 101,971 bytes per handle instead of 1,729).

// glibc's mmap threshold and /proc/self/maps are what this test counts.
#![cfg(target_os = "linux")]

#[path = "support/craft.rs"]
mod craft;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use craft::Crafted;
use rocksfilter::{Policy, Sst};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new, Relaxed);
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn mappings() -> usize {
    std::fs::read_to_string("/proc/self/maps").unwrap().lines().count()
}

const SMALL: usize = 180_000;
const LARGE: usize = 20_000;
/// Per-handle memory beyond the filter bytes it holds.
const OVERHEAD_LIMIT: usize = 4096;
/// What a partitioned filter of 24 partitions or more keeps for its key
/// lookups whatever its partition count: a table of 256 4-byte entries for
/// each of the first 4 bytes past the separators' common prefix
/// (`sst::separators::Digits`).
const DIGIT_TABLES: usize = 4 * 256 * 4;

/// Held by each test for its whole run, whatever `--test-threads` says:
/// the counts above are the process's, not a test's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
#[ignore = "4 GB, 20 s: make rust-test runs it"]
fn two_hundred_thousand_handles_without_a_mapping_each() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // glibc's worst case, which a host may fix on purpose: every malloc of
    // 128 KiB or more is an mmap of its own (a fixed threshold turns off
    // glibc's dynamic raise after the first free).
    // SAFETY: mallopt only sets an allocator parameter.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    assert_eq!(unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10) }, 1);
    let dir = std::env::temp_dir().join(format!("rocksfilter-handles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let keys = |n: usize| {
        let mut k: Vec<Vec<u8>> = (0..n).map(|i| format!("key{i:09}").into_bytes()).collect();
        k.sort();
        k
    };
    let (small_keys, large_keys) = (keys(2_000), keys(150_000));
    let small = dir.join("small.sst");
    let large = dir.join("large.sst");
    std::fs::write(&small, Crafted::synthetic(&small_keys, Policy::Bloom, None).finish()).unwrap();
    std::fs::write(&large, Crafted::synthetic(&large_keys, Policy::Bloom, None).finish()).unwrap();
    let probe = |s: &Sst<'_>| s.open_stats().bytes_held;
    let (small_held, large_held) = (probe(&Sst::open(&small).unwrap()), probe(&Sst::open(&large).unwrap()));
    assert!(large_held > 128 << 10, "the large filter must be above the mmap threshold: {large_held}");

    let maps_before = mappings();
    let live_before = LIVE.load(Relaxed);
    let open = |i: usize| {
        Sst::open(if i.is_multiple_of(10) { &large } else { &small }).unwrap_or_else(|e| panic!("handle {i}: {e}"))
    };
    let mut handles: Vec<Sst<'static>> = Vec::with_capacity(SMALL + LARGE);
    for i in 0..SMALL + LARGE {
        handles.push(open(i));
    }
    let held: u64 = handles.iter().map(|h| h.open_stats().bytes_held).sum();
    // The large filters live in the slabs' own mappings, which the
    // counting allocator does not see; the small ones in malloc's heap.
    let in_heap: u64 = handles.iter().map(|h| h.open_stats().bytes_held).filter(|&b| b < 64 << 10).sum();
    let live = LIVE.load(Relaxed) - live_before - handles.capacity() * std::mem::size_of::<Sst<'static>>();
    let per_handle = (live as u64 - in_heap) as usize / handles.len();
    let maps_open = mappings();
    println!(
        "{} handles ({SMALL} with a {small_held}-byte filter, {LARGE} with {large_held} bytes): {held} bytes of filters held, \
         {per_handle} bytes per handle besides on the heap (plus the {}-byte Sst value), {} mappings before, {maps_open} with all open",
        handles.len(),
        std::mem::size_of::<Sst<'static>>(),
        maps_before
    );
    // Churn: close every other handle, half the large ones among them
    // (holes between the large filters' buffers), and open as many small
    // ones again.
    for i in (0..handles.len()).step_by(2) {
        handles[i] = open(if i % 20 == 0 { i + 1 } else { i });
    }
    let maps_churned = mappings();
    println!(
        "after closing every other handle and opening as many again: {maps_churned} mappings, {} slab chunks of 32 MiB",
        rocksfilter::sst::slab_chunks()
    );
    // Every answer still right.
    for (i, h) in handles.iter().enumerate().step_by(997) {
        let ks = if h.open_stats().bytes_held == large_held { &large_keys } else { &small_keys };
        assert!(ks.iter().step_by(101).all(|k| h.may_match(k)), "handle {i}");
    }
    drop(handles);
    std::fs::remove_dir_all(&dir).unwrap();
    let sst = std::mem::size_of::<Sst<'static>>();
    assert!(per_handle + sst <= OVERHEAD_LIMIT, "{per_handle} + {sst} bytes per handle beyond its filter");
    // One mapping per handle would be 20,000 at least; allow the process's
    // own growth (thread stacks, the allocator's arenas).
    for m in [maps_open, maps_churned] {
        assert!(m < maps_before + 1_000, "{m} mappings with {} handles (before: {maps_before})", SMALL + LARGE);
    }
}

/// The same per-handle overhead on files RocksDB 7.8.3 wrote (their
/// properties blocks hold about 35 properties, which a handle keeps), when
/// the fixtures are there (`make sst-test` writes them): a full filter in
/// malloc's heap (25,000 keys) and partitioned Bloom and Ribbon ones in
/// the slabs (300,000 keys).
#[test]
#[ignore = "needs real SST fixtures: make sst-test"]
fn per_handle_overhead_on_files_rocksdb_wrote() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dir) = std::env::var_os("ROCKSFILTER_SST_FIXTURES") else { return };
    let dir = std::path::PathBuf::from(dir);
    for name in [
        "r78_fv5_crc32c_bloom10_none_k2025000.sst",
        "r78_fv5_crc32c_partbloom10_none_k20300000.sst",
        "r78_fv5_crc32c_partribbon10_none_k20300000.sst",
    ] {
        let path = dir.join(name);
        let (base, chunks) = (LIVE.load(Relaxed), rocksfilter::sst::slab_chunks());
        let handles: Vec<Sst<'static>> = (0..2_000).map(|_| Sst::open(&path).unwrap()).collect();
        let held_each = handles[0].open_stats().bytes_held as usize;
        // Filters of 64 KiB and more live in the slabs' own mappings, which
        // the counting allocator does not see.
        let slab_chunks = rocksfilter::sst::slab_chunks() - chunks;
        let in_heap = if held_each >= 64 << 10 { 0 } else { held_each * handles.len() };
        let live = LIVE.load(Relaxed) - base - handles.capacity() * std::mem::size_of::<Sst<'static>>();
        let per_handle = (live - in_heap) / handles.len();
        let partitions = match handles[0].filter() {
            rocksfilter::SstFilter::Partitioned(p) => p.len(),
            _ => 0,
        };
        println!(
            "{name}: {held_each} bytes of filter held per handle ({}), {per_handle} bytes per handle besides on the heap \
             (properties{}; plus the {}-byte Sst value)",
            if in_heap == 0 { format!("in {slab_chunks} slab chunks") } else { "in malloc's heap".into() },
            match std::num::NonZeroUsize::new(partitions) {
                Some(p) => format!("; {p} partitions, {} bytes each for its separator and filter header", (per_handle - 2048) / p),
                None => String::new(),
            },
            std::mem::size_of::<Sst<'static>>()
        );
        // A fixed overhead, plus for a partitioned filter the separators'
        // digit tables (`DIGIT_TABLES`) and per partition its separator
        // key, lookup head, Filter value and (Bloom) its lines for the
        // kernels (16 bytes, `fast_local::LinesAt`).
        let sst = std::mem::size_of::<Sst<'static>>();
        let tables = if partitions >= 24 { DIGIT_TABLES } else { 0 };
        assert!(
            per_handle + sst <= OVERHEAD_LIMIT + tables + 256 * partitions,
            "{name}: {per_handle} + {sst} bytes per handle beyond its filter"
        );
    }
}
