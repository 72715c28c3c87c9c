//! The block fetcher: the one place an SST file's bytes are read, bounded,
//! verified and kept.
//!
//! Opening a file asks the fetcher for blocks by handle. It serves each from
//! a *window* it already holds (a range of the file read earlier, the whole
//! file for memory and mapped sources) or reads exactly that block; the
//! tables above it announce the ranges they are about to need
//! ([`Fetcher::prefetch`]) so that one read brings them all. Every range is
//! checked against the file's size before a byte of memory is allocated for
//! it, and every block's checksum is verified once, here, on the bytes that
//! queries will read. Nothing reads the source after open returns.
//!
//! Windows are owned, 64-byte-aligned buffers. A window read for filter
//! bytes (a full filter, or a partitioned filter's partitions and index)
//! is kept by the handle as it is, shared by the filters inside it; a
//! block served from any other window (the suffix read of metadata) is
//! copied out, so a handle never keeps bytes it does not query.

use std::ops::Range;
use std::sync::Arc;

use super::format::{block_end, verify_block, BlockHandle, Footer, BLOCK_TRAILER_LEN};
use super::source::{OpenStats, Source};
use crate::error::{Error, ErrorKind, Result};
use crate::filter::Bytes;
use crate::slab::{SlabBuf, SLAB_MAX, SLAB_MIN};

/// The first read of a file from a source: its last 64 KiB (or the whole
/// file, when smaller). Footer, metaindex and properties of the files
/// RocksDB writes take 1 to 5 KiB, so one read holds them with room to
/// spare; a file up to 64 KiB is read whole in one go. Pebble reads 32 KiB
/// before the footer, Parquet 64 KiB, and RocksDB up to 512 KiB
/// (`BlockBasedTable::PrefetchTail`) because it also wants the index; a
/// larger guess here would mostly bring index bytes no query reads, since
/// the filter of a 64 MB file (about 0.8 MB at 10 bits/key) needs a read of
/// its own anyway.
pub const SUFFIX_READ: u64 = 64 << 10;

/// Where the bytes of an opened file come from.
pub(crate) enum Origin<'a, 's> {
    /// The caller's memory, borrowed for the handle's lifetime: no reads.
    Memory(&'a [u8]),
    /// A mapping of the whole file (the explicit mmap option).
    Mapped(Arc<memmap2::Mmap>),
    /// Positional reads, during open only.
    Read(&'s dyn Source),
}

/// A buffer the fetcher read into: the file's bytes from its start, kept
/// 64-byte aligned (each FastLocalBloom line is then one cache line).
/// Buffers a handle keeps, from 64 KiB to 4 MiB, live in shared slabs
/// (`crate::slab`: no kernel mapping per handle).
pub(crate) enum Owned {
    Heap { v: Vec<u8>, at: usize },
    Slab(SlabBuf),
}

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        match self {
            Owned::Heap { v, at } => &v[*at..],
            Owned::Slab(b) => b.as_ref(),
        }
    }
}

impl Owned {
    /// A zeroed, aligned buffer of `len` bytes, for the bytes at `offset`;
    /// `kept`: a handle will keep it.
    fn zeroed(len: usize, offset: u64, kept: bool) -> Result<Owned> {
        let none = || Error::invalid(format!("cannot allocate {len} bytes for the file's bytes at offset {offset}"));
        if kept && (SLAB_MIN..SLAB_MAX).contains(&len) {
            let mut b = SlabBuf::new(len).ok_or_else(none)?;
            b.as_mut().fill(0);
            return Ok(Owned::Slab(b));
        }
        let (v, at) = crate::mem::zeroed_block(len).ok_or_else(none)?;
        Ok(Owned::Heap { v, at })
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Owned::Heap { v, at } => &mut v[*at..],
            Owned::Slab(b) => b.as_mut(),
        }
    }
    /// The bytes it takes, alignment and page slack included.
    fn capacity(&self) -> usize {
        match self {
            Owned::Heap { v, .. } => v.capacity(),
            Owned::Slab(b) => b.capacity(),
        }
    }
}

#[derive(Clone)]
enum Store<'a> {
    Borrowed(&'a [u8]),
    Mapped(Arc<memmap2::Mmap>),
    Owned(Arc<Owned>),
}

/// A range of the file the fetcher holds: `bytes()` are the file's bytes
/// from `offset` on.
#[derive(Clone)]
struct Window<'a> {
    offset: u64,
    store: Store<'a>,
    /// Read for filter bytes: blocks in it are kept by sharing the window.
    filters: bool,
}

