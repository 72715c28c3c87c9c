//! Partitioned filters (`partitionedfilter.*`,
//! `table/block_based/partitioned_filter_block.cc`): a top-level index
//! block whose entries map a separator key (an upper bound of the keys in
//! a partition) to the handle of that partition's filter block.

use std::collections::HashMap;
use std::ops::Range;

use super::block::BlockIter;
use super::compression;
use super::fetch::Fetcher;
use super::format::{block_end, BlockHandle, Footer, BLOCK_TRAILER_LEN};
use super::ondemand::{Keep, OnDemand};
use super::separators::Separators;
#[cfg(target_arch = "x86_64")]
use super::separators::{Run, LOOKUP_BATCH, NOT_FOUND};
use super::{fatal_io, Comparator, Order, Properties, PARTITION_KEYS_BUDGET};
#[cfg(target_arch = "x86_64")]
use crate::bloom::fast_local;
use crate::error::Result;
use crate::filter::Filter;
#[cfg(target_arch = "x86_64")]
use crate::format::Route;
#[cfg(target_arch = "x86_64")]
use crate::ribbon;

/// Keys a batch over partitions read on demand groups at a time (8 KiB of
/// stack): each group's block is looked up once per this many keys.
const ON_DEMAND_BATCH: usize = 1024;

/// A partitioned filter: the top-level index's separators (an upper bound
/// of the keys in each partition, in the file's key order) and a filter per
/// partition. Partitions that point at the same block share one filter,
/// verified once.
#[derive(Debug)]
pub struct Partitions<'a> {
    seps: Separators,
    /// Distinct filter blocks, in first-use order.
    store: Store<'a>,
    /// Partition i's filter is distinct block `which[i]`.
    which: Vec<u32>,
    /// Partitions whose filter block RocksDB could not read either (bad
    /// checksum, out of bounds, malformed): they answer "may match".
    unreadable: Vec<String>,
    /// Which routed batch kernel serves every (loaded) filter, if one does.
    routed: Routed,
    /// For Routed::Bloom, the probe lanes every partition the lines kernel
    /// takes shares (one probe count), if they do. (Taking the count most
    /// partitions have, and the few others one key at a time through
    /// their `Filter`, measured slower: `bench/sst`'s file, whose 455
    /// partitions have 6 probes but one with 7, 18.4-18.8 ns per key in a
    /// batch against 17.6-18.3, its keys' lines not prefetched.)
    same_lanes: Option<&'static [i32; 8]>,
    /// For Routed::Bloom, each distinct filter's lines
    /// ([`Filter::lines_at`]), which the lines kernel takes with a key's
    /// partition index alone; empty otherwise. Invariant: made from the
    /// filters in `store`, which this value owns and never changes, so
    /// the addresses hold for as long as it lives
    /// ([`Partitions::lines_table`]); a clone makes its own
    /// (`Partitions::clone`).
    #[cfg(target_arch = "x86_64")]
    lines: Box<[fast_local::LinesAt]>,
    /// `lines` has an entry for every partition, in partition order (one
    /// distinct filter per partition: `which` is the identity), and none
    /// is [`fast_local::LinesAt::ALONE`]: a single query takes partition
    /// i's entry without testing either per query ([`Partitions::probe_at`]).
    #[cfg(target_arch = "x86_64")]
    direct: bool,
}

/// [`Partitions::direct`] for these lines and partitions.
#[cfg(target_arch = "x86_64")]
fn direct(lines: &[fast_local::LinesAt], which: &[u32]) -> bool {
    lines.len() == which.len() && lines.iter().all(|at| !at.is_alone())
}

impl Clone for Partitions<'_> {
    fn clone(&self) -> Self {
        let store = self.store.clone();
        // The copy's filters may own copies of the bytes: lines of its own.
        #[cfg(target_arch = "x86_64")]
        let lines = kept_lines(&store, self.routed);
        Partitions {
            seps: self.seps.clone(),
            store,
            which: self.which.clone(),
            unreadable: self.unreadable.clone(),
            routed: self.routed,
            same_lanes: self.same_lanes,
            #[cfg(target_arch = "x86_64")]
            direct: direct(&lines, &self.which),
            #[cfg(target_arch = "x86_64")]
            lines,
        }
    }
}

/// [`Partitions::lines`] for these filters: each distinct filter's lines
/// for a Bloom file with resident filters, else none.
#[cfg(target_arch = "x86_64")]
fn kept_lines(store: &Store<'_>, routed: Routed) -> Box<[fast_local::LinesAt]> {
    match (store, routed) {
        (Store::Resident(unique), Routed::Bloom) => unique.iter().map(Filter::lines_at).collect(),
        _ => Box::new([]),
    }
}

/// The batch kernel that can answer for every partition: each key's
/// partition found and its probe prepared and prefetched for 64 keys
/// (Ribbon's kernel: 32 at a time), then probed, in one kernel compiled
/// for the CPU's features (the generic batch calls each partition's query
/// through its `Filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Routed {
    /// Mixed formats, kernels without AVX2, or partitions read on demand.
    No,
    /// FastLocalBloom with the one-round AVX2 kernel (RocksDB's Bloom
    /// filters up to ~14 bits/key), except maybe a few other filters
    /// (queried one key at a time): [`fast_local::may_match_lines_avx2`].
    Bloom,
    /// Standard128Ribbon with the AVX2 or AVX-512 kernel, except maybe a
    /// few Bloom fallbacks (queried one key at a time):
    /// [`ribbon::may_match_routed_avx2`].
    Ribbon,
    /// As `Ribbon`, every Ribbon filter with the AVX-512 kernel:
    /// [`ribbon::may_match_routed_avx512`].
    Ribbon512,
}

