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
pub(crate) mod format;
mod properties;
mod separators;

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use block::BlockIter;
pub use block_based::BlockBased;
pub use compression::{MAX_DECOMPRESSED, MAX_RATIO};
use separators::Separators;
pub use format::{ChecksumType, BLOCK_BASED_MAGIC};
use format::{read_block, read_block_typed, BlockHandle, Footer};
pub use properties::{Properties, RAW_PROPERTIES_BUDGET};

use crate::error::{Error, ErrorKind, Result};
use crate::filter::Filter;

const FULL_FILTER_PREFIX: &str = "fullfilter.";
const PARTITIONED_FILTER_PREFIX: &str = "partitionedfilter.";
const OBSOLETE_FILTER_PREFIX: &str = "filter.";
/// `kPropertiesBlockName` (`table/meta_blocks.cc`).
const PROPERTIES_BLOCK: &[u8] = b"rocksdb.properties";
/// `kPropertiesBlockOldName`: RocksDB up to 8.x looks it up when
/// `rocksdb.properties` is absent (`FindOptionalMetaBlock`).
const PROPERTIES_BLOCK_OLD: &[u8] = b"rocksdb.stats";
/// The name every built-in RocksDB filter policy (Bloom, Ribbon, legacy)
/// writes after the filter prefix (`BuiltinFilterPolicy::kCompatibilityName`).
/// RocksDB 6.x and 9.11.1+ look up exactly `<prefix>` + this name.
const BUILTIN_POLICY_NAME: &str = "rocksdb.BuiltinBloomFilter";
/// RocksDB 7.0 to 9.11.0 instead seek to `<prefix>` and take the first
/// entry if its name is one of these (`kBuiltinNameAndAliases` in
/// `BlockBasedTable::PrefetchIndexAndFilterBlocks`; early 7.0.x releases
/// wrote the aliases).
const BUILTIN_POLICY_ALIASES: &[&str] = &[
    BUILTIN_POLICY_NAME,
    "rocksdb.internal.LegacyBloomFilter",
    "rocksdb.internal.FastLocalBloomFilter",
    "rocksdb.internal.Standard128RibbonFilter",
    "rocksdb.internal.DeprecatedBlockBasedBloomFilter",
    "bloomfilter",
    "ribbonfilter",
];

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

/// Options for opening an SST file.
#[derive(Clone, Copy, Debug)]
pub struct SstOptions {
    /// Verify the checksums of the footer and of every block read (default true).
    pub verify_checksums: bool,
}

