//! The obsolete block-based filter (metaindex `filter.<policy>`, RocksDB up
//! to 6.x; 7.0 stopped writing it, 7.4 stopped reading it), read as RocksDB
//! 6.29 reads it (`table/block_based/block_based_filter_block.cc`).
//!
//! ```text
//! filter block: filter 0 | ... | filter n-1 |
//!               u32 offset of filter i (n of them) | u32 offset of that array | u8 base_lg
//! ```
//!
//! Filter i holds the keys (or prefixes) of the data blocks that start at a
//! file offset in `[i << base_lg, (i + 1) << base_lg)` (base_lg is 11:
//! 2 KiB ranges); each filter is a LevelDB Bloom filter (`bloom::block_based`).
//! So a key is looked up in the filter of the data block that can hold it,
//! found through the table's index block (`BlockBasedTable::Get`): the first
//! index entry whose separator is not before the key. This needs the
//! whole data index in memory: one separator and one offset per data block,
//! decoded at open (binary-search, hash and first-key indexes are one
//! index block; a two-level index's partitions are all read; compressed
//! index blocks are decompressed, `sst::compression`).

use std::collections::HashSet;

use super::block::BlockIter;
use super::compression::decompress;
use super::fetch::Fetcher;
use super::format::{block_end, fixed32, BlockHandle, Footer};
use super::separators::Separators;
use super::{fatal_io, Comparator, Order, Properties, PARTITION_KEYS_BUDGET};
use crate::bloom::block_based as bloom;
use crate::error::Error;
use crate::filter::Bytes;

/// `BlockBasedTableOptions::IndexType` (`include/rocksdb/table.h`), as the
/// property `rocksdb.block.based.table.index.type` records it.
const BINARY_SEARCH: u32 = 0;
const HASH_SEARCH: u32 = 1;
const TWO_LEVEL: u32 = 2;
const BINARY_SEARCH_WITH_FIRST_KEY: u32 = 3;

/// The trailer of RocksDB's prefix seek key `InternalKey(prefix,
/// kMaxSequenceNumber, kTypeValue)` (`BlockBasedTable::PrefixMayMatch`).
const PREFIX_SEEK_TRAILER: u64 = (((1u64 << 56) - 1) << 8) | 1;

/// A block-based filter with the data index it is looked up through.
#[derive(Clone, Debug)]
pub struct BlockBased<'a> {
    /// The filter block's bytes.
    block: Bytes<'a>,
    /// `ParseFieldsFromBlock`: where the offset array starts (block
    /// offset), how many filters, and the range size's log2. None when the
    /// block is too short or the array offset is past it: every key may
    /// match, as in RocksDB.
    fields: Option<(usize, usize, u8)>,
    /// One separator per data block, in key order.
    index: Separators,
    /// The data block offset of each separator.
    data_offsets: Vec<u64>,
}

