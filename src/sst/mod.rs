//! RocksDB block-based SST files: find, verify and query their filter.
//!
//! ```text
//! file: data blocks | filter block(s) | index | properties | metaindex | footer
//! footer   -> metaindex handle (format_version >= 6: implied by its size)
//! metaindex: "fullfilter.<policy>" | "partitionedfilter.<policy>" -> handle,
//!            "rocksdb.properties" -> handle, ...
//! ```
//!
//! A full filter is one filter block. A partitioned filter is a top-level
//! index block whose entries map a separator key (an upper bound of the keys
//! in a partition) to the handle of that partition's filter block; a key is
//! looked up in the first partition whose separator is >= the key, or in the
//! last partition when there is none (RocksDB's `SeekFilterPartitionHandle`).
//!
//! Everything is validated at open: checksums (unless disabled), handles
//! against the file, every filter block's geometry. Queries never fail.

mod block;
mod block_based;
mod compression;
mod fetch;
pub(crate) mod format;
mod full;
mod metaindex;
pub(crate) mod ondemand;
mod partitioned;
mod properties;
mod separators;
mod source;

use std::path::Path;
use std::sync::Arc;

#[doc(hidden)]
pub use crate::slab::slab_chunks;
pub use block_based::BlockBased;
pub use compression::{MAX_DECOMPRESSED, MAX_RATIO};
pub use fetch::SUFFIX_READ;
use fetch::{Fetcher, Origin};
pub use format::{ChecksumType, BLOCK_BASED_MAGIC};
use format::{Footer, FOOTER_LEN, LEGACY_FOOTER_LEN};
use metaindex::{FilterPick, MetaIndex};
use ondemand::{Keep, Kept, OnDemand};
pub use partitioned::Partitions;
pub use properties::{Properties, RAW_PROPERTIES_BUDGET};
pub use source::{OpenStats, Source};

use crate::cache::FilterCache;
use crate::error::{Error, ErrorKind, Result};
use crate::filter::Filter;

/// A query consults at most this many partitions (a user key whose
/// versions span partitions, or a prefix shared by many separators); past
/// that it answers "may match" instead. RocksDB has no such case: it knows
/// the read's sequence number and the full key, this library does not.
pub const MAX_PARTITIONS_PER_QUERY: usize = 64;

/// Separators of a partitioned filter that share bytes with the previous
/// one are decompressed into one buffer, of at most this many bytes plus
/// eight times the index block's size; past that the filter is not used
/// (every key may match). Every file RocksDB writes with the default index
/// restart interval (1) shares nothing and needs no buffer at all.
pub const PARTITION_KEYS_BUDGET: usize = 4 << 20;

/// Options for opening an SST file. `#[non_exhaustive]`, so that options can
/// be added: start from [`SstOptions::default`] and set what you need.
///
/// ```
/// use rocksfilter::sst::SstOptions;
/// let o = SstOptions::default().with_verify_checksums(false);
/// assert!(!o.verify_checksums && !o.mmap && o.cache.is_none());
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SstOptions {
    /// Verify the checksums of the footer and of every block read (default true).
    pub verify_checksums: bool,
    /// [`Sst::open_with`]: memory-map the file instead of reading it
    /// (default false). Queries then read the mapping: the file must not be
    /// truncated or rewritten while the handle is open (a truncated mapping
    /// raises SIGBUS in the query, as does an I/O error on a mapped page),
    /// checksums are verified at open only, and each handle costs one of
    /// the process's `vm.max_map_count` mappings (65,530 by default). What
    /// it saves: the copy of the filter bytes at open.
    pub mmap: bool,
    /// A cache of filter blocks with a byte budget, shared with other
    /// handles (default none: every filter block is read at open and kept
    /// by the handle). With one, the handle keeps a partitioned filter's
    /// top-level index and reads each partition when a query first needs
    /// it, into the cache, which evicts under its capacity; the handle then
    /// keeps its source to read again (a path is reopened per query that
    /// misses; see [`Sst::open_shared`] for other sources). Files opened by
    /// path or through [`Sst::open_shared`] only.
    pub cache: Option<FilterCache>,
    /// With [`SstOptions::cache`], whole full filters go to the cache too,
    /// read on first use (default false: full filters are read at open and
    /// kept by the handle, uncharged), so that many small files also live
    /// within the budget.
    pub cache_full_filters: bool,
}

