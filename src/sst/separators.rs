//! The separator keys of an index block, decoded once at open: the top-level
//! index of a partitioned filter, and the data-block index that the
//! block-based filter needs. A separator is an upper bound of the keys of
//! its block (and below the next block's first key), in the file's order.

use std::cmp::Ordering;
use std::sync::OnceLock;

use super::block::EntryInfo;
use super::{Comparator, Order, MAX_PARTITIONS_PER_QUERY};

/// Where a separator's bytes are in the arena.
#[derive(Clone, Copy, Debug)]
struct KeyLoc {
    start: usize,
    len: u32,
}

/// Separators in file order, copied (and, where they share bytes with
/// their predecessor, decompressed) into one buffer of bounded size: a
/// handle keeps no index block, only its keys.
#[derive(Clone, Debug)]
pub(super) struct Separators {
    keys: Vec<KeyLoc>,
    arena: Vec<u8>,
    /// Bytes the arena may hold (grows with each index block read).
    budget: usize,
    /// Separators are internal keys (user key + 8-byte trailer).
    pub(super) internal: bool,
    pub(super) order: Order,
    /// Bytes of user-defined timestamp ending each user key.
    ts: usize,
    /// The fast comparison form of the user keys, built on first use.
    heads: OnceLock<Heads>,
}

/// Separators' user keys for comparisons that mostly touch one u64: the
/// prefix every separator's user key shares, and of each the 8 bytes after
/// it, big-endian, zero-padded. Padded heads order as the keys do whenever
/// they differ (at the first differing byte the larger side has a real
/// byte, so the smaller side's byte is smaller or its key ended there), so
/// only equal heads need the keys themselves.
///
/// Heads are kept ascending (complemented in reverse-bytewise order, which
/// keeps equality and reverses the order), and a bucket table over them
/// answers most lookups with one load: a key's head maps to a bucket by a
/// monotone function, and a bucket that holds no separator's head lies
/// wholly between two separators, so its first-separator entry is the
/// answer (one that holds one separator takes one more compare,
/// [`Lookup`]). Only keys whose bucket holds more search, within it, by
/// branch-free halving. A binary search over 300 partitions is 9
/// dependent loads and compares, mispredicted exits included. Measured
/// (`benches/partitioned.rs`, 304 partitions of hex keys, Bloom batch per
/// key, the full filter's 4.7 ns included): 41.9 ns by binary search, 25.1
/// with a table over the heads' top bits (text keys leave most of those
/// bits constant, so each bucket in use still held about ten separators),
/// 16.1-16.4 with the buckets below and 2-byte digits, 14.7-15.5 with
/// 4-byte digits, 2-byte buckets and the batch's gathered geometry,
/// 14.6-14.7 with [`Lookup::batch`] (BENCHMARKS.md has the steps). A
/// static search tree of 8 heads per cache line, each level one AVX-512
/// compare, measured slower on an Intel Xeon: 14.2-16.0 ns against
/// 12.9-14.1 for a batch, 20.6-23.1 against 18.2-19.4 for single queries
/// (three dependent levels against one step of independent loads;
/// `bench/sst`).
///
/// The bucket function ranks each of the head's first bytes among the
/// values the separators have at that byte ([`Digits`]), so text keys
/// (16 hex digits, 10 decimal ones) spread over the buckets as evenly as
/// binary ones. There are 16 buckets per separator (a key falls in a
/// bucket holding a separator 4.4% of the time on the benchmark's keys,
/// which are spread like the separators), 2 bytes each ([`Radix`]; 4
/// past 65,535 separators), at most 65,536 (256 KiB for a very large
/// data-block index), and 4 KiB of digit tables: 72 bytes per partition
/// on a file of 102 (`tests/handles.rs` holds a handle to 256 bytes per
/// partition beyond its filter).
#[derive(Clone, Debug, Default)]
pub(super) struct Heads {
    common: Vec<u8>,
    /// The common prefix's first bytes (up to 8) as a big-endian integer,
    /// and the mask that keeps as many bytes of a key's first 8: the
    /// common-prefix test of most keys in one load.
    common_head: u64,
    common_mask: u64,
    /// For a common prefix of 9 to 16 bytes, its first 8 and its last 8
    /// as loaded (native byte order), so that [`Heads::head_mid`] compares
    /// a key's bytes as loaded, without swapping them.
    common_first: u64,
    common_tail: u64,
    /// Ascending; see above.
    heads: Vec<u64>,
    /// [`Lookup::flip`] of the separators' order.
    flip: u64,
    digits: Digits,
    /// `radix[b]`: the first separator whose head is in bucket `b` or a
    /// later one (`bucket`); `radix.len()` is the bucket count + 1, and the
    /// last entry is the number of separators.
    radix: Radix,
    /// The last separator's index (0 when there are none).
    last: usize,
}

/// The bucket table's entries (separator indexes): 2 bytes each while
/// they fit (fewer than 65,536 separators: every top-level index of a
/// filter), which halves the table a lookup touches (9.5 KiB for 304
/// partitions, in L1) and its share of a handle's memory.
#[derive(Clone, Debug)]
enum Radix {
    Narrow(Box<[u16]>),
    Wide(Box<[u32]>),
}

impl Default for Radix {
    fn default() -> Self {
        Radix::Narrow(Box::new([]))
    }
}

impl Radix {
    /// Entry `b`, None past the table.
    #[inline(always)]
    fn get(&self, b: usize) -> Option<usize> {
        match self {
            Radix::Narrow(v) => v.get(b).map(|&x| usize::from(x)),
            Radix::Wide(v) => v.get(b).map(|&x| x as usize),
        }
    }
}

/// A bucket table's entry type.
trait Entry: Copy {
    fn at(self) -> usize;
}

impl Entry for u16 {
    #[inline(always)]
    fn at(self) -> usize {
        usize::from(self)
    }
}

impl Entry for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

/// A monotone map from heads to `0..buckets`, which spends its range on
/// the byte values the separators use. Byte `j` of a head (from the most
/// significant, for the first [`RANKED`] bytes) becomes a digit in
/// `0..=m_j`, where `m_j` is the number of distinct values the separators
/// have there: value `v_k` (the k-th smallest) is digit k + 1; a value
/// between `v_{k-1}` and `v_k` (or below `v_0`: k = 0) is digit k and
/// "saturates" every later digit to its largest, as such a head is past
/// every head with `v_{k-1}` there and before every head with `v_k`. The
/// digits read as one mixed-radix number (radix `m_j + 1` at byte j),
/// scaled down to the bucket count.
///
/// Monotone (a head below another never maps above it): at the first byte
/// where two heads differ, the smaller one's digit is smaller, or equal
/// and then the larger one saturates (its later digits are the largest)
/// or both do (equal from there). Separators never saturate, so two of
/// them with different leading bytes stay apart.
///
/// Each ranked byte has a table of 256 entries of 4 bytes: the value's
/// digit already multiplied by its place value (plus, for a saturating
/// value, every later digit's largest), with the saturation flag in the
/// top bit: 6 instructions per byte (shift, byte, load, test, conditional
/// move, add), no branch. The number stays
/// below 2^27 (bytes are ranked only while it is below 4 x 65,536
/// buckets, and one more byte multiplies it by at most 257), so 31 bits
/// hold it. Measured against the alternatives (`benches/partitioned.rs`,
/// Bloom batch per key): 8-byte entries already multiplied, 14.4 ns but
/// 8 KiB per handle; 2-byte digits multiplied at query time, 2 KiB but
/// 16.3 ns; a 256-bit set per byte and a population count, 176 bytes but
/// 18.5 ns. A handle keeps at most 256 bytes per partition beyond its
/// filter (`tests/handles.rs`), so files with fewer than [`DIGITS_MIN`]
/// separators have no tables.
#[derive(Clone, Debug, Default)]
struct Digits {
    /// Per ranked byte, per value: its digit times the byte's place value
    /// (the product of the later radices), plus the later digits' largest
    /// and [`SATURATES`] for values no separator has there (all zero for
    /// bytes past those the buckets need). None for fewer than
    /// [`DIGITS_MIN`] separators: one bucket, searched.
    rank: Option<Box<[[u32; 256]; RANKED]>>,
    /// Buckets per unit of the mixed-radix number, as a 32.32 fixed-point
    /// number (bucket = number * scale >> 32, below the bucket count).
    scale: u64,
}

/// Leading bytes of a head the buckets rank, at most: 4 spread 16 hex
/// digits or 10 decimal ones (17^4 and 11^4 values) over the buckets of
/// 300 separators, and binary keys over 65,536.
const RANKED: usize = 4;

/// Separators below which there are no digit tables (4 KiB, against the
/// 256 bytes per partition a handle may keep beyond its filter: 24
/// separators keep 171 bytes each of tables and 34 of buckets): a lookup
/// among fewer searches them all, 5 steps.
const DIGITS_MIN: usize = 24;

/// Set in a table entry whose value no separator has (see [`Digits`]).
const SATURATES: u32 = 1 << 31;

impl Digits {
    /// Ranks as many leading bytes of `heads` (up to [`RANKED`]) as it
    /// takes for the digits to have about 4 values per bucket.
    fn new(heads: &[u64], buckets: usize) -> Digits {
        let mut d = Digits::default();
        if heads.len() < DIGITS_MIN {
            return d;
        }
        // Per ranked byte: the digit of each value (with the saturation
        // flag) and the byte's radix.
        let mut digits: Vec<([u32; 256], u64)> = Vec::new();
        let mut total: u64 = 1;
        for j in 0..RANKED {
            if total >= 4 * buckets as u64 {
                break;
            }
            let mut seen = [false; 256];
            for &h in heads {
                seen[byte(h, j)] = true;
            }
            let mut table = [0u32; 256];
            let mut below = 0u32;
            for (&seen, entry) in seen.iter().zip(table.iter_mut()) {
                *entry = if seen {
                    below += 1;
                    below
                } else {
                    below | SATURATES
                };
            }
            digits.push((table, u64::from(below) + 1));
            // Below 4 x 65,536 before this byte, at most 257 times that
            // after: below 2^27.
            total *= u64::from(below) + 1;
        }
        let rank = d.rank.insert(Box::new([[0; 256]; RANKED]));
        for (j, (table, _)) in digits.iter().enumerate() {
            let place: u64 = digits[j + 1..].iter().map(|&(_, r)| r).product();
            for (e, &digit) in rank[j].iter_mut().zip(table) {
                // A saturating value: its digit, and every later digit its
                // largest (place - 1 in all). Below `total` < 2^27.
                let saturates = digit & SATURATES != 0;
                let value = u64::from(digit & !SATURATES) * place + if saturates { place - 1 } else { 0 };
                *e = value as u32 | (digit & SATURATES);
            }
        }
        // floor(2^32 * buckets / total), so that number * scale >> 32 stays
        // below `buckets` for every number below `total` (at most 2^48:
        // the product stays below 2^64).
        d.scale = ((buckets as u64) << 32) / total;
        d
    }

