//! Restart-point blocks (`table/block_based/block_builder.cc`), the
//! key-value format of metaindex, properties and index blocks:
//!
//! ```text
//! entry*:  varint32 shared | varint32 non_shared | [varint32 value_len] |
//!          key[shared..] (non_shared bytes) | value
//! restarts: u32 offset * num_restarts | u32 num_restarts
//! ```
//!
//! Keys are prefix-compressed against the previous key. In index blocks
//! written with value delta encoding (format_version >= 4), `value_len` is
//! absent: the value is a self-delimiting block handle, or, when the key
//! shares bytes with the previous one, just a signed size delta (the offset
//! follows the previous block and its trailer).
//!
//! The last u32 is RocksDB's `DataBlockFooter` (`table/block_based/
//! data_block_footer.h`): the low 28 bits count the restarts, bit 31 marks a
//! data block hash index, bit 30 is reserved (set: a future feature), bit 29
//! is the "uniform keys" search hint and bit 28 "separated key-value storage"
//! (data blocks only). Only the count and the hint occur in the blocks this
//! library reads; the other bits make the block unreadable, as every RocksDB
//! release before 10.x reads them as an impossibly large restart count.
//!
//! format_version >= 8 blocks may store the user-key prefix common to all
//! their keys once, in bytes `[0, restarts[0])`; every entry that shares
//! nothing with the previous key (a restart point) is stored without it
//! (`FormatVersionUsesCommonKeyPrefix` in `table/format.h`, `Block::Block`
//! and `BlockIter::ParseNextKey` in `block.cc`). Older files always have
//! restarts[0] = 0.
//!
//! Reading follows RocksDB's `BlockIter` (`table/block_based/block.cc`):
//! iteration starts at the first restart point (`SeekToFirst`). RocksDB
//! looks keys up by binary search over the restart points; its releases
//! differ in the details, which only matter when keys are out of order, so
//! callers check the order as they go ([`EntryInfo::prev`]) and treat a block
//! out of order as one whose lookups are not well defined.
//!
//! Cost: every entry is decoded once, in time linear in its encoded size
//! (the key buffer is truncated and extended, never rebuilt), and the
//! comparison with the previous key ([`BlockIter::prev_order`]) starts at
//! the shared prefix, so a block of keys that each extend the previous one
//! costs linear time, not quadratic.

use std::cmp::Ordering;

use super::format::{fixed32, uses_value_delta_escape, varint32, varint64, BlockHandle, BLOCK_TRAILER_LEN};
use crate::error::{Error, Result};

/// How the current key compares with the previous one, from the first byte
/// where they differ. Enough to order internal keys too (user key, then the
/// 8-byte trailer), without keeping a copy of the previous key.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrevDiff {
    /// Index of the first byte where the two keys differ (the shorter
    /// length when one is a prefix of the other).
    pub diff: usize,
    /// Length of the previous key.
    pub prev_len: usize,
    /// The previous key's byte at `diff`, if it has one.
    pub prev_byte: Option<u8>,
    /// The previous key's last 8 bytes (little-endian), when it has 8.
    pub prev_trailer: Option<u64>,
}