impl Default for SstOptions {
    fn default() -> Self {
        SstOptions { verify_checksums: true }
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

/// A partitioned filter: the top-level index's separators (an upper bound
/// of the keys in each partition, in the file's key order) and a filter per
/// partition. Partitions that point at the same block share one filter,
/// verified once.
#[derive(Clone, Debug)]
pub struct Partitions<'a> {
    seps: Separators<'a>,
    /// Distinct filter blocks, in first-use order.
    unique: Vec<Filter<'a>>,
    /// Partition i's filter is `unique[which[i]]`.
    which: Vec<u32>,
    /// Partitions whose filter block RocksDB could not read either (bad
    /// checksum, out of bounds, malformed): they answer "may match".
    unreadable: Vec<String>,
}

impl<'a> Partitions<'a> {
    /// Number of partitions (entries of the top-level index).
    pub fn len(&self) -> usize {
        self.seps.len()
    }
    /// No partitions (a top-level index without entries).
    pub fn is_empty(&self) -> bool {
        self.seps.len() == 0
    }
    /// The distinct filter blocks, in key order of first use (one per
    /// partition in every file RocksDB writes).
    pub fn filters(&self) -> &[Filter<'a>] {
        &self.unique
    }
    /// The filter of partition `i`.
    pub fn filter(&self, i: usize) -> &Filter<'a> {
        &self.unique[self.which[i] as usize]
    }
    /// Why some partitions' filter blocks could not be read (they answer
    /// "may match", as in RocksDB).
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
    /// more than [`MAX_PARTITIONS_PER_QUERY`].
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
    fn may_match(&self, key: &[u8], probe: &[u8]) -> bool {
        match self.key_candidates(key) {
            Some(r) if r.is_empty() => true,
            Some(r) => r.into_iter().any(|i| self.filter(i).may_match(probe)),
            None => self.unique.iter().any(|f| f.may_match(probe)),
        }
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
    /// style across partitions: for [`BATCH`] keys at a time, each key's
    /// partition is found and its probe hashed and prefetched, then every
    /// key is probed, so the memory latency of one key's probe overlaps the
    /// others' work. Keys that can land on more than one partition (or on
    /// none) are answered on the spot as by [`Partitions::may_match`].
    fn may_match_batch<'k>(
        &self,
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    ) {
        const BATCH: usize = 32;
        // Partition of each key of the batch (NONE: answered in pass 1)
        // and its prepared hash.
        const NONE: u32 = u32::MAX;
        let mut part = [NONE; BATCH];
        let mut hash = [0u64; BATCH];
        for c0 in (0..n).step_by(BATCH) {
            let m = (n - c0).min(BATCH);
            for j in 0..m {
                let i = c0 + j;
                part[j] = NONE;
                match self.key_candidates(key(i)) {
                    Some(r) if r.len() == 1 => {
                        part[j] = r.start as u32;
                        hash[j] = self.filter(r.start).prepare_probe(probe(i));
                    }
                    Some(r) if r.is_empty() => results[i] = true,
                    Some(r) => results[i] = r.into_iter().any(|p| self.filter(p).may_match(probe(i))),
                    None => results[i] = self.unique.iter().any(|f| f.may_match(probe(i))),
                }
            }
            for j in 0..m {
                if part[j] != NONE {
                    results[c0 + j] = self.filter(part[j] as usize).probe_prepared(probe(c0 + j), hash[j]);
                }
            }
        }
    }

    /// How many partitions a prefix query consults (0 when there are more
    /// than [`MAX_PARTITIONS_PER_QUERY`] and it answers "may match" at once;
    /// every partition for an unknown comparator). For tests of the bound.
    #[doc(hidden)]
    pub fn consulted_for_prefix(&self, prefix: &[u8]) -> usize {
        match self.seps.order {
            Order::Bytewise => self.candidates(|s| s < prefix, |s| s.starts_with(prefix)).map_or(self.len(), |r| r.len()),
            _ => self.len(),
        }
    }

    /// May a key with this prefix be in the file? Keys with a prefix are
    /// contiguous in bytewise and in reverse-bytewise order, so the
    /// candidates are the partitions from the first that can hold one up to
    /// the first whose separator no longer has the prefix.
    fn prefix_may_match(&self, prefix: &[u8]) -> bool {
        let range = match self.seps.order {
            Order::Bytewise => self.candidates(|s| s < prefix, |s| s.starts_with(prefix)),
            Order::ReverseBytewise => {
                self.candidates(|s| s > prefix && !s.starts_with(prefix), |s| s.starts_with(prefix))
            }
            Order::Unknown => None,
        };
        match range {
            Some(r) if r.is_empty() => true,
            Some(r) => r.into_iter().any(|i| self.filter(i).may_match(prefix)),
            None => self.unique.iter().any(|f| f.may_match(prefix)),
        }
    }
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
            SstFilter::Full(_) => SstFilterType::Full,
            SstFilter::Partitioned(_) => SstFilterType::Partitioned,
            SstFilter::BlockBased(_) => SstFilterType::BlockBased,
            SstFilter::Unsupported(_) => SstFilterType::Unsupported,
        }
    }
}

/// Where the file's bytes live.
#[derive(Clone)]
enum Backing<'a> {
    Borrowed(&'a [u8]),
    Mapped(Arc<memmap2::Mmap>),
}

