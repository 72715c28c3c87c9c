//! The properties block (`rocksdb.properties`, `table/meta_blocks.cc`): a
//! restart-point block mapping names to values. Numeric properties are
//! varint64; strings and user-collected properties are raw bytes.
//!
//! Parsed as RocksDB's `ReadTablePropertiesHelper` (7.x and later) parses it:
//! - names must be strictly increasing (bytewise); otherwise the whole block
//!   is "properties unsorted" (corruption) and RocksDB opens the table
//!   without properties;
//! - a numeric value is read with `GetVarint64`, which takes the leading
//!   varint and ignores any bytes after it; a value that does not start with
//!   a varint is skipped (as if absent);
//! - a boolean table property (`whole.key.filtering`, `prefix.filtering`) is
//!   false only when it is exactly "0" (`IsFeatureSupported`);
//! - the checksum is verified after parsing, and when it fails a second time
//!   with the 8-byte `rocksdb.external_sst_file.global_seqno` value zeroed:
//!   older ingestion rewrote that value in place without updating the
//!   checksum.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::block::BlockIter;
use super::fetch::Fetcher;
use super::format::{varint64, verify_block, BlockHandle, Footer};
use crate::error::{Error, Result};

/// `ExternalSstFilePropertyNames::kGlobalSeqno`.
const GLOBAL_SEQNO: &str = "rocksdb.external_sst_file.global_seqno";

/// Properties are kept for [`Properties::raw`] while their names and values
/// add up to at most this many bytes plus four times the block's size. A
/// block whose prefix-compressed names each extend the previous one would
/// otherwise decompress to a size quadratic in the block's (RocksDB keeps
/// them all). The properties this library interprets are always decoded.
pub const RAW_PROPERTIES_BUDGET: usize = 1 << 20;

/// Table properties RocksDB records, decoded where this library uses them;
/// every property is also available raw through [`Properties::raw`].
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Properties {
    /// `rocksdb.filter.policy`: the policy name, e.g. "bloomfilter" or "ribbonfilter".
    pub filter_policy: Option<String>,
    /// `rocksdb.filter.size`: bytes of filter, all partitions.
    pub filter_size: Option<u64>,
    /// `rocksdb.num.entries`: entries in the file.
    pub num_entries: Option<u64>,
    /// `rocksdb.num.filter_entries`: entries added to the filter (keys and prefixes, after de-duplication).
    pub num_filter_entries: Option<u64>,
    /// `rocksdb.num.data.blocks`.
    pub num_data_blocks: Option<u64>,
    /// `rocksdb.data.size`: bytes of data blocks.
    pub data_size: Option<u64>,
    /// `rocksdb.index.size`: bytes of index blocks.
    pub index_size: Option<u64>,
    /// `rocksdb.index.partitions`: partitions of a partitioned index.
    pub index_partitions: Option<u64>,
    /// `rocksdb.format.version`: the table's format_version as a property (RocksDB writes 0 here; the footer's is authoritative, see `Sst::format_version`).
    pub format_version: Option<u64>,
    /// `rocksdb.creation.time`: seconds since the epoch of the oldest key's write.
    pub creation_time: Option<u64>,
    /// `rocksdb.file.creation.time`: seconds since the epoch.
    pub file_creation_time: Option<u64>,
    /// `rocksdb.comparator`, e.g. "leveldb.BytewiseComparator".
    pub comparator: Option<String>,
    /// `rocksdb.prefix.extractor.name`, e.g. "rocksdb.FixedPrefix.4" ("nullptr" when none).
    pub prefix_extractor_name: Option<String>,
    /// `rocksdb.compression`, e.g. "NoCompression".
    pub compression: Option<String>,
    /// `rocksdb.column.family.name`.
    pub column_family_name: Option<String>,
    /// `rocksdb.block.based.table.whole.key.filtering`
    pub whole_key_filtering: Option<bool>,
    /// `rocksdb.block.based.table.prefix.filtering`
    pub prefix_filtering: Option<bool>,
    /// `rocksdb.index.key.is.user.key`: index separators lack the 8-byte internal suffix.
    pub index_key_is_user_key: Option<bool>,
    /// `rocksdb.index.value.is.delta.encoded`
    pub index_value_is_delta_encoded: Option<bool>,
    /// `rocksdb.block.based.table.index.type`: 0 binary search, 1 hash, 2
    /// two-level, 3 binary search with first key (a fixed32; None when
    /// absent or shorter than 4 bytes).
    pub index_type: Option<u32>,
    raw: RawProperties,
    /// Properties left out of `raw` by [`RAW_PROPERTIES_BUDGET`].
    raw_dropped: usize,
}