    /// The bucket of head `t`.
    #[inline(always)]
    fn bucket(&self, t: u64) -> usize {
        match &self.rank {
            Some(rank) => ranked_bucket(rank, self.scale, t),
            None => 0,
        }
    }
}

/// [`Digits::bucket`] with its tables present.
#[inline(always)]
fn ranked_bucket(rank: &[[u32; 256]; RANKED], scale: u64, t: u64) -> usize {
    // From the last ranked byte to the first: a saturating value (which
    // adds every later digit's largest itself) drops what the later bytes
    // added. A conditional move: LLVM makes a branch of a mask here, which
    // keys with bytes no separator has would mispredict. The flags
    // themselves add into bit 31, which the sum's low 31 bits never see.
    // (Bytes past those ranked: entry 0.)
    let mut number = 0u32;
    for (j, table) in rank.iter().enumerate().rev() {
        let e = table[byte(t, j)];
        number = std::hint::select_unpredictable((e as i32) < 0, 0, number).wrapping_add(e);
    }
    ((u64::from(number & !SATURATES) * scale) >> 32) as usize
}

/// `PAD[k]` shifts a head read k bytes early up by k bytes (2^(8k), and
/// 0 from 8 bytes on: a head of zero padding alone), as a multiplier.
const PAD: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut k = 0;
    while k < 8 {
        t[k] = 1 << (8 * k);
        k += 1;
    }
    t
};

/// Byte `j` of head `t`, from the most significant.
#[inline(always)]
fn byte(t: u64, j: usize) -> usize {
    (t >> (56 - 8 * j)) as u8 as usize
}

impl Heads {
    /// Heap bytes of the tables.
    fn heap_bytes(&self) -> usize {
        let radix = match &self.radix {
            Radix::Narrow(r) => r.len() * 2,
            Radix::Wide(r) => r.len() * 4,
        };
        let digits = self.digits.rank.as_ref().map_or(0, |_| std::mem::size_of::<[[u32; 256]; RANKED]>());
        self.common.capacity() + self.heads.capacity() * 8 + radix + digits
    }

    /// Bucket of an (ascending) head: monotone, so a head in an earlier
    /// bucket is smaller and one in a later bucket larger.
    #[inline(always)]
    fn bucket(&self, t: u64) -> usize {
        self.digits.bucket(t)
    }

    /// The first separator whose head is not below `t`, in `radix[b]
    /// ..radix[b + 1]` for `t`'s bucket `b` (heads before it are below `t`,
    /// the one at its end above it): [`lower_bound`].
    #[inline(always)]
    fn lower_bound_in(&self, t: u64, lo: usize, hi: usize) -> usize {
        lower_bound(&self.heads, t, lo, hi)
    }

    /// [`Heads::head`] for a prefix of at most 16 bytes (None for a longer
    /// one), its common case first: a prefix of at most 8 bytes and a key
    /// with 8 bytes after it (the same test and head). A single query's
    /// fast path takes this, so that it keeps its few registers
    /// (callgrind, `benches/partitioned.rs`: 98.6 instructions per key in
    /// `Partitions::may_match`, against 107.6 with the rest called out of
    /// line and 109.6 inlined). Prefixes of 9 to 16 bytes (decimal keys
    /// padded to a fixed width: 13 at 1M keys) take `head`, which reads
    /// them with [`Heads::head_mid`]: `bench/sst`'s single query on such
    /// keys, 249.7 instructions per key through `Lookup::single`, 219.4
    /// through `head` before it took `head_mid`, 213.4 with it.
    #[inline(always)]
    fn head_quick(&self, key: &[u8]) -> Option<Option<u64>> {
        let l = self.common.len();
        if l > 8 {
            return (l <= 16).then(|| self.head(key));
        }
        let (Some(first), Some(tail)) = (key.first_chunk::<8>(), key.get(l..).and_then(<[u8]>::first_chunk::<8>))
        else {
            return Some(self.head(key));
        };
        Some(
            (u64::from_be_bytes(*first) & self.common_mask == self.common_head)
                .then(|| u64::from_be_bytes(*tail) ^ self.flip),
        )
    }

    /// [`Heads::head`] for a common prefix of 9 to 16 bytes (decimal keys
    /// padded to a fixed width), in three loads: the prefix's first 8
    /// bytes and its last 8 compared whole, and the head read at the
    /// prefix's end or, with fewer than 8 bytes after it, at the key's
    /// last 8 and shifted up (the zero padding), rather than branching on
    /// the tail's length first. Counted with callgrind (`bench/sst`, a
    /// 13-byte prefix, Bloom): `Partitions::may_match` 107.1 -> 101.1
    /// instructions per single query, `Lookup::route_avx2` 57.2 -> 55.0
    /// per key of a batch.
    #[inline(always)]
    fn head_mid(&self, key: &[u8]) -> Option<u64> {
        self.head_mid_read(key).map(|t| t ^ self.flip)
    }

    /// [`Heads::head_mid`]'s head as read, before the flip (the vector
    /// routing flips eight at a time).
    #[inline(always)]
    fn head_mid_read(&self, key: &[u8]) -> Option<u64> {
        let (l, len) = (self.common.len(), key.len());
        debug_assert!((9..=16).contains(&l));
        if len < l {
            return None;
        }
        let first = u64::from_ne_bytes(*key.first_chunk::<8>()?);
        let last = u64::from_ne_bytes(*key.get(l - 8..)?.first_chunk::<8>()?);
        let at = l.min(len - 8);
        // Shifted up by the l - at (at most 8) bytes read before the
        // prefix's end, as a multiply by a loaded power of two: a shift by
        // a variable count takes its count in CL on x86-64 (without BMI2),
        // and the register moves around it and the test for a count of 64
        // cost 7 instructions against 2 (callgrind, `bench/sst`'s Bloom
        // file, a 13-byte prefix: 193.9 -> 186.9 instructions per single
        // query through the C call, 166.0 -> 164.6 per key of a batch).
        let head = u64::from_be_bytes(*key.get(at..)?.first_chunk::<8>()?).wrapping_mul(PAD[(l - at) & 15]);
        ((first == self.common_first) & (last == self.common_tail)).then_some(head)
    }

    /// The head of `key` as the heads are kept (flipped in reverse
    /// order): its 8 bytes after the common prefix, big-endian,
    /// zero-padded; None when the key does not share the prefix or is
    /// shorter than 8 bytes. One load for each of the prefix's first 8
    /// bytes and the head ([`Heads::head_mid`] for a prefix of 9 to 16
    /// bytes); a longer prefix compares its bytes past the first 8.
    #[inline(always)]
    fn head(&self, key: &[u8]) -> Option<u64> {
        let (l, len) = (self.common.len(), key.len());
        if (9..=16).contains(&l) {
            return self.head_mid(key);
        }
        let first = key.first_chunk::<8>()?;
        let tail = key.get(l..)?;
        let head = match tail.first_chunk::<8>() {
            Some(b) => u64::from_be_bytes(*b),
            // Fewer than 8 bytes after the prefix (and at least 8 in the
            // key): the key's last 8, shifted up, are the padded head.
            None => u64::from_be_bytes(*key[len - 8..].first_chunk::<8>()?)
                .checked_shl(64 - 8 * tail.len() as u32)
                .unwrap_or(0),
        };
        // The key is at least max(l, 8) bytes long, so the slices below
        // are in bounds.
        if u64::from_be_bytes(*first) & self.common_mask != self.common_head {
            return None;
        }
        if l > 16 && key[8..l] != self.common[8..] {
            return None;
        }
        Some(head ^ self.flip)
    }

    fn new(common: &[u8], heads: Vec<u64>, flip: u64) -> Heads {
        let n = heads.len();
        let buckets = (16 * n).clamp(16, 1 << 16);
        let digits = Digits::new(&heads, buckets);
        let l = common.len().min(8);
        let mut h = Heads {
            common: common.to_vec(),
            common_head: head_of(&common[..l]),
            common_mask: if l == 0 { 0 } else { u64::MAX << (64 - 8 * l) },
            common_first: common.first_chunk::<8>().map_or(0, |b| u64::from_ne_bytes(*b)),
            common_tail: common.last_chunk::<8>().map_or(0, |b| u64::from_ne_bytes(*b)),
            heads,
            flip,
            digits,
            radix: Radix::default(),
            last: n.saturating_sub(1),
        };
        let mut radix = Vec::with_capacity(buckets + 1);
        let mut i = 0;
        for b in 0..=buckets {
            while i < n && h.bucket(h.heads[i]) < b {
                i += 1;
            }
            radix.push(i as u32);
        }
        h.radix = match u16::try_from(n) {
            Ok(_) => Radix::Narrow(radix.iter().map(|&i| i as u16).collect()),
            Err(_) => Radix::Wide(radix.into_boxed_slice()),
        };
        h
    }
}

/// [`Separators::key_range`]'s common case in a few dozen instructions and
/// no branch a random key mispredicts: a key of at least 8 bytes that
/// shares the separators' common prefix and falls in a bucket that holds
/// no separator's head lands on exactly one separator, the bucket table's
/// entry, or one compare away from it when the bucket holds one
/// separator. That is over 95% of keys spread like the separators
/// (`benches/partitioned.rs`: 304 partitions of hex keys).
#[derive(Clone, Copy, Debug)]
pub(super) struct Lookup<'s> {
    heads: &'s Heads,
    /// Complements heads in reverse-bytewise order (see [`Heads`]).
    flip: u64,
    /// The last separator (where keys past every one land).
    last: usize,
}