impl<'a> BlockBased<'a> {
    /// Reads the filter block at `filter` and the table's data index.
    /// Ok(Err(why)) (the filter is not used: every key may match) where
    /// this library cannot find a key's data block as RocksDB does. Err:
    /// the source failed.
    ///
    /// Reads: RocksDB < 7.0 writes the filter block, then the index (a
    /// two-level index: its partitions, then the top level), so one read
    /// from the filter to the end of the index brings all of them when
    /// they were not among the bytes read already.
    pub(super) fn read(
        fetch: &mut Fetcher<'a, '_>,
        footer: &Footer,
        filter: BlockHandle,
        properties: &Properties,
        cmp: Comparator,
    ) -> Result<Result<BlockBased<'a>, String>, Error> {
        let Some(index_handle) = footer.index else {
            return Ok(Err(format!(
                "a block-based filter in a format_version {} file (only RocksDB < 7.0 wrote the filter, and at most format_version 5)",
                footer.format_version
            )));
        };
        if let Ok(index_end) = block_end(footer, index_handle, "index") {
            let r = filter.offset..index_end as u64;
            if filter.offset <= index_handle.offset && !fetch.holds(&r, false) {
                fatal_io(fetch.prefetch(r, false))?.ok();
            }
        }
        let block = match fatal_io(fetch.block(footer, filter, "block-based filter"))? {
            Ok(b) => b,
            Err(e) => return Ok(Err(format!("{} (RocksDB does not use a filter block it cannot read)", e.message()))),
        };
        let held = fetch.keep(&block)?;
        let n = held.as_slice().len();
        // ParseFieldsFromBlock.
        let fields = if n < 5 {
            None
        } else {
            let b = held.as_slice();
            let array = fixed32(b, n - 5) as usize;
            (array <= n - 5).then(|| (array, (n - 5 - array) / 4, b[n - 1]))
        };
        let index_type = match properties.index_type {
            None => BINARY_SEARCH,
            Some(t) => t,
        };
        let internal = !properties.index_key_is_user_key.unwrap_or(false);
        let delta = properties.index_value_is_delta_encoded.unwrap_or(false);
        let mut bb = BlockBased {
            block: held,
            fields,
            index: Separators::new(internal, cmp, PARTITION_KEYS_BUDGET),
            data_offsets: Vec::new(),
        };
        let file_len = fetch.len();
        let mut read = || -> Result<Result<(), String>, Error> {
            match index_type {
                BINARY_SEARCH | HASH_SEARCH | BINARY_SEARCH_WITH_FIRST_KEY => {
                    let first_key = index_type == BINARY_SEARCH_WITH_FIRST_KEY;
                    bb.read_index_block(fetch, footer, index_handle, "index", delta, first_key, |bb, h| {
                        bb.data_offsets.push(h.offset);
                    })
                }
                TWO_LEVEL => {
                    // The top-level separators only route lookups to
                    // partitions (read into a scratch list, in order); the
                    // partitions' own separators, all in order, are the index.
                    let scratch = Separators::new(internal, cmp, PARTITION_KEYS_BUDGET);
                    let data_index = std::mem::replace(&mut bb.index, scratch);
                    let mut partitions = Vec::new();
                    let top =
                        bb.read_index_block(fetch, footer, index_handle, "top-level index", delta, false, |_, h| {
                            partitions.push(h);
                        });
                    bb.index = data_index;
                    if !matches!(top, Ok(Ok(()))) {
                        return top;
                    }
                    let mut seen = HashSet::new();
                    let mut total: u64 = 0;
                    for h in partitions {
                        total = total.saturating_add(h.size);
                        if !seen.insert(h) || total > file_len {
                            return Ok(Err(format!(
                                "index partition at offset {} is listed twice or the partitions overlap (RocksDB never writes that)",
                                h.offset
                            )));
                        }
                        let r = bb.read_index_block(fetch, footer, h, "index partition", delta, false, |bb, h| {
                            bb.data_offsets.push(h.offset);
                        });
                        if !matches!(r, Ok(Ok(()))) {
                            return r;
                        }
                    }
                    Ok(Ok(()))
                }
                t => Ok(Err(format!("unknown index type {t} in rocksdb.block.based.table.index.type"))),
            }
        };
        if let Err(why) = read()? {
            return Ok(Err(why));
        }
        if bb.data_offsets.is_empty() {
            return Ok(Err("the index has no entries".into()));
        }
        Ok(Ok(bb))
    }

    /// Decodes one index block into `self.index`, calling `each` with every
    /// entry's handle.
    #[allow(clippy::too_many_arguments)]
    fn read_index_block(
        &mut self,
        fetch: &mut Fetcher<'a, '_>,
        footer: &Footer,
        handle: BlockHandle,
        what: &str,
        delta: bool,
        first_key: bool,
        mut each: impl FnMut(&mut Self, BlockHandle),
    ) -> Result<Result<(), String>, Error> {
        let block = match fatal_io(fetch.block(footer, handle, what))? {
            Ok(b) => b,
            Err(e) => return Ok(Err(format!("{} (RocksDB cannot read the index either)", e.message()))),
        };
        let compression = block.compression();
        let owned;
        let data = if compression == 0 {
            block.data()
        } else {
            owned = match decompress(compression, block.data(), what, handle.offset, footer.format_version) {
                Ok(o) => o,
                Err(why) => return Ok(Err(why)),
            };
            &owned[..]
        };
        self.index.grow_budget(data.len().saturating_mul(8));
        let mut it = match BlockIter::new(data, what, handle.offset, footer.format_version) {
            Ok(it) => it,
            Err(e) => return Ok(Err(e.message().to_string())),
        };
        let mut prev = None;
        let mut first = true;
        loop {
            let (key, h, info) = match it.next_handle(delta, prev, first_key) {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => return Ok(Err(e.message().to_string())),
            };
            prev = Some(h);
            if let Err(why) = self.index.push(key, &info, handle.offset, first, what) {
                return Ok(Err(why));
            }
            first = false;
            each(self, h);
        }
        Ok(Ok(()))
    }

    /// Number of per-range filters in the block (0 when it is unreadable).
    pub fn num_filters(&self) -> usize {
        self.fields.map_or(0, |(_, n, _)| n)
    }

    /// log2 of the data-offset range each filter covers (11 in every file
    /// RocksDB writes), if the block is readable.
    pub fn base_lg(&self) -> Option<u8> {
        self.fields.map(|(_, _, b)| b)
    }

    /// Size of the filter block in bytes.
    pub fn block_bytes(&self) -> usize {
        self.block.as_slice().len()
    }

    /// Number of data blocks the index lists.
    pub fn num_data_blocks(&self) -> usize {
        self.data_offsets.len()
    }

    /// The filter bytes for the data block at `data_offset`, as
    /// `BlockBasedFilterBlockReader::MayMatch` picks them: Some(filter) to
    /// probe, Err(answer) when RocksDB answers without probing.
    fn filter_for(&self, data_offset: u64) -> Result<&[u8], bool> {
        let block = self.block.as_slice();
        let Some((array, num, base_lg)) = self.fields else { return Err(true) };
        // A shift by 64 or more is undefined in C++: no RocksDB file has one.
        let Some(i) = data_offset.checked_shr(base_lg as u32) else { return Err(true) };
        if i >= num as u64 {
            return Err(true);
        }
        let i = i as usize;
        let start = fixed32(block, array + 4 * i);
        let limit = fixed32(block, array + 4 * i + 4);
        if start <= limit && limit as usize <= array {
            Ok(&block[start as usize..limit as usize])
        } else if start == limit {
            // Empty filters do not match any entries.
            Err(false)
        } else {
            Err(true)
        }
    }

    fn may_match_at(&self, probe: &[u8], data_offset: u64) -> bool {
        match self.filter_for(data_offset) {
            Ok(f) => bloom::may_match(probe, f),
            Err(answer) => answer,
        }
    }

    /// Any data block's filter: for an order this library cannot search.
    fn any_may_match(&self, probe: &[u8]) -> bool {
        self.data_offsets.iter().any(|&o| self.may_match_at(probe, o))
    }

    /// Can the file hold `key` (whole-key filtering)? As `BlockBasedTable::
    /// Get`: the data blocks a lookup can land on are from the first whose
    /// separator's user key is not before the key through those whose
    /// separator equals it (a key's versions can span blocks); a key past
    /// the last separator is in no block.
    pub(super) fn may_match(&self, key: &[u8]) -> bool {
        let idx = &self.index;
        let is_before: Box<dyn Fn(usize) -> bool + '_> = match idx.order {
            Order::Bytewise => Box::new(|i| idx.user_key(i) < key),
            Order::ReverseBytewise => Box::new(|i| idx.user_key(i) > key),
            Order::Unknown => return self.any_may_match(key),
        };
        let first = idx.first_not_before(is_before);
        if first == idx.len() {
            return false;
        }
        match idx.run_end(first, |s| s == key) {
            Some(end) => (first..=end).any(|i| self.may_match_at(key, self.data_offsets[i])),
            None => true,
        }
    }

    /// Can the file hold a key with this prefix? As RocksDB 6.29's
    /// `BlockBasedTable::PrefixMayMatch` for block-based filters: seek the
    /// index to `(prefix, kMaxSequenceNumber, kTypeValue)`; past the end,
    /// no; a separator that has the prefix, maybe (the next block may hold
    /// such keys too); otherwise only that one block can, so its filter
    /// answers. Other orders than bytewise: any filter.
    pub(super) fn prefix_may_match(&self, prefix: &[u8]) -> bool {
        let idx = &self.index;
        if idx.order != Order::Bytewise {
            return self.any_may_match(prefix);
        }
        let first = idx.first_not_before(|i| match idx.user_key(i).cmp(prefix) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => idx.trailer(i).is_some_and(|t| t > PREFIX_SEEK_TRAILER),
            std::cmp::Ordering::Greater => false,
        });
        if first == idx.len() {
            return false;
        }
        if idx.user_key(first).starts_with(prefix) {
            return true;
        }
        self.may_match_at(prefix, self.data_offsets[first])
    }
}