/// Every property's name and value, packed in one buffer in the block's
/// (sorted) order: a handle keeps about 2 KB of properties of a file
/// RocksDB wrote, where a map of strings would take twice that. The map
/// [`Properties::raw`] returns is built on first use.
#[derive(Clone, Debug, Default, PartialEq)]
struct RawProperties {
    bytes: Vec<u8>,
    /// Per property: where its name starts, where its value starts (the
    /// name's end), where its value ends.
    entries: Vec<[u32; 3]>,
    map: OnceLock<BTreeMap<String, Vec<u8>>>,
}

impl RawProperties {
    fn push(&mut self, name: &[u8], value: &[u8]) {
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(name);
        self.bytes.extend_from_slice(value);
        self.entries.push([at, at + name.len() as u32, self.bytes.len() as u32]);
    }
    fn entry(&self, i: usize) -> (&[u8], &[u8]) {
        let [n, v, e] = self.entries[i].map(|x| x as usize);
        (&self.bytes[n..v], &self.bytes[v..e])
    }
}

/// The longest property name this library interprets; longer names are
/// never looked up (so a long name costs nothing beyond its decoding).
const MAX_KNOWN_NAME: usize = 64;

impl Properties {
    /// Reads and verifies the properties block at `handle` as RocksDB does
    /// (see the module documentation). An error here means RocksDB opens
    /// the table without properties.
    pub(crate) fn read(fetch: &mut Fetcher<'_, '_>, footer: &Footer, handle: BlockHandle) -> Result<Properties> {
        let block = fetch.unverified_block(footer, handle, "properties")?;
        let (props, global_seqno_at) = Properties::parse(block.data(), handle.offset, footer.format_version)?;
        if fetch.verify() {
            let covered = block.with_trailer();
            if let Err(e) = verify_block(covered, footer, handle, "properties", None) {
                match global_seqno_at {
                    Some(at) if at + 8 <= block.data().len() => {
                        verify_block(covered, footer, handle, "properties", Some(at)).map_err(|_| e)?
                    }
                    _ => return Err(e),
                }
            }
        }
        Ok(props)
    }