impl Default for SstOptions {
    fn default() -> Self {
        SstOptions { verify_checksums: true, mmap: false, cache: None, cache_full_filters: false }
    }
}

impl SstOptions {
    /// With [`SstOptions::verify_checksums`] set to `verify`.
    pub fn with_verify_checksums(mut self, verify: bool) -> SstOptions {
        self.verify_checksums = verify;
        self
    }

    /// With [`SstOptions::mmap`] set to `mmap`.
    ///
    /// ```
    /// use rocksfilter::sst::SstOptions;
    /// assert!(SstOptions::default().with_mmap(true).mmap);
    /// ```
    pub fn with_mmap(mut self, mmap: bool) -> SstOptions {
        self.mmap = mmap;
        self
    }

    /// With [`SstOptions::cache`] set to `cache`.
    ///
    /// ```
    /// use rocksfilter::{sst::SstOptions, FilterCache};
    /// let o = SstOptions::default().with_cache(FilterCache::new(64 << 20));
    /// assert_eq!(o.cache.map(|c| c.capacity()), Some(64 << 20));
    /// ```
    pub fn with_cache(mut self, cache: FilterCache) -> SstOptions {
        self.cache = Some(cache);
        self
    }

    /// With [`SstOptions::cache_full_filters`] set to `on`.
    ///
    /// ```
    /// use rocksfilter::sst::SstOptions;
    /// assert!(SstOptions::default().with_cache_full_filters(true).cache_full_filters);
    /// ```
    pub fn with_cache_full_filters(mut self, on: bool) -> SstOptions {
        self.cache_full_filters = on;
        self
    }
}

/// How keys in the file are ordered, as far as partition lookup needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Bytewise,
    ReverseBytewise,
    /// A custom comparator: lookups consult every partition (never a false
    /// negative, at the cost of a higher false-positive rate).
    Unknown,
}

/// The file's comparator, as far as lookups in its index blocks need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Comparator {
    order: Order,
    /// Bytes of user-defined timestamp at the end of each user key (8 for
    /// RocksDB's `.u64ts` comparators): filters hold keys without it, index
    /// separators with it.
    ts: usize,
}

impl Comparator {
    /// From `rocksdb.comparator`: RocksDB's built-in comparators
    /// (`util/comparator.cc`; the `.u64ts` ones are
    /// `BytewiseComparatorWithU64Ts` and its reverse).
    fn from_name(name: Option<&str>) -> Comparator {
        let (order, ts) = match name {
            None | Some("leveldb.BytewiseComparator") => (Order::Bytewise, 0),
            Some("rocksdb.ReverseBytewiseComparator") => (Order::ReverseBytewise, 0),
            Some("leveldb.BytewiseComparator.u64ts") => (Order::Bytewise, 8),
            Some("rocksdb.ReverseBytewiseComparator.u64ts") => (Order::ReverseBytewise, 8),
            Some(_) => (Order::Unknown, 0),
        };
        Comparator { order, ts }
    }
}

/// What kind of filter an SST file has.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum SstFilter<'a> {
    /// No filter: every key may match.
    None,
    /// One filter block for the whole file (`fullfilter.*`).
    Full(Filter<'a>),
    /// A full filter read on demand into a cache (opened with
    /// [`SstOptions::cache_full_filters`]); its type is
    /// [`SstFilterType::Full`].
    CachedFull(CachedFilter),
    /// A partitioned filter (`partitionedfilter.*`): a top-level index over
    /// filter partitions.
    Partitioned(Partitions<'a>),
    /// The obsolete block-based filter (`filter.*`, RocksDB < 7.0): a small
    /// filter per 2 KiB range of data-block offsets, looked up through the
    /// table's index.
    BlockBased(BlockBased<'a>),
    /// A filter this library cannot read (named); every key may match.
    Unsupported(String),
}

/// Which filter an SST file has: [`SstFilter`] without the filter (the C
/// ABI's `ROCKSFILTER_SST_FILTER_*`, Go's `SSTFilterType`, Java's
/// `SstFilterType`).
///
/// ```
/// use rocksfilter::sst::SstFilterType;
/// assert_eq!(SstFilterType::Partitioned.name(), "partitioned");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SstFilterType {
    /// No filter.
    None,
    /// One filter block.
    Full,
    /// A partitioned filter.
    Partitioned,
    /// The block-based filter of RocksDB < 7.0.
    BlockBased,
    /// A filter this library cannot read.
    Unsupported,
}

impl SstFilterType {
    /// The name the C ABI, `inspect` and the bindings use.
    pub fn name(&self) -> &'static str {
        match self {
            SstFilterType::None => "none",
            SstFilterType::Full => "full",
            SstFilterType::Partitioned => "partitioned",
            SstFilterType::BlockBased => "block_based",
            SstFilterType::Unsupported => "unsupported",
        }
    }
}