impl PrevDiff {
    /// Bytewise order of (previous, current).
    pub fn bytewise(&self, cur: &[u8]) -> Ordering {
        match (self.prev_byte, cur.get(self.diff)) {
            (Some(a), Some(b)) => a.cmp(b),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }

    /// Order of (previous, current) as internal keys (`InternalKeyComparator`):
    /// user keys (the bytes before the 8-byte trailer) in bytewise order,
    /// reversed when `reverse`, then the trailers (sequence << 8 | type)
    /// descending. None when either key is shorter than 8 bytes.
    pub fn internal(&self, cur: &[u8], reverse: bool) -> Option<Ordering> {
        let prev_user = self.prev_len.checked_sub(8)?;
        let cur_user = cur.len().checked_sub(8)?;
        let user = if self.diff < prev_user.min(cur_user) {
            // The user keys differ at `diff`: both keys have a byte there.
            self.prev_byte?.cmp(&cur[self.diff])
        } else {
            prev_user.cmp(&cur_user)
        };
        let user = if reverse { user.reverse() } else { user };
        Some(user.then_with(|| {
            let cur_trailer = u64::from_le_bytes(cur[cur.len() - 8..].try_into().expect("8 bytes"));
            cur_trailer.cmp(&self.prev_trailer.unwrap_or(0))
        }))
    }
}

/// Where the entry last decoded lies, and how its key compares with the
/// previous one.
#[derive(Clone, Copy, Debug)]
pub struct EntryInfo {
    /// Block offset of the entry.
    pub offset: usize,
    /// Block offset of its value.
    pub value_offset: usize,
    pub prev: PrevDiff,
}

/// An entry of [`BlockIter::next_entry`]: its key (the iterator's buffer),
/// its value (in the block) and where it lies.
pub type Entry<'k, 'b> = (&'k [u8], &'b [u8], EntryInfo);

/// `DataBlockFooter` bits (`table/block_based/data_block_footer.h`).
const RESTARTS_MASK: u32 = (1 << 28) - 1;
const HASH_INDEX_BIT: u32 = 1 << 31;
const RESERVED_BIT: u32 = 1 << 30;
const UNIFORM_BIT: u32 = 1 << 29;
const SEPARATED_KV_BIT: u32 = 1 << 28;

/// Decoder over a block's entries, sequential or by [`BlockIter::seek`].
pub struct BlockIter<'b> {
    data: &'b [u8],
    /// End of the entries (start of the restart array).
    limit: usize,
    /// Offset of the next entry to decode.
    pos: usize,
    /// Offset of the current entry (valid after a successful next).
    current: usize,
    /// Offset of the current entry's non-shared key bytes.
    key_at: usize,
    key: Vec<u8>,
    prev: PrevDiff,
    what: &'b str,
    /// File offset of the block, for error messages.
    base: u64,
    /// The common key prefix (format_version >= 8; empty otherwise).
    prefix: &'b [u8],
    /// format_version >= 8 index value codec.
    escape: bool,
}

impl<'b> BlockIter<'b> {
    /// As `Block::Block` and `NewMetaIterator`: the restart array must fit.
    /// `format_version` is the file's (the common key prefix and the index
    /// value escape exist from 8 on).
    pub fn new(data: &'b [u8], what: &'b str, base: u64, format_version: u32) -> Result<Self> {
        let len = data.len();
        let bad = |msg: String| Error::corruption(format!("{what} block at offset {base}: {msg}"));
        if len < 4 {
            return Err(bad(format!("{len} bytes, too short for a restart count")));
        }
        let packed = fixed32(data, len - 4);
        for (bit, name) in [
            (RESERVED_BIT, "the reserved bit 30 (a future RocksDB feature)"),
            (HASH_INDEX_BIT, "the data block hash index bit 31"),
            (SEPARATED_KV_BIT, "the separated key-value bit 28 (data blocks only)"),
        ] {
            if packed & bit != 0 {
                return Err(bad(format!("its footer {packed:#010x} sets {name}")));
            }
        }
        // The uniform-keys hint only selects a search algorithm.
        let num_restarts = (packed & !UNIFORM_BIT & RESTARTS_MASK) as usize;
        let restarts_len = num_restarts
            .checked_add(1)
            .and_then(|n| n.checked_mul(4))
            .filter(|&n| n <= len)
            .ok_or_else(|| bad(format!("{num_restarts} restart points do not fit in {len} bytes")))?;
        let limit = len - restarts_len;
        let mut it = BlockIter {
            data,
            limit,
            pos: limit,
            current: limit,
            key_at: limit,
            key: Vec::new(),
            prev: PrevDiff::default(),
            what,
            base,
            prefix: &[],
            escape: uses_value_delta_escape(format_version),
        };
        // SeekToFirst: the entries start at the first restart point (0 in
        // every block RocksDB < 11.10 writes); from format_version 8 the
        // bytes before it are the common key prefix.
        if num_restarts > 0 {
            it.pos = fixed32(data, limit) as usize;
            if format_version >= 8 && it.pos > 0 && it.pos <= limit {
                it.prefix = &data[..it.pos];
            }
        }
        Ok(it)
    }

