//! Resource limits on hostile inputs: every crafted file of
//! `craft::resource_files` (each about 1 MB or less, checksums valid) opens
//! within 16 MiB of allocations, with no allocation larger than the file
//! needs, and a prefix query over 80,000 partitions sharing the prefix
//! consults at most `MAX_PARTITIONS_PER_QUERY` of them. Bytes are counted by
//! a global allocator, not timed (the `hostile` benchmark times them).
//!
//! One test in its own binary, so no other test allocates meanwhile.

#[path = "support/craft.rs"]
mod craft;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use rocksfilter::sst::MAX_PARTITIONS_PER_QUERY;
use rocksfilter::{Sst, SstFilter, SstOptions};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        LARGEST.fetch_max(l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CURRENT.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

const LIMIT: usize = 16 << 20;

#[test]
fn hostile_files_open_in_bounded_memory() {
    for (name, file, prefix) in craft::resource_files() {
        let base = CURRENT.load(Relaxed);
        PEAK.store(base, Relaxed);
        LARGEST.store(0, Relaxed);
        let sst = Sst::from_bytes(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        let peak = PEAK.load(Relaxed) - base;
        let largest = LARGEST.load(Relaxed);
        println!(
            "{name}: {} bytes of file, {peak} bytes allocated at peak, largest allocation {largest}, filter {}",
            file.len(),
            match sst.filter() {
                SstFilter::None => "none".to_string(),
                SstFilter::Full(_) => "full".to_string(),
                SstFilter::Partitioned(p) => format!("{} partitions, {} distinct", p.len(), p.filters().len()),
                SstFilter::Unsupported(w) => format!("not used: {w}"),
                other => format!("{other:?}"),
            }
        );
        assert!(file.len() < 1_400_000, "{name}: the input should be about 1 MB, is {}", file.len());
        assert!(peak < LIMIT, "{name}: {peak} bytes allocated at peak (limit {LIMIT})");
        if let SstFilter::Partitioned(p) = sst.filter() {
            // Each distinct partition block is loaded (and verified) once.
            assert!(p.filters().len() <= 2, "{name}: {} distinct filters", p.filters().len());
            if !prefix.is_empty() {
                let consulted = p.consulted_for_prefix(&prefix);
                assert!(consulted <= MAX_PARTITIONS_PER_QUERY, "{name}: consults {consulted} partitions");
                assert!(sst.prefix_may_match(&prefix).unwrap());
            }
        }
        // Every file still answers queries, and cheaply in memory.
        let before = CURRENT.load(Relaxed);
        PEAK.store(before, Relaxed);
        let keys = [&b"p000:000001"[..], b"zzz", b""];
        for k in keys {
            let _ = sst.may_match(k);
        }
        let mut results = [false; 3];
        sst.may_match_batch(&keys, &mut results);
        assert_eq!(PEAK.load(Relaxed), before, "{name}: a query allocated");
        drop(sst);
        // Through a read source the file is copied in by ranges: within the
        // same bound (every range is checked against the source's size
        // before its buffer is allocated).
        let base = CURRENT.load(Relaxed);
        PEAK.store(base, Relaxed);
        let via = Sst::open_source(file.as_slice(), SstOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let peak = PEAK.load(Relaxed) - base;
        println!("{name}: through a source, {peak} bytes allocated at peak, {:?}", via.open_stats());
        assert!(peak < LIMIT + file.len(), "{name}: {peak} bytes allocated at peak through a source");
    }
}
