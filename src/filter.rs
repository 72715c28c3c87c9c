//! Reading any built-in filter block as RocksDB does
//! (`BuiltinFilterPolicy::GetBuiltinFilterBitsReader` in `filter_policy.cc`):
//! the trailer's marker byte picks the format (see `format.rs`), the format
//! decodes and validates its geometry and picks its query kernel for this
//! CPU, once, at load.
//!
//! RocksDB trusts these bytes. We validate the geometry once, at load, so
//! that queries are infallible and can never index outside the block.

use std::ops::Range;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::arch;
use crate::bloom::fast_local::{self, FastLocalGeometry};
use crate::bloom::legacy::{self, LegacyGeometry};
use crate::error::{Error, Result};
use crate::format::{Format, METADATA_LEN};
#[cfg(target_arch = "x86_64")]
use crate::hash::hash64_inline;
use crate::hash::{bloom_hash, hash64};
use crate::ribbon::{self, RibbonGeometry};

/// What kind of filter a block holds (values match `rocksfilter_kind`).
///
/// ```
/// use rocksfilter::{Filter, Kind};
/// assert_eq!(Filter::new(&[])?.kind(), Kind::AlwaysFalse);
/// assert_eq!(Kind::Standard128Ribbon.name(), "Standard128Ribbon");
/// # Ok::<(), rocksfilter::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// No keys: every query answers "absent" (blocks of 5 bytes or fewer).
    AlwaysFalse,
    /// Reserved or future formats, or geometries RocksDB reads as "always
    /// true": every query answers "may match".
    AlwaysTrue,
    /// RocksDB's cache-local Bloom filter (format_version >= 5).
    FastLocalBloom,
    /// RocksDB's Ribbon filter (`NewRibbonFilterPolicy`).
    Standard128Ribbon,
    /// The Bloom filter of format_version < 5.
    LegacyBloom,
}

impl Kind {
    /// The kind's name, as the C API's and the CLI's reports spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::AlwaysFalse => "always-false",
            Kind::AlwaysTrue => "always-true",
            Kind::FastLocalBloom => "FastLocalBloom",
            Kind::Standard128Ribbon => "Standard128Ribbon",
            Kind::LegacyBloom => "LegacyBloom",
        }
    }
}

/// A loaded block's format and the kernel chosen for it on this CPU.
#[derive(Clone, Copy, Debug)]
enum Reader {
    AlwaysFalse,
    AlwaysTrue,
    FastLocal(FastLocalGeometry, fast_local::Kernel),
    Ribbon(RibbonGeometry, ribbon::Kernel),
    Legacy(LegacyGeometry, legacy::Kernel),
}

/// The geometry of a loaded filter, per kind, for reports and tools.
///
/// ```
/// use rocksfilter::{Filter, FilterBuilder, FilterInfo, Policy};
/// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
/// b.add_key(b"k");
/// let block = b.finish()?;
/// match Filter::new(&block)?.info() {
///     FilterInfo::FastLocalBloom { num_probes, num_lines, .. } => assert_eq!((num_probes, num_lines), (6, 1)),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), rocksfilter::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterInfo {
    /// No keys.
    AlwaysFalse,
    /// Answers "may match" to everything.
    AlwaysTrue,
    /// FastLocalBloom: 64-byte cache lines.
    #[non_exhaustive]
    FastLocalBloom {
        /// Probes per key (1 to 30).
        num_probes: u32,
        /// 64-byte cache lines in the bit array.
        num_lines: u32,
    },
    /// Legacy Bloom.
    #[non_exhaustive]
    LegacyBloom {
        /// Probes per key.
        num_probes: u32,
        /// Cache lines in the bit array.
        num_lines: u32,
        /// The cache-line size in bytes the block was written with (64 on
        /// x86-64 and ARM, 128 on POWER).
        line_bytes: u32,
    },
    /// Standard128Ribbon.
    #[non_exhaustive]
    Standard128Ribbon {
        /// 128-slot blocks.
        num_blocks: u32,
        /// The hash seed (0..=255) the builder settled on.
        seed: u8,
        /// Solution columns (result bits) per slot in blocks before
        /// `upper_start_block`; blocks from there on have one more.
        lower_num_columns: u32,
        /// First block with `lower_num_columns + 1` columns.
        upper_start_block: u32,
    },
}