impl SstFilter<'_> {
    /// Which filter this is.
    pub fn filter_type(&self) -> SstFilterType {
        match self {
            SstFilter::None => SstFilterType::None,
            SstFilter::Full(_) | SstFilter::CachedFull(_) => SstFilterType::Full,
            SstFilter::Partitioned(_) => SstFilterType::Partitioned,
            SstFilter::BlockBased(_) => SstFilterType::BlockBased,
            SstFilter::Unsupported(_) => SstFilterType::Unsupported,
        }
    }
}

/// A full filter block read on demand into a [`FilterCache`]: the handle
/// keeps where it is, the cache its bytes once a query has read them.
#[derive(Clone, Debug)]
pub struct CachedFilter(OnDemand);

impl CachedFilter {
    /// Calls `f` with the filter, from the cache or read into it first (a
    /// block that cannot be read is given as "may match").
    ///
    /// ```no_run
    /// use rocksfilter::{sst::{Sst, SstFilter, SstOptions}, FilterCache};
    /// let o = SstOptions::default().with_cache(FilterCache::new(8 << 20)).with_cache_full_filters(true);
    /// let sst = Sst::open_with("000042.sst", o)?;
    /// if let SstFilter::CachedFull(c) = sst.filter() {
    ///     println!("{:?}", c.with_filter(|f| f.info()));
    /// }
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn with_filter<R>(&self, f: impl FnOnce(&Filter<'_>) -> R) -> R {
        self.0.with(0, |x| f(x))
    }

    /// The cache it is read into.
    ///
    /// ```no_run
    /// use rocksfilter::{sst::{Sst, SstFilter, SstOptions}, FilterCache};
    /// let cache = FilterCache::new(8 << 20);
    /// let o = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(true);
    /// if let SstFilter::CachedFull(c) = Sst::open_with("000042.sst", o)?.filter() {
    ///     assert_eq!(c.cache().capacity(), cache.capacity());
    /// }
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn cache(&self) -> &FilterCache {
        self.0.cache()
    }

    fn may_match(&self, probe: &[u8]) -> bool {
        self.0.with(0, |f| f.may_match(probe))
    }
}

/// The prefix extractor named in the properties, when it is a built-in one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixExtractor {
    /// `rocksdb.FixedPrefix.N`: the first N bytes; keys shorter than N have none.
    Fixed(usize),
    /// `rocksdb.CappedPrefix.N`: the first min(N, len) bytes.
    Capped(usize),
}

impl PrefixExtractor {
    /// The names RocksDB writes (`rocksdb.FixedPrefix.3`); any other
    /// spelling ("03", "+3") is a name no reader's extractor has, so RocksDB
    /// would not use the prefix filter either.
    fn parse(name: &str) -> Option<PrefixExtractor> {
        let number = |n: &str| n.parse::<usize>().ok().filter(|v| v.to_string() == n);
        if let Some(n) = name.strip_prefix("rocksdb.FixedPrefix.") {
            return number(n).map(PrefixExtractor::Fixed);
        }
        if let Some(n) = name.strip_prefix("rocksdb.CappedPrefix.") {
            return number(n).map(PrefixExtractor::Capped);
        }
        None
    }

    /// The prefix RocksDB would add to the filter for `key`, if any.
    pub fn prefix<'k>(&self, key: &'k [u8]) -> Option<&'k [u8]> {
        match *self {
            PrefixExtractor::Fixed(n) => key.get(..n),
            PrefixExtractor::Capped(n) => Some(&key[..n.min(key.len())]),
        }
    }
}

/// An opened SST file's filter, verified. Immutable and `Send + Sync`.
pub struct Sst<'a> {
    file_size: u64,
    stats: OpenStats,
    footer: Footer,
    properties: Properties,
    /// Why the properties could not be read, as RocksDB would not either.
    properties_error: Option<String>,
    filter: SstFilter<'a>,
    /// The metaindex key of the filter block, e.g. `fullfilter.rocksdb.BuiltinBloomFilter`.
    filter_block_name: Option<String>,
    whole_key_filtering: bool,
    prefix_filtering: bool,
    prefix_extractor: Option<PrefixExtractor>,
}

