//! The properties block (`rocksdb.properties`, `table/meta_blocks.cc`): a
//! restart-point block mapping names to values. Numeric properties are
//! varint64; strings and user-collected properties are raw bytes.

use std::collections::BTreeMap;

use super::block::BlockIter;
use super::format::varint64;
use crate::error::Result;

/// Table properties RocksDB records, decoded where this library uses them;
/// every property is also available raw through [`Properties::raw`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Properties {
    pub filter_policy: Option<String>,
    pub filter_size: Option<u64>,
    pub num_entries: Option<u64>,
    pub num_filter_entries: Option<u64>,
    pub num_data_blocks: Option<u64>,
    pub data_size: Option<u64>,
    pub index_size: Option<u64>,
    pub index_partitions: Option<u64>,
    pub format_version: Option<u64>,
    pub creation_time: Option<u64>,
    pub file_creation_time: Option<u64>,
    pub comparator: Option<String>,
    pub prefix_extractor_name: Option<String>,
    pub compression: Option<String>,
    pub column_family_name: Option<String>,
    /// `rocksdb.block.based.table.whole.key.filtering`
    pub whole_key_filtering: Option<bool>,
    /// `rocksdb.block.based.table.prefix.filtering`
    pub prefix_filtering: Option<bool>,
    /// `rocksdb.index.key.is.user.key`: index separators lack the 8-byte internal suffix.
    pub index_key_is_user_key: Option<bool>,
    /// `rocksdb.index.value.is.delta.encoded`
    pub index_value_is_delta_encoded: Option<bool>,
    raw: BTreeMap<String, Vec<u8>>,
}

impl Properties {
    pub(crate) fn parse(block: &[u8], offset: u64) -> Result<Properties> {
        let mut p = Properties::default();
        let mut it = BlockIter::new(block, "properties", offset)?;
        while let Some((k, v)) = it.next_kv()? {
            p.raw.insert(String::from_utf8_lossy(k).into_owned(), v.to_vec());
        }
        let num = |name: &str| {
            p.raw.get(name).and_then(|v| {
                let mut pos = 0;
                varint64(v, &mut pos).filter(|_| pos == v.len())
            })
        };
        // RocksDB writes "nullptr" for an absent policy / extractor.
        let string = |name: &str| {
            p.raw.get(name).map(|v| String::from_utf8_lossy(v).into_owned()).filter(|s| !s.is_empty() && s != "nullptr")
        };
        let flag = |name: &str| match p.raw.get(name).map(Vec::as_slice) {
            Some(b"1") => Some(true),
            Some(b"0") => Some(false),
            _ => None,
        };
        Ok(Properties {
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
            raw: p.raw,
        })
    }

    /// Every property by name, raw bytes.
    pub fn raw(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.raw
    }
}