impl Lookup<'_> {
    /// The one separator a lookup for `key` lands on, when this finds it
    /// at once; None: ask [`Separators::key_range`].
    #[inline(always)]
    pub(super) fn single(&self, key: &[u8]) -> Option<usize> {
        self.resolve(self.locate(key))
    }

    /// First half of [`Lookup::single`]: the key's bucket and head (bucket
    /// `usize::MAX`: the key does not share the common prefix or is
    /// shorter than 8 bytes). A batch locates all its keys, then resolves
    /// them, so that each step's loads overlap across keys.
    #[inline(always)]
    pub(super) fn locate(&self, key: &[u8]) -> (usize, u64) {
        match self.heads.head(key) {
            Some(t) => (self.heads.bucket(t), t),
            None => (usize::MAX, 0),
        }
    }

    /// [`Lookup::single`] for the keys `key(0..found.len())` (at most
    /// [`LOOKUP_BATCH`]): `found[j]` is key j's separator, or
    /// [`NOT_FOUND`] (ask [`Separators::key_range`]): [`Lookup::heads`],
    /// then [`Lookup::runs`] for keys in order, else [`Lookup::finish`].
    /// The partitioned batch takes these steps itself (the routed kernel
    /// follows the runs as it goes); this is the steps' reference, which
    /// the tests hold to `single` and to the textbook search.
    #[cfg(test)]
    pub(super) fn batch<'k>(&self, key: impl Fn(usize) -> &'k [u8], found: &mut [u32]) {
        let mut located = [(usize::MAX, 0u64); LOOKUP_BATCH];
        let m = found.len().min(LOOKUP_BATCH);
        if self.heads::<false>(key, &mut located[..m]) {
            return self.runs(&located[..m], &mut found[..m]);
        }
        self.finish::<false>(&mut located[..m], |s| u32::try_from(s).ok(), &mut found[..m]);
    }

    /// The rest of [`Lookup::batch`] after [`Lookup::heads`] (with the same
    /// `BUCKETS`), for keys in any order: every key's bucket left pending,
    /// then every key's separator, so that each step's loads overlap
    /// across keys. Both steps out of line, so that the caller's state
    /// does not crowd the registers they need: counted with callgrind
    /// (`benches/partitioned.rs`, 304 partitions; BENCHMARKS.md), 77
    /// instructions per key for the two passes, against 125 inlined into
    /// the partitioned batch.
    ///
    /// `found[j]` is `map` of key j's separator, or [`NOT_FOUND`] where
    /// there is none; true when every key has one. The partitioned batch
    /// maps separators to their filters here, in the same pass: 32
    /// instructions per key for this pass and 3 left in the batch's own,
    /// against 25 and 17 with a loop of its own for the mapping (callgrind,
    /// `benches/partitioned.rs`, Bloom, random order: 202 -> 195 per key
    /// for the whole batch).
    #[inline(never)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn finish<const BUCKETS: bool>(
        &self,
        located: &mut [(usize, u64)],
        map: impl Fn(usize) -> Option<u32>,
        found: &mut [u32],
    ) -> bool {
        let h = self.heads;
        // (Only the digit tables' arm of `heads` leaves buckets pending.)
        if let (false, Some(rank)) = (BUCKETS, &h.digits.rank) {
            located
                .iter_mut()
                .filter(|at| at.0 == PENDING)
                .for_each(|at| at.0 = ranked_bucket(rank, h.digits.scale, at.1));
        }
        let out = found.iter_mut().zip(located.iter());
        let mut all = true;
        let mut put = |f: &mut u32, s: Option<usize>| {
            *f = s.and_then(&map).unwrap_or(NOT_FOUND);
            all &= *f != NOT_FOUND;
        };
        match &h.radix {
            Radix::Narrow(r) => out.for_each(|(f, &at)| put(f, settle(r, &h.heads, self.last, at))),
            Radix::Wide(r) => out.for_each(|(f, &at)| put(f, settle(r, &h.heads, self.last, at))),
        }
        all
    }

    /// Whether [`Lookup::route_avx2`] may run: this CPU has AVX2
    /// (`arch::features`), the separators have digit tables and the
    /// 2-byte bucket table.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn vector(&self) -> bool {
        let h = self.heads;
        crate::arch::features().avx2() && h.digits.rank.is_some() && matches!(h.radix, Radix::Narrow(_))
    }

    /// [`Lookup::heads`] (with buckets) and [`Lookup::finish`] in one pass,
    /// eight keys per step in AVX2 registers of 32-bit lanes: each key's
    /// two 8-byte loads are scalar; the prefix test, the four ranked
    /// bytes' table loads (a gather each), the bucket, its table entries
    /// (a gather), the one compare of a bucket holding one separator (two
    /// gathers of heads) and the map to `which` (a gather) are a few
    /// instructions for eight keys. `found[j]` is `which[s]` for key j's
    /// separator s, or [`NOT_FOUND`] (ask [`Separators::key_range`]).
    /// Returns whether every key has one, and whether every key had a
    /// head and the heads ascend (the next chunk may follow runs; as
    /// [`Lookup::heads`] says, except that a key too short for the two
    /// loads counts as out of order here), checked in the registers
    /// (compares of each head with its predecessor's: 147.5 instructions
    /// per key for the Bloom batch on decimal keys against 150.5 with a
    /// pass over the heads, callgrind). Keys the registers do not settle (a bucket
    /// holding several separators, a head equal to a separator's, a key
    /// shorter than the prefix and 8 bytes or with another prefix) and the
    /// last `found.len() % 8` take [`Lookup::single`]'s steps, after the
    /// last group, so the answers are the scalar passes'.
    ///
    /// `seen[j]` is set to `key(j)` for every `j < found.len()` (at most
    /// [`LOOKUP_BATCH`]), each key taken once: the partitioned Bloom batch
    /// hashes the keys from there rather than asking its caller again
    /// (through the C call, 14 instructions per key for the second ask;
    /// callgrind, `bench/sst` at 200,000 keys, 91 partitions: 172 -> 166
    /// per key for the whole batch).
    ///
    /// Counted with callgrind (`benches/partitioned.rs`, 304 partitions,
    /// Bloom, random order): 32.7 instructions per key against 83.3 for
    /// the two scalar passes (decimal keys, a 13-byte prefix: 59.5
    /// against 104.1). Timed, the first form took as long as those
    /// passes despite its count; two changes made it pay (BENCHMARKS.md):
    /// every key's bytes are loaded before the first group (a vector load
    /// of bytes several scalar stores wrote waits for them to retire, so
    /// each group waited for the one before), and the one-separator
    /// buckets are settled in registers, with the rest left to the end (a
    /// loop of varying count in each group mispredicted and discarded the
    /// next group's work).
    ///
    /// `IDENTITY`: `which[s]` is `s` for every separator (each partition
    /// its own filter block, as RocksDB writes them), so a settled key's
    /// separator is its filter and the last gather, of `which`, becomes a
    /// blend: one dependent step fewer per group of eight. `bench/sst`,
    /// RocksDB 11.12's 1M-key files, random order, alternate runs on an
    /// AMD EPYC with AVX-512: the partitioned
    /// Bloom batch 11.0-12.0 -> 10.5-11.1 ns per key (four runs each),
    /// Ribbon 21.4-22.1 -> 19.6-21.0 (five).
    ///
    /// # Safety
    ///
    /// The CPU has AVX2 ([`Lookup::vector`] is true).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    pub(super) unsafe fn route_avx2<'k, const IDENTITY: bool>(
        &self,
        key: impl Fn(usize) -> &'k [u8],
        which: &[u32],
        found: &mut [u32],
        seen: &mut [&'k [u8]; LOOKUP_BATCH],
    ) -> (bool, bool) {
        use std::arch::x86_64::*;
        debug_assert!(!IDENTITY || which.iter().enumerate().all(|(s, &u)| u as usize == s));
        let h = self.heads;
        let scalar = |k: &[u8]| self.single(k).and_then(|s| which.get(s).copied()).unwrap_or(NOT_FOUND);
        let (Some(rank), Radix::Narrow(radix)) = (&h.digits.rank, &h.radix) else {
            // (Not when `Lookup::vector` holds.)
            for (j, f) in found.iter_mut().enumerate() {
                seen[j] = key(j);
                *f = scalar(seen[j]);
            }
            return (found.iter().all(|&f| f != NOT_FOUND), false);
        };
        let l = h.common.len();
        let groups = found.len() / 8;
        let (mask, common, flip) = (
            _mm256_set1_epi64x(h.common_mask as i64),
            _mm256_set1_epi64x(h.common_head as i64),
            _mm256_set1_epi64x(self.flip as i64),
        );
        let (scale_lo, scale_hi) =
            (_mm256_set1_epi32(h.digits.scale as u32 as i32), _mm256_set1_epi32((h.digits.scale >> 32) as i32));
        let byte_mask = _mm256_set1_epi32(0xff);
        // `radix` has buckets + 1 entries (at least 17), so a 4-byte load
        // at entry b reads b and b + 1 for every b up to len - 2.
        let pair_max = _mm256_set1_epi32(radix.len() as i32 - 2);
        let last = _mm256_set1_epi32(self.last as i32);
        let which_len = _mm256_set1_epi32(which.len().min(i32::MAX as usize) as i32);
        let low16 = _mm256_set1_epi32(0xffff);
        // The high halves of eight u64 lanes (two registers), in order.
        let high = _mm256_setr_epi32(1, 3, 5, 7, 0, 0, 0, 0);
        // Every key's first 8 bytes and the 8 after the prefix, before the
        // vector steps: a vector load of bytes several stores wrote waits
        // for the stores to retire (no store forwarding), so a load per
        // group would wait for the previous group's steps as well.
        let groups = groups.min(LOOKUP_BATCH / 8);
        let (mut first, mut tail) = ([0u64; LOOKUP_BATCH], [0u64; LOOKUP_BATCH]);
        // Keys that have the two chunks.
        let mut whole = 0u64;
        let mut rest = 0u64;
        let (mut mask, mut common) = (mask, common);
        if l <= 8 {
            // The prefix test in the registers below.
            for i in 0..8 * groups {
                let k = key(i);
                seen[i] = k;
                if let (Some(f), Some(t)) = (k.first_chunk::<8>(), k.get(l..).and_then(<[u8]>::first_chunk::<8>)) {
                    (first[i], tail[i]) = (u64::from_be_bytes(*f), u64::from_be_bytes(*t));
                    whole |= 1 << i;
                }
            }
        } else {
            // A longer prefix (decimal keys padded to a fixed width share
            // 13 bytes at 1M keys): the prefix test here, each head as
            // read (the flip below is applied in the registers), and the
            // registers' prefix test made to pass every key (a zero mask
            // and prefix), so that `first` is not written.
            (mask, common) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            // (Indexes rather than `iter_mut`: with the iterator, 63.6
            // instructions per key in this function against 55.8,
            // callgrind, `bench/sst`'s Bloom file.)
            #[allow(clippy::needless_range_loop)]
            if l <= 16 {
                for i in 0..8 * groups {
                    seen[i] = key(i);
                    if let Some(t) = h.head_mid_read(seen[i]) {
                        tail[i] = t;
                        whole |= 1 << i;
                    }
                }
            } else {
                for i in 0..8 * groups {
                    seen[i] = key(i);
                    if let Some(t) = h.head(seen[i]) {
                        tail[i] = t ^ self.flip;
                        whole |= 1 << i;
                    }
                }
            }
        }
        // Whether the heads ascend, in the registers: any key's head below
        // its predecessor's sets lanes of `down` (the first key's
        // predecessor: 0).
        let sign = _mm256_set1_epi64x(i64::MIN);
        let (mut down, mut before) = (_mm256_setzero_si256(), sign);
        let mut sorted = true;
        for g in 0..groups {
            // SAFETY: `first` and `tail` have 8 entries from 8 * g on.
            let (f0, f1) = unsafe {
                (
                    _mm256_loadu_si256(first.as_ptr().add(8 * g).cast()),
                    _mm256_loadu_si256(first.as_ptr().add(8 * g + 4).cast()),
                )
            };
            let (t0, t1) = unsafe {
                (
                    _mm256_loadu_si256(tail.as_ptr().add(8 * g).cast()),
                    _mm256_loadu_si256(tail.as_ptr().add(8 * g + 4).cast()),
                )
            };
            let whole = (whole >> (8 * g)) as u32 & 0xff;
            // SAFETY (every gather below): the indexes are bytes (0..256)
            // into tables of 256 entries, buckets clamped to `pair_max`,
            // and separators below `which.len()` (masked).
            let (t0, t1) = (_mm256_xor_si256(t0, flip), _mm256_xor_si256(t1, flip));
            let prefix = |f| {
                _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(f, mask), common))) as u32
            };
            let fast = whole & (prefix(f0) | prefix(f1) << 4);
            sorted &= fast == 0xff;
            // Each head against its predecessor's (unsigned, as signed
            // with the top bit flipped): [before, h0, h1, h2] and [h3, h4,
            // h5, h6] against [h0..h3] and [h4..h7].
            let (u0, u1) = (_mm256_xor_si256(t0, sign), _mm256_xor_si256(t1, sign));
            let p0 = _mm256_blend_epi32::<0b11>(_mm256_permute4x64_epi64::<0b10_01_00_11>(u0), before);
            let p1 = _mm256_blend_epi32::<0b11>(
                _mm256_permute4x64_epi64::<0b10_01_00_11>(u1),
                _mm256_permute4x64_epi64::<0xff>(u0),
            );
            down = _mm256_or_si256(down, _mm256_or_si256(_mm256_cmpgt_epi64(p0, u0), _mm256_cmpgt_epi64(p1, u1)));
            before = _mm256_permute4x64_epi64::<0xff>(u1);
            // The heads' first 4 bytes (the ranked ones), lane i key i.
            let top = _mm256_permute2x128_si256::<0x20>(
                _mm256_permutevar8x32_epi32(t0, high),
                _mm256_permutevar8x32_epi32(t1, high),
            );
            // `ranked_bucket`, from the last ranked byte to the first.
            let mut number = _mm256_setzero_si256();
            macro_rules! rank {
                ($j:literal) => {
                    let b = _mm256_and_si256(_mm256_srli_epi32::<{ 24 - 8 * $j }>(top), byte_mask);
                    let e = unsafe { _mm256_i32gather_epi32::<4>(rank[$j].as_ptr().cast(), b) };
                    number = _mm256_add_epi32(_mm256_andnot_si256(_mm256_srai_epi32::<31>(e), number), e);
                };
            }
            const _: () = assert!(RANKED == 4);
            rank!(3);
            rank!(2);
            rank!(1);
            rank!(0);
            let number = _mm256_and_si256(number, _mm256_set1_epi32(!SATURATES as i32));
            // number * scale >> 32 (number < 2^27): the high halves of the
            // products with scale's low half (even lanes, then odd ones),
            // plus number times its high half.
            let even = _mm256_srli_epi64::<32>(_mm256_mul_epu32(number, scale_lo));
            let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(number), scale_lo);
            let bucket =
                _mm256_add_epi32(_mm256_blend_epi32::<0b1010_1010>(even, odd), _mm256_mullo_epi32(number, scale_hi));
            let bucket = _mm256_min_epu32(bucket, pair_max);
            let pair = unsafe { _mm256_i32gather_epi32::<2>(radix.as_ptr().cast(), bucket) };
            let lo = _mm256_and_si256(pair, low16);
            let width = _mm256_sub_epi32(_mm256_srli_epi32::<16>(pair), lo);
            let empty = _mm256_cmpeq_epi32(width, _mm256_setzero_si256());
            // One separator in the bucket: one compare of its head with
            // the key's (64-bit lanes, four to a register; unsigned as
            // signed with the top bit flipped). An equal head: the keys
            // decide (scalar).
            let one = _mm256_cmpeq_epi32(width, _mm256_set1_epi32(1));
            let (lo0, lo1) = (_mm256_castsi256_si128(lo), _mm256_extracti128_si256::<1>(lo));
            let (one0, one1) = (
                _mm256_cvtepi32_epi64(_mm256_castsi256_si128(one)),
                _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(one)),
            );
            // SAFETY: in lanes with one separator in the bucket, its index
            // `lo` is below `radix`'s last entry, the separator count.
            let (s0, s1) = unsafe {
                (
                    _mm256_mask_i32gather_epi64::<8>(t0, h.heads.as_ptr().cast(), lo0, one0),
                    _mm256_mask_i32gather_epi64::<8>(t1, h.heads.as_ptr().cast(), lo1, one1),
                )
            };
            let eq = |s, t| _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(s, t))) as u32;
            let equal = eq(s0, t0) | eq(s1, t1) << 4;
            let below = |s, t| _mm256_cmpgt_epi64(_mm256_xor_si256(t, sign), _mm256_xor_si256(s, sign));
            // Each 64-bit lane's low half, eight lanes in order.
            let low = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
            let below = _mm256_permute2x128_si256::<0x20>(
                _mm256_permutevar8x32_epi32(below(s0, t0), low),
                _mm256_permutevar8x32_epi32(below(s1, t1), low),
            );
            // lo, or lo + 1 past the one separator's head.
            let sep = _mm256_min_epu32(_mm256_sub_epi32(lo, _mm256_and_si256(below, one)), last);
            let one_bits = _mm256_movemask_ps(_mm256_castsi256_ps(one)) as u32;
            let settled = fast & (_mm256_movemask_ps(_mm256_castsi256_ps(empty)) as u32 | one_bits & !equal);
            let settled_lanes =
                _mm256_sllv_epi32(_mm256_set1_epi32(settled as i32), _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24));
            let mapped = _mm256_and_si256(_mm256_srai_epi32::<31>(settled_lanes), _mm256_cmpgt_epi32(which_len, sep));
            let part = if IDENTITY {
                _mm256_blendv_epi8(_mm256_set1_epi32(NOT_FOUND as i32), sep, mapped)
            } else {
                unsafe {
                    _mm256_mask_i32gather_epi32::<4>(
                        _mm256_set1_epi32(NOT_FOUND as i32),
                        which.as_ptr().cast(),
                        sep,
                        mapped,
                    )
                }
            };
            // SAFETY: `found[8 * g..]` has 8 entries (g < groups).
            unsafe { _mm256_storeu_si256(found.as_mut_ptr().add(8 * g).cast(), part) };
            rest |= u64::from(!settled & 0xff) << (8 * g);
        }
        sorted &= _mm256_testz_si256(down, down) != 0;
        // The keys not settled above, after every group (a loop whose
        // count varies mispredicts its exit, and would discard the next
        // group's work in flight).
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            found[i] = scalar(seen[i]);
        }
        for (j, f) in found.iter_mut().enumerate().skip(8 * groups) {
            seen[j] = key(j);
            *f = scalar(seen[j]);
        }
        // A fold rather than `all`: no early exit, so a few vector
        // instructions rather than a compare and branch per key.
        (found.iter().fold(true, |all, &f| all & (f != NOT_FOUND)), sorted)
    }

    /// First pass of [`Lookup::batch`]: `located[j]` is key j's bucket
    /// and head, or what [`Lookup::locate`] gives (a key not sharing the
    /// prefix, or too short; the prefix test in one load for prefixes of
    /// at most 8 bytes). True when every key has a head and the heads
    /// ascend: keys in the file's order, as MultiGet sends them, which
    /// need no bucket ([`Lookup::place`]). Buckets are left [`PENDING`]
    /// (for [`Lookup::finish`]) unless `BUCKETS`: a caller that expects
    /// keys in order (the previous batch's were) skips them, 27 of the 77
    /// instructions per key of the two passes (callgrind,
    /// `benches/partitioned.rs`); one that does not computes them here,
    /// while the head is in a register.
    #[inline(never)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn heads<'k, const BUCKETS: bool>(
        &self,
        key: impl Fn(usize) -> &'k [u8],
        located: &mut [(usize, u64)],
    ) -> bool {
        let h = self.heads;
        let l = h.common.len();
        let (mut sorted, mut before) = (true, 0);
        match (&h.digits.rank, l <= 8) {
            // The common case, the tables' presence and the prefix's
            // length decided once.
            (Some(rank), true) => {
                for (j, at) in located.iter_mut().enumerate() {
                    let k = key(j);
                    *at = match (k.first_chunk::<8>(), k.get(l..).and_then(<[u8]>::first_chunk::<8>)) {
                        (Some(first), Some(tail)) if u64::from_be_bytes(*first) & h.common_mask == h.common_head => {
                            let t = u64::from_be_bytes(*tail) ^ self.flip;
                            (if BUCKETS { ranked_bucket(rank, h.digits.scale, t) } else { PENDING }, t)
                        }
                        _ => {
                            // (Only here can a key have no head.)
                            let at = self.locate(k);
                            sorted &= at.0 != usize::MAX;
                            at
                        }
                    };
                    sorted &= at.1 >= before;
                    before = at.1;
                }
            }
            _ => {
                for (j, at) in located.iter_mut().enumerate() {
                    *at = self.locate(key(j));
                    sorted &= at.0 != usize::MAX && at.1 >= before;
                    before = at.1;
                }
            }
        }
        sorted
    }

    /// [`Lookup::batch`] for keys in order (`located`, from
    /// [`Lookup::heads`]): a key whose head is in the previous key's run
    /// ([`Lookup::place`]) lands where it did, after one compare; only the
    /// others take the bucket table.
    #[cfg(test)]
    fn runs(&self, located: &[(usize, u64)], found: &mut [u32]) {
        let mut run = Run::NONE;
        for (f, &(_, t)) in found.iter_mut().zip(located) {
            if run.holds(t) {
                *f = run.separator;
                tests::RUN_HITS.with(|c| c.set(c.get() + 1));
                continue;
            }
            run = self.place(t);
            *f = run.separator;
        }
    }

    /// The separator a key with head `t` (sharing the common prefix) lands
    /// on, and the run of heads that land there too: those strictly
    /// between the heads of that separator and of the one before it (for
    /// the last, every head past the one before it), or no run when a
    /// neighbour's head is equal. [`Run::NONE`] when the keys must be
    /// compared. RocksDB's MultiGet sorts its keys before it asks the
    /// filter (`PrepareMultiGetKeys`), and its partitioned filter groups
    /// them by partition in that order (`PartitionedFilterBlockReader::
    /// MayMatch`): a 4,096-key batch over 304 partitions has about 13
    /// keys per partition, so 12 of 13 land after one compare
    /// (`benches/partitioned.rs --sorted`, BENCHMARKS.md: a Bloom batch
    /// 14.2 -> 9.6-9.9 ns per key, Ribbon 24.1 -> 20.2-20.4).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn place(&self, t: u64) -> Run {
        let h = self.heads;
        let Some(s) = self.resolve((h.bucket(t), t)) else { return Run::NONE };
        let start = match s.checked_sub(1) {
            Some(p) => h.heads.get(p).and_then(|&p| p.checked_add(1)),
            None => Some(0),
        };
        let end = if s == self.last { Some(u64::MAX) } else { h.heads.get(s).copied() };
        match (start, end) {
            (Some(a), Some(b)) => Run { start: a, width: b.saturating_sub(a), separator: s as u32 },
            _ => Run { start: 0, width: 0, separator: s as u32 },
        }
    }

    /// Second half of [`Lookup::single`], for what [`Lookup::locate`] gave.
    #[inline(always)]
    pub(super) fn resolve(&self, at: (usize, u64)) -> Option<usize> {
        match &self.heads.radix {
            Radix::Narrow(r) => settle(r, &self.heads.heads, self.last, at),
            Radix::Wide(r) => settle(r, &self.heads.heads, self.last, at),
        }
    }
}