impl std::fmt::Debug for Sst<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sst")
            .field("bytes", &self.file_size)
            .field("format_version", &self.footer.format_version)
            .field("checksum", &self.footer.checksum)
            .field("filter_block", &self.filter_block_name)
            .field("filter", &self.filter)
            .finish()
    }
}

impl Sst<'static> {
    /// Opens a file: reads the blocks its filter needs with positional
    /// reads (`pread`) into memory the handle owns, verifies them, and
    /// closes the file before returning. Queries never touch the file:
    /// truncating, rewriting or deleting it later changes no answer.
    pub fn open(path: impl AsRef<Path>) -> Result<Sst<'static>> {
        Sst::open_with(path, SstOptions::default())
    }

    /// [`Sst::open`] with options (skipping checksum verification, or
    /// memory-mapping the file: see [`SstOptions::mmap`]).
    pub fn open_with(path: impl AsRef<Path>, options: SstOptions) -> Result<Sst<'static>> {
        let path = path.as_ref();
        let io = |e: std::io::Error| Error::new(ErrorKind::Io, format!("{}: {e}", path.display()));
        if options.mmap && options.cache.is_some() {
            return Err(Error::invalid("a cache and a memory-mapped file exclude each other: a mapping's pages are the page cache's, not the filter cache's"));
        }
        let file = source::open_file(path).map_err(io)?;
        let named = |e: Error| Error::new(e.kind(), format!("{}: {}", path.display(), e.message()));
        if !options.mmap {
            let kept = match options.cache {
                Some(_) => Some(Arc::new(Kept::path(path.to_path_buf(), &file).map_err(io)?)),
                None => None,
            };
            return Sst::build(Origin::Read(&file), options, kept).map_err(named);
        }
        let len = file.metadata().map_err(io)?.len();
        if len < LEGACY_FOOTER_LEN as u64 {
            return Err(named(too_short(len)));
        }
        // SAFETY: the mapping is read-only; the caller chose mmap, whose
        // documented contract is that the file is not modified or
        // truncated while the Sst is alive (RocksDB's mmap reads assume
        // the same).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Sst::build(Origin::Mapped(Arc::new(map)), options, None).map_err(named)
    }

    /// Opens a file through a [`Source`]: the caller's file layer, an
    /// object store's ranged reads, anything positional. The source is read
    /// only during this call (a few reads: see [`OpenStats`]) and not kept.
    ///
    /// ```
    /// use rocksfilter::sst::{Sst, SstOptions};
    /// // Any byte slice is a source; here, not an SST file.
    /// let err = Sst::open_source(&[0u8; 100][..], SstOptions::default()).unwrap_err();
    /// assert!(err.message().contains("bad magic number"));
    /// ```
    pub fn open_source<S: Source + ?Sized>(source: &S, options: SstOptions) -> Result<Sst<'static>> {
        if options.cache.is_some() {
            return Err(Error::invalid(
                "a cache needs a source the handle can keep to read filter blocks later: open with Sst::open_shared",
            ));
        }
        // `&S` is a sized Source whatever S is (byte slices included).
        Sst::build(Origin::Read(&source), options, None)
    }

    /// [`Sst::open_source`] with a source the handle may keep: with
    /// [`SstOptions::cache`], it reads filter blocks through it when
    /// queries need them, from whichever threads query (so the source must
    /// be thread-safe), for as long as the handle lives; without a cache it
    /// is read during this call only, as by [`Sst::open_source`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rocksfilter::{sst::{Source, Sst, SstOptions}, FilterCache};
    /// let file: Arc<dyn Source + Send + Sync> = Arc::new(vec![0u8; 100]);
    /// let o = SstOptions::default().with_cache(FilterCache::new(1 << 20));
    /// let err = Sst::open_shared(file, o).unwrap_err();
    /// assert!(err.message().contains("bad magic number"));
    /// ```
    pub fn open_shared(source: Arc<dyn Source + Send + Sync>, options: SstOptions) -> Result<Sst<'static>> {
        let kept = options.cache.as_ref().map(|_| Arc::new(Kept::Shared(source.clone())));
        Sst::build(Origin::Read(&*source), options, kept)
    }
}

