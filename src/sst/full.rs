//! Full filters (`fullfilter.*`, `table/block_based/full_filter_block.cc`):
//! one filter block for the whole file.

use super::fatal_io;
use super::fetch::Fetcher;
use super::format::{block_end, BlockHandle, Footer};
use crate::error::{Error, Result};
use crate::filter::Filter;

/// Reads and loads the filter block at `h`. Ok(Err): the block is one
/// RocksDB would not use (out of bounds, bad checksum, malformed). Err: the
/// source failed. Reads: none when the block is among the bytes read
/// already (it is then copied out of them), else exactly the block, into
/// the buffer the handle keeps.
pub(super) fn read<'a>(fetch: &mut Fetcher<'a, '_>, footer: &Footer, h: BlockHandle) -> Result<Result<Filter<'a>>> {
    let end = match block_end(footer, h, "filter") {
        Ok(e) => e as u64,
        Err(e) => return Ok(Err(e)),
    };
    fatal_io(fetch.prefetch(h.offset..end, true))?.ok();
    let block = match fatal_io(fetch.block(footer, h, "filter"))? {
        Ok(b) => b,
        Err(e) => return Ok(Err(e)),
    };
    let bytes = fetch.keep(&block)?;
    Ok(Filter::from_held(bytes)
        .map_err(|e| Error::new(e.kind(), format!("filter block at offset {}: {}", h.offset, e.message()))))
}