/// [`Lookup::resolve`] over bucket table `radix`, ascending `heads` (at
/// least one) and `last` = heads.len() - 1.
#[inline(always)]
fn settle<E: Entry>(radix: &[E], heads: &[u64], last: usize, (b, t): (usize, u64)) -> Option<usize> {
    let [lo, hi] = radix.get(b..b.wrapping_add(2))?.first_chunk::<2>()?.map(Entry::at);
    // No separator's head in the key's bucket (about 95% of keys spread
    // like the separators): those before `lo` are before the key, the one
    // at `lo` after it. A branch rather than the select below: taken this
    // often it is predicted, and the answer does not wait for the head's
    // load (a single query's latency; a batch's instructions).
    if hi == lo {
        return Some(lo.min(last));
    }
    // The first separator whose head is not below the key's is the
    // answer, unless its head equals the key's (then the keys themselves
    // are compared: None). One separator in the bucket: one compare.
    // Several: about 4% of keys spread like the separators, when the file
    // has digit tables; every key when it has fewer than DIGITS_MIN
    // separators (one bucket), by at most 5 halving steps. Measured
    // (`benches/partitioned.rs`, 7 partitions of decimal keys, 19 of hex
    // ones; BENCHMARKS.md):
    // a partitioned Bloom batch 24.8-25.7 -> 15.3-17.8 ns per key, Ribbon
    // 36.4-36.8 -> 26.0-29.3, against sending these keys to
    // `Separators::key_range`.
    if hi - lo == 1 {
        let s = *heads.get(lo)?;
        if s == t {
            return None;
        }
        return Some((lo + usize::from(s < t)).min(last));
    }
    let i = lower_bound(heads, t, lo, hi);
    if heads.get(i) == Some(&t) {
        return None;
    }
    Some(i.min(last))
}