fn too_short(len: u64) -> Error {
    Error::corruption(format!(
        "file is {len} bytes, too short for an SST footer ({LEGACY_FOOTER_LEN} to {FOOTER_LEN} bytes)"
    ))
}

/// Lifts an I/O error (the source failed: the open fails) out of a result
/// whose other errors are the file's content (read by RocksDB's rules).
pub(crate) fn fatal_io<T>(r: Result<T>) -> Result<Result<T>> {
    match r {
        Err(e) if e.kind() == ErrorKind::Io => Err(e),
        r => Ok(r),
    }
}

/// The properties block, or why it is unreadable (RocksDB then opens the
/// table without properties).
fn read_properties(
    fetch: &mut Fetcher<'_, '_>,
    footer: &Footer,
    meta: &MetaIndex,
) -> Result<(Properties, Option<String>)> {
    Ok(match meta.properties() {
        Ok(Some(h)) => match fatal_io(Properties::read(fetch, footer, h))? {
            Ok(p) => (p, None),
            Err(e) => (Properties::default(), Some(e.message().to_string())),
        },
        // Written without properties (no RocksDB release since 2013 does):
        // read as a reader with default options reads it, whole keys.
        Ok(None) => (Properties::default(), None),
        Err(why) => (Properties::default(), Some(why)),
    })
}

/// Whether the filter holds whole keys. RocksDB records it in
/// `rocksdb.block.based.table.whole.key.filtering` (every release since 3.x,
/// `table/block_based/block_based_table_builder.cc`,
/// `BlockBasedTablePropertiesCollector`); a reader without the property
/// uses its own option, true by default. Pebble v2 records neither it nor a
/// prefix extractor, and with a `Split` comparer adds only each key's
/// prefix to the filter (`sstable/rowblk_writer.go`, Pebble v2.1.7): there
/// whole-key lookups would answer "absent" for keys the file holds. So a
/// file that says nothing under a comparator this library does not know is
/// taken as holding prefixes it cannot form: every key may match.
fn whole_keys_in_filter(p: &Properties) -> bool {
    match p.whole_key_filtering {
        Some(recorded) => recorded,
        None => {
            p.prefix_extractor_name.is_some() || Comparator::from_name(p.comparator.as_deref()).order != Order::Unknown
        }
    }
}

/// The filter the metaindex picked, as RocksDB would use it. Err: the
/// source failed. `keep`: the blocks go to a cache.
fn open_filter<'a>(
    fetch: &mut Fetcher<'a, '_>,
    footer: &Footer,
    pick: FilterPick,
    properties: &Properties,
    keep: Option<&Keep>,
) -> Result<SstFilter<'a>> {
    let unusable = |why: String| SstFilter::Unsupported(format!("{why}; every key may match"));
    let cmp = Comparator::from_name(properties.comparator.as_deref());
    Ok(match pick {
        FilterPick::None => SstFilter::None,
        FilterPick::Ambiguous(why) => unusable(why),
        FilterPick::Custom(name) => {
            // Policies of RocksDB's forks that are known by name (their
            // blocks are not RocksDB's formats; RocksDB itself uses no
            // filter for such a file either).
            let whose = match name.split_once('.').map(|(_, policy)| policy) {
                Some("speedb_paired_bloom_filter") => " (Speedb's paired Bloom filter, speedb.PairedBloomFilter)",
                _ => "",
            };
            SstFilter::Unsupported(format!(
                "filter block {name:?} was written by a custom filter policy{whose}, not RocksDB's built-in filters; every key may match"
            ))
        }
        FilterPick::BlockBased(h) => match BlockBased::read(fetch, footer, h, properties, cmp)? {
            Ok(b) => SstFilter::BlockBased(b),
            Err(why) => unusable(format!("block-based filter: {why}")),
        },
        // RocksDB reads the filter when the table opens and, if that fails,
        // opens it without a filter (FullFilterBlockReader::Create).
        FilterPick::Full(h) => match keep.filter(|k| k.full_filters) {
            // Read on first use; a handle outside the file answers "may
            // match" (as RocksDB opens the table without the filter).
            Some(k) => SstFilter::CachedFull(CachedFilter(OnDemand::new(k, footer, fetch.verify(), &[h], "filter"))),
            None => match full::read(fetch, footer, h)? {
                Ok(f) => SstFilter::Full(f),
                Err(e) => unusable(format!("{} (RocksDB does not use a filter block it cannot read)", e.message())),
            },
        },
        FilterPick::Partitioned(h) => match Partitions::read(fetch, footer, h, properties, cmp, keep)? {
            Ok(p) => SstFilter::Partitioned(p),
            Err(why) => unusable(why),
        },
    })
}

