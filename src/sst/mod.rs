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
pub(crate) mod format;
mod properties;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use block::BlockIter;
pub use format::{ChecksumType, BLOCK_BASED_MAGIC};
use format::{read_block, BlockHandle, Footer};
pub use properties::Properties;

use crate::error::{Error, ErrorKind, Result};
use crate::filter::Filter;

const FULL_FILTER_PREFIX: &str = "fullfilter.";
const PARTITIONED_FILTER_PREFIX: &str = "partitionedfilter.";
const OBSOLETE_FILTER_PREFIX: &str = "filter.";
/// The name every built-in RocksDB filter policy (Bloom, Ribbon, legacy)
/// writes into the metaindex key (`BuiltinFilterPolicy::CompatibilityName`).
/// Forks have appended suffixes, so it is matched as a prefix.
const BUILTIN_POLICY_NAME: &str = "rocksdb.BuiltinBloomFilter";

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

/// A partitioned filter: partition separators (user keys) and filters.
#[derive(Clone, Debug)]
pub struct Partitions<'a> {
    separators: Vec<Vec<u8>>,
    filters: Vec<Filter<'a>>,
    order: Order,
}

impl<'a> Partitions<'a> {
    pub fn len(&self) -> usize {
        self.filters.len()
    }
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }
    /// The partitions' filters, in key order.
    pub fn filters(&self) -> &[Filter<'a>] {
        &self.filters
    }
    /// Each partition's separator (an upper bound of its user keys).
    pub fn separators(&self) -> &[Vec<u8>] {
        &self.separators
    }

    /// Index of the first partition whose separator is >= key.
    fn seek(&self, key: &[u8]) -> Option<usize> {
        let i = match self.order {
            Order::Bytewise => self.separators.partition_point(|s| s.as_slice() < key),
            Order::ReverseBytewise => self.separators.partition_point(|s| s.as_slice() > key),
            Order::Unknown => return None,
        };
        Some(i.min(self.filters.len() - 1))
    }
}