impl Window<'_> {
    fn bytes(&self) -> &[u8] {
        match &self.store {
            Store::Borrowed(b) => b,
            Store::Mapped(m) => m,
            Store::Owned(o) => (**o).as_ref(),
        }
    }
    fn covers(&self, r: &Range<u64>) -> bool {
        r.start >= self.offset && r.end <= self.offset + self.bytes().len() as u64
    }
    /// `r` (covered) relative to the window.
    fn local(&self, r: &Range<u64>) -> Range<usize> {
        (r.start - self.offset) as usize..(r.end - self.offset) as usize
    }
}

/// A block whose bounds (and, when verifying, checksum) have been checked.
pub(crate) struct Block<'a> {
    win: Window<'a>,
    /// The contents, without the trailer, relative to the window.
    at: Range<usize>,
    compression: u8,
}

impl<'a> Block<'a> {
    /// The block's contents, without its trailer.
    pub(crate) fn data(&self) -> &[u8] {
        &self.win.bytes()[self.at.clone()]
    }
    /// The contents and the 5-byte trailer.
    pub(crate) fn with_trailer(&self) -> &[u8] {
        &self.win.bytes()[self.at.start..self.at.end + BLOCK_TRAILER_LEN]
    }
    /// The trailer's compression type byte.
    pub(crate) fn compression(&self) -> u8 {
        self.compression
    }
}

/// Reads, bounds, verifies and keeps the blocks of one file being opened.
pub(crate) struct Fetcher<'a, 's> {
    origin: Origin<'a, 's>,
    len: u64,
    windows: Vec<Window<'a>>,
    stats: OpenStats,
    /// Filter windows already counted in `stats.bytes_held`.
    held_windows: Vec<usize>,
    verify: bool,
}

impl<'a, 's> Fetcher<'a, 's> {
    /// A fetcher over `origin`; `verify`: check block checksums.
    pub(crate) fn new(origin: Origin<'a, 's>, verify: bool) -> Result<Fetcher<'a, 's>> {
        let (len, whole) = match &origin {
            Origin::Memory(b) => (b.len() as u64, Some(Store::Borrowed(b))),
            Origin::Mapped(m) => (m.len() as u64, Some(Store::Mapped(m.clone()))),
            Origin::Read(src) => {
                (src.size().map_err(|e| Error::new(ErrorKind::Io, format!("size of the file: {e}")))?, None)
            }
        };
        // Blocks of the caller's memory or of a mapping are kept where they
        // are: the whole file is a filter window.
        let windows = whole.into_iter().map(|store| Window { offset: 0, store, filters: true }).collect();
        Ok(Fetcher { origin, len, windows, stats: OpenStats::default(), held_windows: Vec::new(), verify })
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Whether checksums are verified.
    pub(crate) fn verify(&self) -> bool {
        self.verify
    }

    /// What was read so far, and what the handle keeps.
    pub(crate) fn stats(&self) -> OpenStats {
        self.stats
    }

    /// The last `n` bytes of the file (`n` at most its length): the first
    /// read of a source is its last [`SUFFIX_READ`] bytes.
    pub(crate) fn tail(&mut self, n: u64) -> Result<&[u8]> {
        let r = self.len - n..self.len;
        let i = match self.find(&r, false) {
            Some(i) => i,
            None => self.read(self.len - self.len.min(SUFFIX_READ.max(n))..self.len, false)?,
        };
        let w = &self.windows[i];
        Ok(&w.bytes()[w.local(&r)])
    }

    /// Whether a window holds `r` (a filter window, with `filters`).
    pub(crate) fn holds(&self, r: &Range<u64>, filters: bool) -> bool {
        self.find(r, filters).is_some()
    }

    /// Makes sure one window holds all of `r` (within the file) before the
    /// blocks in it are fetched: copied out of a window that holds it
    /// already, else read in one call. `filters`: the blocks are filter
    /// bytes the handle keeps, so the window is kept whole and shared.
    pub(crate) fn prefetch(&mut self, r: Range<u64>, filters: bool) -> Result<()> {
        if r.start >= r.end || r.end > self.len || self.find(&r, filters).is_some() {
            return Ok(());
        }
        if let Some(i) = self.find(&r, false) {
            // In a metadata window (a small file read whole): copy the
            // range into a window of its own, so that the handle keeps
            // only these bytes.
            let w = &self.windows[i];
            let mut copy = Owned::zeroed((r.end - r.start) as usize, r.start, filters)?;
            copy.bytes_mut().copy_from_slice(&w.bytes()[w.local(&r)]);
            self.windows.push(Window { offset: r.start, store: Store::Owned(Arc::new(copy)), filters });
            return Ok(());
        }
        self.read(r, filters).map(|_| ())
    }

    /// The block at `handle`: bounds checked against the footer, served
    /// from a window or read exactly, checksum verified.
    pub(crate) fn block(&mut self, footer: &Footer, handle: BlockHandle, what: &str) -> Result<Block<'a>> {
        let block = self.unverified_block(footer, handle, what)?;
        if self.verify {
            verify_block(block.with_trailer(), footer, handle, what, None)?;
        }
        Ok(block)
    }