impl<'a> Sst<'a> {
    /// Reads an SST file held in memory, without copying it.
    pub fn from_bytes(data: &'a [u8]) -> Result<Sst<'a>> {
        Sst::from_bytes_with(data, SstOptions::default())
    }

    /// [`Sst::from_bytes`] with options.
    pub fn from_bytes_with(data: &'a [u8], options: SstOptions) -> Result<Sst<'a>> {
        if options.cache.is_some() {
            return Err(Error::invalid(
                "a cache applies to files read through a source (by path or Sst::open_shared); a memory open reads the caller's bytes",
            ));
        }
        Sst::build(Origin::Memory(data), options, None)
    }

    /// Opens a table as RocksDB's `BlockBasedTable::Open` does: footer,
    /// metaindex (fatal if unreadable), properties (not fatal), then the
    /// filter (never fatal: RocksDB opens the table without it). A failing
    /// source is fatal at any step. `kept`: with a cache, the source that
    /// filter blocks are read through after open.
    fn build(origin: Origin<'a, '_>, options: SstOptions, kept: Option<Arc<Kept>>) -> Result<Sst<'a>> {
        let keep = match (options.cache, kept) {
            (Some(cache), Some(src)) => Some(Keep { cache, src, full_filters: options.cache_full_filters }),
            _ => None,
        };
        let mut fetch = Fetcher::new(origin, options.verify_checksums)?;
        let len = fetch.len();
        if len < LEGACY_FOOTER_LEN as u64 {
            return Err(too_short(len));
        }
        let footer = Footer::decode(fetch.tail(len.min(FOOTER_LEN as u64))?, len, options.verify_checksums)?;
        // A metaindex RocksDB cannot read makes it refuse the table too.
        let meta = fetch.block(&footer, footer.metaindex, "metaindex")?;
        let meta = MetaIndex::parse(meta.data(), footer.metaindex.offset, footer.format_version)?;
        let (properties, properties_error) = read_properties(&mut fetch, &footer, &meta)?;
        let whole_key_filtering = whole_keys_in_filter(&properties);
        let prefix_extractor = properties.prefix_extractor_name.as_deref().and_then(PrefixExtractor::parse);
        let prefix_filtering = properties.prefix_filtering.unwrap_or(true) && prefix_extractor.is_some();
        let pick = meta.filter();
        let filter_block_name = pick.name();
        let filter = match &properties_error {
            None => open_filter(&mut fetch, &footer, pick, &properties, keep.as_ref())?,
            Some(why) if !matches!(pick, FilterPick::None) => SstFilter::Unsupported(format!(
                "the properties are unreadable ({why}), so whether the filter holds whole keys or prefixes is unknown; every key may match"
            )),
            Some(_) => SstFilter::None,
        };
        let mut stats = fetch.stats();
        // The filter's bytes were counted as they were read; what the
        // handle keeps beside them (separators, index, slots) is added.
        stats.bytes_held += match &filter {
            SstFilter::Partitioned(p) => p.heap_bytes() as u64,
            SstFilter::CachedFull(CachedFilter(o)) => o.heap_bytes() as u64,
            _ => 0,
        };
        Ok(Sst {
            file_size: len,
            stats,
            footer,
            properties,
            properties_error,
            filter,
            filter_block_name,
            whole_key_filtering,
            prefix_filtering,
            prefix_extractor,
        })
    }

    /// What opening the file read (reads and bytes, 0 for memory and mapped
    /// files) and the bytes the handle keeps for its queries.
    ///
    /// ```
    /// use rocksfilter::sst::{Sst, SstOptions};
    /// # let dir = std::env::temp_dir().join(format!("rf-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let path = dir.join("x.sst");
    /// # std::fs::write(&path, [0u8; 10])?;
    /// // A file too short to be an SST is refused after reading nothing.
    /// assert!(Sst::open(&path).is_err());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn open_stats(&self) -> OpenStats {
        self.stats
    }