impl std::fmt::Debug for Backing<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.bytes().len())
    }
}

impl Backing<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Borrowed(b) => b,
            Backing::Mapped(m) => m,
        }
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
    backing: Backing<'a>,
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
            .field("bytes", &self.as_bytes().len())
            .field("format_version", &self.footer.format_version)
            .field("checksum", &self.footer.checksum)
            .field("filter_block", &self.filter_block_name)
            .field("filter", &self.filter)
            .finish()
    }
}

impl Sst<'static> {
    /// Opens a file by memory-mapping it; filter bytes are never copied.
    /// The file must not be truncated while open (the mapping would fault).
    pub fn open(path: impl AsRef<Path>) -> Result<Sst<'static>> {
        Sst::open_with(path, SstOptions::default())
    }

    /// [`Sst::open`] with options (e.g. skipping checksum verification).
    pub fn open_with(path: impl AsRef<Path>, options: SstOptions) -> Result<Sst<'static>> {
        let path = path.as_ref();
        let io = |e: std::io::Error| Error::new(ErrorKind::Io, format!("{}: {e}", path.display()));
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < format::FOOTER_LEN as u64 {
            return Err(Error::corruption(format!(
                "{}: file is {len} bytes, too short for an SST footer ({} bytes)",
                path.display(),
                format::FOOTER_LEN
            )));
        }
        // SAFETY: the mapping is read-only; the documented contract is that
        // the file is not modified or truncated while the Sst is alive (the
        // same assumption RocksDB makes with mmap reads).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Sst::build(Backing::Mapped(Arc::new(map)), options)
            .map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))
    }
}

/// The properties block, or why it is unreadable (RocksDB then opens the
/// table without properties).
fn read_properties(file: &[u8], footer: &Footer, meta: &MetaIndex, verify: bool) -> (Properties, Option<String>) {
    match meta.properties() {
        Ok(Some(h)) => match Properties::read(file, footer, h, verify) {
            Ok(p) => (p, None),
            Err(e) => (Properties::default(), Some(e.message().to_string())),
        },
        // Written without properties (no RocksDB release since 2013 does):
        // read as a reader with default options reads it, whole keys.
        Ok(None) => (Properties::default(), None),
        Err(why) => (Properties::default(), Some(why)),
    }
}

/// The filter the metaindex picked, as RocksDB would use it.
fn open_filter<'a>(
    backing: &Backing<'a>,
    footer: &Footer,
    pick: FilterPick,
    properties: &Properties,
    verify: bool,
) -> SstFilter<'a> {
    let unusable = |why: String| SstFilter::Unsupported(format!("{why}; every key may match"));
    let cmp = Comparator::from_name(properties.comparator.as_deref());
    match pick {
        FilterPick::None => SstFilter::None,
        FilterPick::Ambiguous(why) => unusable(why),
        FilterPick::Custom(name) => SstFilter::Unsupported(format!(
            "filter block {name:?} was written by a custom filter policy, not RocksDB's built-in filters"
        )),
        FilterPick::BlockBased(h) => match BlockBased::read(backing, footer, h, properties, cmp, verify) {
            Ok(b) => SstFilter::BlockBased(b),
            Err(why) => unusable(format!("block-based filter: {why}")),
        },
        // RocksDB reads the filter when the table opens and, if that fails,
        // opens it without a filter (FullFilterBlockReader::Create).
        FilterPick::Full(h) => match read_block(backing.bytes(), footer, h, "filter", verify).and_then(|_| load_filter(backing, h)) {
            Ok(f) => SstFilter::Full(f),
            Err(e) => unusable(format!("{} (RocksDB does not use a filter block it cannot read)", e.message())),
        },
        FilterPick::Partitioned(h) => match Partitions::read(backing, footer, h, properties, cmp, verify) {
            Ok(p) => SstFilter::Partitioned(p),
            Err(why) => unusable(why),
        },
    }
}

