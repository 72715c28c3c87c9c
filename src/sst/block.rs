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

use super::format::{fixed32, varint32, varint64, BlockHandle, BLOCK_TRAILER_LEN};
use crate::error::{Error, Result};

/// Sequential decoder over a block's entries.
pub struct BlockIter<'b> {
    data: &'b [u8],
    /// End of the entries (start of the restart array).
    limit: usize,
    pos: usize,
    key: Vec<u8>,
    what: &'b str,
    /// File offset of the block, for error messages.
    base: u64,
}

impl<'b> BlockIter<'b> {
    pub fn new(data: &'b [u8], what: &'b str, base: u64) -> Result<Self> {
        let len = data.len();
        let bad = |msg: String| Error::corruption(format!("{what} block at offset {base}: {msg}"));
        if len < 4 {
            return Err(bad(format!("{len} bytes, too short for a restart count")));
        }
        let num_restarts = fixed32(data, len - 4) as usize;
        let restarts_len = num_restarts
            .checked_add(1)
            .and_then(|n| n.checked_mul(4))
            .filter(|&n| n <= len)
            .ok_or_else(|| bad(format!("{num_restarts} restart points do not fit in {len} bytes")))?;
        Ok(BlockIter { data, limit: len - restarts_len, pos: 0, key: Vec::new(), what, base })
    }

    fn err(&self, msg: &str) -> Error {
        Error::corruption(format!("{} block at offset {}: {msg} at block offset {}", self.what, self.base, self.pos))
    }

    /// Decodes the entry header and key; returns `shared`.
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
        if shared as usize > self.key.len() {
            return Err(self.err(&format!("entry shares {shared} bytes with a {}-byte previous key", self.key.len())));
        }
        let key_end = p.checked_add(non_shared as usize).filter(|&e| e <= self.limit).ok_or_else(|| {
            self.err(&format!("key of {non_shared} bytes runs past the entries"))
        })?;
        self.key.truncate(shared as usize);
        self.key.extend_from_slice(&d[p..key_end]);
        self.pos = key_end;
        Ok(Some((shared, value_len)))
    }

    /// Next (key, value) of a block with explicit value lengths.
    pub fn next_kv(&mut self) -> Result<Option<(&[u8], &'b [u8])>> {
        let Some((_, value_len)) = self.next_key(true)? else { return Ok(None) };
        let vlen = value_len.unwrap_or(0) as usize;
        let end = self.pos.checked_add(vlen).filter(|&e| e <= self.limit).ok_or_else(|| {
            self.err(&format!("value of {vlen} bytes runs past the entries"))
        })?;
        let value = &self.data[self.pos..end];
        self.pos = end;
        Ok(Some((&self.key, value)))
    }

    /// Next (key, block handle) of an index block. `delta_encoded` is the
    /// table property `rocksdb.index.value.is.delta.encoded`; `prev` the
    /// previous entry's handle.
    pub fn next_handle(&mut self, delta_encoded: bool, prev: Option<BlockHandle>) -> Result<Option<(&[u8], BlockHandle)>> {
        let Some((shared, value_len)) = self.next_key(!delta_encoded)? else { return Ok(None) };
        let start = self.pos;
        let d = &self.data[..self.limit];
        let mut p = start;
        let handle = if delta_encoded && shared != 0 {
            let prev = prev.ok_or_else(|| self.err("delta-encoded handle without a previous handle"))?;
            let zz = varint64(d, &mut p).ok_or_else(|| self.err("truncated handle delta"))?;
            let delta = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
            let size = (prev.size as i64).checked_add(delta).filter(|&s| s >= 0).ok_or_else(|| {
                self.err(&format!("handle size delta {delta} from {} is negative", prev.size))
            })? as u64;
            let offset = prev
                .offset
                .checked_add(prev.size)
                .and_then(|o| o.checked_add(BLOCK_TRAILER_LEN as u64))
                .ok_or_else(|| self.err("handle offset overflows"))?;
            BlockHandle { offset, size }
        } else {
            BlockHandle::decode(d, &mut p).ok_or_else(|| self.err("truncated block handle"))?
        };
        self.pos = match value_len {
            Some(v) => start.checked_add(v as usize).filter(|&e| e <= self.limit).ok_or_else(|| {
                self.err(&format!("value of {v} bytes runs past the entries"))
            })?,
            None => p,
        };
        Ok(Some((&self.key, handle)))
    }
}