impl FilterInfo {
    /// The kind these details describe.
    pub fn kind(&self) -> Kind {
        match self {
            FilterInfo::AlwaysFalse => Kind::AlwaysFalse,
            FilterInfo::AlwaysTrue => Kind::AlwaysTrue,
            FilterInfo::FastLocalBloom { .. } => Kind::FastLocalBloom,
            FilterInfo::LegacyBloom { .. } => Kind::LegacyBloom,
            FilterInfo::Standard128Ribbon { .. } => Kind::Standard128Ribbon,
        }
    }

    /// Probes per key of the Bloom kinds; `None` for the others.
    pub fn num_probes(&self) -> Option<u32> {
        match *self {
            FilterInfo::FastLocalBloom { num_probes, .. } | FilterInfo::LegacyBloom { num_probes, .. } => {
                Some(num_probes)
            }
            _ => None,
        }
    }
}

/// Where a filter's bytes live. `Shared` lets filters inside a memory-mapped
/// SST file keep the mapping alive without copying their bytes.
/// Who keeps a filter's bytes alive.
#[derive(Clone)]
pub(crate) enum Bytes<'a> {
    Borrowed(&'a [u8]),
    /// A `Vec` rather than a `Box<[u8]>`: the filter keeps a raw view of
    /// these bytes, and a `Box` asserts unique access whenever it moves.
    /// The block is the vector's bytes from the offset on (copies the
    /// library makes start at a cache-line boundary, see `mem::copy_block`).
    Owned(Vec<u8>, usize),
    /// Requirement: `as_ref()` returns the same immutable bytes every time
    /// (true of the memory maps and vectors the crate passes here).
    Shared(Arc<dyn AsRef<[u8]> + Send + Sync>, Range<usize>),
}

impl Bytes<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Owned(b, at) => &b[*at..],
            Bytes::Shared(b, r) => &(**b).as_ref()[r.clone()],
        }
    }
}

impl std::fmt::Debug for Bytes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.as_slice().len())
    }
}

/// A loaded, validated filter block. Immutable, `Send + Sync`: query it from
/// as many threads as you like.
pub struct Filter<'a> {
    data: Bytes<'a>,
    /// `data.as_slice()`, computed once by `assemble`, so that reading the
    /// bytes is two field loads instead of a match on who owns them (and,
    /// for a shared buffer, a dynamic call).
    /// Invariant: valid for as long as `data` lives, which keeps the bytes
    /// alive and unchanged at the same address: a borrow for 'a, a `Vec`
    /// whose heap buffer does not move when the vector does, or a shared
    /// buffer (see `Bytes::Shared`).
    view: NonNull<[u8]>,
    reader: Reader,
    /// The single-key query paths, chosen once at load for this format and
    /// this CPU (see [`Filter::assemble`]), so that a query is one indirect
    /// call with no per-query dispatch on kind, storage or CPU features.
    query: Query,
}

// SAFETY: `view` is a read-only alias of the bytes `data` keeps alive and
// never mutates; `data` is a `&[u8]`, a `Vec<u8>` or an
// `Arc<dyn AsRef<[u8]> + Send + Sync>`, all Send and Sync. Sending or
// sharing a filter therefore shares nothing but immutable bytes.
unsafe impl Send for Filter<'_> {}
// SAFETY: as above.
unsafe impl Sync for Filter<'_> {}

impl Clone for Filter<'_> {
    fn clone(&self) -> Self {
        // A fresh view: an owned copy has its own buffer.
        Filter::assemble(self.data.clone(), self.reader)
    }
}

/// `extern "C"`: these calls cannot unwind (a panic would abort), which
/// lets callers such as the C ABI's panic guard compile to a bare tail call.
/// None of them can panic: the fast paths have no panicking operation and
/// the generic ones catch any panic themselves (answering "may match").
type HashFn = for<'x, 'y> unsafe extern "C" fn(&'x Filter<'y>, u64) -> bool;
type KeyFn = for<'x, 'y> unsafe extern "C" fn(&'x Filter<'y>, *const u8, usize) -> bool;

#[derive(Clone, Copy)]
struct Query {
    /// Invariant: only functions whose required CPU features were detected,
    /// and whose filter kind is this filter's.
    hash: HashFn,
    key: KeyFn,
}

impl std::fmt::Debug for Filter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter").field("data", &self.data).field("reader", &self.reader).finish()
    }
}