impl<'a> Sst<'a> {
    /// Reads an SST file held in memory, without copying it.
    pub fn from_bytes(data: &'a [u8]) -> Result<Sst<'a>> {
        Sst::from_bytes_with(data, SstOptions::default())
    }

    /// [`Sst::from_bytes`] with options.
    pub fn from_bytes_with(data: &'a [u8], options: SstOptions) -> Result<Sst<'a>> {
        Sst::build(Backing::Borrowed(data), options)
    }

    /// Opens a table as RocksDB's `BlockBasedTable::Open` does: footer,
    /// metaindex (fatal if unreadable), properties (not fatal), then the
    /// filter (never fatal: RocksDB opens the table without it).
    fn build(backing: Backing<'a>, options: SstOptions) -> Result<Sst<'a>> {
        let verify = options.verify_checksums;
        let file = backing.bytes();
        let footer = Footer::decode(file, verify)?;
        // A metaindex RocksDB cannot read makes it refuse the table too.
        let meta = read_block(file, &footer, footer.metaindex, "metaindex", verify)?;
        let meta = MetaIndex::parse(meta, footer.metaindex.offset, footer.format_version)?;
        let (properties, properties_error) = read_properties(file, &footer, &meta, verify);
        let whole_key_filtering = properties.whole_key_filtering.unwrap_or(true);
        let prefix_extractor = properties.prefix_extractor_name.as_deref().and_then(PrefixExtractor::parse);
        let prefix_filtering = properties.prefix_filtering.unwrap_or(true) && prefix_extractor.is_some();
        let pick = meta.filter();
        let filter_block_name = pick.name();
        let filter = match &properties_error {
            None => open_filter(&backing, &footer, pick, &properties, verify),
            Some(why) if !matches!(pick, FilterPick::None) => SstFilter::Unsupported(format!(
                "the properties are unreadable ({why}), so whether the filter holds whole keys or prefixes is unknown; every key may match"
            )),
            Some(_) => SstFilter::None,
        };
        Ok(Sst {
            backing: backing.clone(),
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

    /// The footer's format_version (2 to 8).
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

    /// Whether whole keys were added to the filter (RocksDB's default).
    pub fn whole_key_filtering(&self) -> bool {
        self.whole_key_filtering
    }

    /// Whether [`Sst::prefix_may_match`] can answer from the filter.
    pub fn has_prefix_filter(&self) -> bool {
        self.prefix_filtering && self.prefix_extractor.is_some() && !matches!(self.filter, SstFilter::None | SstFilter::Unsupported(_))
    }

    /// The file's whole bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.backing.bytes()
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
            SstFilter::Partitioned(p) => p.may_match(key, probe),
            SstFilter::BlockBased(_) => unreachable!("answered above"),
        }
    }

    /// [`Sst::may_match`] for many keys at once: `results[i]` answers
    /// `keys[i]`, exactly as `may_match(keys[i])` would. Faster on full and
    /// partitioned filters: keys are hashed (with a partitioned filter,
    /// after finding each one's partition) and their cache lines prefetched
    /// before any is probed.
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
            self.probe_batch(n, &key, &|i| prefix(i).unwrap_or(&[]), results);
            for (i, r) in results.iter_mut().enumerate() {
                *r |= prefix(i).is_none();
            }
            return;
        }
        self.probe_batch(n, &key, &key, results);
    }

    /// Answers `probe(i)` for keys `key(i)` from a full or partitioned filter.
    fn probe_batch<'k>(
        &self,
        n: usize,
        key: &impl Fn(usize) -> &'k [u8],
        probe: &impl Fn(usize) -> &'k [u8],
        results: &mut [bool],
    ) {
        match &self.filter {
            SstFilter::None | SstFilter::Unsupported(_) | SstFilter::BlockBased(_) => results.fill(true),
            SstFilter::Full(f) => f.may_match_indexed(n, probe, results),
            SstFilter::Partitioned(p) => p.may_match_batch(n, key, probe, results),
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
            SstFilter::Partitioned(p) => p.prefix_may_match(prefix),
            SstFilter::BlockBased(b) => b.prefix_may_match(prefix),
        })
    }
}

