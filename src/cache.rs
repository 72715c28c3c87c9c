//! A cache of filter blocks with a byte budget, shared by SST handles
//! (RocksDB's block cache with `cache_index_and_filter_blocks = true`, for
//! filters only).
//!
//! # Design
//!
//! A handle opened with a cache keeps its top-level partition index and,
//! per distinct filter block, a [`Slot`] (16 bytes); the block's bytes live
//! in the cache once a query has read them. The cache is split into shards
//! (a mutex each) that own *rings* of entries and their byte charges; a slot
//! belongs to one shard, picked by hashing (handle, block).
//!
//! * **Hits take no lock.** A query pins a slot with one atomic add on the
//!   slot's state word (reader count and flags) and unpins with one atomic
//!   subtract, as RocksDB's `HyperClockCache` does with its slots' meta
//!   words; an `LRUCache` shard mutex taken on every hit (to move the entry
//!   to the list's head) is what that cache was built to avoid. Threads
//!   reading different blocks touch different words.
//! * **Eviction is CLOCK (second chance).** A hit sets the slot's
//!   "referenced" bit (only when clear, so a hot slot's word is not written
//!   by every reader); an insertion that does not fit sweeps its shard's
//!   ring from the hand, clearing referenced bits and evicting the first
//!   entry that is neither referenced nor pinned. CLOCK's hit ratio is
//!   within a few percent of LRU's on the workloads RocksDB measured when it
//!   made `HyperClockCache` its recommended cache, needs no list updates on
//!   a hit, and never evicts a pinned block (nothing is freed while a query
//!   reads it). quick_cache (S3-FIFO-like) and moka (TinyLFU) were
//!   considered: quick_cache takes a shard read-lock on every hit, and
//!   moka's eviction runs behind its inserts, so its weight may exceed the
//!   capacity for a while; the budget here is a bound, not a target.
//! * **The budget is strict.** Each shard holds at most `capacity / shards`
//!   bytes: an insertion evicts until the block fits, and a block that
//!   cannot fit (larger than a shard, or every entry pinned) is used by the
//!   query that read it and dropped, never cached (counted as `uncached`).
//!   Shards hold at least 8 MiB each (at most 16 shards), so that a large
//!   full filter still fits one; with locks only on misses, more shards
//!   would buy little.
//! * **Memory.** The cache's bytes are the blocks and their entries, in
//!   each shard's own arena ([`crate::arena`]: a reservation of the shard's
//!   capacity in whole pages, at least 32 KiB, touched as it fills), and
//!   each is charged what the arena takes for it (a power-of-two class up
//!   to 2 KiB, else whole pages: a 3.9 KB partition and its entry take
//!   4,224 bytes). So `bytes_held` is the arena's bytes in use, and the
//!   cache's resident memory is at most its capacity rounded up to pages
//!   per shard (at most 16 shards), whatever the order blocks come and go
//!   in: not a byte of a block is malloc'd per query thread and kept by
//!   glibc after eviction (measured before: 62.9 MiB of RSS for a 32 MiB
//!   cache, `tests/cache_rss.rs`). A miss first reserves the block's
//!   place (charged, so concurrent misses cannot overrun the budget) and
//!   reads the block straight into it: no buffer, no copy, no allocation
//!   outside the arena. Reading into a buffer of the query's own and
//!   copying it in under the lock (4 KB) made `bench/sst --cache` 14–21%
//!   slower per key. When the charge fits but the arena has no free place for it
//!   (fragmentation), more is evicted; when nothing more can be (every
//!   entry pinned), the block is read into a buffer of the query's own and
//!   served uncached. So beyond the arena each querying thread holds at
//!   most that one block, and the rings' and the arenas' bookkeeping (a
//!   few bytes per entry).
//!
//! Lifetimes: a ring entry points to its slot, which lives in its handle;
//! a handle removes its entries from the rings (under the shard locks)
//! before its slots are freed ([`Cache::forget`]), so every pointer in a
//! ring is valid while it is there.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::arena::{Arena, Place};
use crate::files::FilePool;
use crate::filter::{Bytes, Filter};

/// Reader count in a slot's state word (the low 32 bits).
const COUNT: u64 = 0xFFFF_FFFF;
/// The slot holds an entry (its pointer is valid while pinned).
const PRESENT: u64 = 1 << 62;
/// Read since the clock hand last passed.
const REFERENCED: u64 = 1 << 61;