    fn err(&self, msg: &str) -> Error {
        Error::corruption(format!("{} block at offset {}: {msg} at block offset {}", self.what, self.base, self.pos))
    }

    /// Decodes the entry header and key; returns (shared, value_len).
    fn next_key(&mut self, value_len_present: bool) -> Result<Option<(u32, Option<u32>)>> {
        if self.pos >= self.limit {
            return Ok(None);
        }
        let d = &self.data[..self.limit];
        let mut p = self.pos;
        let shared = varint32(d, &mut p).ok_or_else(|| self.err("truncated entry header"))?;
        let non_shared = varint32(d, &mut p).ok_or_else(|| self.err("truncated entry header"))?;
        let value_len = if value_len_present {
            Some(varint32(d, &mut p).ok_or_else(|| self.err("truncated entry header"))?)
        } else {
            None
        };
        let shared = shared as usize;
        if shared > self.key.len() {
            return Err(self.err(&format!("entry shares {shared} bytes with a {}-byte previous key", self.key.len())));
        }
        let key_end = p
            .checked_add(non_shared as usize)
            .filter(|&e| e <= self.limit)
            .ok_or_else(|| self.err(&format!("key of {non_shared} bytes runs past the entries")))?;
        let new = &d[p..key_end];
        // A key sharing nothing with the previous one is stored without the
        // block's common prefix: compare and rebuild it as prefix + bytes.
        let lead: &[u8] = if shared == 0 { self.prefix } else { &[] };
        // Compare with the previous key before overwriting it: bytes before
        // `shared` are equal by construction, so start there.
        let common = self.key[shared..].iter().zip(lead.iter().chain(new)).take_while(|(a, b)| a == b).count();
        let diff = shared + common;
        let prev_len = self.key.len();
        self.prev = PrevDiff {
            diff,
            prev_len,
            prev_byte: self.key.get(diff).copied(),
            prev_trailer: prev_len
                .checked_sub(8)
                .map(|s| u64::from_le_bytes(self.key[s..].try_into().expect("8 bytes"))),
        };
        self.key.truncate(shared);
        self.key.extend_from_slice(lead);
        self.key.extend_from_slice(new);
        self.current = self.pos;
        self.key_at = p;
        self.pos = key_end;
        Ok(Some((shared as u32, value_len)))
    }

    fn info(&self, value_offset: usize) -> EntryInfo {
        EntryInfo { offset: self.current, value_offset, prev: self.prev }
    }

    /// Next (key, value) of a block with explicit value lengths, with
    /// where the entry lies.
    pub fn next_entry(&mut self) -> Result<Option<Entry<'_, 'b>>> {
        let Some((_, value_len)) = self.next_key(true)? else { return Ok(None) };
        let vlen = value_len.unwrap_or(0) as usize;
        let end = self
            .pos
            .checked_add(vlen)
            .filter(|&e| e <= self.limit)
            .ok_or_else(|| self.err(&format!("value of {vlen} bytes runs past the entries")))?;
        let value = &self.data[self.pos..end];
        let info = self.info(self.pos);
        self.pos = end;
        Ok(Some((&self.key, value, info)))
    }