/// Where the distinct filter blocks are.
#[derive(Clone, Debug)]
enum Store<'a> {
    /// Loaded at open, kept by the handle.
    Resident(Vec<Filter<'a>>),
    /// Read when a query needs them, into a cache (a handle opened with
    /// [`super::SstOptions::with_cache`]).
    OnDemand(OnDemand),
}

impl<'a> Partitions<'a> {
    /// Heap bytes the partitions keep beyond their filter blocks' bytes
    /// (which the open counts as it reads them, or the cache holds):
    /// separators and their lookup tables, the partition-to-block map,
    /// the blocks' `Filter`s or, read on demand, their handles and slots,
    /// the batch kernel's lines, and why any is unreadable.
    pub(super) fn heap_bytes(&self) -> usize {
        let store = match &self.store {
            Store::Resident(f) => f.capacity() * std::mem::size_of::<Filter<'_>>(),
            Store::OnDemand(o) => o.heap_bytes(),
        };
        #[cfg(target_arch = "x86_64")]
        let lines = self.lines.len() * std::mem::size_of::<fast_local::LinesAt>();
        #[cfg(not(target_arch = "x86_64"))]
        let lines = 0;
        let unreadable = self.unreadable.capacity() * std::mem::size_of::<String>()
            + self.unreadable.iter().map(String::capacity).sum::<usize>();
        self.seps.heap_bytes() + self.which.capacity() * 4 + store + lines + unreadable
    }