/// What kind of filter an SST file has.
#[derive(Clone, Debug)]
pub enum SstFilter<'a> {
    /// No filter: every key may match.
    None,
    Full(Filter<'a>),
    Partitioned(Partitions<'a>),
    /// A filter this library cannot read (named); every key may match.
    Unsupported(String),
}

/// Where the file's bytes live.
#[derive(Clone)]
enum Backing<'a> {
    Borrowed(&'a [u8]),
    Mapped(Arc<memmap2::Mmap>),
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
    fn parse(name: &str) -> Option<PrefixExtractor> {
        if let Some(n) = name.strip_prefix("rocksdb.FixedPrefix.") {
            return n.parse().ok().map(PrefixExtractor::Fixed);
        }
        if let Some(n) = name.strip_prefix("rocksdb.CappedPrefix.") {
            return n.parse().ok().map(PrefixExtractor::Capped);
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

impl<'a> Sst<'a> {
    /// Reads an SST file held in memory, without copying it.
    pub fn from_bytes(data: &'a [u8]) -> Result<Sst<'a>> {
        Sst::from_bytes_with(data, SstOptions::default())
    }

    pub fn from_bytes_with(data: &'a [u8], options: SstOptions) -> Result<Sst<'a>> {
        Sst::build(Backing::Borrowed(data), options)
    }

    fn build(backing: Backing<'a>, options: SstOptions) -> Result<Sst<'a>> {
        let verify = options.verify_checksums;
        let file = backing.bytes();
        let footer = Footer::decode(file, verify)?;
        let meta = read_block(file, &footer, footer.metaindex, "metaindex", verify)?;
        let mut it = BlockIter::new(meta, "metaindex", footer.metaindex.offset)?;
        let mut props_handle = None;
        let mut filter_entry: Option<(String, BlockHandle)> = None;
        while let Some((key, value)) = it.next_kv()? {
            let name = String::from_utf8_lossy(key).into_owned();
            let handle = || {
                let mut p = 0;
                BlockHandle::decode(value, &mut p).ok_or_else(|| {
                    Error::corruption(format!(
                        "metaindex block at offset {}: entry {name:?} has a malformed block handle",
                        footer.metaindex.offset
                    ))
                })
            };
            if name == "rocksdb.properties" {
                props_handle = Some(handle()?);
            } else if name.starts_with(FULL_FILTER_PREFIX)
                || name.starts_with(PARTITIONED_FILTER_PREFIX)
                || name.starts_with(OBSOLETE_FILTER_PREFIX)
            {
                // Prefer a full or partitioned filter over anything else.
                let better = match &filter_entry {
                    None => true,
                    Some((prev, _)) => prev.starts_with(OBSOLETE_FILTER_PREFIX),
                };
                if better {
                    let h = handle()?;
                    filter_entry = Some((name, h));
                }
            }
        }
        let properties = match props_handle {
            Some(h) => Properties::parse(read_block(file, &footer, h, "properties", verify)?, h.offset)?,
            None => Properties::default(),
        };
        let order = match properties.comparator.as_deref() {
            None | Some("leveldb.BytewiseComparator") => Order::Bytewise,
            Some("rocksdb.ReverseBytewiseComparator") => Order::ReverseBytewise,
            Some(_) => Order::Unknown,
        };
        let whole_key_filtering = properties.whole_key_filtering.unwrap_or(true);
        let prefix_extractor = properties.prefix_extractor_name.as_deref().and_then(PrefixExtractor::parse);
        let prefix_filtering = properties.prefix_filtering.unwrap_or(prefix_extractor.is_some());

        let filter_block_name = filter_entry.as_ref().map(|(n, _)| n.clone());
        let filter = match filter_entry {
            None => SstFilter::None,
            Some((name, handle)) => {
                let (kind, policy) = name.split_once('.').expect("prefix ends in a dot");
                if !policy.starts_with(BUILTIN_POLICY_NAME) {
                    SstFilter::Unsupported(format!(
                        "filter block {name:?} was written by a custom filter policy {policy:?}, not RocksDB's built-in filters"
                    ))
                } else if kind == "filter" {
                    SstFilter::Unsupported(format!(
                        "filter block {name:?} is the obsolete block-based filter (removed in RocksDB 7.0), which is not supported"
                    ))
                } else {
                    let load = |h: BlockHandle, what: &str| -> Result<Filter<'a>> {
                        read_block(file, &footer, h, what, verify)?;
                        let range = h.offset as usize..(h.offset + h.size) as usize;
                        load_filter(&backing, range).map_err(|e| {
                            Error::new(e.kind(), format!("{what} block at offset {}: {}", h.offset, e.message()))
                        })
                    };
                    if kind == "fullfilter" {
                        SstFilter::Full(load(handle, "filter")?)
                    } else {
                        let index = read_block(file, &footer, handle, "filter partition index", verify)?;
                        let mut it = BlockIter::new(index, "filter partition index", handle.offset)?;
                        let user_keys = properties.index_key_is_user_key.unwrap_or(false);
                        let delta = properties.index_value_is_delta_encoded.unwrap_or(false);
                        let mut separators = Vec::new();
                        let mut filters = Vec::new();
                        let mut prev = None;
                        while let Some((key, h)) = it.next_handle(delta, prev)? {
                            prev = Some(h);
                            let user_key = if user_keys {
                                key
                            } else {
                                // Internal key: user key + 8 bytes of (sequence << 8 | type).
                                key.get(..key.len().wrapping_sub(8)).filter(|_| key.len() >= 8).ok_or_else(|| {
                                    Error::corruption(format!(
                                        "filter partition index at offset {}: separator of {} bytes is shorter than an internal key's 8-byte suffix",
                                        handle.offset,
                                        key.len()
                                    ))
                                })?
                            };
                            separators.push(user_key.to_vec());
                            filters.push(load(h, "filter partition")?);
                        }
                        if filters.is_empty() {
                            SstFilter::None
                        } else {
                            SstFilter::Partitioned(Partitions { separators, filters, order })
                        }
                    }
                }
            }
        };
        Ok(Sst {
            backing: backing.clone(),
            footer,
            properties,
            filter,
            filter_block_name,
            whole_key_filtering,
            prefix_filtering,
            prefix_extractor,
        })
    }

    pub fn format_version(&self) -> u32 {
        self.footer.format_version
    }

    pub fn checksum_type(&self) -> ChecksumType {
        self.footer.checksum
    }

    pub fn properties(&self) -> &Properties {
        &self.properties
    }

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
            SstFilter::Partitioned(p) => match p.seek(key) {
                Some(i) => p.filters[i].may_match(probe),
                None => p.filters.iter().any(|f| f.may_match(probe)),
            },
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
            SstFilter::Partitioned(p) => {
                // Keys with this prefix may span several partitions (and a
                // shortened separator may sit past a partition holding none of
                // them), so consult every partition that can hold one: from
                // the first separator >= prefix up to the first separator that
                // is beyond every key with the prefix.
                match (p.order, p.seek(prefix)) {
                    (Order::Bytewise, Some(first)) => {
                        let mut any = false;
                        for i in first..p.len() {
                            any |= p.filters[i].may_match(prefix);
                            if any || !p.separators[i].starts_with(prefix) {
                                break;
                            }
                        }
                        any
                    }
                    _ => p.filters.iter().any(|f| f.may_match(prefix)),
                }
            }
        })
    }
}

fn load_filter<'a>(backing: &Backing<'a>, range: Range<usize>) -> Result<Filter<'a>> {
    match backing {
        Backing::Borrowed(b) => Filter::new(&b[range]),
        Backing::Mapped(m) => Filter::from_shared(m.clone(), range),
    }
}