    /// The file's length in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The footer's format_version (0 to 8; 0 is the legacy magic number).
    pub fn format_version(&self) -> u32 {
        self.footer.format_version
    }

    /// The block checksum the footer declares.
    pub fn checksum_type(&self) -> ChecksumType {
        self.footer.checksum
    }

    /// The table properties (empty when the block could not be read; see
    /// [`Sst::properties_error`]).
    pub fn properties(&self) -> &Properties {
        &self.properties
    }

    /// Why the properties block could not be read, if so. RocksDB then
    /// opens the table without properties; this library then does not use
    /// the filter (it cannot tell whole-key from prefix filtering).
    pub fn properties_error(&self) -> Option<&str> {
        self.properties_error.as_deref()
    }

    /// The filter, as RocksDB would use it.
    pub fn filter(&self) -> &SstFilter<'a> {
        &self.filter
    }

    /// The metaindex name of the filter block, if the file has one.
    pub fn filter_block_name(&self) -> Option<&str> {
        self.filter_block_name.as_deref()
    }

    /// The full filter, if the file has one (None when partitioned or absent).
    pub fn full_filter(&self) -> Option<&Filter<'a>> {
        match &self.filter {
            SstFilter::Full(f) => Some(f),
            _ => None,
        }
    }

    /// The prefix extractor the properties name, when this library knows
    /// it (fixed and capped prefixes).
    pub fn prefix_extractor(&self) -> Option<PrefixExtractor> {
        self.prefix_extractor
    }

    /// Whether whole keys were added to the filter (RocksDB's default), as
    /// the file records it. A file that does not record it is taken as
    /// whole-key unless its comparator is one this library does not know
    /// and it names no prefix extractor either (a Pebble v2 file written
    /// with a `Split` comparer, whose filter holds prefixes): then false,
    /// and every key may match. Such a file's filter stays readable through
    /// [`Sst::filter`] for a caller that can form the prefixes itself.
    pub fn whole_key_filtering(&self) -> bool {
        self.whole_key_filtering
    }

    /// Whether [`Sst::prefix_may_match`] can answer from the filter.
    pub fn has_prefix_filter(&self) -> bool {
        self.prefix_filtering
            && self.prefix_extractor.is_some()
            && !matches!(self.filter, SstFilter::None | SstFilter::Unsupported(_))
    }

    /// Can this file hold `key`? `false` is definite. As RocksDB's `Get`:
    /// with whole-key filtering the key itself is looked up; otherwise its
    /// prefix, if the file's prefix extractor is known and gives one; else
    /// true. Files without a (readable) filter answer true.
    pub fn may_match(&self, key: &[u8]) -> bool {
        if let SstFilter::BlockBased(b) = &self.filter {
            // RocksDB's Get consults a block-based filter for whole keys
            // only (BlockBasedFilterBlockReader::KeyMayMatch).
            return !self.whole_key_filtering || b.may_match(key);
        }
        let probe = if self.whole_key_filtering {
            key
        } else {
            match (self.prefix_filtering, self.prefix_extractor.and_then(|p| p.prefix(key))) {
                (true, Some(prefix)) => prefix,
                _ => return true,
            }
        };
        match &self.filter {
            SstFilter::None | SstFilter::Unsupported(_) => true,
            SstFilter::Full(f) => f.may_match(probe),
            SstFilter::CachedFull(c) => c.may_match(probe),
            SstFilter::Partitioned(p) => p.may_match(key, probe),
            SstFilter::BlockBased(_) => unreachable!("answered above"),
        }
    }

    /// [`Sst::may_match`] for many keys at once: `results[i]` answers
    /// `keys[i]`, exactly as `may_match(keys[i])` would. Faster on full and
    /// partitioned filters: keys are hashed (with a partitioned filter,
    /// after finding each one's partition) and their cache lines prefetched
    /// before any is probed. On a partitioned filter, keys in the file's
    /// order (as RocksDB's MultiGet sorts them) are faster still: a key in
    /// the same partition as the one before it is routed with one compare.
    /// Any order gives the same answers.
    ///
    /// # Panics
    /// If `results` is shorter than `keys`.
    ///
    /// ```no_run
    /// use rocksfilter::sst::Sst;
    /// let sst = Sst::open("000042.sst")?;
    /// let keys = [&b"key00000001"[..], b"absent"];
    /// let mut results = [false; 2];
    /// sst.may_match_batch(&keys, &mut results);
    /// assert_eq!(results, [sst.may_match(keys[0]), sst.may_match(keys[1])]);
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn may_match_batch<K: AsRef<[u8]>>(&self, keys: &[K], results: &mut [bool]) {
        assert!(results.len() >= keys.len(), "results shorter than keys");
        self.may_match_indexed(keys.len(), |i| keys[i].as_ref(), results);
    }

    /// [`Sst::may_match_batch`] over keys given by index (no intermediate
    /// allocation; the C ABI's form).
    ///
    /// # Panics
    /// If `results` is shorter than `n`.
    ///
    /// ```no_run
    /// use rocksfilter::sst::Sst;
    /// let sst = Sst::open("000042.sst")?;
    /// // Keys packed in one buffer, 11 bytes each.
    /// let buf = b"key00000001key00000002";
    /// let mut results = [false; 2];
    /// sst.may_match_indexed(2, |i| &buf[11 * i..11 * i + 11], &mut results);
    /// assert_eq!(results[1], sst.may_match(b"key00000002"));
    /// # Ok::<(), rocksfilter::Error>(())
    /// ```
    pub fn may_match_indexed<'k>(&self, n: usize, key: impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        let results = &mut results[..n];
        if let SstFilter::BlockBased(b) = &self.filter {
            for (i, r) in results.iter_mut().enumerate() {
                *r = !self.whole_key_filtering || b.may_match(key(i));
            }
            return;
        }
        if !self.whole_key_filtering {
            // Prefix probes; keys the extractor gives no prefix for (and
            // every key when prefixes are not usable) may match.
            let prefix = |i: usize| match (self.prefix_filtering, self.prefix_extractor) {
                (true, Some(p)) => p.prefix(key(i)),
                _ => None,
            };
            self.probe_batch(n, &key, &|i| prefix(i).unwrap_or(&[]), false, results);
            for (i, r) in results.iter_mut().enumerate() {
                *r |= prefix(i).is_none();
            }
            return;
        }
        self.probe_batch(n, &key, &key, true, results);
    }

    /// Answers `probe(i)` for keys `key(i)` from a full or partitioned filter
    /// (`whole_key`: `probe` is `key`).
    fn probe_batch<'k>(
        &self,
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        whole_key: bool,
        results: &mut [bool],
    ) {
        match &self.filter {
            SstFilter::None | SstFilter::Unsupported(_) | SstFilter::BlockBased(_) => results.fill(true),
            SstFilter::Full(f) => f.may_match_indexed(n, probe, results),
            SstFilter::CachedFull(c) => c.0.with(0, |f| f.may_match_indexed(n, probe, results)),
            SstFilter::Partitioned(p) => p.may_match_batch(n, key, probe, whole_key, results),
        }
    }

    /// Can this file hold a key with this prefix (as the file's prefix
    /// extractor produces it)? Errors with NotSupported when the file has no
    /// prefix filter, and InvalidArgument when `prefix` cannot be an output of
    /// the file's extractor.
    pub fn prefix_may_match(&self, prefix: &[u8]) -> Result<bool> {
        if !self.has_prefix_filter() {
            return Err(Error::not_supported(format!(
                "this file has no prefix filter (prefix extractor {:?}, prefix filtering {})",
                self.properties.prefix_extractor_name.as_deref().unwrap_or("none"),
                self.prefix_filtering
            )));
        }
        match self.prefix_extractor {
            Some(PrefixExtractor::Fixed(n)) if prefix.len() != n => {
                return Err(Error::invalid(format!(
                    "prefix of {} bytes, but the file's extractor rocksdb.FixedPrefix.{n} makes {n}-byte prefixes",
                    prefix.len()
                )))
            }
            Some(PrefixExtractor::Capped(n)) if prefix.len() > n => {
                return Err(Error::invalid(format!(
                    "prefix of {} bytes, but the file's extractor rocksdb.CappedPrefix.{n} makes prefixes of at most {n} bytes",
                    prefix.len()
                )))
            }
            _ => {}
        }
        Ok(match &self.filter {
            SstFilter::None | SstFilter::Unsupported(_) => true,
            SstFilter::Full(f) => f.may_match(prefix),
            SstFilter::CachedFull(c) => c.may_match(prefix),
            SstFilter::Partitioned(p) => p.prefix_may_match(prefix),
            SstFilter::BlockBased(b) => b.prefix_may_match(prefix),
        })
    }
}