/// The first of `heads[lo..hi]` (ascending) not below `t`, or `hi`, by
/// branch-free halving.
#[inline(always)]
fn lower_bound(heads: &[u64], t: u64, lo: usize, hi: usize) -> usize {
    let heads = heads.get(lo..hi).unwrap_or(&[]);
    let (mut base, mut size) = (0, heads.len());
    while size > 1 {
        let half = size / 2;
        // A conditional move: LLVM turns an `if` (or a mask) into a
        // branch here, which mispredicts on every other step of a
        // random lookup (measured, `benches/partitioned.rs`: 29.6
        // against 26.5 ns per key of a partitioned batch).
        base = std::hint::select_unpredictable(heads[base + half - 1] < t, base + half, base);
        size -= half;
    }
    lo + base + heads.get(base).map_or(0, |&h| usize::from(h < t))
}

/// A separator and the heads that land on it ([`Lookup::place`]).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) struct Run {
    /// Heads t with `t - start < width` (wrapping) land on `separator`.
    start: u64,
    width: u64,
    /// [`NOT_FOUND`]: compare the keys ([`Separators::key_range`]).
    pub(super) separator: u32,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl Run {
    /// No run; the key itself needs [`Separators::key_range`].
    pub(super) const NONE: Run = Run { start: 0, width: 0, separator: NOT_FOUND };

    /// Whether a key with head `t` lands on this run's separator.
    #[inline(always)]
    pub(super) fn holds(&self, t: u64) -> bool {
        t.wrapping_sub(self.start) < self.width
    }
}

/// A head whose bucket [`Lookup::heads`] left for later.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const PENDING: usize = usize::MAX - 1;

/// Keys per [`Lookup::batch`] (and per call of [`Lookup::route_avx2`] and
/// of the partitioned Bloom kernel): 64 rather than 32 shares each call's
/// setup over twice the keys (`bench/sst`'s files, keys of runtime length:
/// partitioned Bloom batch 18.2-18.7 -> 17.6-17.8 ns per key, Ribbon
/// 27.2-28.6 -> 26.8-27.1). At most 64: a `u64`
/// holds a bit per key.
#[cfg(any(test, target_arch = "x86_64"))]
pub(super) const LOOKUP_BATCH: usize = 64;

/// A key [`Lookup::batch`] did not place (a separator index never is:
/// separators are counted in memory far below 2^32).
pub(super) const NOT_FOUND: u32 = u32::MAX;

/// The 8 bytes of `tail` from its start, big-endian, zero-padded.
#[inline(always)]
fn head_of(tail: &[u8]) -> u64 {
    match tail.first_chunk::<8>() {
        // One load (a copy through a stack buffer would stall on store
        // forwarding).
        Some(b) => u64::from_be_bytes(*b),
        None => tail.iter().enumerate().fold(0, |h, (i, &b)| h | u64::from(b) << (56 - 8 * i)),
    }
}

/// Order of (previous, current) keys as the file's comparator orders them:
/// user keys without timestamp, then timestamps descending
/// (`ComparatorWithU64TsImpl`), then trailers descending
/// (`InternalKeyComparator`). None when a key is shorter than its trailer
/// and timestamp.
fn compare(prev: &[u8], cur: &[u8], internal: bool, reverse: bool, ts: usize) -> Option<Ordering> {
    let (pu, cu) =
        if internal { (&prev[..prev.len().checked_sub(8)?], &cur[..cur.len().checked_sub(8)?]) } else { (prev, cur) };
    let (pk, ck) = (&pu[..pu.len().checked_sub(ts)?], &cu[..cu.len().checked_sub(ts)?]);
    let user = if reverse { ck.cmp(pk) } else { pk.cmp(ck) };
    let fixed = |k: &[u8], at: usize| u64::from_le_bytes(k[at..at + 8].try_into().expect("8 bytes"));
    let user = user.then_with(|| if ts == 8 { fixed(cu, ck.len()).cmp(&fixed(pu, pk.len())) } else { Ordering::Equal });
    if !internal {
        return Some(user);
    }
    // Higher (sequence, type) first.
    Some(user.then_with(|| fixed(cur, cur.len() - 8).cmp(&fixed(prev, prev.len() - 8))))
}

impl Separators {
    /// Heap bytes these separators keep (their keys, the buffer holding
    /// them and, once built, the lookup tables), by capacity.
    pub(super) fn heap_bytes(&self) -> usize {
        let own = self.keys.capacity() * std::mem::size_of::<KeyLoc>() + self.arena.capacity();
        own + self.heads.get().map_or(0, Heads::heap_bytes)
    }