    /// Parses a properties block; also returns the block offset of the
    /// global sequence number's value, if present.
    pub(crate) fn parse(block: &[u8], offset: u64, format_version: u32) -> Result<(Properties, Option<usize>)> {
        let mut p = Properties::default();
        let mut it = BlockIter::new(block, "properties", offset, format_version)?;
        let mut budget = RAW_PROPERTIES_BUDGET.saturating_add(block.len().saturating_mul(4));
        let mut global_seqno_at = None;
        let mut known: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
        let mut first = true;
        while let Some((k, v, info)) = it.next_entry()? {
            if !first && info.prev.bytewise(k) != std::cmp::Ordering::Less {
                return Err(Error::corruption(format!(
                    "properties block at offset {offset}: properties unsorted at block offset {} (RocksDB reads such a file without its properties)",
                    info.offset
                )));
            }
            first = false;
            if k.len() <= MAX_KNOWN_NAME {
                if let Some(name) = KNOWN.iter().find(|n| n.as_bytes() == k) {
                    known.insert(name, v.to_vec());
                }
                if k == GLOBAL_SEQNO.as_bytes() {
                    global_seqno_at = Some(info.value_offset);
                }
            }
            let cost = k.len() + v.len();
            if cost <= budget {
                budget -= cost;
                p.raw.push(k, v);
            } else {
                p.raw_dropped += 1;
            }
        }
        // GetVarint64: the leading varint; trailing bytes are ignored.
        let num = |name: &str| {
            known.get(name).and_then(|v| {
                let mut pos = 0;
                varint64(v, &mut pos)
            })
        };
        // RocksDB writes "nullptr" for an absent policy / extractor.
        let string = |name: &str| {
            known.get(name).map(|v| String::from_utf8_lossy(v).into_owned()).filter(|s| !s.is_empty() && s != "nullptr")
        };
        // IsFeatureSupported: only "0" is false.
        let flag = |name: &str| known.get(name).map(|v| v.as_slice() != b"0");
        p = Properties {
            filter_policy: string("rocksdb.filter.policy"),
            filter_size: num("rocksdb.filter.size"),
            num_entries: num("rocksdb.num.entries"),
            num_filter_entries: num("rocksdb.num.filter_entries"),
            num_data_blocks: num("rocksdb.num.data.blocks"),
            data_size: num("rocksdb.data.size"),
            index_size: num("rocksdb.index.size"),
            index_partitions: num("rocksdb.index.partitions"),
            format_version: num("rocksdb.format.version"),
            creation_time: num("rocksdb.creation.time"),
            file_creation_time: num("rocksdb.file.creation.time"),
            comparator: string("rocksdb.comparator"),
            prefix_extractor_name: string("rocksdb.prefix.extractor.name"),
            compression: string("rocksdb.compression"),
            column_family_name: string("rocksdb.column.family.name"),
            whole_key_filtering: flag("rocksdb.block.based.table.whole.key.filtering"),
            prefix_filtering: flag("rocksdb.block.based.table.prefix.filtering"),
            index_key_is_user_key: num("rocksdb.index.key.is.user.key").map(|v| v != 0),
            index_value_is_delta_encoded: num("rocksdb.index.value.is.delta.encoded").map(|v| v != 0),
            // DecodeFixed32 (BlockBasedTable::PrefetchIndexAndFilterBlocks).
            index_type: known
                .get("rocksdb.block.based.table.index.type")
                .and_then(|v| v.get(..4))
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            ..p
        };
        p.raw.bytes.shrink_to_fit();
        p.raw.entries.shrink_to_fit();
        Ok((p, global_seqno_at))
    }

    /// Every property by name, raw bytes (see [`RAW_PROPERTIES_BUDGET`]),
    /// names decoded as UTF-8 (lossily). The map is made on the first call;
    /// [`Properties::raw_property`] looks one up without it.
    pub fn raw(&self) -> &BTreeMap<String, Vec<u8>> {
        self.raw.map.get_or_init(|| {
            (0..self.raw.entries.len())
                .map(|i| {
                    let (k, v) = self.raw.entry(i);
                    (String::from_utf8_lossy(k).into_owned(), v.to_vec())
                })
                .collect()
        })
    }

    /// The raw bytes of the property `name`, if the file has it.
    pub fn raw_property(&self, name: &[u8]) -> Option<&[u8]> {
        let r = &self.raw;
        // Names are sorted and unique (Properties::parse refuses others).
        let (mut lo, mut hi) = (0, r.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match r.entry(mid).0.cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(r.entry(mid).1),
            }
        }
        None
    }

    /// How many properties were decoded but left out of [`Properties::raw`]
    /// because of [`RAW_PROPERTIES_BUDGET`] (0 for every file RocksDB writes).
    pub fn raw_dropped(&self) -> usize {
        self.raw_dropped
    }
}

/// The property names decoded above (`TablePropertiesNames`,
/// `BlockBasedTablePropertyNames`).
const KNOWN: &[&str] = &[
    "rocksdb.filter.policy",
    "rocksdb.filter.size",
    "rocksdb.num.entries",
    "rocksdb.num.filter_entries",
    "rocksdb.num.data.blocks",
    "rocksdb.data.size",
    "rocksdb.index.size",
    "rocksdb.index.partitions",
    "rocksdb.format.version",
    "rocksdb.creation.time",
    "rocksdb.file.creation.time",
    "rocksdb.comparator",
    "rocksdb.prefix.extractor.name",
    "rocksdb.compression",
    "rocksdb.column.family.name",
    "rocksdb.block.based.table.whole.key.filtering",
    "rocksdb.block.based.table.prefix.filtering",
    "rocksdb.index.key.is.user.key",
    "rocksdb.index.value.is.delta.encoded",
    "rocksdb.block.based.table.index.type",
];