    /// Number of partitions (entries of the top-level index).
    pub fn len(&self) -> usize {
        self.seps.len()
    }
    /// No partitions (a top-level index without entries).
    pub fn is_empty(&self) -> bool {
        self.seps.len() == 0
    }
    /// The distinct filter blocks loaded at open, in key order of first use
    /// (one per partition in every file RocksDB writes); empty when they
    /// are read on demand into a cache ([`Partitions::with_distinct`] reads
    /// those).
    pub fn filters(&self) -> &[Filter<'a>] {
        match &self.store {
            Store::Resident(f) => f,
            Store::OnDemand(_) => &[],
        }
    }
    /// The filter of partition `i`, when loaded at open (None when read on
    /// demand).
    pub fn filter(&self, i: usize) -> Option<&Filter<'a>> {
        self.filters().get(self.which[i] as usize)
    }
    /// Number of distinct filter blocks.
    pub fn distinct(&self) -> usize {
        match &self.store {
            Store::Resident(f) => f.len(),
            Store::OnDemand(o) => o.len(),
        }
    }
    /// Calls `f` with distinct filter block `u` (< [`Partitions::distinct`]):
    /// the one loaded at open, or the cache's, read first when missing (a
    /// block that cannot be read is given as "may match").
    pub fn with_distinct<R>(&self, u: usize, f: impl FnOnce(&Filter<'_>) -> R) -> R {
        match &self.store {
            Store::Resident(v) => f(&v[u]),
            Store::OnDemand(o) => o.with(u, |x| f(x)),
        }
    }
    /// Whether the partitions are read on demand into a cache.
    pub fn on_demand(&self) -> bool {
        matches!(self.store, Store::OnDemand(_))
    }
    /// Why some partitions' filter blocks could not be read (they answer
    /// "may match", as in RocksDB). For partitions read on demand, only
    /// what open could tell (handles outside the file); the cache counts
    /// the rest ([`crate::CacheStats::bad_blocks`]).
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }
    /// Partition `i`'s separator as stored (an internal key unless the file
    /// says `rocksdb.index.key.is.user.key`).
    pub fn separator(&self, i: usize) -> &[u8] {
        self.seps.separator(i)
    }

    /// The partitions a key can be in, from the first whose separator's
    /// user key is not before it (`is_before`) through the first whose
    /// separator is past every candidate (`within` false), as RocksDB's
    /// `GetFilterPartitionHandle` can land on any of them: it seeks with the
    /// read's sequence number, which this library does not know, and runs
    /// past the last separator into the last partition. None when the order
    /// is unknown (every partition is a candidate); empty when there are
    /// more than [`super::MAX_PARTITIONS_PER_QUERY`].
    fn candidates(&self, is_before: impl Fn(&[u8]) -> bool, within: impl Fn(&[u8]) -> bool) -> Option<Range<usize>> {
        if self.seps.order == Order::Unknown {
            return None;
        }
        let n = self.len();
        let first = self.seps.first_not_before(|i| is_before(self.seps.user_key(i)));
        if first == n {
            return Some(n - 1..n);
        }
        Some(self.seps.run_end(first, within).map_or(0..0, |end| first..end + 1))
    }

    /// May any partition a query for `key` can land on match `probe`?
    pub(super) fn may_match(&self, key: &[u8], probe: &[u8]) -> bool {
        if let Some(i) = self.seps.quick(key) {
            debug_assert_eq!(self.key_candidates(key), Some(i..i + 1));
            #[cfg(target_arch = "x86_64")]
            if let Some(answer) = self.probe_direct(i, probe) {
                return answer;
            }
            return self.probe_at(i, probe);
        }
        self.may_match_looked_up(key, probe)
    }

    /// [`Partitions::may_match`] past the quick path, out of line.
    #[inline(never)]
    fn may_match_looked_up(&self, key: &[u8], probe: &[u8]) -> bool {
        if let Some(i) = self.seps.lookup().and_then(|l| l.single(key)) {
            debug_assert_eq!(self.key_candidates(key), Some(i..i + 1));
            return self.probe_at(i, probe);
        }
        self.may_match_searched(key, probe)
    }

    /// [`Partitions::may_match`] for the few keys the bucket table does
    /// not place, out of line (counted with callgrind on
    /// `benches/partitioned.rs`: 204 to 199 instructions per query on
    /// the common path; LLVM still saves all six callee-saved registers).
    #[cold]
    #[inline(never)]
    fn may_match_searched(&self, key: &[u8], probe: &[u8]) -> bool {
        match self.key_candidates(key) {
            Some(r) if r.is_empty() => true,
            Some(r) => r.into_iter().any(|i| self.probe_at(i, probe)),
            None => self.probe_all(probe),
        }
    }

    /// Partition `i`'s answer for `probe` where [`Partitions::direct`]
    /// holds (None elsewhere): partition i's lines straight from the
    /// table, without the store's variant, its length, `which` or a test
    /// of the entry. Inlined into the single query's quick path, where it
    /// saves the call into [`Partitions::probe_at`] as well (callgrind,
    /// `bench/sst`, Bloom, 455 partitions: 225 -> 218 instructions per
    /// query through the C call for the flag, 208 inlined here).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn probe_direct(&self, i: usize, probe: &[u8]) -> Option<bool> {
        if let (true, Some(&at)) = (self.direct, self.lines.get(i)) {
            // SAFETY: as in `probe_distinct`: the table has entries only
            // for Routed::Bloom (CPUs with AVX2), made from the filters of
            // `self.store`, alive and unchanged while `self` is borrowed;
            // `direct`: `at` is not ALONE.
            return Some(unsafe { at.may_match_key_avx2(probe) });
        }
        None
    }

    /// Partition `i`'s answer for `probe`: for resident filters, a tail
    /// call into the filter's kernel with no frame of its own (the
    /// on-demand read out of line: inlined, its state cost every query
    /// five saved registers and a 112-byte frame, 30 instructions against
    /// 14; callgrind, `benches/partitioned.rs`).
    #[inline]
    fn probe_at(&self, i: usize, probe: &[u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(answer) = self.probe_direct(i, probe) {
            return answer;
        }
        match &self.store {
            // As many distinct filters as partitions (in first-use order):
            // `which` is the identity, and the filter follows the
            // separator without waiting for a load of `which[i]`.
            Store::Resident(f) if f.len() == self.which.len() => self.probe_distinct(f, i, probe),
            Store::Resident(f) => self.probe_distinct(f, self.which[i] as usize, probe),
            Store::OnDemand(o) => Self::probe_on_demand(o, self.which[i] as usize, probe),
        }
    }

    /// Distinct filter `u`'s answer for `probe`: through the lines table
    /// for a partition the lines kernel takes
    /// (`fast_local::LinesAt::may_match_key_avx2`; an empty table, as in a
    /// Ribbon file, costs a compare), else through its `Filter`.
    #[inline(always)]
    fn probe_distinct(&self, unique: &[Filter<'a>], u: usize, probe: &[u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(&at) = self.lines.get(u).filter(|at| !at.is_alone()) {
            // SAFETY: the table has entries only for Routed::Bloom, whose
            // kernels are chosen only on CPUs with AVX2; it was made from
            // the filters of `self.store`, alive and unchanged while `self`
            // is borrowed (`Partitions::lines_table`); `at` is not ALONE.
            return unsafe { at.may_match_key_avx2(probe) };
        }
        unique[u].may_match(probe)
    }

    /// [`Partitions::probe_at`] for a filter read on demand.
    #[cold]
    #[inline(never)]
    fn probe_on_demand(o: &OnDemand, u: usize, probe: &[u8]) -> bool {
        o.with(u, |f| f.may_match(probe))
    }

    /// Distinct filter `u`'s lines from [`Partitions::lines`] (None past
    /// them: a key answered on the spot, or a file that is not
    /// Routed::Bloom).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn lines_table(&self, u: u32) -> Option<fast_local::Lines<'_>> {
        // SAFETY: `lines` was made from the filters of `self.store`
        // (`kept_lines`, at open or by `clone`), which `self` owns and
        // never changes: their bytes stay alive and in place while `self`
        // is borrowed.
        self.lines.get(u as usize).map(|&at| unsafe { at.attach() })
    }

    /// Whether any partition may match (an unknown comparator).
    fn probe_all(&self, probe: &[u8]) -> bool {
        (0..self.distinct()).any(|u| self.with_distinct(u, |f| f.may_match(probe)))
    }

    /// The partitions a query for `key` can land on (`candidates` for a
    /// key: [`Separators::key_range`], which compares mostly integers).
    fn key_candidates(&self, key: &[u8]) -> Option<Range<usize>> {
        let fast = self.seps.key_range(key);
        // The textbook search on whole keys must agree (debug builds: the
        // fuzz targets and the debug test runs check every lookup).
        #[cfg(debug_assertions)]
        if !self.is_empty() {
            let slow = match self.seps.order {
                Order::Bytewise => self.candidates(|s| s < key, |s| s == key),
                Order::ReverseBytewise => self.candidates(|s| s > key, |s| s == key),
                Order::Unknown => None,
            };
            debug_assert_eq!(fast, slow, "partition lookup for {key:?}");
        }
        fast
    }

    /// [`Partitions::may_match`] for many keys, in RocksDB's MultiGet
    /// style across partitions: for 64 keys at a time, each key's
    /// partition is found and its probe hashed and prefetched, then every
    /// key is probed, so the memory latency of one key's probe overlaps the
    /// others' work (in one kernel per format when [`Routed`] allows:
    /// `may_match_batch_routed`; else through each partition's `Filter`).
    /// Keys that can land on more than one partition (or on none) are
    /// answered on the spot as by [`Partitions::may_match`]. `whole_key`:
    /// `probe(i)` is `key(i)` (a whole-key filter), so the batch may take
    /// each key's bytes once for both the route and the probe.
    pub(super) fn may_match_batch<'k>(
        &self,
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        whole_key: bool,
        results: &mut [bool],
    ) {
        let unique = match &self.store {
            Store::Resident(f) => f,
            Store::OnDemand(o) => return self.may_match_batch_on_demand(o, n, key, probe, results),
        };
        #[cfg(target_arch = "x86_64")]
        if self.routed != Routed::No {
            return self.may_match_batch_routed(unique, n, key, probe, whole_key, results);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = whole_key;
        const BATCH: usize = 32;
        // Partition of each key of the batch (NONE: answered in pass 1)
        // and its prepared hash.
        const NONE: u32 = u32::MAX;
        let mut part = [NONE; BATCH];
        let mut hash = [0u64; BATCH];
        let lookup = self.seps.lookup();
        for c0 in (0..n).step_by(BATCH) {
            let m = (n - c0).min(BATCH);
            for j in 0..m {
                let i = c0 + j;
                part[j] = NONE;
                if let Some(p) = lookup.and_then(|l| l.single(key(i))) {
                    debug_assert_eq!(self.key_candidates(key(i)), Some(p..p + 1));
                    part[j] = self.which[p];
                    hash[j] = unique[part[j] as usize].prepare_probe(probe(i));
                    continue;
                }
                match self.key_candidates(key(i)) {
                    Some(r) if r.len() == 1 => {
                        part[j] = self.which[r.start];
                        hash[j] = unique[part[j] as usize].prepare_probe(probe(i));
                    }
                    Some(r) if r.is_empty() => results[i] = true,
                    Some(r) => results[i] = r.into_iter().any(|p| self.probe_at(p, probe(i))),
                    None => results[i] = unique.iter().any(|f| f.may_match(probe(i))),
                }
            }
            for j in 0..m {
                if part[j] != NONE {
                    results[c0 + j] = unique[part[j] as usize].probe_prepared(probe(c0 + j), hash[j]);
                }
            }
        }
    }

    /// [`Partitions::may_match_batch`] through a routed kernel
    /// ([`Routed`]), [`LOOKUP_BATCH`] (64) keys at a time in three steps,
    /// each over all of them so that the CPU overlaps the keys' loads (one
    /// key's steps depend on each other: about 60 cycles of latency, which
    /// the out-of-order window covers for 3 keys when done key by key;
    /// measured, `benches/partitioned.rs`): the keys' buckets; their partitions
    /// (the search for keys whose bucket holds a separator; keys that can
    /// land on several answered on the spot); then the kernel hashes,
    /// prefetches and probes. Keys in order (MultiGet's) skip the first
    /// two: the kernel asks each key's route as it goes, and a key in its
    /// predecessor's run takes that one's after one compare
    /// ([`Lookup::place`](super::separators::Lookup::place)).
    #[cfg(target_arch = "x86_64")]
    fn may_match_batch_routed<'k>(
        &self,
        unique: &[Filter<'a>],
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        whole_key: bool,
        results: &mut [bool],
    ) {
        const CHUNK: usize = LOOKUP_BATCH;
        const ANSWERED: u32 = u32::MAX;
        let lookup = self.seps.lookup();
        // Each key's distinct filter, or ANSWERED (then `answer`).
        let mut part = [ANSWERED; CHUNK];
        let mut answer = [false; CHUNK];
        let bloom = self.routed == Routed::Bloom;
        // The lines kernel over `$out` for the keys' partitions in `part`,
        // each key's lines from the table kept since open (nothing is
        // gathered or allocated, so no query allocates:
        // `tests/query_alloc.rs`), each key's probe given by `$probe`
        // (chunk index -> bytes).
        macro_rules! lines_kernel {
            ($out:expr, $c0:expr, $m:expr, $probe:expr) => {{
                let (c0, m) = ($c0, $m);
                let alone = |j: usize| unique[part[j] as usize].may_match(probe(c0 + j));
                let table = |u: u32| self.lines_table(u);
                match self.same_lanes {
                    // SAFETY: used only for Routed::Bloom, whose kernels
                    // are chosen only on CPUs with AVX2.
                    Some(l) => unsafe {
                        fast_local::may_match_lines_avx2::<true>(
                            table,
                            l,
                            &part[..m],
                            &answer[..m],
                            $probe,
                            alone,
                            $out,
                        )
                    },
                    // SAFETY: as above.
                    None => unsafe {
                        fast_local::may_match_lines_avx2::<false>(
                            table,
                            &[0; 8],
                            &part[..m],
                            &answer[..m],
                            $probe,
                            alone,
                            $out,
                        )
                    },
                }
            }};
        }
        let mut located = [(0usize, 0u64); CHUNK];
        let mut seen: [&'k [u8]; CHUNK] = [&[]; CHUNK];
        // The routed Ribbon kernel of this file over `$out`, each key's
        // route made by `$route` from each `Filter`'s bytes and geometry
        // (Bloom files take the lines kernel above instead).
        macro_rules! ribbon_kernel {
            ($out:expr, $route:expr) => {
                match self.routed {
                    // SAFETY: Routed::Ribbon512 only when every Ribbon
                    // filter's kernel is Avx512, chosen only on CPUs with
                    // AVX-512 F and VPOPCNTDQ, AVX2 and POPCNT; every Probe
                    // comes from `ribbon_routable`, which gives only Ribbon
                    // filters.
                    #[cfg(rocksfilter_avx512)]
                    Routed::Ribbon512 => unsafe { ribbon::may_match_routed_avx512($route, $out) },
                    // SAFETY: Routed::Ribbon (or Ribbon512) only when every
                    // Ribbon filter's kernel is Avx2 or Avx512, chosen only
                    // on CPUs with AVX2 and POPCNT; every Probe comes from
                    // `ribbon_routable`. (Routed::Bloom takes the lines
                    // kernel and Routed::No the generic batch: neither
                    // comes here.)
                    _ => unsafe { ribbon::may_match_routed_avx2($route, $out) },
                }
            };
        }
        // Whether to follow runs: the previous chunk's keys were in order
        // and every in-order chunk so far had at least 3 in 4 keys keep
        // their predecessor's partition (once one does not, the rest of
        // the call takes the two passes). A key that leaves its run is
        // placed on its own, its loads not overlapped with the other
        // keys': with 2.25 keys per partition in a batch (`bench/sst`'s
        // 1,024-key batches over 455 partitions, about 56% of keys in a
        // run) runs cost 21-26 ns per key against 19.4 for the two
        // passes; with 13.5 (4,096 over 304, 92%) 9.6 against 13.3
        // (`benches/partitioned.rs --sorted`).
        let (mut expect_in_order, mut runs_pay) = (false, true);
        // Keys not following runs take the vector pass where it can run
        // (`Lookup::route_avx2`: 32.7 instructions per key against 83.3
        // for the two scalar passes, callgrind; with the lines kernel, a
        // Bloom batch 12.7-13.3 -> 10.4-10.6 ns per key,
        // `benches/partitioned.rs`, BENCHMARKS.md); it tells whether the
        // chunk was in order, as `Lookup::heads` does.
        #[cfg(target_arch = "x86_64")]
        let vector = lookup.is_some_and(|l| l.vector());
        // Each partition its own filter (`which` the identity: distinct
        // blocks are numbered in first-use order).
        #[cfg(target_arch = "x86_64")]
        let identity = self.distinct() == self.which.len();
        #[cfg(not(target_arch = "x86_64"))]
        let vector = false;
        for c0 in (0..n).step_by(CHUNK) {
            let m = (n - c0).min(CHUNK);
            let out = &mut results[c0..c0 + m];
            // Whether this chunk's keys are in order; the previous one's
            // says whether to skip the buckets (`Lookup::heads`).
            let try_runs = expect_in_order && runs_pay;
            let vector = vector && !try_runs;
            let in_order = !vector
                && lookup.is_some_and(|l| match try_runs {
                    true => l.heads::<false>(|j| key(c0 + j), &mut located[..m]),
                    false => l.heads::<true>(|j| key(c0 + j), &mut located[..m]),
                });
            let had_buckets = !try_runs;
            expect_in_order = in_order;
            if let (Some(l), true) = (lookup, in_order && runs_pay) {
                // Keys in order (MultiGet's): a key whose head is in its
                // predecessor's run takes that one's route after one
                // compare, so the kernel sees what a full filter's batch
                // does plus that compare (`Lookup::place`).
                let mut placed = 0;
                if bloom {
                    // Bloom: the runs give each key's partition in a pass
                    // of their own, then the lines kernel (as for keys in
                    // any order below).
                    let mut run = (Run::NONE, ANSWERED);
                    for j in 0..m {
                        let t = located[j].1;
                        if run.0.holds(t) {
                            part[j] = run.1;
                            continue;
                        }
                        placed += 1;
                        run.0 = l.place(t);
                        match self.which.get(run.0.separator as usize) {
                            Some(&u) => (part[j], run.1) = (u, u),
                            None => {
                                // A head equal to a separator's: the keys
                                // themselves decide.
                                run.0 = Run::NONE;
                                part[j] = ANSWERED;
                                answer[j] = self.may_match(key(c0 + j), probe(c0 + j));
                            }
                        }
                    }
                    lines_kernel!(out, c0, m, |j| probe(c0 + j));
                    runs_pay = 4 * placed <= m;
                    continue;
                }
                // Ribbon: a key in its predecessor's run takes that one's
                // route; the others, their own. (A closure expression for
                // each kernel `ribbon_kernel!` instantiates: one closure
                // that both took was called out of line, 51 instructions
                // per key, `benches/partitioned.rs --sorted`: Ribbon batch
                // 20.4 -> 22.4 ns per key.)
                let count = &mut placed;
                ribbon_kernel!(out, {
                    let mut run = (Run::NONE, None);
                    move |j: usize| {
                        let (i, t) = (c0 + j, located[j].1);
                        if let (true, Some((data, g))) = (run.0.holds(t), run.1) {
                            return Route::Probe(data, g, probe(i));
                        }
                        *count += 1;
                        run.0 = l.place(t);
                        let Some(&u) = self.which.get(run.0.separator as usize) else {
                            // A head equal to a separator's: the keys
                            // themselves decide.
                            run.1 = None;
                            return Route::Answered(self.may_match(key(i), probe(i)));
                        };
                        let r = route(unique, u, false, probe(i));
                        run.1 = match r {
                            Route::Probe(data, g, _) => Some((data, g)),
                            Route::Answered(_) => None,
                        };
                        r
                    }
                });
                runs_pay = 4 * placed <= m;
                continue;
            }
            // Each key's filter, mapped from its separator in the same
            // pass (`Lookup::route_avx2` or `Lookup::finish`); the others,
            // searched.
            let which = |s: usize| self.which.get(s).copied();
            // Whether `seen[..m]` holds this chunk's keys (the vector pass
            // hands back each key it read).
            let mut keys_seen = false;
            let all = match (lookup, had_buckets) {
                // SAFETY: `vector` only where `Lookup::vector` holds.
                #[cfg(target_arch = "x86_64")]
                (Some(l), _) if vector => {
                    let (all, sorted) = match identity {
                        true => unsafe {
                            l.route_avx2::<true>(|j| key(c0 + j), &self.which, &mut part[..m], &mut seen)
                        },
                        false => unsafe {
                            l.route_avx2::<false>(|j| key(c0 + j), &self.which, &mut part[..m], &mut seen)
                        },
                    };
                    (expect_in_order, keys_seen) = (sorted, true);
                    all
                }
                (Some(l), true) => l.finish::<true>(&mut located[..m], which, &mut part[..m]),
                (Some(l), false) => l.finish::<false>(&mut located[..m], which, &mut part[..m]),
                (None, _) => {
                    part[..m].fill(NOT_FOUND);
                    false
                }
            };
            #[cfg(debug_assertions)]
            for j in (0..m).filter(|&j| part[j] != NOT_FOUND) {
                let r = self.key_candidates(key(c0 + j)).expect("a separator found");
                assert_eq!((r.len(), self.which[r.start]), (1, part[j]), "partition of {:?}", key(c0 + j));
            }
            if !all {
                for j in 0..m {
                    if part[j] != NOT_FOUND {
                        continue;
                    }
                    let (i, k) = (c0 + j, key(c0 + j));
                    part[j] = match self.key_candidates(k) {
                        Some(r) if r.len() == 1 => self.which[r.start],
                        _ => {
                            answer[j] = self.may_match(k, probe(i));
                            ANSWERED
                        }
                    };
                }
            }
            if bloom {
                match whole_key && keys_seen {
                    // The keys as the vector pass read them: the caller's
                    // key closure is not called a second time (for the C
                    // call, its bounds, NULL and length tests: 14
                    // instructions per key, callgrind, `bench/sst`).
                    true => lines_kernel!(out, c0, m, |j| seen[j]),
                    false => lines_kernel!(out, c0, m, |j| probe(c0 + j)),
                }
                continue;
            }
            // Ribbon: each key's route from its filter found above (the
            // keys as the vector pass read them, as for Bloom above).
            match whole_key && keys_seen {
                true => ribbon_kernel!(out, |j: usize| route(unique, part[j], answer[j], seen[j])),
                false => ribbon_kernel!(out, |j: usize| route(unique, part[j], answer[j], probe(c0 + j))),
            }
        }
    }

    /// The batch over partitions read on demand: keys are grouped by
    /// partition, [`ON_DEMAND_BATCH`] at a time, and each group's block is
    /// looked up (and, on a miss, read) once; a path source is opened once
    /// per batch.
    fn may_match_batch_on_demand<'k>(
        &self,
        o: &OnDemand,
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    ) {
        // (distinct block << 32) | key's place in the chunk, sorted.
        let mut order = [0u64; ON_DEMAND_BATCH];
        let mut file = None;
        for c0 in (0..n).step_by(ON_DEMAND_BATCH) {
            let m = (n - c0).min(ON_DEMAND_BATCH);
            let mut k = 0;
            let lookup = self.seps.lookup();
            for j in 0..m {
                let i = c0 + j;
                if let Some(p) = lookup.and_then(|l| l.single(key(i))) {
                    order[k] = u64::from(self.which[p]) << 32 | j as u64;
                    k += 1;
                    continue;
                }
                match self.key_candidates(key(i)) {
                    Some(r) if r.len() == 1 => {
                        order[k] = u64::from(self.which[r.start]) << 32 | j as u64;
                        k += 1;
                    }
                    Some(r) if r.is_empty() => results[i] = true,
                    Some(r) => results[i] = r.into_iter().any(|p| self.probe_at(p, probe(i))),
                    None => results[i] = self.probe_all(probe(i)),
                }
            }
            let order = &mut order[..k];
            order.sort_unstable();
            for group in order.chunk_by(|a, b| a >> 32 == b >> 32) {
                let held = o.hold((group[0] >> 32) as usize, &mut file);
                let f = held.filter();
                for &e in group {
                    let i = c0 + (e & 0xFFFF_FFFF) as usize;
                    results[i] = f.may_match(probe(i));
                }
            }
        }
    }

    /// The partitions a query for `key` can land on (None: every one, an
    /// unknown comparator; empty: "may match" at once). For benchmarks of
    /// the lookup alone (`benches/partitioned.rs`).
    #[doc(hidden)]
    pub fn candidates_for_key(&self, key: &[u8]) -> Option<Range<usize>> {
        if let Some(i) = self.seps.lookup().and_then(|l| l.single(key)) {
            return Some(i..i + 1);
        }
        self.key_candidates(key)
    }

    /// How many partitions a prefix query consults (0 when there are more
    /// than [`super::MAX_PARTITIONS_PER_QUERY`] and it answers "may match" at once;
    /// every partition for an unknown comparator). For tests of the bound.
    #[doc(hidden)]
    pub fn consulted_for_prefix(&self, prefix: &[u8]) -> usize {
        match self.seps.order {
            Order::Bytewise => {
                self.candidates(|s| s < prefix, |s| s.starts_with(prefix)).map_or(self.len(), |r| r.len())
            }
            _ => self.len(),
        }
    }

    /// May a key with this prefix be in the file? Keys with a prefix are
    /// contiguous in bytewise and in reverse-bytewise order, so the
    /// candidates are the partitions from the first that can hold one up to
    /// the first whose separator no longer has the prefix.
    pub(super) fn prefix_may_match(&self, prefix: &[u8]) -> bool {
        let range = match self.seps.order {
            Order::Bytewise => self.candidates(|s| s < prefix, |s| s.starts_with(prefix)),
            Order::ReverseBytewise => {
                self.candidates(|s| s > prefix && !s.starts_with(prefix), |s| s.starts_with(prefix))
            }
            Order::Unknown => None,
        };
        match range {
            Some(r) if r.is_empty() => true,
            Some(r) => r.into_iter().any(|i| self.probe_at(i, prefix)),
            None => self.probe_all(prefix),
        }
    }
}