/// Loads the filter block at `h` (already bounds-checked by read_block).
fn load_filter<'a>(backing: &Backing<'a>, h: BlockHandle) -> Result<Filter<'a>> {
    let range = h.offset as usize..(h.offset + h.size) as usize;
    match backing {
        Backing::Borrowed(b) => Filter::new(&b[range]),
        Backing::Mapped(m) => Filter::from_shared(m.clone(), range),
    }
    .map_err(|e| Error::new(e.kind(), format!("filter block at offset {}: {}", h.offset, e.message())))
}

/// The filter block a reader picks from the metaindex.
#[derive(Clone, Debug, PartialEq, Eq)]
enum FilterPick {
    None,
    Full(BlockHandle),
    Partitioned(BlockHandle),
    /// `filter.rocksdb.BuiltinBloomFilter`: the block-based filter of RocksDB < 7.0.
    BlockBased(BlockHandle),
    /// A filter block of a policy other than the built-in ones.
    Custom(String),
    /// RocksDB releases disagree on the filter, or cannot tell: the reason.
    Ambiguous(String),
}

impl FilterPick {
    fn name(&self) -> Option<String> {
        let full = |p: &str| Some(format!("{p}{BUILTIN_POLICY_NAME}"));
        match self {
            FilterPick::None | FilterPick::Ambiguous(_) => None,
            FilterPick::Full(_) => full(FULL_FILTER_PREFIX),
            FilterPick::Partitioned(_) => full(PARTITIONED_FILTER_PREFIX),
            FilterPick::BlockBased(_) => full(OBSOLETE_FILTER_PREFIX),
            FilterPick::Custom(n) => Some(n.clone()),
        }
    }
}

/// What the metaindex says, read once in one linear pass.
///
/// RocksDB looks entries up with `Seek` (a binary search over the restart
/// points) and its releases differ in how they match filter names (see
/// [`BUILTIN_POLICY_ALIASES`]). On a metaindex whose names are sorted and
/// unique every lookup method agrees, and that is every file RocksDB writes;
/// where they could disagree (names out of order, the same name twice with
/// different handles, releases picking different filter blocks) this
/// library does not use the filter, so that no reading of the file by any
/// release finds a key this library calls absent.
struct MetaIndex {
    /// Values of the exactly-named entries of interest, each list in file order.
    properties: Vec<Vec<u8>>,
    properties_old: Vec<Vec<u8>>,
    /// Per filter prefix: values of `<prefix>rocksdb.BuiltinBloomFilter`.
    exact: [Vec<Vec<u8>>; 3],
    /// Per filter prefix: the first entry at or after it (name, value).
    first_after: [Option<(Vec<u8>, Vec<u8>)>; 3],
    /// First metaindex entry out of order, if any.
    out_of_order: Option<String>,
}

const FILTER_PREFIXES: [&str; 3] = [FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX, OBSOLETE_FILTER_PREFIX];

/// Filter names longer than this are never built-in ones; they are not copied.
const MAX_NAME: usize = 256;