    pub(super) fn new(internal: bool, cmp: Comparator, budget: usize) -> Self {
        Separators {
            keys: Vec::new(),
            arena: Vec::new(),
            budget,
            internal,
            order: cmp.order,
            ts: cmp.ts,
            heads: OnceLock::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// More room for decompressed keys (a further index block was read).
    pub(super) fn grow_budget(&mut self, bytes: usize) {
        self.budget = self.budget.saturating_add(bytes);
    }

    /// Separator `i` as stored.
    pub(super) fn separator(&self, i: usize) -> &[u8] {
        let k = self.keys[i];
        &self.arena[k.start..k.start + k.len as usize]
    }

    /// Separator `i` as a user key without timestamp (what filters hold).
    pub(super) fn user_key(&self, i: usize) -> &[u8] {
        let s = self.separator(i);
        let s = if self.internal { &s[..s.len() - 8] } else { s };
        &s[..s.len() - self.ts]
    }

    /// Separator `i`'s 8-byte trailer (sequence << 8 | type), if internal.
    pub(super) fn trailer(&self, i: usize) -> Option<u64> {
        let s = self.separator(i);
        self.internal.then(|| u64::from_le_bytes(s[s.len() - 8..].try_into().expect("8 bytes")))
    }

    /// Appends the key just decoded from the index block at file offset
    /// `block_offset`. `first_in_block`: it is the block's first entry, so
    /// its order is checked against the previous block's last separator.
    /// Err where RocksDB's lookups are not well defined (keys out of order,
    /// an internal key without trailer) or past the decompression budget.
    pub(super) fn push(
        &mut self,
        key: &[u8],
        info: &EntryInfo,
        block_offset: u64,
        first_in_block: bool,
        what: &str,
    ) -> Result<(), String> {
        let at = info.offset;
        let min = if self.internal { 8 } else { 0 } + self.ts;
        if key.len() < min {
            return Err(format!(
                "{what} at offset {block_offset}: separator of {} bytes at block offset {at} is shorter than its {min}-byte internal key trailer and timestamp",
                key.len()
            ));
        }
        if !self.keys.is_empty() && self.order != Order::Unknown {
            let reverse = self.order == Order::ReverseBytewise;
            let cmp = if first_in_block || self.ts > 0 {
                compare(self.separator(self.keys.len() - 1), key, self.internal, reverse, self.ts)
            } else if self.internal {
                info.prev.internal(key, reverse)
            } else if reverse {
                Some(info.prev.bytewise(key).reverse())
            } else {
                Some(info.prev.bytewise(key))
            };
            if cmp == Some(Ordering::Greater) {
                return Err(format!(
                    "{what} at offset {block_offset}: separator at block offset {at} is out of order, so RocksDB's lookup is not well defined"
                ));
            }
        }
        let loc = {
            if self.arena.len() + key.len() > self.budget {
                return Err(format!(
                    "{what} at offset {block_offset}: its prefix-compressed separators decompress to more than {} bytes (a limit of this library)",
                    self.budget
                ));
            }
            let start = self.arena.len();
            // Grow by doubling, but never past the budget (a doubling
            // past it would transiently hold 1.5x more).
            if self.arena.capacity() < start + key.len() {
                let want = (2 * self.arena.capacity()).max(4096).max(start + key.len()).min(self.budget);
                self.arena.reserve_exact(want - start);
            }
            self.arena.extend_from_slice(key);
            KeyLoc { start, len: key.len() as u32 }
        };
        self.keys.push(loc);
        Ok(())
    }

    /// Builds the heads [`Separators::key_range`] searches (otherwise
    /// built by the first lookup): call once all separators are pushed.
    pub(super) fn prepare_lookups(&self) {
        self.heads();
    }

    fn heads(&self) -> &Heads {
        self.heads.get_or_init(|| {
            let n = self.len();
            // No separators, or an order no lookup follows (`lookup`,
            // `key_range` and `quick` answer None for it): no heads, so
            // that `quick` needs no test of the order (with `Heads::last`
            // kept: 199 -> 194 instructions per single query, callgrind,
            // `bench/sst`'s Bloom file).
            if n == 0 || self.order == Order::Unknown {
                return Heads::default();
            }
            // Keys are in order (checked by `push`; bytewise, either
            // direction, for user keys without timestamp), so what the
            // first and last share, all share.
            let (a, b) = (self.user_key(0), self.user_key(n - 1));
            let l = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let flip = if self.order == Order::ReverseBytewise { u64::MAX } else { 0 };
            Heads::new(&a[..l], (0..n).map(|i| head_of(&self.user_key(i)[l..]) ^ flip).collect(), flip)
        })
    }

    /// The fast form of [`Separators::key_range`], fetched once per batch;
    /// None when there is none (an unknown comparator, no separators).
    pub(super) fn lookup(&self) -> Option<Lookup<'_>> {
        let flip = match self.order {
            Order::Bytewise => 0,
            Order::ReverseBytewise => u64::MAX,
            Order::Unknown => return None,
        };
        let last = self.len().checked_sub(1)?;
        Some(Lookup { heads: self.heads(), flip, last })
    }

    /// [`Lookup::single`]'s common case alone, for a single query: the
    /// digit tables and 2-byte buckets built (at open), a prefix of at
    /// most 16 bytes ([`Heads::head_quick`]); None for every other case
    /// (then ask `lookup`). No `Lookup` to build, no other form to
    /// dispatch on, so that the caller's fast path needs few registers.
    /// Counted with callgrind (`benches/partitioned.rs`, Bloom single
    /// query, 304 partitions): `Partitions::may_match` went from 118.7
    /// instructions per key (through `lookup` and `Lookup::single`, six
    /// saved registers) to 98.6 (two).
    #[inline(always)]
    pub(super) fn quick(&self, key: &[u8]) -> Option<usize> {
        let h = self.heads.get()?;
        // (An unknown order has no tables: `heads`.)
        let (Some(rank), Radix::Narrow(radix)) = (&h.digits.rank, &h.radix) else { return None };
        // Other prefixes and short keys: `lookup`.
        let t = h.head_quick(key)??;
        // Only a bucket that holds at most one separator's head (over 99%
        // of keys spread like the separators, [`settle`]); the others
        // take `lookup` again, so that the search's registers stay out of
        // the caller's frame.
        // (The bucket is below the bucket count, so both its entries are
        // in the table: one compare for both, where taking the rest of the
        // table and its first two cost two and a test of their order one
        // more; callgrind, `bench/sst`'s Bloom file: 208 -> 199
        // instructions per single query through the C call.)
        let b = ranked_bucket(rank, h.digits.scale, t);
        let [lo, hi] = *radix.get(b..b + 2)? else { return None };
        let (lo, hi) = (usize::from(lo), usize::from(hi));
        let last = h.last;
        match hi.wrapping_sub(lo) {
            0 => Some(lo.min(last)),
            1 => {
                let s = *h.heads.get(lo)?;
                (s != t).then(|| (lo + usize::from(s < t)).min(last))
            }
            _ => None,
        }
    }

    /// The separators a lookup for `key` can land on, as
    /// `Partitions::candidates` defines them for `is_before` = "user key
    /// before `key` in the file's order" and `within` = "user key equals
    /// `key`": from the first separator not before the key through the
    /// last of the run equal to it (the last separator when none is not
    /// before it); an empty range when the run is longer than
    /// [`MAX_PARTITIONS_PER_QUERY`]. Bytewise orders only (either
    /// direction); None for an unknown comparator.
    pub(super) fn key_range(&self, key: &[u8]) -> Option<std::ops::Range<usize>> {
        let reverse = match self.order {
            Order::Bytewise => false,
            Order::ReverseBytewise => true,
            Order::Unknown => return None,
        };
        let n = self.len();
        if n == 0 {
            // No partition to route to: "may match", never a false absent.
            return Some(0..0);
        }
        let h = self.heads();
        let l = h.common.len();
        // Where the key stands against the common prefix: before every
        // separator, after every one, or among them with this head.
        let placed = match key.first_chunk::<8>() {
            // A common prefix of up to 8 bytes: one load and a mask.
            Some(k) if l <= 8 => (u64::from_be_bytes(*k) & h.common_mask).cmp(&h.common_head),
            _ => {
                let m = l.min(key.len());
                match key[..m].cmp(&h.common[..m]) {
                    Ordering::Equal if key.len() < l => Ordering::Less,
                    o => o,
                }
            }
        };
        // "Before the key" in the file's order is "less" bytewise, or
        // "greater" in reverse.
        let before = if reverse { Ordering::Greater } else { Ordering::Less };
        let (first, head) = match placed {
            Ordering::Equal => {
                let head = head_of(&key[l..]) ^ if reverse { u64::MAX } else { 0 };
                let b = h.bucket(head);
                // (Always in the table; the whole range would be right too.)
                let (lo, hi) = (h.radix.get(b).unwrap_or(0), h.radix.get(b + 1).unwrap_or(n));
                if lo == hi {
                    // No separator's head in the key's bucket: the
                    // separators before `lo` are before the key, the one
                    // at `lo` after it (and not equal).
                    return Some(if lo == n { n - 1..n } else { lo..lo + 1 });
                }
                // The run of heads equal to the key's is found on the
                // integers alone (ascending: the first not below the
                // key's is the first separator not before the key), and
                // only within it are the keys themselves compared.
                let lo = h.lower_bound_in(head, lo, hi);
                let first = lo
                    + (lo..n)
                        .take_while(|&i| h.heads[i] == head && self.user_key(i)[l..].cmp(&key[l..]) == before)
                        .count();
                (first, Some(head))
            }
            // Every separator is before the key, or none is.
            o if o == before.reverse() => (n, None),
            _ => (0, None),
        };
        if first == n {
            return Some(n - 1..n);
        }
        // The run of separators equal to the key (only a key sharing the
        // common prefix can equal one).
        let Some(head) = head else { return Some(first..first + 1) };
        let mut end = first;
        while end < n - 1 && h.heads[end] == head && self.user_key(end) == key {
            end += 1;
            if end - first >= MAX_PARTITIONS_PER_QUERY {
                return Some(0..0);
            }
        }
        Some(first..end + 1)
    }

    /// The first separator that `is_before` (the lookup key) says false of:
    /// a binary search, as the separators are in order.
    pub(super) fn first_not_before(&self, is_before: impl Fn(usize) -> bool) -> usize {
        // Branch-free halving (a conditional move per step): on random
        // lookups the branch of the textbook loop mispredicts every other
        // step, which costs more than the comparisons.
        let (mut base, mut size) = (0, self.len());
        while size > 1 {
            let half = size / 2;
            base = if is_before(base + half - 1) { base + half } else { base };
            size -= half;
        }
        if size == 1 && is_before(base) {
            base += 1;
        }
        base
    }

    /// From `first` (< len), the last separator a lookup can still land on:
    /// `within` says whether a separator's user key may still be followed by
    /// candidates (it equals the key, or has the prefix). None when that
    /// spans more than [`MAX_PARTITIONS_PER_QUERY`] separators.
    pub(super) fn run_end(&self, first: usize, within: impl Fn(&[u8]) -> bool) -> Option<usize> {
        let n = self.len();
        let mut end = first;
        while end < n - 1 && within(self.user_key(end)) {
            end += 1;
            if end - first >= MAX_PARTITIONS_PER_QUERY {
                return None;
            }
        }
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Keys [`Lookup::runs`] placed with one compare, on this thread.
        pub(super) static RUN_HITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    use crate::sst::block::{EntryInfo, PrevDiff};

    fn separators(keys: &[Vec<u8>], name: &str) -> Separators {
        let mut s = Separators::new(false, Comparator::from_name(Some(name)), usize::MAX);
        let info = EntryInfo { offset: 0, value_offset: 0, prev: PrevDiff::default() };
        for k in keys {
            s.push(k, &info, 0, true, "test").expect("in order");
        }
        s.prepare_lookups();
        s
    }

    /// The definition `key_range` implements, on whole keys: from the
    /// first separator not before the key through the run equal to it.
    fn textbook(s: &Separators, key: &[u8]) -> Option<std::ops::Range<usize>> {
        let n = s.len();
        if n == 0 {
            return Some(0..0);
        }
        let before = |u: &[u8]| if s.order == Order::ReverseBytewise { u > key } else { u < key };
        let first = (0..n).find(|&i| !before(s.user_key(i))).unwrap_or(n);
        if first == n {
            return Some(n - 1..n);
        }
        let mut end = first;
        while end < n - 1 && s.user_key(end) == key {
            end += 1;
            if end - first >= MAX_PARTITIONS_PER_QUERY {
                return Some(0..0);
            }
        }
        Some(first..end + 1)
    }

    /// Files of fewer separators than the digit tables need (one bucket):
    /// the fast lookup still places every key that shares the common
    /// prefix and differs from every separator (at most 5 halving steps),
    /// as the textbook search does, single and batch. Zero-padded decimal
    /// keys, as RocksDB's SstFileWriter is often fed: a 13- to 15-byte
    /// common prefix and a tail shorter than 8 bytes.
    #[test]
    fn few_separators_are_placed_without_the_search() {
        let mut seed = 11;
        for (n, range) in [(2u64, 40_000u64), (7, 40_000), (19, 120_000), (23, 2_000_000)] {
            let keys: Vec<Vec<u8>> = (1..=n).map(|i| format!("k{:019}", i * range / n - 1).into_bytes()).collect();
            let s = separators(&keys, "leveldb.BytewiseComparator");
            let l = s.lookup().expect("bytewise");
            let probes: Vec<Vec<u8>> =
                (0..2_000).map(|_| format!("k{:019}", rng(&mut seed) % range).into_bytes()).collect();
            let mut found = [NOT_FOUND; LOOKUP_BATCH];
            let mut placed = 0;
            for chunk in probes.chunks(LOOKUP_BATCH) {
                l.batch(|j| &chunk[j][..], &mut found[..chunk.len()]);
                for (p, &f) in chunk.iter().zip(&found) {
                    let want = textbook(&s, p);
                    let single = l.single(p);
                    assert_eq!(
                        single.map(|i| i as u32).unwrap_or(NOT_FOUND),
                        f,
                        "{n} separators: batch and single for {p:?}"
                    );
                    if let Some(i) = single {
                        assert_eq!(Some(i..i + 1), want, "{n} separators: {p:?}");
                        placed += 1;
                    }
                }
            }
            // Only a probe equal to a separator needs the keys compared.
            let equal = probes.iter().filter(|p| keys.contains(p)).count();
            assert_eq!(placed, probes.len() - equal, "{n} separators");
        }
    }

    /// A batch in order over 304 partitions, as the benchmark's: most keys
    /// take one compare; the same keys out of order take none.
    #[test]
    fn keys_in_order_take_one_compare() {
        let mut seed = 5;
        let hex = |x: u64| format!("user{:016x}", x).into_bytes();
        let mut keys: Vec<Vec<u8>> = (0..304).map(|_| hex(rng(&mut seed))).collect();
        keys.sort();
        let s = separators(&keys, "leveldb.BytewiseComparator");
        let l = s.lookup().expect("bytewise");
        let n = if cfg!(miri) { 256 } else { 4096 };
        let mut probes: Vec<Vec<u8>> = (0..n).map(|_| hex(rng(&mut seed))).collect();
        let mut found = [NOT_FOUND; LOOKUP_BATCH];
        for sorted in [false, true] {
            if sorted {
                probes.sort();
            }
            RUN_HITS.with(|c| c.set(0));
            for chunk in probes.chunks(LOOKUP_BATCH) {
                l.batch(|j| &chunk[j][..], &mut found[..chunk.len()]);
                for (p, &f) in chunk.iter().zip(&found) {
                    assert_eq!(Some(f as usize..f as usize + 1), textbook(&s, p), "{p:?}");
                }
            }
            let hits = RUN_HITS.with(|c| c.get());
            match sorted {
                // 13.5 keys per partition: all but the first of each
                // partition's run in a chunk (at least 2,816 of 4,096).
                // Under Miri 0.8 per partition: some (32 of 256).
                true => {
                    let want = if n == 4096 { 2_816 } else { 32 };
                    assert!(hits >= want, "{hits} of {n} keys in order took one compare");
                }
                false => assert_eq!(hits, 0, "keys out of order"),
            }
        }
    }

    /// SplitMix64.
    fn rng(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The radix table and the branch-free search answer as the textbook
    /// search, for separators spread out, clustered, sharing prefixes of 0
    /// to 20 bytes, repeated, shorter than 8 bytes after the common prefix,
    /// in both bytewise orders; keys before, among and after them.
    #[test]
    fn key_range_is_the_textbook_search() {
        let mut seed = 7;
        let alphabets: [&[u8]; 4] = [b"0123456789abcdef", b"ab", &[0, 1, 0xff], b"0123456789"];
        let (mut checked, mut fast, mut in_order, mut quick) = (0, 0, 0, 0);
        // Counted by the vector pass (x86_64).
        #[cfg(target_arch = "x86_64")]
        let (mut vector, mut ascending) = (0, 0);
        #[cfg(not(target_arch = "x86_64"))]
        let (vector, ascending) = (0, 0);
        for case in 0..240 {
            let n = [1, 2, 3, 7, 64, 300, 1000][case % 7];
            let alphabet = alphabets[case / 7 % 4];
            let common: Vec<u8> =
                (0..[0, 3, 8, 9, 12, 16, 17, 20][case / 28 % 8]).map(|i| b'p' + i as u8 % 7).collect();
            let max_tail = [1usize, 4, 9, 16][(case + case / 7) % 4];
            let gen = |seed: &mut u64| {
                let mut k = common.clone();
                let len = 1 + (rng(seed) as usize % max_tail);
                k.extend((0..len).map(|_| alphabet[rng(seed) as usize % alphabet.len()]));
                k
            };
            let mut keys: Vec<Vec<u8>> = (0..n).map(|_| gen(&mut seed)).collect();
            // Runs of equal separators (RocksDB writes them for keys that
            // differ only in sequence number).
            if case % 3 == 0 && n > 4 {
                let k = keys[1].clone();
                keys.extend(std::iter::repeat_n(k, 5));
            }
            keys.sort();
            for (name, reverse) in [("leveldb.BytewiseComparator", false), ("rocksdb.ReverseBytewiseComparator", true)]
            {
                let mut ks = keys.clone();
                if reverse {
                    ks.reverse();
                }
                let s = separators(&ks, name);
                let mut probes: Vec<Vec<u8>> = (0..200).map(|_| gen(&mut seed)).collect();
                probes.extend(ks.iter().cloned());
                probes.extend([vec![], common.clone(), b"\xff\xff".to_vec(), common[..common.len() / 2].to_vec()]);
                // Byte values no separator has (the buckets' saturating
                // digits): separators with one byte after the common
                // prefix moved up or down by one, and random bytes.
                for k in ks.iter().take(100) {
                    for d in [1u8, 255] {
                        let mut p = k.clone();
                        let at = common.len() + rng(&mut seed) as usize % (k.len() - common.len()).max(1);
                        if let Some(b) = p.get_mut(at) {
                            *b = b.wrapping_add(d);
                        }
                        probes.push(p);
                    }
                }
                // Keys that leave the separators' common prefix at each of
                // its bytes, with and without a tail (the prefix test).
                let (first, last) = (&ks[0], &ks[ks.len() - 1]);
                let shared = first.iter().zip(last).take_while(|(a, b)| a == b).count();
                for i in 0..shared {
                    for d in [1u8, 255] {
                        let mut p = ks[rng(&mut seed) as usize % ks.len()].clone();
                        p[i] = p[i].wrapping_add(d);
                        probes.push(p.clone());
                        p.extend_from_slice(b"0123456789");
                        probes.push(p);
                    }
                }
                probes.extend((0..50).map(|_| {
                    let mut p = common.clone();
                    p.extend((0..1 + rng(&mut seed) % 12).map(|_| rng(&mut seed) as u8));
                    p
                }));
                for p in &probes {
                    let want = textbook(&s, p);
                    assert_eq!(s.key_range(p), want, "case {case} {name}: key {p:?}, {n} separators");
                    let single = s.lookup().and_then(|l| l.single(p));
                    if let Some(i) = single {
                        assert_eq!(Some(i..i + 1), want, "case {case} {name}: fast lookup of {p:?}");
                        fast += 1;
                    }
                    // The single query's quick path places a key only
                    // where `single` does, and as it does.
                    if let Some(i) = s.quick(p) {
                        assert_eq!(Some(i), single, "case {case} {name}: quick path for {p:?}");
                        quick += 1;
                    }
                    checked += 1;
                }
                let Some(l) = s.lookup() else { continue };
                // The vector pass over a chunk (only where `vector` holds):
                // each key's separator into `found`, whether all were
                // found, and whether its groups of 8 keys ascend (the next
                // chunk may then follow runs), which it says only where
                // `Lookup::heads` says so (it may say so less often: a key
                // too short for the vector reads counts as out of order
                // there).
                #[cfg(target_arch = "x86_64")]
                let which: Vec<u32> = (0..s.len() as u32).collect();
                #[cfg(target_arch = "x86_64")]
                let route = |chunk: &[Vec<u8>], found: &mut [u32]| {
                    assert!(l.vector());
                    // SAFETY: `vector` holds (asserted).
                    let mut seen = [&[][..]; LOOKUP_BATCH];
                    let (all, up) = unsafe {
                        l.route_avx2::<false>(|j| &chunk[j][..], &which, &mut found[..chunk.len()], &mut seen)
                    };
                    // Every key read is handed back, in place.
                    assert!(
                        chunk.iter().zip(&seen).all(|(k, s)| std::ptr::eq(&k[..], *s)),
                        "case {case} {name}: keys seen"
                    );
                    // `which` is the identity here: the blend gives what
                    // the gather does.
                    let mut blended = [NOT_FOUND; LOOKUP_BATCH];
                    // SAFETY: as above.
                    let same = unsafe {
                        l.route_avx2::<true>(|j| &chunk[j][..], &which, &mut blended[..chunk.len()], &mut seen)
                    };
                    assert_eq!(
                        (same, &blended[..chunk.len()]),
                        ((all, up), &found[..chunk.len()]),
                        "case {case} {name}: identity"
                    );
                    let mut located = [(0, 0); LOOKUP_BATCH];
                    assert!(
                        !up || l.heads::<false>(|j| &chunk[j][..], &mut located[..chunk.len() / 8 * 8]),
                        "case {case} {name}: in order"
                    );
                    (all, up)
                };
                // The vector pass: each probe lands where `single` puts it,
                // in any order.
                #[cfg(target_arch = "x86_64")]
                if l.vector() {
                    let mut found = [NOT_FOUND; LOOKUP_BATCH];
                    for chunk in probes.chunks(LOOKUP_BATCH) {
                        let (all, _) = route(chunk, &mut found);
                        for (p, &f) in chunk.iter().zip(&found) {
                            assert_eq!(
                                l.single(p).map_or(NOT_FOUND, |i| i as u32),
                                f,
                                "case {case} {name}: vector pass for {p:?}, {n} separators"
                            );
                        }
                        assert_eq!(all, found[..chunk.len()].iter().all(|&f| f != NOT_FOUND));
                        vector += chunk.len();
                    }
                }
                // The same probes in the file's order, as MultiGet sends
                // them (`Lookup::runs`): each lands where `single` puts it.
                let mut sorted = probes.clone();
                sorted.sort();
                if reverse {
                    sorted.reverse();
                }
                let mut found = [NOT_FOUND; LOOKUP_BATCH];
                for chunk in sorted.chunks(LOOKUP_BATCH) {
                    // In key order, the vector pass mostly says the groups
                    // ascend (counted below).
                    #[cfg(target_arch = "x86_64")]
                    if l.vector() {
                        ascending += usize::from(route(chunk, &mut found).1);
                    }
                    l.batch(|j| &chunk[j][..], &mut found[..chunk.len()]);
                    for (p, &f) in chunk.iter().zip(&found) {
                        // Where `single` places a key, so does the batch;
                        // it may place more (a head equal to the last
                        // separator's lands on it either way).
                        if let Some(i) = l.single(p) {
                            assert_eq!(i as u32, f, "case {case} {name}: batch in order for {p:?}, {n} separators");
                        }
                        if f != NOT_FOUND {
                            let f = f as usize;
                            assert_eq!(
                                Some(f..f + 1),
                                textbook(&s, p),
                                "case {case} {name}: batch in order for {p:?}, {n} separators"
                            );
                        }
                        in_order += 1;
                    }
                }
            }
        }
        assert!(checked > 150_000);
        assert!(in_order > 150_000);
        // Some took the runs' one compare (cases with digit tables and a
        // prefix of at most 8 bytes; most cases have neither).
        assert!(RUN_HITS.with(|c| c.get()) > 0);
        assert!(ascending > 0 || !cfg!(target_arch = "x86_64") || !crate::arch::features().avx2());
        // The fast form answers most of them (those of 8 bytes or more
        // that share the common prefix and fall between buckets' heads).
        assert!(fast > checked / 20, "{fast} of {checked} answered by the fast lookup");
        // Cases with digit tables and a prefix of at most 8 bytes took the
        // quick path, and the vector pass where the CPU has AVX2.
        assert!(quick > 1_000, "{quick} probes took the quick path");
        assert!(
            vector > 10_000 || !cfg!(target_arch = "x86_64") || !crate::arch::features().avx2(),
            "{vector} probes took the vector pass"
        );
    }

    /// The vector pass's "in order" compares each group's first head with
    /// the previous group's last: 64 keys in order say so, and moving two
    /// runs of 4 across a group's boundary (each group still ascending,
    /// but its first head above the last group's fourth) does not.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_pass_in_order_spans_groups() {
        if !crate::arch::features().avx2() {
            return;
        }
        let mut seed = 5u64;
        let key = |seed: &mut u64| format!("user{:016x}", rng(seed)).into_bytes();
        let mut keys: Vec<Vec<u8>> = (0..300).map(|_| key(&mut seed)).collect();
        keys.sort();
        let s = separators(&keys, "leveldb.BytewiseComparator");
        let l = s.lookup().filter(|l| l.vector()).expect("digit tables and a narrow bucket table");
        let mut probes: Vec<Vec<u8>> = (0..LOOKUP_BATCH).map(|_| key(&mut seed)).collect();
        probes.sort();
        let which: Vec<u32> = (0..s.len() as u32).collect();
        let mut found = [NOT_FOUND; LOOKUP_BATCH];
        let mut seen = [&[][..]; LOOKUP_BATCH];
        // SAFETY: `vector` holds (both calls).
        let (_, up) = unsafe { l.route_avx2::<true>(|j| &probes[j][..], &which, &mut found, &mut seen) };
        assert!(up);
        // Keys 0-3, 8-11 | 4-7, 12-15 | 16...
        probes[4..12].rotate_left(4);
        let mut seen = [&[][..]; LOOKUP_BATCH];
        let (_, up) = unsafe { l.route_avx2::<true>(|j| &probes[j][..], &which, &mut found, &mut seen) };
        assert!(!up);
    }

    /// The vector pass reads no byte past a key's end: each key ends where
    /// a page no one may read begins (a read past the key faults), for
    /// common prefixes of every length the gathers read (0 to 16 bytes)
    /// and keys of every length around them; and it lands each key where
    /// `single` does.
    #[cfg(all(target_arch = "x86_64", unix))]
    #[test]
    fn vector_pass_reads_only_the_keys_bytes() {
        if !crate::arch::features().avx2() {
            return;
        }
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("a page size");
        // One readable page then one unreadable page per key.
        let len = 2 * page * LOOKUP_BATCH;
        // SAFETY: a fresh anonymous mapping; no memory of ours is touched.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(map, libc::MAP_FAILED);
        for k in 0..LOOKUP_BATCH {
            // SAFETY: page 2k + 1 lies within the mapping.
            assert_eq!(
                unsafe { libc::mprotect(map.cast::<u8>().add((2 * k + 1) * page).cast(), page, libc::PROT_NONE) },
                0
            );
        }
        let mut seed = 11u64;
        let mut routed = 0;
        for l in 0..=16 {
            let common: Vec<u8> = (0..l).map(|i| b"k0000000000000000"[i]).collect();
            let mut keys: Vec<Vec<u8>> = (0..300)
                .map(|_| {
                    let mut k = common.clone();
                    k.extend((0..1 + rng(&mut seed) % 10).map(|_| b'0' + (rng(&mut seed) % 10) as u8));
                    k
                })
                .collect();
            keys.sort();
            keys.dedup();
            let s = separators(&keys, "leveldb.BytewiseComparator");
            let Some(lookup) = s.lookup().filter(|l| l.vector()) else { continue };
            let which: Vec<u32> = (0..s.len() as u32).collect();
            for _ in 0..20 {
                // Keys of 0 to l + 10 bytes, most sharing the prefix.
                let probes: Vec<Vec<u8>> = (0..LOOKUP_BATCH)
                    .map(|_| {
                        let n = rng(&mut seed) as usize % (l + 11);
                        let mut p = keys[rng(&mut seed) as usize % keys.len()].clone();
                        p.resize(n, b'5');
                        if rng(&mut seed).is_multiple_of(8) && n > 0 {
                            p[rng(&mut seed) as usize % n] ^= 1;
                        }
                        p
                    })
                    .collect();
                let placed: Vec<&[u8]> = probes
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        // SAFETY: page 2k is readable and writable, and the
                        // key (at most 26 bytes) ends at its end.
                        unsafe {
                            let end = map.cast::<u8>().add((2 * k + 1) * page);
                            let at = end.sub(p.len());
                            std::ptr::copy_nonoverlapping(p.as_ptr(), at, p.len());
                            std::slice::from_raw_parts(at, p.len())
                        }
                    })
                    .collect();
                let mut found = [NOT_FOUND; LOOKUP_BATCH];
                let mut seen = [&[][..]; LOOKUP_BATCH];
                // SAFETY: `vector` holds.
                unsafe { lookup.route_avx2::<false>(|j| placed[j], &which, &mut found, &mut seen) };
                for (p, &f) in probes.iter().zip(&found) {
                    assert_eq!(lookup.single(p).map_or(NOT_FOUND, |i| i as u32), f, "prefix of {l} bytes: {p:?}");
                }
                routed += 1;
            }
        }
        // SAFETY: the mapping made above, no longer borrowed.
        assert_eq!(unsafe { libc::munmap(map, len) }, 0);
        assert!(routed >= 15 * 20, "{routed} batches routed");
    }
}