impl<'a> Partitions<'a> {
    /// Reads the top-level index of a partitioned filter and every distinct
    /// partition. Ok(Err(why)) (the filter is not used) where RocksDB could
    /// not use it either or its lookups are not well defined: an unreadable
    /// index block, malformed entries, separators out of order. Err: the
    /// source failed.
    ///
    /// Reads: RocksDB writes the partitions and then their index right
    /// after the data blocks (`BlockBasedTableBuilder::WriteFilterBlock`,
    /// at `rocksdb.data.size`), so when the index is not among the bytes
    /// read already, one read brings the index and every partition; when
    /// the index was, one read brings the partitions
    /// (`PartitionedFilterBlockReader::CacheDependencies` reads them in one
    /// too). Partitions elsewhere are read one by one.
    ///
    /// With `keep` (a cache), only the index is read (exactly its block);
    /// the partitions are read when queries need them.
    pub(super) fn read(
        fetch: &mut Fetcher<'a, '_>,
        footer: &Footer,
        handle: BlockHandle,
        properties: &Properties,
        cmp: Comparator,
        keep: Option<&Keep>,
    ) -> Result<std::result::Result<Partitions<'a>, String>> {
        let what = "filter partition index";
        let unusable =
            |e: crate::Error| format!("{} (RocksDB does not use a filter whose index it cannot read)", e.message());
        let index_end = match block_end(footer, handle, what) {
            Ok(e) => e as u64,
            Err(e) => return Ok(Err(unusable(e))),
        };
        if keep.is_none() && !fetch.holds(&(handle.offset..index_end), false) {
            // Only when the properties agree that the range is the filter:
            // `rocksdb.filter.size` counts the partitions and their index
            // (without trailers), so a range much larger than that holds
            // other blocks the handle would keep for nothing.
            let start = properties.data_size.filter(|&s| s <= handle.offset);
            let plausible = |s: u64| {
                properties.filter_size.is_some_and(|f| index_end - s <= f.saturating_mul(2).saturating_add(64 << 10))
            };
            if let Some(start) = start.filter(|&s| plausible(s)) {
                fatal_io(fetch.prefetch(start..index_end, true))?.ok();
            }
        }
        let block = match fatal_io(fetch.block(footer, handle, what))? {
            Ok(b) => b,
            Err(e) => return Ok(Err(unusable(e))),
        };
        let compression = block.compression();
        // RocksDB may compress this block (kFilterPartitionIndex is not
        // among the types read raw).
        let owned;
        let index = if compression == 0 {
            block.data()
        } else {
            owned = match compression::decompress(compression, block.data(), what, handle.offset, footer.format_version)
            {
                Ok(o) => o,
                Err(why) => return Ok(Err(why)),
            };
            &owned[..]
        };
        let internal = !properties.index_key_is_user_key.unwrap_or(false);
        let delta = properties.index_value_is_delta_encoded.unwrap_or(false);
        let budget = PARTITION_KEYS_BUDGET.saturating_add(index.len().saturating_mul(8));
        let mut it = match BlockIter::new(index, what, handle.offset, footer.format_version) {
            Ok(it) => it,
            Err(e) => return Ok(Err(e.message().to_string())),
        };
        let mut seps = Separators::new(internal, cmp, budget);
        let mut distinct: Vec<BlockHandle> = Vec::new();
        let mut which = Vec::new();
        let mut seen: HashMap<BlockHandle, u32> = HashMap::new();
        let mut distinct_bytes: u64 = 0;
        let mut prev = None;
        loop {
            let (key, h, info) = match it.next_handle(delta, prev, false) {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => return Ok(Err(e.message().to_string())),
            };
            prev = Some(h);
            if let Err(why) = seps.push(key, &info, handle.offset, false, what) {
                return Ok(Err(why));
            }
            let slot = *seen.entry(h).or_insert_with(|| {
                distinct.push(h);
                distinct_bytes = distinct_bytes.saturating_add(h.size);
                (distinct.len() - 1) as u32
            });
            if distinct_bytes > fetch.len() {
                return Ok(Err(format!(
                    "{what} at offset {}: its distinct partitions add up to more bytes than the file has (they overlap)",
                    handle.offset
                )));
            }
            which.push(slot);
        }
        if which.is_empty() {
            return Ok(Err(format!("{what} at offset {} has no entries", handle.offset)));
        }
        if let Some(keep) = keep {
            let o = OnDemand::new(keep, footer, fetch.verify(), &distinct, "filter partition");
            let unreadable = o.out_of_bounds().collect();
            let p = Partitions {
                seps,
                store: Store::OnDemand(o),
                which,
                unreadable,
                routed: Routed::No,
                same_lanes: None,
                #[cfg(target_arch = "x86_64")]
                lines: Box::new([]),
                #[cfg(target_arch = "x86_64")]
                direct: false,
            };
            p.seps.prepare_lookups();
            return Ok(Ok(p));
        }
        // One read for all partitions when they are contiguous (RocksDB
        // writes them so); gaps of more than their own size are read one
        // by one instead of bringing bytes no query needs.
        let bounded: Vec<Range<u64>> =
            distinct.iter().filter_map(|&h| block_end(footer, h, "").ok().map(|e| h.offset..e as u64)).collect();
        if let (Some(lo), Some(hi)) = (bounded.iter().map(|r| r.start).min(), bounded.iter().map(|r| r.end).max()) {
            let wanted: u64 = bounded.iter().map(|r| r.end - r.start).sum();
            if hi - lo <= 2 * wanted + BLOCK_TRAILER_LEN as u64 * 64 {
                fatal_io(fetch.prefetch(lo..hi, true))?.ok();
            }
        }
        let mut unique = Vec::with_capacity(distinct.len());
        let mut unreadable = Vec::new();
        for h in distinct {
            // RocksDB reads a partition when a query needs it and answers
            // "may match" if that fails.
            let f = match fatal_io(fetch.block(footer, h, "filter partition"))? {
                Ok(b) => Filter::from_held(fetch.keep(&b)?).map_err(|e| {
                    crate::Error::new(e.kind(), format!("filter block at offset {}: {}", h.offset, e.message()))
                }),
                Err(e) => Err(e),
            };
            unique.push(f.unwrap_or_else(|e| {
                unreadable.push(e.message().to_string());
                Filter::always_true()
            }));
        }
        Ok(Ok(Partitions::resident(seps, unique, which, unreadable)))
    }

    /// Partitions over filters loaded at open (`unique`, partition i's
    /// being `unique[which[i]]`): the batch kernel that serves them
    /// ([`Routed`]) and what it keeps ([`Partitions::lines`]).
    fn resident(seps: Separators, unique: Vec<Filter<'a>>, which: Vec<u32>, unreadable: Vec<String>) -> Partitions<'a> {
        let routed = if !cfg!(target_arch = "x86_64") {
            Routed::No
        } else if 8 * unique.iter().filter(|f| f.fast_local_le8().is_none()).count() <= unique.len() {
            // FastLocalBloom partitions, and maybe a few others (at most
            // one in 8; a small last partition RocksDB sized to its
            // allocation, with more than 8 probes, or an unreadable one):
            // those are queried one key at a time.
            Routed::Bloom
        } else if unique.iter().all(|f| f.ribbon_routable().is_some() || f.kind() != crate::Kind::Standard128Ribbon)
            && unique.iter().any(|f| f.ribbon_routable().is_some())
        {
            // Ribbon partitions, and maybe a few small ones RocksDB's
            // Ribbon policy wrote as Bloom (its fallback below a key
            // count): those are queried one key at a time.
            if unique.iter().all(|f| f.ribbon_avx512() || f.ribbon_routable().is_none()) {
                Routed::Ribbon512
            } else {
                Routed::Ribbon
            }
        } else {
            Routed::No
        };
        let same_lanes = match routed {
            Routed::Bloom => {
                let mut lanes = unique.iter().map(Filter::lines).filter(|l| !l.is_alone()).map(|l| l.lanes());
                let first = lanes.next();
                first.filter(|&f| lanes.all(|l| std::ptr::eq(l, f)))
            }
            _ => None,
        };
        let store = Store::Resident(unique);
        #[cfg(target_arch = "x86_64")]
        let lines = kept_lines(&store, routed);
        #[cfg(target_arch = "x86_64")]
        let direct = direct(&lines, &which);
        let p = Partitions {
            seps,
            store,
            which,
            unreadable,
            routed,
            same_lanes,
            #[cfg(target_arch = "x86_64")]
            lines,
            #[cfg(target_arch = "x86_64")]
            direct,
        };
        // The lookup form of the separators, made now so that no query
        // allocates (8 bytes per partition).
        p.seps.prepare_lookups();
        p
    }
}