/// Smallest shard; at most [`MAX_SHARDS`].
const MIN_SHARD_BYTES: usize = 8 << 20;
const MAX_SHARDS: usize = 16;

/// A cache of filter blocks with a capacity in bytes, shared by the SST
/// handles opened with it ([`crate::sst::SstOptions::with_cache`]).
/// Cloning shares the same cache. Thread-safe.
///
/// ```
/// use rocksfilter::FilterCache;
/// let cache = FilterCache::new(64 << 20);
/// assert_eq!((cache.capacity(), cache.bytes_held()), (64 << 20, 0));
/// ```
#[derive(Clone)]
pub struct FilterCache {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for FilterCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilterCache")
            .field("capacity", &self.inner.capacity)
            .field("bytes_held", &self.bytes_held())
            .finish()
    }
}

/// What a [`FilterCache`] did and holds ([`FilterCache::stats`]). Counters
/// count since the cache was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// The capacity in bytes.
    pub capacity: u64,
    /// Bytes the cache holds now: its blocks and their entries, as placed
    /// in its arena (size classes, whole pages); at most `capacity`.
    pub bytes_held: u64,
    /// Blocks the cache holds now.
    pub entries: u64,
    /// Lookups of a block that found it (a single query: one per
    /// partition consulted; a batch: one per partition per batch).
    pub hits: u64,
    /// Lookups that did not, and so read the block (or found it unreadable).
    pub misses: u64,
    /// Reads of the source for blocks.
    pub reads: u64,
    /// Bytes those reads returned.
    pub bytes_read: u64,
    /// Reads that failed (the source's error, or a file that is no longer
    /// the one opened): the query answered "may match", nothing was cached.
    pub read_errors: u64,
    /// Blocks read whole whose bytes are not a filter RocksDB would use
    /// (bad checksum, bad geometry): cached as "may match".
    pub bad_blocks: u64,
    /// Blocks evicted to make room.
    pub evictions: u64,
    /// Blocks read but not kept, because they could not fit (larger than a
    /// shard's share of the capacity, or every block of the shard pinned).
    pub uncached: u64,
    /// Files that handles opened by path keep open now (at most the
    /// cache's `max_open_files`).
    pub open_files: u64,
}

struct Inner {
    capacity: usize,
    shards: Box<[Shard]>,
    stripes: Box<[Stripe]>,
    /// Files its handles opened by path keep open.
    files: FilePool,
}

/// Files a cache's handles opened by path keep open by default
/// ([`FilterCache::with_open_files`]).
pub const DEFAULT_OPEN_FILES: usize = 128;

struct Shard {
    capacity: usize,
    /// `ring.charge`, readable without the lock.
    held: AtomicUsize,
    entries: AtomicUsize,
    ring: Mutex<Ring>,
}

/// A shard's entries, in clock order, and the arena holding them.
struct Ring {
    entries: Vec<RingEntry>,
    free: Vec<u32>,
    hand: usize,
    charge: usize,
    /// Where the entries and their blocks are (module docs, "Memory").
    arena: Arena,
}

struct RingEntry {
    /// Null when this position is free.
    slot: *const Slot,
    charge: usize,
}

// SAFETY: the raw slot pointers are only dereferenced under the shard's
// lock, and a slot outlives its ring entry (module docs: a handle removes
// its entries before freeing its slots). Slots are Sync (atomics only).
unsafe impl Send for Ring {}

/// Counters, striped by thread so that concurrent queries do not write one
/// cache line.
#[derive(Default)]
#[repr(align(128))]
struct Stripe {
    hits: AtomicU64,
    misses: AtomicU64,
    reads: AtomicU64,
    bytes_read: AtomicU64,
    read_errors: AtomicU64,
    bad_blocks: AtomicU64,
    evictions: AtomicU64,
    uncached: AtomicU64,
}

const STRIPES: usize = 16;

thread_local! {
    static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn stripe_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    STRIPE.with(|s| {
        if s.get() == usize::MAX {
            s.set(NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES);
        }
        s.get()
    })
}

/// Which counter to add to.
#[derive(Clone, Copy)]
pub(crate) enum Count {
    Hit,
    Miss,
    Read(u64),
    ReadError,
    BadBlock,
}

/// One block's place in a handle: empty, or holding a cached block.
///
/// State word: reader count (low 32 bits), `PRESENT`, `REFERENCED`. The
/// entry pointer is written only under the slot's shard lock, and read by
/// a reader only while its count holds `PRESENT` (so never freed under it).
pub(crate) struct Slot {
    state: AtomicU64,
    entry: AtomicPtr<Entry>,
}

