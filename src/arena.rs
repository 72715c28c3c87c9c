//! The memory a [`crate::FilterCache`] shard keeps its blocks in: one
//! address range of the shard's capacity, rounded up to whole pages,
//! reserved on first use and owned by the shard, never by `malloc`.
//!
//! Why: with blocks and entries from `malloc`, each query thread's misses
//! allocated in that thread's glibc arena and evictions freed them in
//! whichever thread evicted, and glibc kept the freed memory: 400 handles
//! sharing a 32 MiB cache, 4 query threads, grew RSS by 62.9 MiB for the
//! cache alone (`tests/cache_rss.rs`, issue #58). In an arena of the
//! capacity, the pages the cache can make resident are at most that
//! range, whatever the order blocks come and go in, and dropping the
//! cache unmaps it.
//!
//! Placement:
//! * blocks of more than [`SMALL_MAX`] bytes take whole pages, first fit
//!   over the free extents ([`crate::slab::Extents`], the slabs' own
//!   allocator), freed extents merged with their free neighbours;
//! * smaller ones (entries, small partitions) take an object of a
//!   power-of-two class, 64 B to 2 KiB, packed into pages of their class;
//!   a page whose objects are all free goes back to the extents.
//!
//! The charge of a block is the bytes it takes (its class or its pages),
//! so the cache's `bytes_held` counts the arena's bytes in use, and the
//! arena's range bounds what it can hold. When no free extent fits
//! (fragmentation), the cache evicts more, else serves the query from the
//! block it read and does not cache it.
//!
//! Returning memory: a free extent of [`RELEASE_PAGES`] pages or more is
//! given back to the system (`MADV_DONTNEED` on Linux, see
//! [`crate::slab::release_pages`]), so RSS follows the cache down when
//! handles close; smaller free extents stay resident (within the range,
//! and reused by the next blocks). Invariant: every free extent of at
//! least `RELEASE_PAGES` pages holds no resident page, so only the pages
//! just freed and the small neighbours merged with them need the call.
//! Elsewhere freed pages stay resident and are reused; on Windows the
//! reservation is committed when mapped (`slab::map_pages`: commit charge,
//! not resident memory, which still grows only as pages are written).

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::ptr::NonNull;

use crate::slab::{map_pages, release_pages, unmap_pages, Extents, PAGE};

/// Largest block placed in a size class; larger ones take whole pages.
pub(crate) const SMALL_MAX: usize = 2048;
/// Smallest class (a cache line: blocks stay 64-byte aligned).
const SMALL_MIN: usize = 64;
/// Classes 64, 128, ..., 2048.
const CLASSES: usize = 6;
/// Free extents from this size on are given back to the system: 64 KiB,
/// one `madvise` per 16 pages at least.
const RELEASE_PAGES: usize = 16;
/// Pages of the smallest arena that is not empty: a page per class and
/// two for blocks, so that a tiny cache can place an entry beside its
/// block (this is the slack a small cache's RSS may have over its
/// capacity: 32 KiB per shard at most).
const MIN_PAGES: usize = CLASSES + 2;

/// A block's place in the arena (offset and bytes taken), for
/// [`Arena::free`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    offset: usize,
    size: usize,
}

/// A page of small objects: its class and which objects are taken.
struct SmallPage {
    class: u8,
    used: u64,
}

pub(crate) struct Arena {
    /// Bytes of the range (whole pages).
    len: usize,
    /// The range, once mapped (on the first allocation).
    base: Option<NonNull<u8>>,
    extents: Extents,
    /// Per class, pages (first byte's page number) with a free object.
    partial: [BTreeSet<usize>; CLASSES],
    /// Pages holding small objects.
    small: HashMap<usize, SmallPage, BuildHasherDefault<PageHasher>>,
}

/// Hashes a page number with one multiply (Fibonacci hashing): a miss
/// places, and its eviction frees, an entry in a small page under the
/// shard lock, and SipHash (std's default, built against untrusted keys;
/// these are the arena's own page numbers) took 0.6% of the samples of
/// `bench/sst --cache` under `perf`, as much as the eviction's sweep.
#[derive(Default)]
struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

// SAFETY: the arena owns its range; its bytes are reached only through the
// places it hands out, whose users (the cache, under its shard lock or a
// pin) keep them exclusive or immutable.
unsafe impl Send for Arena {}

impl Arena {
    /// An arena of `capacity` bytes rounded up to whole pages (at least
    /// [`MIN_PAGES`] unless 0); nothing is mapped until the first
    /// allocation.
    pub(crate) fn new(capacity: usize) -> Arena {
        let pages = if capacity == 0 { 0 } else { capacity.div_ceil(PAGE).max(MIN_PAGES) };
        Arena {
            len: pages * PAGE,
            base: None,
            extents: Extents::new(pages),
            partial: Default::default(),
            small: HashMap::default(),
        }
    }

    /// The bytes a block of `len` bytes takes (what the cache charges).
    pub(crate) fn size_of(len: usize) -> usize {
        if len <= SMALL_MAX {
            len.max(SMALL_MIN).next_power_of_two()
        } else {
            len.div_ceil(PAGE) * PAGE
        }
    }