    /// Next (key, block handle) of an index block (`IndexValue::DecodeFrom`
    /// in `table/format.cc`). `delta_encoded` is the table property
    /// `rocksdb.index.value.is.delta.encoded`; `prev` the previous entry's
    /// handle; `first_key`: the value also holds the block's first key
    /// (`kBinarySearchWithFirstKey`), which is skipped.
    pub fn next_handle(
        &mut self,
        delta_encoded: bool,
        prev: Option<BlockHandle>,
        first_key: bool,
    ) -> Result<Option<(&[u8], BlockHandle, EntryInfo)>> {
        let Some((shared, value_len)) = self.next_key(!delta_encoded)? else { return Ok(None) };
        let start = self.pos;
        let d = &self.data[..self.limit];
        let mut p = start;
        let handle = if delta_encoded && shared != 0 {
            let prev = prev.ok_or_else(|| self.err("delta-encoded handle without a previous handle"))?;
            let zz = varint64(d, &mut p).ok_or_else(|| self.err("truncated handle delta"))?;
            if self.escape && zz == 0 {
                // format_version >= 8: 0 escapes to a full handle (a block
                // that does not follow the previous one).
                BlockHandle::decode(d, &mut p).ok_or_else(|| self.err("truncated block handle after the escape"))?
            } else {
                let zz = if self.escape { zz - 1 } else { zz };
                let delta = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
                let size = (prev.size as i64)
                    .checked_add(delta)
                    .filter(|&s| s >= 0)
                    .ok_or_else(|| self.err(&format!("handle size delta {delta} from {} is negative", prev.size)))?
                    as u64;
                let offset = prev
                    .offset
                    .checked_add(prev.size)
                    .and_then(|o| o.checked_add(BLOCK_TRAILER_LEN as u64))
                    .ok_or_else(|| self.err("handle offset overflows"))?;
                BlockHandle { offset, size }
            }
        } else {
            BlockHandle::decode(d, &mut p).ok_or_else(|| self.err("truncated block handle"))?
        };
        if first_key {
            let n = varint32(d, &mut p).ok_or_else(|| self.err("truncated first key length"))? as usize;
            p = p
                .checked_add(n)
                .filter(|&e| e <= self.limit)
                .ok_or_else(|| self.err(&format!("first key of {n} bytes runs past the entries")))?;
        }
        self.pos = match value_len {
            Some(v) => start
                .checked_add(v as usize)
                .filter(|&e| e <= self.limit)
                .ok_or_else(|| self.err(&format!("value of {v} bytes runs past the entries")))?,
            None => p,
        };
        let info = self.info(start);
        Ok(Some((&self.key, handle, info)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of (key, value) entries, restart interval `interval`.
    pub(crate) fn block(entries: &[(&[u8], &[u8])], interval: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut restarts = Vec::new();
        let mut prev: &[u8] = &[];
        for (i, (k, v)) in entries.iter().enumerate() {
            let shared = if i % interval == 0 {
                restarts.push(out.len() as u32);
                0
            } else {
                prev.iter().zip(k.iter()).take_while(|(a, b)| a == b).count()
            };
            for n in [shared, k.len() - shared, v.len()] {
                let mut n = n as u32;
                while n >= 0x80 {
                    out.push((n as u8) | 0x80);
                    n >>= 7;
                }
                out.push(n as u8);
            }
            out.extend_from_slice(&k[shared..]);
            out.extend_from_slice(v);
            prev = k;
        }
        if restarts.is_empty() {
            restarts.push(0);
        }
        for r in &restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
        out
    }

    #[test]
    #[cfg_attr(miri, ignore = "20,000 entries: too slow under Miri (safe code only)")]
    fn prev_diff_orders_chains_in_linear_time() {
        // 20,000 keys, each one byte longer than the previous: a linear pass.
        let n_keys = 20_000;
        let keys: Vec<Vec<u8>> = (1..=n_keys).map(|n| vec![b'k'; n]).collect();
        let entries: Vec<(&[u8], &[u8])> = keys.iter().map(|k| (k.as_slice(), &b""[..])).collect();
        let b = block(&entries, 1 << 30);
        let mut it = BlockIter::new(&b, "test", 0, 5).unwrap();
        let mut n = 0;
        while let Some((k, _, info)) = it.next_entry().unwrap() {
            if n > 0 {
                assert_eq!(info.prev.bytewise(k), Ordering::Less);
            }
            n += 1;
        }
        assert_eq!(n, n_keys);
    }

    #[test]
    fn internal_key_order() {
        let ik = |user: &[u8], seq: u64| {
            let mut k = user.to_vec();
            k.extend_from_slice(&((seq << 8) | 1).to_le_bytes());
            k
        };
        let cases = [
            (ik(b"a", 5), ik(b"b", 9), Ordering::Less),
            (ik(b"a", 9), ik(b"a", 5), Ordering::Less), // higher sequence first
            (ik(b"a", 5), ik(b"a", 9), Ordering::Greater),
            (ik(b"ab", 1), ik(b"a", 1), Ordering::Greater),
            (ik(b"a", 1), ik(b"ab", 1), Ordering::Less),
            (ik(b"a", 7), ik(b"a", 7), Ordering::Equal),
        ];
        for (a, b, want) in cases {
            let entries: Vec<(&[u8], &[u8])> = vec![(&a, b""), (&b, b"")];
            let blk = block(&entries, 16);
            let mut it = BlockIter::new(&blk, "test", 0, 5).unwrap();
            it.next_entry().unwrap();
            let (cur, _, info) = it.next_entry().unwrap().unwrap();
            assert_eq!(info.prev.internal(cur, false), Some(want), "{a:?} vs {b:?}");
            // Reversed user order; equal user keys still order by trailer.
            let same_user = a[..a.len() - 8] == b[..b.len() - 8];
            let want_rev = if same_user { want } else { want.reverse() };
            assert_eq!(info.prev.internal(cur, true), Some(want_rev), "{a:?} vs {b:?} reversed");
        }
    }

    fn varint(out: &mut Vec<u8>, mut n: u64) {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }

    #[test]
    fn format_version_8_common_prefix_is_prepended_at_restarts() {
        // Prefix "user-" stored once; restart keys without it.
        let mut b = b"user-".to_vec();
        let mut restarts = vec![];
        for (shared, rest, restart) in [(0u64, &b"apple"[..], true), (7, &b"ricot"[..], false), (0, &b"kiwi"[..], true)]
        {
            if restart {
                restarts.push(b.len() as u32);
            }
            for n in [shared, rest.len() as u64, 1] {
                varint(&mut b, n);
            }
            b.extend_from_slice(rest);
            b.push(b'v');
        }
        for r in &restarts {
            b.extend_from_slice(&r.to_le_bytes());
        }
        // The uniform-keys hint (bit 29) is ignored.
        b.extend_from_slice(&((restarts.len() as u32) | 1 << 29).to_le_bytes());
        let mut it = BlockIter::new(&b, "test", 0, 8).unwrap();
        let mut keys = vec![];
        while let Some((k, v, info)) = it.next_entry().unwrap() {
            assert_eq!(v, b"v");
            if !keys.is_empty() {
                assert_eq!(info.prev.bytewise(k), Ordering::Less);
            }
            keys.push(k.to_vec());
        }
        assert_eq!(keys, [&b"user-apple"[..], b"user-apricot", b"user-kiwi"]);
        // Before format_version 8 the bytes before restarts[0] are skipped.
        let mut it = BlockIter::new(&b, "test", 0, 7).unwrap();
        assert_eq!(it.next_entry().unwrap().unwrap().0, b"apple");
        // Bits RocksDB reserves, or that only data blocks use, are refused.
        for bit in [30, 31, 28] {
            let mut bad = b.clone();
            let n = bad.len();
            bad[n - 1] |= 1 << (bit - 24);
            assert!(BlockIter::new(&bad, "test", 0, 8).is_err(), "bit {bit}");
        }
    }

    #[test]
    fn format_version_8_index_values_escape_to_full_handles() {
        // Three delta-encoded index entries (no value lengths): a full
        // handle, an escaped full handle (not contiguous), a size delta.
        let mut b = vec![];
        let entries: [(u64, &[u8], Vec<u8>); 3] = [
            (0, b"k1", {
                let mut v = vec![];
                varint(&mut v, 100);
                varint(&mut v, 50);
                v
            }),
            (1, b"2", {
                let mut v = vec![0];
                varint(&mut v, 4096);
                varint(&mut v, 60);
                v
            }),
            (1, b"3", {
                let mut v = vec![];
                varint(&mut v, (2 * 5) + 1);
                v
            }),
        ];
        for (shared, rest, value) in &entries {
            varint(&mut b, *shared);
            varint(&mut b, rest.len() as u64);
            b.extend_from_slice(rest);
            b.extend_from_slice(value);
        }
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        let mut it = BlockIter::new(&b, "test", 0, 8).unwrap();
        let mut prev = None;
        let mut got = vec![];
        while let Some((k, h, _)) = it.next_handle(true, prev, false).unwrap() {
            got.push((k.to_vec(), h.offset, h.size));
            prev = Some(h);
        }
        assert_eq!(got, [(b"k1".to_vec(), 100, 50), (b"k2".to_vec(), 4096, 60), (b"k3".to_vec(), 4096 + 60 + 5, 65)]);
    }
}