impl Default for Slot {
    fn default() -> Self {
        Slot { state: AtomicU64::new(0), entry: AtomicPtr::new(ptr::null_mut()) }
    }
}

/// A cached block, in its shard's arena as its block's bytes are.
struct Entry {
    /// Over the bytes at `block`.
    filter: Filter<'static>,
    /// Position in its shard's ring (fixed while cached).
    ring: u32,
    /// Its block's place (the entry's own is found from its address, so
    /// that the entry fits 128 bytes).
    block: Place,
}

// An entry sits in a small object of the arena, 64-byte aligned.
const _: () = assert!(std::mem::align_of::<Entry>() <= 64);

/// What caching a block of `len` bytes takes from its shard: its bytes and
/// its entry, as the arena places them.
fn charge_of(len: usize) -> usize {
    Arena::size_of(len) + Arena::size_of(std::mem::size_of::<Entry>())
}

/// A cached block pinned for reading: it cannot be evicted until dropped.
pub(crate) struct Pinned<'s> {
    slot: &'s Slot,
    entry: &'s Entry,
}

impl Pinned<'_> {
    pub(crate) fn filter(&self) -> &Filter<'static> {
        &self.entry.filter
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        // Release: this reader's reads of the entry happen before an
        // evictor's acquiring exchange frees it.
        self.slot.state.fetch_sub(1, Ordering::Release);
    }
}

/// A block for one query: pinned in the cache, or read for this query
/// alone (it could not be cached).
pub(crate) enum Held<'s> {
    Pinned(Pinned<'s>),
    Transient(Filter<'static>),
}

impl Held<'_> {
    pub(crate) fn filter(&self) -> &Filter<'static> {
        match self {
            Held::Pinned(p) => p.filter(),
            Held::Transient(f) => f,
        }
    }
}

/// Room for one block in a shard's arena, charged to the shard and this
/// query's alone until [`FilterCache::publish`] enters it or it is dropped
/// (which frees it). From [`FilterCache::reserve`].
pub(crate) struct Reserved<'c> {
    shard: &'c Shard,
    me: Place,
    block: Place,
    /// The block's first byte in the arena.
    bytes: *mut u8,
    len: usize,
    charge: usize,
    /// Still to be given back (not published).
    live: bool,
}

impl Reserved<'_> {
    /// The reserved bytes, for the query to read the block into.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `len` bytes at a live place of the arena, which stays
        // mapped while the cache (borrowed) lives; no other code uses the
        // place before it is published or given back, and anonymous
        // mappings are initialised (zeros, or an earlier block's bytes).
        unsafe { std::slice::from_raw_parts_mut(self.bytes, self.len) }
    }

    /// The reserved bytes, for a filter over them.
    ///
    /// Safety: the caller drops what it makes of them before the
    /// reservation is given back, or, once entered, before its entry is
    /// taken out (which drops the entry's filter first); they do not change
    /// meanwhile (nothing writes a place while it is reserved or cached).
    unsafe fn bytes(&self) -> &'static [u8] {
        // SAFETY: as `bytes_mut`; the 'static is the caller's promise.
        unsafe { std::slice::from_raw_parts(self.bytes, self.len) }
    }

    fn give_back(&mut self, ring: &mut Ring) {
        self.live = false;
        ring.arena.free(self.block);
        ring.arena.free(self.me);
        ring.charge -= self.charge;
        self.shard.held.store(ring.charge, Ordering::Relaxed);
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        if self.live {
            let mut ring = lock(self.shard);
            self.give_back(&mut ring);
        }
    }
}

impl FilterCache {
    /// A cache holding at most `capacity_bytes` of filter blocks.
    ///
    /// ```
    /// use rocksfilter::FilterCache;
    /// let small = FilterCache::new(1 << 20);
    /// assert_eq!(small.stats().entries, 0);
    /// ```
    pub fn new(capacity_bytes: usize) -> FilterCache {
        FilterCache::with_open_files(capacity_bytes, DEFAULT_OPEN_FILES)
    }