impl MetaIndex {
    fn parse(block: &[u8], offset: u64, format_version: u32) -> Result<MetaIndex> {
        let mut it = BlockIter::new(block, "metaindex", offset, format_version)?;
        let mut m = MetaIndex {
            properties: Vec::new(),
            properties_old: Vec::new(),
            exact: Default::default(),
            first_after: Default::default(),
            out_of_order: None,
        };
        let mut first = true;
        loop {
            let (key, value, info) = match it.next_entry() {
                Ok(Some(e)) => e,
                Ok(None) => break,
                // RocksDB looks entries up by binary search, so it may find
                // what it needs before a malformed entry; this library does
                // not know which lookups would succeed: none of them does.
                Err(e) => {
                    m.out_of_order.get_or_insert_with(|| e.message().to_string());
                    break;
                }
            };
            if !first && m.out_of_order.is_none() && info.prev.bytewise(key) == std::cmp::Ordering::Greater {
                m.out_of_order = Some(format!(
                    "metaindex block at offset {offset}: entry at block offset {} is out of order",
                    info.offset
                ));
            }
            first = false;
            if key == PROPERTIES_BLOCK {
                m.properties.push(value.to_vec());
            } else if key == PROPERTIES_BLOCK_OLD {
                m.properties_old.push(value.to_vec());
            }
            for (i, prefix) in FILTER_PREFIXES.iter().enumerate() {
                let p = prefix.as_bytes();
                if m.first_after[i].is_none() && key >= p {
                    let name = if key.len() <= MAX_NAME { key.to_vec() } else { key[..MAX_NAME].to_vec() };
                    m.first_after[i] = Some((name, value.to_vec()));
                }
                if key.len() == p.len() + BUILTIN_POLICY_NAME.len()
                    && key.starts_with(p)
                    && &key[p.len()..] == BUILTIN_POLICY_NAME.as_bytes()
                {
                    m.exact[i].push(value.to_vec());
                }
            }
        }
        Ok(m)
    }

    /// The one value of a name, or why there is no single one.
    fn single<'v>(values: &'v [Vec<u8>], name: &str) -> std::result::Result<Option<&'v [u8]>, String> {
        match values {
            [] => Ok(None),
            [v, rest @ ..] if rest.iter().all(|r| r == v) => Ok(Some(v)),
            _ => Err(format!("the metaindex names {name:?} {} times with different handles", values.len())),
        }
    }

    fn handle(value: &[u8]) -> Option<BlockHandle> {
        let mut p = 0;
        BlockHandle::decode(value, &mut p)
    }

    /// The properties block: `rocksdb.properties`, else `rocksdb.stats`
    /// (RocksDB up to 8.x). Err when the metaindex cannot say.
    fn properties(&self) -> std::result::Result<Option<BlockHandle>, String> {
        if let Some(why) = &self.out_of_order {
            return Err(why.clone());
        }
        let value = match Self::single(&self.properties, "rocksdb.properties")? {
            Some(v) => Some(v),
            None => Self::single(&self.properties_old, "rocksdb.stats")?,
        };
        match value {
            None => Ok(None),
            Some(v) => Self::handle(v).map(Some).ok_or_else(|| "the properties block's handle is malformed".to_string()),
        }
    }

    /// The filter block every RocksDB release would use.
    fn filter(&self) -> FilterPick {
        if let Some(why) = &self.out_of_order {
            return FilterPick::Ambiguous(why.clone());
        }
        let pick = |i: usize, h: BlockHandle| match i {
            0 => FilterPick::Full(h),
            1 => FilterPick::Partitioned(h),
            _ => FilterPick::BlockBased(h),
        };
        // RocksDB 6.x and 9.11.1+: the exact name, in this order, skipping a
        // malformed handle.
        let mut exact = FilterPick::None;
        for i in 0..3 {
            match Self::single(&self.exact[i], FILTER_PREFIXES[i]) {
                Err(why) => return FilterPick::Ambiguous(why),
                Ok(Some(v)) => {
                    if let Some(h) = Self::handle(v) {
                        exact = pick(i, h);
                        break;
                    }
                }
                Ok(None) => {}
            }
        }
        // RocksDB 7.0 to 9.11.0: the first entry at or after the prefix, if
        // it is the built-in name or an alias.
        let mut seek = FilterPick::None;
        for i in 0..3 {
            if let Some((name, v)) = &self.first_after[i] {
                let p = FILTER_PREFIXES[i].as_bytes();
                let builtin = name.starts_with(p)
                    && BUILTIN_POLICY_ALIASES.iter().any(|a| a.as_bytes() == &name[p.len()..]);
                if let (true, Some(h)) = (builtin, Self::handle(v)) {
                    seek = pick(i, h);
                    break;
                }
            }
        }
        if exact == seek {
            if exact == FilterPick::None {
                // Say so when the file has a filter of another policy.
                for (name, _) in self.first_after.iter().flatten() {
                    if FILTER_PREFIXES.iter().any(|p| name.starts_with(p.as_bytes())) {
                        return FilterPick::Custom(String::from_utf8_lossy(name).into_owned());
                    }
                }
            }
            return exact;
        }
        FilterPick::Ambiguous(format!(
            "RocksDB releases disagree on this file's filter block (6.x and 9.11.1+ read {:?}, 7.0 to 9.11.0 read {:?})",
            exact.name().unwrap_or_else(|| "none".into()),
            seek.name().unwrap_or_else(|| "none".into())
        ))
    }
}