    /// [`Fetcher::block`] without the checksum check, for a caller that
    /// verifies it its own way (the properties block).
    pub(crate) fn unverified_block(&mut self, footer: &Footer, handle: BlockHandle, what: &str) -> Result<Block<'a>> {
        let end = block_end(footer, handle, what)? as u64;
        let r = handle.offset..end;
        let i = match self.find(&r, true).or_else(|| self.find(&r, false)) {
            Some(i) => i,
            None => self.read(r.clone(), false)?,
        };
        let win = self.windows[i].clone();
        let local = win.local(&r);
        let with_trailer = &win.bytes()[local.clone()];
        let compression = with_trailer[with_trailer.len() - BLOCK_TRAILER_LEN];
        Ok(Block { at: local.start..local.end - BLOCK_TRAILER_LEN, compression, win })
    }

    /// The bytes of `block` for a handle to keep: the caller's memory or
    /// the mapping as they are, a filter window shared, anything else
    /// copied (aligned).
    pub(crate) fn keep(&mut self, block: &Block<'a>) -> Result<Bytes<'a>> {
        Ok(match &block.win.store {
            Store::Borrowed(b) => Bytes::Borrowed(&b[block.at.clone()]),
            Store::Mapped(m) => {
                let base = block.win.offset as usize;
                Bytes::Shared(m.clone(), base + block.at.start..base + block.at.end)
            }
            Store::Owned(o) if block.win.filters => {
                let key = Arc::as_ptr(o) as usize;
                if !self.held_windows.contains(&key) {
                    self.held_windows.push(key);
                    self.stats.bytes_held += o.capacity() as u64;
                }
                Bytes::Shared(o.clone(), block.at.clone())
            }
            Store::Owned(_) if block.data().len() >= SLAB_MIN => {
                let data = block.data();
                let mut copy = Owned::zeroed(data.len(), block.win.offset + block.at.start as u64, true)?;
                copy.bytes_mut().copy_from_slice(data);
                self.stats.bytes_held += copy.capacity() as u64;
                Bytes::Shared(Arc::new(copy), 0..data.len())
            }
            Store::Owned(_) => {
                let (v, at) = crate::mem::copy_block(block.data());
                self.stats.bytes_held += v.capacity() as u64;
                Bytes::Owned(v, at)
            }
        })
    }

    /// The window holding `r`, a filter window when `filters`.
    fn find(&self, r: &Range<u64>, filters: bool) -> Option<usize> {
        self.windows.iter().position(|w| (w.filters || !filters) && w.covers(r))
    }

    /// Reads `r` (within the file) into a new window, in one call.
    fn read(&mut self, r: Range<u64>, filters: bool) -> Result<usize> {
        let Origin::Read(src) = &self.origin else {
            // Memory and mapped files are one window holding everything.
            return Err(Error::corruption(format!(
                "offsets {}..{} lie outside the file ({} bytes)",
                r.start, r.end, self.len
            )));
        };
        if r.end > self.len || r.start > r.end {
            return Err(Error::corruption(format!(
                "offsets {}..{} lie outside the file ({} bytes)",
                r.start, r.end, self.len
            )));
        }
        let n = usize::try_from(r.end - r.start)
            .map_err(|_| Error::invalid(format!("a read of {} bytes does not fit in memory", r.end - r.start)))?;
        let mut buf = Owned::zeroed(n, r.start, filters)?;
        src.read_exact_at(r.start, buf.bytes_mut())
            .map_err(|e| Error::new(ErrorKind::Io, format!("read of {n} bytes at offset {} failed: {e}", r.start)))?;
        self.stats.reads += 1;
        self.stats.bytes_read += n as u64;
        // A source whose bytes change between reads (a file rewritten while
        // being opened) must not mix two versions in one handle.
        for w in &self.windows {
            let (lo, hi) = (r.start.max(w.offset), r.end.min(w.offset + w.bytes().len() as u64));
            if lo < hi
                && buf.as_ref()[(lo - r.start) as usize..(hi - r.start) as usize] != w.bytes()[w.local(&(lo..hi))]
            {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!(
                        "the file changed while it was opened: offsets {lo}..{hi} read differently the second time"
                    ),
                ));
            }
        }
        self.windows.push(Window { offset: r.start, store: Store::Owned(Arc::new(buf)), filters });
        Ok(self.windows.len() - 1)
    }
}