    /// A cache of `capacity_bytes` whose handles opened by path keep at
    /// most `max_open_files` files open between queries, the least recently
    /// used closed first (default [`DEFAULT_OPEN_FILES`]); 0: none, every
    /// query that misses opens its file (an `open` and an `fstat`, about
    /// 4 us, more per miss).
    ///
    /// ```
    /// use rocksfilter::FilterCache;
    /// let c = FilterCache::with_open_files(64 << 20, 1000);
    /// assert_eq!(c.stats().open_files, 0);
    /// ```
    pub fn with_open_files(capacity_bytes: usize, max_open_files: usize) -> FilterCache {
        let shards = (capacity_bytes / MIN_SHARD_BYTES).clamp(1, MAX_SHARDS);
        let shards = 1usize << (usize::BITS - 1 - shards.leading_zeros());
        let per = capacity_bytes / shards;
        let shards = (0..shards)
            .map(|_| Shard {
                capacity: per,
                held: AtomicUsize::new(0),
                entries: AtomicUsize::new(0),
                ring: Mutex::new(Ring {
                    entries: Vec::new(),
                    free: Vec::new(),
                    hand: 0,
                    charge: 0,
                    arena: Arena::new(per),
                }),
            })
            .collect();
        let stripes = (0..STRIPES).map(|_| Stripe::default()).collect();
        FilterCache {
            inner: Arc::new(Inner { capacity: capacity_bytes, shards, stripes, files: FilePool::new(max_open_files) }),
        }
    }