/// A key's route into a routed Ribbon kernel: probe distinct filter `u`
/// (its bytes and geometry from its `Filter`; a filter the kernel cannot
/// query, such as a small partition RocksDB's Ribbon policy wrote as
/// Bloom, answers itself), or `answer` when `u` is none (the key was
/// answered on the spot).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn route<'f, 'a: 'f, 'k>(
    unique: &'f [Filter<'a>],
    u: u32,
    answer: bool,
    probe: &'k [u8],
) -> Route<'f, 'k, ribbon::RibbonGeometry> {
    match unique.get(u as usize) {
        Some(f) => match f.ribbon_routable() {
            Some((data, g)) => Route::Probe(data, g, probe),
            None => Route::Answered(f.may_match(probe)),
        },
        None => Route::Answered(answer),
    }
}

// The lines table and its kernel are x86_64's.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::sst::block::{EntryInfo, PrevDiff};
    use crate::{FilterBuilder, Policy};

    /// 40 Bloom partitions of 50 keys each, every filter owning its bytes
    /// (as blocks copied out of a file do), and the keys.
    fn owned_partitions() -> (Partitions<'static>, Vec<Vec<u8>>) {
        let keys: Vec<Vec<u8>> = (0..2_000u32).map(|i| format!("key{:06}", 3 * i).into_bytes()).collect();
        let mut seps = Separators::new(false, Comparator::from_name(Some("leveldb.BytewiseComparator")), usize::MAX);
        let info = EntryInfo { offset: 0, value_offset: 0, prev: PrevDiff::default() };
        let mut unique = Vec::new();
        for part in keys.chunks(50) {
            let mut b = FilterBuilder::new(Policy::Bloom, 10.0).expect("a policy");
            part.iter().for_each(|k| b.add_key(k));
            unique.push(Filter::from_vec(b.finish().expect("builds")).expect("loads"));
            seps.push(part.last().expect("50 keys"), &info, 0, true, "test").expect("in order");
        }
        let which = (0..unique.len() as u32).collect();
        (Partitions::resident(seps, unique, which, Vec::new()), keys)
    }

    /// Every entry of the lines table points at its own filter's lines.
    fn table_points_into_own_filters(p: &Partitions<'_>) {
        for (u, f) in p.filters().iter().enumerate() {
            let kept = p.lines_table(u as u32).map(|l| l.span());
            assert_eq!(kept, Some(f.lines().span()), "partition {u}");
        }
    }

    /// A clone's lines table is its own: a clone's filters own copies of
    /// their bytes (`Filter::clone`), so a table copied along would point
    /// into the original's, freed when it is dropped.
    #[test]
    fn a_clone_keeps_lines_of_its_own_filters() {
        let (p, keys) = owned_partitions();
        if p.routed != Routed::Bloom {
            // (A CPU without AVX2: no lines kernel, no table.)
            assert!(p.lines.is_empty());
            return;
        }
        assert_eq!(p.lines.len(), 40);
        table_points_into_own_filters(&p);
        let copy = p.clone();
        drop(p);
        table_points_into_own_filters(&copy);
        // And it answers: every key present, a batch as the single calls.
        let probes: Vec<Vec<u8>> = (0..6_000u32).map(|i| format!("key{i:06}").into_bytes()).collect();
        let mut out = vec![false; probes.len()];
        copy.may_match_batch(probes.len(), &|i| probes[i].as_slice(), &|i| probes[i].as_slice(), true, &mut out);
        for (k, &got) in probes.iter().zip(&out) {
            assert_eq!(got, copy.may_match(k, k), "{k:?}");
        }
        assert!(keys.iter().all(|k| copy.may_match(k, k)));
    }
}