impl<'a> Partitions<'a> {
    /// Reads the top-level index of a partitioned filter and every distinct
    /// partition. Err (the filter is not used) where RocksDB could not use
    /// it either or its lookups are not well defined: an unreadable index
    /// block, malformed entries, separators out of order.
    fn read(
        backing: &Backing<'a>,
        footer: &Footer,
        handle: BlockHandle,
        properties: &Properties,
        cmp: Comparator,
        verify: bool,
    ) -> std::result::Result<Partitions<'a>, String> {
        let file = backing.bytes();
        let what = "filter partition index";
        let (raw, compression) = read_block_typed(file, footer, handle, what, verify)
            .map_err(|e| format!("{} (RocksDB does not use a filter whose index it cannot read)", e.message()))?;
        // RocksDB may compress this block (kFilterPartitionIndex is not
        // among the types read raw).
        let owned;
        let index = if compression == 0 {
            raw
        } else {
            owned = compression::decompress(compression, raw, what, handle.offset)?;
            &owned[..]
        };
        let internal = !properties.index_key_is_user_key.unwrap_or(false);
        let delta = properties.index_value_is_delta_encoded.unwrap_or(false);
        let budget = PARTITION_KEYS_BUDGET.saturating_add(index.len().saturating_mul(8));
        let mut it = BlockIter::new(index, what, handle.offset, footer.format_version).map_err(|e| e.message().to_string())?;
        let mut p = Partitions {
            seps: Separators::new(backing.clone(), internal, cmp, budget),
            unique: Vec::new(),
            which: Vec::new(),
            unreadable: Vec::new(),
        };
        let mut seen: HashMap<BlockHandle, u32> = HashMap::new();
        let mut distinct_bytes: u64 = 0;
        let mut prev = None;
        loop {
            let (key, h, info) = match it.next_handle(delta, prev, false) {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => return Err(e.message().to_string()),
            };
            prev = Some(h);
            p.seps.push(key, &info, handle.offset, false, compression != 0, what)?;
            let slot = match seen.get(&h) {
                Some(&i) => i,
                None => {
                    distinct_bytes += h.size;
                    if distinct_bytes > file.len() as u64 {
                        return Err(format!(
                            "{what} at offset {}: its distinct partitions add up to more bytes than the file has (they overlap)",
                            handle.offset
                        ));
                    }
                    // RocksDB reads a partition when a query needs it and
                    // answers "may match" if that fails.
                    let f = read_block(file, footer, h, "filter partition", verify)
                        .and_then(|_| load_filter(backing, h))
                        .unwrap_or_else(|e| {
                            p.unreadable.push(e.message().to_string());
                            Filter::always_true()
                        });
                    p.unique.push(f);
                    let i = (p.unique.len() - 1) as u32;
                    seen.insert(h, i);
                    i
                }
            };
            p.which.push(slot);
        }
        if p.is_empty() {
            return Err(format!("{what} at offset {} has no entries", handle.offset));
        }
        // The lookup form of the separators, made now so that no query
        // allocates (8 bytes per partition).
        p.seps.prepare_lookups();
        Ok(p)
    }
}