    /// A place for `len` bytes (64-byte aligned); None when none is free.
    pub(crate) fn alloc(&mut self, len: usize) -> Option<Place> {
        let size = Arena::size_of(len);
        if self.base.is_none() {
            if self.len == 0 {
                return None;
            }
            self.base = Some(map_pages(self.len)?);
        }
        if size > SMALL_MAX {
            let start = self.extents.take(size / PAGE)?;
            return Some(Place { offset: start * PAGE, size });
        }
        let class = (size.trailing_zeros() - SMALL_MIN.trailing_zeros()) as usize;
        let page = match self.partial[class].first() {
            Some(&p) => p,
            None => {
                let p = self.extents.take(1)?;
                self.small.insert(p, SmallPage { class: class as u8, used: 0 });
                self.partial[class].insert(p);
                p
            }
        };
        let per_page = PAGE / size;
        let sp = self.small.get_mut(&page).expect("a partial page is a small page");
        let i = (!sp.used).trailing_zeros() as usize;
        debug_assert!(i < per_page);
        sp.used |= 1 << i;
        if sp.used.count_ones() as usize == per_page {
            self.partial[class].remove(&page);
        }
        Some(Place { offset: page * PAGE + i * size, size })
    }

    /// Frees `p` (from this arena's [`Arena::alloc`], not freed since).
    pub(crate) fn free(&mut self, p: Place) {
        if p.size > SMALL_MAX {
            self.give(p.offset / PAGE, p.size / PAGE);
            return;
        }
        let page = p.offset / PAGE;
        let Some(sp) = self.small.get_mut(&page) else {
            debug_assert!(false, "a small place outside every small page");
            return;
        };
        let class = sp.class as usize;
        sp.used &= !(1 << ((p.offset % PAGE) / p.size));
        if sp.used == 0 {
            self.small.remove(&page);
            self.partial[class].remove(&page);
            self.give(page, 1);
        } else {
            self.partial[class].insert(page);
        }
    }

    /// Returns pages to the extents, and to the system when they join a
    /// free extent of `RELEASE_PAGES` or more (module docs' invariant).
    fn give(&mut self, start: usize, pages: usize) {
        let m = self.extents.give(start, pages);
        if m.pages < RELEASE_PAGES {
            return;
        }
        let from = if m.before < RELEASE_PAGES { m.start } else { start };
        let to = if m.after < RELEASE_PAGES { m.start + m.pages } else { start + pages };
        if let Some(base) = self.base {
            // SAFETY: from..to lies in the range (extents of its pages).
            release_pages(unsafe { base.as_ptr().add(from * PAGE) }, (to - from) * PAGE);
        }
    }

    /// The bytes at `p`: `len` of them, as many as were allocated there.
    ///
    /// Safety: `p` is a live place of this arena, and the caller's use of
    /// the bytes does not overlap another use of them (the cache writes a
    /// block once under its shard lock, then only reads it while pinned).
    pub(crate) unsafe fn ptr(&self, p: Place) -> *mut u8 {
        let base = self.base.expect("a place implies a mapped arena");
        // SAFETY: p.offset + p.size <= self.len (alloc's contract).
        unsafe { base.as_ptr().add(p.offset) }
    }

    /// The place of `len` bytes at `ptr`, which [`Arena::alloc`] gave for
    /// `len` (from [`Arena::ptr`]).
    pub(crate) fn place_of(&self, ptr: *const u8, len: usize) -> Place {
        let base = self.base.map_or(0, |b| b.as_ptr() as usize);
        Place { offset: ptr as usize - base, size: Arena::size_of(len) }
    }

    /// Bytes in use (whole pages; small pages count whole).
    #[cfg(test)]
    fn pages_used(&self) -> usize {
        self.extents.used()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(base) = self.base.take() {
            unmap_pages(base, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(
            [1, 64, 65, 100, 2048, 2049, 3894, 4096, 4097].map(Arena::size_of),
            [64, 64, 128, 128, 2048, 4096, 4096, 4096, 8192]
        );
    }

    #[test]
    fn places_are_disjoint_aligned_and_reused() {
        // Miri checks every byte written and read: a smaller arena there.
        let pages = if cfg!(miri) { 12 } else { 64 };
        let mut a = Arena::new(pages * PAGE);
        let mut places = Vec::new();
        let mut x = 1u64;
        for round in 0..3 {
            loop {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let len = [40, 100, 300, 1000, 2000, 3894, 9000][(x >> 33) as usize % 7];
                let Some(p) = a.alloc(len) else { break };
                assert_eq!(p.offset % 64, 0);
                // SAFETY: a live place, written once here.
                unsafe { std::ptr::write_bytes(a.ptr(p), places.len() as u8, len) };
                places.push((p, len));
            }
            let mut spans: Vec<_> = places.iter().map(|(p, _)| (p.offset, p.offset + p.size)).collect();
            spans.sort();
            assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "overlap in round {round}");
            assert!(spans.last().unwrap().1 <= pages * PAGE);
            for (i, (p, len)) in places.iter().enumerate() {
                // SAFETY: live places, read only.
                let b = unsafe { std::slice::from_raw_parts(a.ptr(*p), *len) };
                assert!(b.iter().all(|&v| v == i as u8), "place {i} overwritten");
            }
            // Free every other, in any order, then refill.
            let mut i = 0;
            places.retain(|&(p, _)| {
                i += 1;
                if i % 2 == 0 {
                    a.free(p);
                }
                i % 2 != 0
            });
            for (i, (p, len)) in places.iter().enumerate() {
                // SAFETY: live places, rewritten with their new index.
                unsafe { std::ptr::write_bytes(a.ptr(*p), i as u8, *len) };
            }
        }
        for (p, _) in places.drain(..) {
            a.free(p);
        }
        assert_eq!(a.pages_used(), 0);
        assert!(a.small.is_empty() && a.partial.iter().all(|p| p.is_empty()));
    }

    #[test]
    fn an_empty_arena_places_nothing() {
        assert_eq!(Arena::new(0).alloc(1), None);
    }
}