    /// The capacity in bytes.
    ///
    /// ```
    /// assert_eq!(rocksfilter::FilterCache::new(1000).capacity(), 1000);
    /// ```
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }

    /// Bytes of filter blocks (and their entries) held now; never more
    /// than [`FilterCache::capacity`].
    ///
    /// ```
    /// assert_eq!(rocksfilter::FilterCache::new(1 << 20).bytes_held(), 0);
    /// ```
    pub fn bytes_held(&self) -> usize {
        self.inner.shards.iter().map(|s| s.held.load(Ordering::Relaxed)).sum()
    }

    /// Counters and occupancy (see [`CacheStats`]).
    ///
    /// ```
    /// let s = rocksfilter::FilterCache::new(1 << 20).stats();
    /// assert_eq!((s.capacity, s.hits, s.misses), (1 << 20, 0, 0));
    /// ```
    pub fn stats(&self) -> CacheStats {
        let sum = |f: fn(&Stripe) -> &AtomicU64| self.inner.stripes.iter().map(|s| f(s).load(Ordering::Relaxed)).sum();
        CacheStats {
            capacity: self.inner.capacity as u64,
            bytes_held: self.bytes_held() as u64,
            entries: self.inner.shards.iter().map(|s| s.entries.load(Ordering::Relaxed) as u64).sum(),
            hits: sum(|s| &s.hits),
            misses: sum(|s| &s.misses),
            reads: sum(|s| &s.reads),
            bytes_read: sum(|s| &s.bytes_read),
            read_errors: sum(|s| &s.read_errors),
            bad_blocks: sum(|s| &s.bad_blocks),
            evictions: sum(|s| &s.evictions),
            uncached: sum(|s| &s.uncached),
            open_files: self.inner.files.open_files() as u64,
        }
    }

    /// The files its handles keep open.
    pub(crate) fn files(&self) -> &FilePool {
        &self.inner.files
    }

    pub(crate) fn count(&self, what: Count) {
        let s = &self.inner.stripes[stripe_index()];
        let (counter, n) = match what {
            Count::Hit => (&s.hits, 1),
            Count::Miss => (&s.misses, 1),
            Count::Read(bytes) => {
                s.bytes_read.fetch_add(bytes, Ordering::Relaxed);
                (&s.reads, 1)
            }
            Count::ReadError => (&s.read_errors, 1),
            Count::BadBlock => (&s.bad_blocks, 1),
        };
        counter.fetch_add(n, Ordering::Relaxed);
    }

    fn shard(&self, key: u64) -> &Shard {
        // SplitMix64's finaliser: handles and blocks are small integers.
        let mut z = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z ^= z >> 31;
        let shards = &self.inner.shards;
        &shards[(z as usize) & (shards.len() - 1)]
    }

    /// The block in `slot`, pinned, if cached: no lock, two atomic
    /// operations (three on the first hit since the clock hand passed).
    #[inline]
    pub(crate) fn pin<'s>(&self, slot: &'s Slot) -> Option<Pinned<'s>> {
        let s = slot.state.fetch_add(1, Ordering::Acquire);
        if s & PRESENT == 0 {
            slot.state.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        if s & REFERENCED == 0 {
            slot.state.fetch_or(REFERENCED, Ordering::Relaxed);
        }
        let e = slot.entry.load(Ordering::Acquire);
        // SAFETY: PRESENT was set when this reader's count went in, so the
        // entry pointer is non-null and, while the count holds, not freed
        // (an evictor frees only after exchanging a zero count away, and
        // PRESENT is published after the pointer, with Release).
        Some(Pinned { slot, entry: unsafe { &*e } })
    }

    /// Caches a copy of `filter` in `slot` and pins it; `key` picks the
    /// shard (the same for a slot every time). The copy goes to a place
    /// [`FilterCache::reserve`]d in the shard's arena, made outside the
    /// lock. When another thread cached the slot meanwhile, that block is
    /// pinned instead; when the block cannot fit, it is returned as is
    /// ([`FilterCache::uncached`]).
    pub(crate) fn insert<'s>(&self, key: u64, slot: &'s Slot, filter: Filter<'static>) -> Held<'s> {
        if let Some(p) = self.pin(slot) {
            return Held::Pinned(p);
        }
        let len = filter.as_bytes().len();
        let Some(mut r) = self.reserve(key, len) else { return self.uncached(filter) };
        r.bytes_mut().copy_from_slice(filter.as_bytes());
        // SAFETY: the reserved bytes, just made equal to the filter's, are
        // 64-byte aligned (an arena place) and stay unchanged while the
        // copy is used (`Reserved::bytes`).
        let copy = unsafe { filter.relocated(r.bytes()) };
        self.enter(r, slot, copy)
    }

    /// `filter`, read into a buffer of the query's own because the cache
    /// had no room for it, for this query alone (counted as `uncached`).
    pub(crate) fn uncached(&self, filter: Filter<'static>) -> Held<'static> {
        self.inner.stripes[stripe_index()].uncached.fetch_add(1, Ordering::Relaxed);
        Held::Transient(filter)
    }

    /// Room in `key`'s shard for a block of `len` bytes that the calling
    /// query is about to read, charged now (so concurrent misses cannot
    /// overrun the budget); None when it cannot fit (larger than a shard,
    /// or every entry pinned). The query reads the block straight into it
    /// ([`Reserved::bytes_mut`]) and then [`FilterCache::publish`]es it, so
    /// a miss allocates nothing outside the arena and copies nothing;
    /// dropping the reservation gives the room back.
    pub(crate) fn reserve(&self, key: u64, len: usize) -> Option<Reserved<'_>> {
        let shard = self.shard(key);
        let mut ring = lock(shard);
        let (me, block) = self.room(shard, &mut ring, len)?;
        let charge = charge_of(len);
        ring.charge += charge;
        shard.held.store(ring.charge, Ordering::Relaxed);
        // SAFETY: `block` is a live place of this arena.
        let bytes = unsafe { ring.arena.ptr(block) };
        Some(Reserved { shard, me, block, bytes, len, charge, live: true })
    }

    /// Caches the block read into `r`: its first `len` bytes (the rest is
    /// the block's trailer) parsed as a filter, entered in `slot` and
    /// pinned. When another query cached the slot meanwhile, that block is
    /// pinned and `r` given back. Err: the bytes are not a filter (`r`
    /// given back).
    pub(crate) fn publish<'s>(&self, r: Reserved<'_>, slot: &'s Slot, len: usize) -> Result<Held<'s>, String> {
        debug_assert!(len <= r.len);
        // SAFETY: (`Reserved::bytes`) the filter is dropped before the
        // reservation is given back or, once entered, its entry taken out.
        let filter = Filter::from_held(Bytes::Borrowed(unsafe { &r.bytes()[..len] }));
        Ok(self.enter(r, slot, filter.map_err(|e| e.message().to_string())?))
    }

    /// Enters `filter`, over `r`'s bytes, in `slot` and pins it; when
    /// another query cached the slot meanwhile, pins that block instead and
    /// gives `r` back.
    fn enter<'s>(&self, mut r: Reserved<'_>, slot: &'s Slot, filter: Filter<'static>) -> Held<'s> {
        let shard = r.shard;
        let mut ring = lock(shard);
        if let Some(p) = self.pin_present(slot) {
            drop(filter);
            r.give_back(&mut ring);
            return Held::Pinned(p);
        }
        r.live = false;
        self.link(shard, &mut ring, slot, r.me, r.block, r.charge, filter)
    }

    /// `slot`'s block pinned, if another query cached it while this one
    /// read it. Under the shard lock nothing can evict it, so the pin
    /// succeeds when the slot is present.
    fn pin_present<'s>(&self, slot: &'s Slot) -> Option<Pinned<'s>> {
        if slot.state.load(Ordering::Acquire) & PRESENT == 0 {
            return None;
        }
        let pinned = self.pin(slot);
        assert!(pinned.is_some(), "a present slot cannot be evicted under its shard lock");
        pinned
    }

    /// Places for an entry and a block of `len` bytes in `shard`'s arena,
    /// evicting until its charge fits the budget and the arena has a free
    /// place for it (fragmentation); None when it cannot.
    fn room(&self, shard: &Shard, ring: &mut Ring, len: usize) -> Option<(Place, Place)> {
        let charge = charge_of(len);
        if charge > shard.capacity || !self.make_room(shard, ring, charge) {
            return None;
        }
        loop {
            if let Some(p) = place(&mut ring.arena, len) {
                return Some(p);
            }
            if !self.evict_one(shard, ring) {
                return None;
            }
        }
    }

    /// Enters `filter`, whose bytes are at `block`, in `slot` with its entry
    /// at `me`, and pins it for this query. Under the shard lock, with
    /// `charge` already counted in `ring.charge`.
    #[allow(clippy::too_many_arguments)]
    fn link<'s>(
        &self,
        shard: &Shard,
        ring: &mut Ring,
        slot: &'s Slot,
        me: Place,
        block: Place,
        charge: usize,
        filter: Filter<'static>,
    ) -> Held<'s> {
        // SAFETY: `me` is a fresh place of this arena for an entry, written
        // here once under the shard lock.
        let entry = unsafe {
            let entry = ring.arena.ptr(me).cast::<Entry>();
            entry.write(Entry { filter, ring: 0, block });
            entry
        };
        let at = match ring.free.pop() {
            Some(i) => i as usize,
            None => {
                ring.entries.push(RingEntry { slot: ptr::null(), charge: 0 });
                ring.entries.len() - 1
            }
        };
        // SAFETY: just written; no reader can see it before PRESENT below.
        unsafe { (*entry).ring = at as u32 };
        ring.entries[at] = RingEntry { slot, charge };
        shard.held.store(ring.charge, Ordering::Relaxed);
        shard.entries.fetch_add(1, Ordering::Relaxed);
        slot.entry.store(entry, Ordering::Relaxed);
        // This query's pin, then the flags: Release publishes the pointer
        // (and the bytes) to readers who see PRESENT.
        slot.state.fetch_add(1, Ordering::Relaxed);
        slot.state.fetch_or(PRESENT | REFERENCED, Ordering::Release);
        // SAFETY: just stored, and pinned by the count added above.
        Held::Pinned(Pinned { slot, entry: unsafe { &*entry } })
    }

    /// Evicts from `ring` until `charge` more bytes fit; false when they
    /// cannot (every remaining entry pinned).
    fn make_room(&self, shard: &Shard, ring: &mut Ring, charge: usize) -> bool {
        while ring.charge + charge > shard.capacity {
            if !self.evict_one(shard, ring) {
                return false;
            }
        }
        true
    }

    /// Evicts the next entry the clock hand finds neither referenced nor
    /// pinned, its places freed in the arena at once; false when there is
    /// none. Two turns of the hand at most: the first may only clear
    /// referenced bits.
    fn evict_one(&self, shard: &Shard, ring: &mut Ring) -> bool {
        let n = ring.entries.len();
        if n == 0 {
            return false;
        }
        for _ in 0..=2 * n {
            let i = ring.hand;
            ring.hand = (i + 1) % n;
            let slot_ptr = ring.entries[i].slot;
            if slot_ptr.is_null() {
                continue;
            }
            // SAFETY: ring entries point to live slots (module docs), and
            // this shard's lock is held.
            let slot = unsafe { &*slot_ptr };
            let s = slot.state.load(Ordering::Relaxed);
            if s & COUNT != 0 {
                continue;
            }
            if s & REFERENCED != 0 {
                slot.state.fetch_and(!REFERENCED, Ordering::Relaxed);
                continue;
            }
            // Acquire: every reader's use of the entry happened before its
            // count went back to zero (Release).
            if slot.state.compare_exchange(s, 0, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                Self::take(shard, ring, slot, i);
                self.inner.stripes[stripe_index()].evictions.fetch_add(1, Ordering::Relaxed);
                return true;
            }
        }
        false
    }

    /// Removes ring position `i` (whose slot is `slot`, no longer PRESENT)
    /// and frees its entry and block in the arena.
    fn take(shard: &Shard, ring: &mut Ring, slot: &Slot, i: usize) {
        let e = slot.entry.swap(ptr::null_mut(), Ordering::Relaxed);
        ring.charge -= ring.entries[i].charge;
        ring.entries[i] = RingEntry { slot: ptr::null(), charge: 0 };
        ring.free.push(i as u32);
        shard.held.store(ring.charge, Ordering::Relaxed);
        shard.entries.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: the entry was written by `insert` at this arena place,
        // and the slot's state was exchanged from PRESENT with no readers
        // to empty (or no reader can exist: `forget`), so nothing uses it
        // now: it is moved out (its filter dropped) and its places freed.
        let Entry { filter, block, .. } = unsafe { e.read() };
        drop(filter);
        ring.arena.free(block);
        ring.arena.free(ring.arena.place_of(e.cast(), std::mem::size_of::<Entry>()));
    }

    /// Removes `slot`'s block from the cache, if it holds one; `key` as
    /// given to [`FilterCache::insert`]. The slot's handle calls this for
    /// every slot before freeing them, with no query running on it.
    pub(crate) fn forget(&self, key: u64, slot: &Slot) {
        if slot.entry.load(Ordering::Acquire).is_null() {
            return;
        }
        let shard = self.shard(key);
        let mut ring = lock(shard);
        let e = slot.entry.load(Ordering::Acquire);
        if e.is_null() {
            return;
        }
        // SAFETY: non-null under the shard lock: a live entry of this shard.
        let at = unsafe { (*e).ring } as usize;
        slot.state.store(0, Ordering::Relaxed);
        Self::take(shard, &mut ring, slot, at);
    }
}

