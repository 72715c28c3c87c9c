//! Queries allocate nothing (ARCHITECTURE.md's "validated at load,
//! infallible queries"): single and batch queries, batches of every size
//! up to many keys per partition, in random and in key order, on full and
//! partitioned SST files, Bloom and Ribbon (partitions of differing probe
//! counts and one the one-round kernel does not take included). Counted by
//! a global allocator: every allocation call, not bytes.
//!
//! One test in its own binary, so no other test allocates meanwhile.

#[path = "support/craft.rs"]
mod craft;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use rocksfilter::{Policy, Sst, SstFilter};

struct Counting;
static CALLS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn queries_allocate_nothing() {
    let keys: Vec<Vec<u8>> = (0..40_000u64).map(|i| format!("k{:019}", 2 * i).into_bytes()).collect();
    // Partitions of 6, 7 and 8 probes and a last one of 11 (Bloom), as
    // `tests/partitioned.rs` builds them.
    let varied = |i: usize| if i == 39 { 20.0 } else { [10.0, 11.0, 12.0][i % 3] };
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("full Bloom", craft::Crafted::synthetic(&keys, Policy::Bloom, None).finish()),
        ("full Ribbon", craft::Crafted::synthetic(&keys, Policy::Ribbon, None).finish()),
        ("partitioned Bloom", craft::Crafted::synthetic(&keys, Policy::Bloom, Some(1000)).finish()),
        (
            "partitioned Bloom, varied probes",
            craft::Crafted::synthetic_bits(&keys, Policy::Bloom, Some(1000), 5, 1, &varied).finish(),
        ),
        ("partitioned Ribbon", craft::Crafted::synthetic(&keys, Policy::Ribbon, Some(1000)).finish()),
    ];
    // Present and absent keys, in a scrambled order, and the same sorted.
    let mut probes: Vec<Vec<u8>> =
        (0..8_192u64).map(|i| format!("k{:019}", (i * 7_919) % 80_000).into_bytes()).collect();
    let mut sorted = probes.clone();
    sorted.sort();
    probes.push(b"a".to_vec());
    sorted.push(b"z".to_vec());
    let mut out = vec![false; probes.len()];
    for (name, bytes) in &files {
        let sst = Sst::from_bytes(bytes).expect("opens");
        if name.starts_with("partitioned") {
            let SstFilter::Partitioned(p) = sst.filter() else { panic!("{name}: not partitioned") };
            assert_eq!(p.len(), 40, "{name}");
        }
        let before = CALLS.load(Relaxed);
        let mut present = 0;
        for k in &probes {
            present += usize::from(sst.may_match(k));
        }
        // Batches of 1 to 8,193 keys: up to 200 keys per partition.
        for order in [&probes, &sorted] {
            for len in [1, 31, 40, 320, 1_000, 4_096, order.len()] {
                for chunk in order.chunks(len) {
                    sst.may_match_batch(chunk, &mut out[..chunk.len()]);
                }
            }
        }
        let calls = CALLS.load(Relaxed) - before;
        assert_eq!(calls, 0, "{name}: queries made {calls} allocations");
        // (The queries ran: every even key up to 80,000 is in the file.)
        assert!(present >= probes.len() / 2, "{name}: {present} of {} may match", probes.len());
    }
}