/// Generic paths: any kind, any storage. Never inlined, so that the fast
/// paths falling back to them stay free of register saves.
#[inline(never)]
unsafe extern "C" fn generic_hash(f: &Filter<'_>, h: u64) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.may_match_hash_in(f.as_bytes(), h))).unwrap_or(true)
}
/// Safety: `key` points to `len` readable bytes (it comes from a slice).
#[inline(never)]
unsafe extern "C" fn generic_key(f: &Filter<'_>, key: *const u8, len: usize) -> bool {
    // SAFETY: the caller passes a slice's pointer and length.
    let key = unsafe { std::slice::from_raw_parts(key, len) };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.may_match_in(f.as_bytes(), key))).unwrap_or(true)
}

/// FastLocalBloom, AVX2. `LE8`: at most 8 probes (one AVX2 round, the
/// shortest path; RocksDB's defaults up to ~14 bits/key), else any count.
/// Falls back to the generic path if the filter is not what the selector
/// saw (cannot happen).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe extern "C" fn fast_local_hash_avx2<const LE8: bool>(f: &Filter<'_>, h: u64) -> bool {
    match &f.reader {
        // SAFETY: selected only after detecting AVX2, and with LE8 only for
        // num_probes <= 8 (Query invariant); the geometry was parsed from
        // these bytes.
        Reader::FastLocal(g, _) if LE8 => unsafe { g.may_match_hash_avx2_le8(f.as_bytes(), h) },
        // SAFETY: as above.
        Reader::FastLocal(g, _) => unsafe { g.may_match_hash_avx2_nopanic(f.as_bytes(), h) },
        // SAFETY: no feature requirement.
        _ => unsafe { generic_hash(f, h) },
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe extern "C" fn fast_local_key_avx2<const LE8: bool>(f: &Filter<'_>, key: *const u8, len: usize) -> bool {
    if !matches!(f.reader, Reader::FastLocal(..)) {
        // SAFETY: the caller passes a slice's pointer and length.
        return unsafe { generic_key(f, key, len) };
    }
    // SAFETY: the caller passes a slice's pointer and length.
    let key = unsafe { std::slice::from_raw_parts(key, len) };
    // SAFETY: same contract as the hash form (AVX2 detected, the filter is
    // FastLocalBloom). hash64 has no panicking path for any length.
    unsafe { fast_local_hash_avx2::<LE8>(f, hash64_inline(key)) }
}

/// Standard128Ribbon query functions for a CPU feature set: `$hash` and
/// `$key`, compiled with `$features`, querying through `$query` (a
/// `RibbonGeometry` method that needs exactly those features). The query
/// reads only within the bytes (its window is checked with `get`); its
/// indexing cannot fail for any geometry.
macro_rules! ribbon_query_fns {
    ($hash:ident, $key:ident, $features:literal, $query:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe extern "C" fn $hash(f: &Filter<'_>, h: u64) -> bool {
            match &f.reader {
                // SAFETY: selected only after detecting these features
                // (Query invariant). (The POPCNT query is a safe fn.)
                #[allow(unused_unsafe)]
                Reader::Ribbon(g, _) => unsafe { g.$query(f.as_bytes(), &g.prepare(h)) },
                // SAFETY: no feature requirement.
                _ => unsafe { generic_hash(f, h) },
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe extern "C" fn $key(f: &Filter<'_>, key: *const u8, len: usize) -> bool {
            if !matches!(f.reader, Reader::Ribbon(..)) {
                // SAFETY: the caller passes a slice's pointer and length.
                return unsafe { generic_key(f, key, len) };
            }
            // SAFETY: the caller passes a slice's pointer and length.
            let key = unsafe { std::slice::from_raw_parts(key, len) };
            // SAFETY: same contract as the hash form.
            unsafe { $hash(f, hash64_inline(key)) }
        }
    };
}

ribbon_query_fns!(ribbon_hash_popcnt, ribbon_key_popcnt, "popcnt", query_prepared_inline);
ribbon_query_fns!(ribbon_hash_avx2, ribbon_key_avx2, "avx2,popcnt", query_prepared_avx2);
#[cfg(rocksfilter_avx512)]
ribbon_query_fns!(ribbon_hash_avx512, ribbon_key_avx512, "avx2,popcnt,avx512f,avx512vpopcntdq", query_prepared_avx512);

impl Query {
    /// The functions for the kernel the format chose at load.
    fn select(reader: &Reader) -> Query {
        match *reader {
            #[cfg(all(target_arch = "x86_64", rocksfilter_avx512))]
            Reader::Ribbon(_, ribbon::Kernel::Avx512) => Query { hash: ribbon_hash_avx512, key: ribbon_key_avx512 },
            #[cfg(target_arch = "x86_64")]
            Reader::Ribbon(_, ribbon::Kernel::Avx2) => Query { hash: ribbon_hash_avx2, key: ribbon_key_avx2 },
            #[cfg(target_arch = "x86_64")]
            Reader::Ribbon(_, ribbon::Kernel::Popcnt) => Query { hash: ribbon_hash_popcnt, key: ribbon_key_popcnt },
            #[cfg(target_arch = "x86_64")]
            Reader::FastLocal(_, fast_local::Kernel::Avx2Le8) => {
                Query { hash: fast_local_hash_avx2::<true>, key: fast_local_key_avx2::<true> }
            }
            #[cfg(target_arch = "x86_64")]
            Reader::FastLocal(_, fast_local::Kernel::Avx2) => {
                Query { hash: fast_local_hash_avx2::<false>, key: fast_local_key_avx2::<false> }
            }
            _ => Query { hash: generic_hash, key: generic_key },
        }
    }
}

impl<'a> Filter<'a> {
    fn assemble(data: Bytes<'a>, reader: Reader) -> Filter<'a> {
        let query = Query::select(&reader);
        let view = NonNull::from(data.as_slice());
        Filter { data, view, reader, query }
    }

    /// Loads a block without copying it.
    ///
    /// ```
    /// use rocksfilter::{Filter, Kind};
    /// let f = Filter::new(&[])?; // 5 bytes or fewer: no keys
    /// assert_eq!(f.kind(), Kind::AlwaysFalse);
    /// assert!(!f.may_match(b"anything"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn new(block: &'a [u8]) -> Result<Filter<'a>> {
        let reader = parse(block)?;
        Ok(Filter::assemble(Bytes::Borrowed(block), reader))
    }

    /// Loads a block, taking ownership of its bytes.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"k");
    /// let f: Filter<'static> = Filter::from_vec(b.finish()?)?; // no borrow to keep alive
    /// assert!(f.may_match(b"k"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn from_vec(block: Vec<u8>) -> Result<Filter<'static>> {
        let reader = parse(&block)?;
        Ok(Filter::assemble(Bytes::Owned(block, 0), reader))
    }

    /// Loads a copy of `block`, made by the library: cache-line aligned
    /// (each 64-byte line of a FastLocalBloom block is then one cache line
    /// rather than two) and advised for huge pages when large.
    pub(crate) fn from_copy(block: &[u8]) -> Result<Filter<'static>> {
        let reader = parse(block)?;
        let (copy, at) = crate::mem::copy_block(block);
        Ok(Filter::assemble(Bytes::Owned(copy, at), reader))
    }

    /// Loads the block at `range` of a shared buffer (e.g. a memory-mapped
    /// file) without copying; the filter keeps the buffer alive.
    #[cfg(test)]
    pub(crate) fn from_shared(buf: Arc<dyn AsRef<[u8]> + Send + Sync>, range: Range<usize>) -> Result<Filter<'static>> {
        let reader = parse(&(*buf).as_ref()[range.clone()])?;
        Ok(Filter::assemble(Bytes::Shared(buf, range), reader))
    }

    /// Loads a block from bytes the SST reader fetched and keeps.
    pub(crate) fn from_held(data: Bytes<'a>) -> Result<Filter<'a>> {
        let reader = parse(data.as_slice())?;
        Ok(Filter::assemble(data, reader))
    }

    /// The same filter over `bytes`, a copy of this filter's bytes kept
    /// elsewhere (the cache's arena), without parsing them again.
    ///
    /// Safety: `bytes` equal `self.as_bytes()`, are 64-byte aligned when
    /// those are, and stay alive and unchanged for as long as the result
    /// is used (the 'static is the caller's promise).
    pub(crate) unsafe fn relocated(&self, bytes: &'static [u8]) -> Filter<'static> {
        debug_assert_eq!(bytes, self.as_bytes());
        Filter::assemble(Bytes::Borrowed(bytes), self.reader)
    }

    /// A filter that answers "may match" to every key: what RocksDB uses in
    /// place of a filter block it cannot read.
    pub(crate) fn always_true() -> Filter<'static> {
        /// A 1-byte bit array with 0 probes: RocksDB's "always true" block.
        static BLOCK: [u8; 6] = [0; 6];
        Filter::assemble(Bytes::Borrowed(&BLOCK), Reader::AlwaysTrue)
    }

    /// A copy that owns its bytes.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"k");
    /// let block = b.finish()?;
    /// let owned = Filter::new(&block)?.into_owned();
    /// drop(block);
    /// assert!(owned.may_match(b"k"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn into_owned(self) -> Filter<'static> {
        let data = match self.data {
            Bytes::Borrowed(b) => {
                let (copy, at) = crate::mem::copy_block(b);
                Bytes::Owned(copy, at)
            }
            Bytes::Owned(b, at) => Bytes::Owned(b, at),
            Bytes::Shared(b, r) => Bytes::Shared(b, r),
        };
        Filter::assemble(data, self.reader)
    }

    /// The whole block, trailer included.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"k");
    /// let block = b.finish()?;
    /// assert_eq!(Filter::new(&block)?.as_bytes(), &block[..]);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: struct invariant: `view` is `data`'s bytes, alive and
        // unchanged for as long as `self` (and so `data`) is borrowed.
        unsafe { self.view.as_ref() }
    }

    /// The kind of block loaded.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Kind, Policy};
    /// let mut b = FilterBuilder::new(Policy::LegacyBloom, 10.0)?;
    /// b.add_key(b"k");
    /// assert_eq!(Filter::new(&b.finish()?)?.kind(), Kind::LegacyBloom);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn kind(&self) -> Kind {
        match self.reader {
            Reader::AlwaysFalse => Kind::AlwaysFalse,
            Reader::AlwaysTrue => Kind::AlwaysTrue,
            Reader::FastLocal(..) => Kind::FastLocalBloom,
            Reader::Ribbon(..) => Kind::Standard128Ribbon,
            Reader::Legacy(..) => Kind::LegacyBloom,
        }
    }

    /// The block's geometry.
    pub fn info(&self) -> FilterInfo {
        match self.reader {
            Reader::AlwaysFalse => FilterInfo::AlwaysFalse,
            Reader::AlwaysTrue => FilterInfo::AlwaysTrue,
            Reader::FastLocal(g, _) => FilterInfo::FastLocalBloom { num_probes: g.num_probes, num_lines: g.lines },
            Reader::Legacy(g, _) => FilterInfo::LegacyBloom {
                num_probes: g.num_probes,
                num_lines: g.num_lines,
                line_bytes: 1 << g.log2_line_bytes,
            },
            Reader::Ribbon(g, _) => FilterInfo::Standard128Ribbon {
                num_blocks: g.num_blocks,
                seed: g.seed,
                lower_num_columns: g.upper_num_columns.saturating_sub(1),
                upper_start_block: g.upper_start_block,
            },
        }
    }

    /// RocksDB's estimate of this filter's FP rate if it holds `num_keys`
    /// keys (its `EstimatedFpRate`).
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// for i in 0..1000u32 { b.add_key(&i.to_le_bytes()); }
    /// let block = b.finish()?;
    /// let fp = Filter::new(&block)?.estimated_fp_rate(1000);
    /// assert!((0.008..0.009).contains(&fp)); // 1,280 bytes: 10.24 bits/key
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn estimated_fp_rate(&self, num_keys: usize) -> f64 {
        let len = self.as_bytes().len();
        match self.reader {
            Reader::AlwaysFalse => 0.0,
            Reader::AlwaysTrue => 1.0,
            Reader::FastLocal(g, _) => g.estimated_fp_rate(num_keys, len),
            Reader::Legacy(g, _) => g.estimated_fp_rate(num_keys, len),
            Reader::Ribbon(g, _) => g.estimated_fp_rate(num_keys, len),
        }
    }

    /// May `key` have been added? `false` is definite; `true` may be a false
    /// positive.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Ribbon, 10.0)?;
    /// for k in [&b"apple"[..], b"banana"] { b.add_key(k); }
    /// let block = b.finish()?;
    /// let f = Filter::new(&block)?;
    /// assert!(f.may_match(b"apple")); // an added key always matches
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    #[inline]
    pub fn may_match(&self, key: &[u8]) -> bool {
        // SAFETY: `query` only holds functions whose CPU features were
        // detected (Query::select).
        unsafe { (self.query.key)(self, key.as_ptr(), key.len()) }
    }

    #[inline(always)]
    fn may_match_in(&self, data: &[u8], key: &[u8]) -> bool {
        match &self.reader {
            Reader::AlwaysFalse => false,
            Reader::AlwaysTrue => true,
            Reader::FastLocal(g, _) => g.may_match_key(data, key),
            Reader::Ribbon(g, _) => g.may_match_hash(data, hash64(key)),
            Reader::Legacy(g, _) => g.may_match_hash(data, bloom_hash(key)),
        }
    }

    /// Query with a precomputed [`hash64`] of the key. Legacy Bloom filters
    /// are built from a different (32-bit) hash that cannot be derived from
    /// this one, so on them this answers `true` (never a false negative;
    /// RocksDB's own reader answers `false` there).
    ///
    /// ```
    /// use rocksfilter::{hash64, Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"apple");
    /// let block = b.finish()?;
    /// let f = Filter::new(&block)?;
    /// assert_eq!(f.may_match_hash(hash64(b"apple")), f.may_match(b"apple"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    #[inline]
    pub fn may_match_hash(&self, hash: u64) -> bool {
        // SAFETY: as in `may_match`.
        unsafe { (self.query.hash)(self, hash) }
    }

    /// First half of a query split in two, for batches over many filters
    /// (a partitioned SST filter): the key's hash, with the bytes its
    /// probe will read prefetched. Finish with [`Filter::probe_prepared`].
    #[inline]
    pub(crate) fn prepare_probe(&self, key: &[u8]) -> u64 {
        let data = self.as_bytes();
        match &self.reader {
            Reader::FastLocal(g, _) => {
                let h = hash64(key);
                g.prepare(data, h);
                h
            }
            Reader::Ribbon(g, _) => {
                let h = hash64(key);
                g.prepare(h).prefetch(data);
                h
            }
            Reader::AlwaysFalse | Reader::AlwaysTrue | Reader::Legacy(..) => 0,
        }
    }

    /// This filter's bytes and geometry when its kernel is FastLocalBloom's
    /// one-round AVX2 kernel (at most 8 probes, AVX2 detected): the
    /// partitions [`fast_local::may_match_lines_avx2`] probes.
    #[inline]
    pub(crate) fn fast_local_le8(&self) -> Option<(&[u8], FastLocalGeometry)> {
        match self.reader {
            Reader::FastLocal(g, fast_local::Kernel::Avx2Le8) => Some((self.as_bytes(), g)),
            _ => None,
        }
    }

    /// This filter's lines, for [`fast_local::may_match_lines_avx2`]:
    /// [`fast_local::Lines::ALONE`] unless its kernel is
    /// [`fast_local::Kernel::Avx2Le8`].
    #[inline(always)]
    pub(crate) fn lines(&self) -> fast_local::Lines<'_> {
        self.fast_local_le8().and_then(|(data, g)| g.lines_of(data)).unwrap_or(fast_local::Lines::ALONE)
    }

    /// [`Filter::lines`] without their lifetime, for a partitioned filter
    /// to keep beside this filter ([`fast_local::LinesAt`]): valid while
    /// this filter's bytes are, which a move of the `Filter` does not
    /// change (see `view`) and a clone does (an owned copy has its own).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn lines_at(&self) -> fast_local::LinesAt {
        self.fast_local_le8().map_or(fast_local::LinesAt::ALONE, |(data, g)| g.lines_at(data))
    }

    /// This filter's bytes and geometry when its kernel is one of
    /// Standard128Ribbon's AVX2 or AVX-512 ones (AVX2 and POPCNT detected):
    /// what [`ribbon::may_match_routed_avx2`] queries. The geometry is a copy
    /// (28 bytes), so that a key's route holds it rather than a pointer
    /// into its partition's `Filter` (measured, `benches/partitioned.rs`,
    /// with routes gathered per batch: Ribbon batch 25.4-25.8 -> 25.1-25.2
    /// ns per key).
    #[inline]
    pub(crate) fn ribbon_routable(&self) -> Option<(&[u8], RibbonGeometry)> {
        match self.reader {
            Reader::Ribbon(g, ribbon::Kernel::Avx2 | ribbon::Kernel::Avx512) => Some((self.as_bytes(), g)),
            _ => None,
        }
    }

    /// Whether this filter's kernel is Standard128Ribbon's AVX-512 one
    /// (then [`ribbon::may_match_routed_avx512`] may query it).
    #[inline]
    pub(crate) fn ribbon_avx512(&self) -> bool {
        matches!(self.reader, Reader::Ribbon(_, ribbon::Kernel::Avx512))
    }

    /// Second half: the answer for `key`, whose [`Filter::prepare_probe`]
    /// gave `hash`.
    #[inline]
    pub(crate) fn probe_prepared(&self, key: &[u8], hash: u64) -> bool {
        match &self.reader {
            Reader::Legacy(..) => self.may_match(key),
            _ => self.may_match_hash(hash),
        }
    }

    #[inline(always)]
    fn may_match_hash_in(&self, data: &[u8], hash: u64) -> bool {
        match &self.reader {
            Reader::AlwaysFalse => false,
            Reader::AlwaysTrue | Reader::Legacy(..) => true,
            Reader::FastLocal(g, _) => g.may_match_hash(data, hash),
            Reader::Ribbon(g, _) => g.may_match_hash(data, hash),
        }
    }

    /// Batch query in RocksDB's MultiGet style: hash all keys and prefetch
    /// their cache lines first, then probe, so memory latency overlaps.
    /// `results[i]` answers `keys[i]`.
    ///
    /// # Panics
    /// If `results` is shorter than the number of keys.
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"apple");
    /// let block = b.finish()?;
    /// let f = Filter::new(&block)?;
    /// let keys = [&b"apple"[..], b"durian"];
    /// let mut results = [false; 2];
    /// f.may_match_batch(&keys, &mut results);
    /// assert_eq!(results, [f.may_match(b"apple"), f.may_match(b"durian")]);
    /// assert!(results[0]);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn may_match_batch<K: AsRef<[u8]>>(&self, keys: &[K], results: &mut [bool]) {
        assert!(results.len() >= keys.len(), "results shorter than keys");
        self.may_match_indexed(keys.len(), |i| keys[i].as_ref(), results);
    }

    /// Batch query over keys given by index (no intermediate allocation;
    /// used by the C ABI's pointer-array and packed-buffer forms).
    ///
    /// ```
    /// use rocksfilter::{Filter, FilterBuilder, Policy};
    /// let mut b = FilterBuilder::new(Policy::Bloom, 10.0)?;
    /// b.add_key(b"ab");
    /// let block = b.finish()?;
    /// let f = Filter::new(&block)?;
    /// // Keys packed in one buffer: key i is buf[2 * i..2 * i + 2].
    /// let buf = b"abcdab";
    /// let mut results = [false; 3];
    /// f.may_match_indexed(3, |i| &buf[2 * i..2 * i + 2], &mut results);
    /// assert!(results[0] && results[2]);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn may_match_indexed<'k>(&self, n: usize, key: impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        let data: &[u8] = self.as_bytes();
        let results = &mut results[..n];
        match self.reader {
            Reader::AlwaysFalse => results.fill(false),
            Reader::AlwaysTrue => results.fill(true),
            Reader::FastLocal(g, k) => g.may_match_batch(k, data, &key, results),
            Reader::Ribbon(g, k) => g.may_match_batch(k, data, &key, results),
            Reader::Legacy(g, k) => g.may_match_batch(k, data, &key, results),
        }
    }
}