/// Places for an entry and a block of `len` bytes, or neither.
fn place(arena: &mut Arena, len: usize) -> Option<(Place, Place)> {
    let me = arena.alloc(std::mem::size_of::<Entry>())?;
    match arena.alloc(len) {
        Some(block) => Some((me, block)),
        None => {
            arena.free(me);
            None
        }
    }
}

/// A shard's lock; a panic while it was held (none is expected: nothing
/// under it calls out) leaves the ring consistent, so poisoning is ignored.
fn lock(shard: &Shard) -> MutexGuard<'_, Ring> {
    shard.ring.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FilterBuilder;

    fn block(keys: u32) -> Filter<'static> {
        let mut b = FilterBuilder::new(crate::Policy::Bloom, 10.0).expect("builder");
        for k in 0..keys {
            b.add_key(&k.to_le_bytes());
        }
        Filter::new(&b.finish().expect("block")).expect("filter").into_owned()
    }

    #[test]
    fn a_partition_and_its_entry_take_4224_bytes() {
        // The figure the docs give for a 3.9 KB partition (RocksDB's 4 KiB
        // metadata blocks): a page for the block, 128 bytes for the entry.
        assert_eq!(charge_of(3894), 4224);
    }

    #[test]
    fn shards_hold_at_least_8_mib_and_at_most_16() {
        for (cap, shards) in [(0, 1), (1 << 20, 1), (16 << 20, 2), (100 << 20, 8), (1 << 30, 16), (1 << 40, 16)] {
            assert_eq!(FilterCache::new(cap).inner.shards.len(), shards, "{cap}");
        }
    }

    #[test]
    fn insert_pin_evict_forget() {
        let per = charge_of(block(10).as_bytes().len());
        let cache = FilterCache::new(3 * per);
        let slots: Vec<Slot> = (0..10).map(|_| Slot::default()).collect();
        for (i, s) in slots.iter().enumerate() {
            assert!(cache.pin(s).is_none());
            let held = cache.insert(i as u64, s, block(10));
            assert!(matches!(held, Held::Pinned(_)));
            assert!(held.filter().may_match(&3u32.to_le_bytes()));
            drop(held);
            assert!(cache.bytes_held() <= cache.capacity());
        }
        let st = cache.stats();
        assert_eq!((st.entries, st.evictions), (3, 7));
        // The last three are cached; the first seven were evicted.
        let cached: Vec<bool> = slots.iter().map(|s| cache.pin(s).is_some()).collect();
        assert_eq!(cached.iter().filter(|&&c| c).count(), 3);
        // A pinned entry is never evicted: with all three pinned, a fourth
        // block is returned uncached.
        let pins: Vec<_> = slots.iter().filter_map(|s| cache.pin(s)).collect();
        let extra = Slot::default();
        assert!(matches!(cache.insert(99, &extra, block(10)), Held::Transient(_)));
        assert_eq!(cache.stats().uncached, 1);
        drop(pins);
        for (i, s) in slots.iter().enumerate() {
            cache.forget(i as u64, s);
        }
        assert_eq!((cache.bytes_held(), cache.stats().entries), (0, 0));
    }

    /// A miss's reservation: charged while the block is read into it,
    /// entered by publish, given back when dropped or when another query
    /// cached the slot meanwhile.
    #[test]
    fn reserve_publish_and_give_back() {
        let f = block(10);
        let bytes = f.as_bytes().to_vec();
        let len = bytes.len() + 5; // a block's trailer follows its bytes
        let per = charge_of(len);
        let cache = FilterCache::new(2 * per);
        let read_into = |r: &mut Reserved<'_>, b: &[u8]| r.bytes_mut()[..b.len()].copy_from_slice(b);

        // Dropped unpublished (a failed read): the charge comes back.
        let r = cache.reserve(1, len).expect("room");
        assert_eq!(cache.bytes_held(), per);
        drop(r);
        assert_eq!(cache.bytes_held(), 0);

        // Published: cached in the slot, answering as the block does.
        let (s1, s2) = (Slot::default(), Slot::default());
        let mut r = cache.reserve(1, len).expect("room");
        read_into(&mut r, &bytes);
        let held = cache.publish(r, &s1, bytes.len()).expect("a filter");
        assert!(matches!(held, Held::Pinned(_)));
        assert!(held.filter().may_match(&3u32.to_le_bytes()));
        assert_eq!(held.filter().as_bytes(), &bytes[..]);
        drop(held);
        assert_eq!((cache.bytes_held(), cache.stats().entries), (per, 1));

        // Another query cached the slot while this one read: that block is
        // pinned and this reservation given back.
        let mut r = cache.reserve(1, len).expect("room");
        read_into(&mut r, &bytes);
        assert_eq!(cache.bytes_held(), 2 * per);
        assert!(matches!(cache.publish(r, &s1, bytes.len()), Ok(Held::Pinned(_))));
        assert_eq!((cache.bytes_held(), cache.stats().entries), (per, 1));

        // Bytes of a format RocksDB reserves (marker 0x7f here): cached,
        // answering "may match" to everything, as RocksDB does.
        let mut odd = bytes.clone();
        let marker = odd.len() - 5;
        odd[marker] = 0x7f;
        let mut r = cache.reserve(2, len).expect("room");
        read_into(&mut r, &odd);
        let held = cache.publish(r, &s2, odd.len()).expect("a filter");
        assert!(held.filter().may_match(b"anything"));
        drop(held);
        cache.forget(2, &s2);
        assert_eq!(cache.bytes_held(), per);

        // The budget holds: a pinned entry and a reservation fill it, so a
        // third reservation finds no room.
        let pinned = cache.pin(&s1).expect("cached");
        let r = cache.reserve(3, len).expect("room");
        assert!(cache.reserve(4, len).is_none());
        drop((r, pinned));
        cache.forget(1, &s1);
        assert_eq!((cache.bytes_held(), cache.stats().entries), (0, 0));
    }

    #[test]
    fn a_block_larger_than_a_shard_is_not_cached() {
        let cache = FilterCache::new(500);
        let s = Slot::default();
        assert!(matches!(cache.insert(1, &s, block(2000)), Held::Transient(_)));
        assert_eq!(cache.bytes_held(), 0);
    }

    /// Many threads pinning, inserting and evicting the same slots: the
    /// budget holds at every step and every pinned block answers.
    #[test]
    fn concurrent_pins_and_evictions() {
        let f = block(100);
        let per = charge_of(f.as_bytes().len());
        let cache = FilterCache::new(4 * per);
        let slots: Vec<Slot> = (0..16).map(|_| Slot::default()).collect();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (cache, slots, f) = (&cache, &slots, &f);
                s.spawn(move || {
                    let mut x = t + 1;
                    for _ in 0..if cfg!(miri) { 200 } else { 20_000 } {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let i = (x >> 33) as usize % slots.len();
                        let held = match cache.pin(&slots[i]) {
                            Some(p) => Held::Pinned(p),
                            None => cache.insert(i as u64, &slots[i], f.clone()),
                        };
                        assert!(held.filter().may_match(&7u32.to_le_bytes()));
                        assert!(cache.bytes_held() <= cache.capacity());
                    }
                });
            }
        });
        for (i, s) in slots.iter().enumerate() {
            cache.forget(i as u64, s);
        }
        assert_eq!(cache.bytes_held(), 0);
    }
}