/// Picks the format by the trailer's marker byte, decodes and validates the
/// block, and picks the kernel for this CPU.
fn parse(block: &[u8]) -> Result<Reader> {
    let total = block.len();
    if total <= METADATA_LEN {
        // Empty or too short: RocksDB treats it as zero keys added.
        return Ok(Reader::AlwaysFalse);
    }
    if total > u32::MAX as usize {
        return Err(Error::corruption(format!(
            "filter block of {total} bytes exceeds the 4 GiB RocksDB can address (it stores lengths in 32 bits)"
        )));
    }
    /// A format's geometry with its kernel, or "always true".
    fn load<G: Format>(block: &[u8], reader: fn(G, G::Kernel) -> Reader) -> Result<Reader> {
        Ok(G::decode(block)?.map_or(Reader::AlwaysTrue, |g| reader(g, g.kernel(arch::features()))))
    }
    match block[total - METADATA_LEN] {
        fast_local::MARKER => load(block, Reader::FastLocal),
        ribbon::MARKER => load(block, Reader::Ribbon),
        m if legacy::is_marker(m) => load(block, Reader::Legacy),
        // 0 probes, or a marker reserved for future implementations: RocksDB
        // answers "may match" to everything, which is always safe.
        _ => Ok(Reader::AlwaysTrue),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_blocks_are_always_false() {
        for n in 0..=5 {
            let f = Filter::new(&[0xffu8; 5][..n]).unwrap();
            assert_eq!(f.kind(), Kind::AlwaysFalse);
            assert!(!f.may_match(b"x"));
        }
    }

    #[test]
    fn reserved_markers_are_always_true() {
        let mut b = vec![0u8; 69];
        for marker in [0u8, 0x80, 0xfd, 0xfe - 1] {
            b[64] = marker;
            let f = Filter::new(&b).unwrap();
            assert_eq!(f.kind(), Kind::AlwaysTrue, "marker {marker:#x}");
            assert!(f.may_match(b"x"));
        }
        // FastLocalBloom with reserved fields set
        for t in [[0xff, 1, 6, 0, 0], [0xff, 0, 0x26, 0, 0], [0xff, 0, 31, 0, 0], [0xff, 0, 6, 1, 0]] {
            b[64..].copy_from_slice(&t);
            assert_eq!(Filter::new(&b).unwrap().kind(), Kind::AlwaysTrue, "{t:?}");
        }
    }

    #[test]
    fn view_follows_every_owner_through_moves_and_clones() {
        let mut b = crate::FilterBuilder::new(crate::Policy::Bloom, 10.0).unwrap();
        for i in 0..50u32 {
            b.add_key(&i.to_le_bytes());
        }
        let block = b.finish().unwrap();
        let owned = Filter::from_vec(block.clone()).unwrap();
        let moved = vec![owned]; // the Vec's buffer stays put
        let cloned = moved[0].clone(); // a fresh buffer and view
        drop(moved);
        let borrowed_then_owned = Filter::new(&block).unwrap().into_owned();
        let shared = Filter::from_shared(Arc::new(block.clone()), 0..block.len()).unwrap();
        let sent = std::thread::spawn(move || shared).join().unwrap();
        for f in [&cloned, &borrowed_then_owned, &sent] {
            assert_eq!(f.as_bytes(), &block[..]);
            for i in 0..50u32 {
                assert!(f.may_match(&i.to_le_bytes()));
            }
        }
    }

    #[test]
    fn degenerate_geometries_are_always_true_as_in_rocksdb() {
        // FastLocalBloom with less than one cache line.
        let mut b = vec![0u8; 40];
        b[35..].copy_from_slice(&[0xff, 0, 6, 0, 0]);
        assert_eq!(Filter::new(&b).unwrap().kind(), Kind::AlwaysTrue);
        // Legacy Bloom: 0 lines, lines that do not divide the array, and a
        // line size that is not a power of two.
        for num_lines in [0u32, 7, 2, u32::MAX] {
            let mut b = vec![0u8; 192 + 5];
            b[192] = 6;
            b[193..].copy_from_slice(&num_lines.to_le_bytes());
            assert_eq!(Filter::new(&b).unwrap().kind(), Kind::AlwaysTrue, "{num_lines} lines");
        }
        // A legacy block with a proper geometry still loads as legacy.
        let mut b = vec![0u8; 192 + 5];
        b[192] = 6;
        b[193..].copy_from_slice(&3u32.to_le_bytes()); // 3 lines of 64 bytes
        assert_eq!(Filter::new(&b).unwrap().kind(), Kind::LegacyBloom);
    }

    #[test]
    #[cfg_attr(miri, ignore = "a Ribbon build is too slow under Miri; the geometry paths are in geometry_validation")]
    fn ribbon_with_a_partial_segment_uses_the_whole_ones() {
        let n = 5000u32;
        let mut b = crate::FilterBuilder::new(crate::Policy::Ribbon, 10.0).unwrap();
        for i in 0..n {
            b.add_key(&i.to_le_bytes());
        }
        let block = b.finish().unwrap();
        assert_eq!(Filter::new(&block).unwrap().kind(), Kind::Standard128Ribbon);
        // Insert 7 bytes before the trailer: RocksDB ignores the partial
        // segment, and so the same keys still match.
        let (data, trailer) = block.split_at(block.len() - METADATA_LEN);
        let mut longer = data.to_vec();
        longer.extend_from_slice(&[0xa5; 7]);
        longer.extend_from_slice(trailer);
        let f = Filter::new(&longer).unwrap();
        assert_eq!(f.kind(), Kind::Standard128Ribbon);
        for i in 0..n {
            assert!(f.may_match(&i.to_le_bytes()));
        }
    }
}
