//! Filter blocks read when a query needs them, into a shared
//! [`FilterCache`], through the source the handle keeps: RocksDB's
//! partitioned filters with `cache_index_and_filter_blocks = true` and
//! `pin_top_level_index_and_filter = true` (the handle keeps the top-level
//! index, the block cache the partitions), and, when asked, whole full
//! filters.
//!
//! This is the one place a source is read after open. A read that fails,
//! or a file that is no longer the one opened, answers "may match" for that
//! query and caches nothing (`read_errors`); a block that reads but is not
//! a filter RocksDB would use (bad checksum, bad geometry) is cached as
//! "may match" (`bad_blocks`), as RocksDB answers for a partition it cannot
//! read.

use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::format::{block_end, verify_block, BlockHandle, Footer, BLOCK_TRAILER_LEN};
use super::source::Source;
use crate::cache::{Count, FilterCache, Held, Slot};
use crate::files::FilePool;
use crate::filter::{Bytes, Filter};

/// The source a handle with a cache keeps, to read blocks after open.
pub(crate) enum Kept {
    /// A file by path: opened again at its first miss (and checked to be
    /// the file opened: same device, inode and length) and kept open in the
    /// cache's [`FilePool`], which holds a bounded number of files for all
    /// its handles (reopened when evicted).
    Path { path: PathBuf, len: u64, identity: Option<(u64, u64)> },
    /// The caller's source (the C ABI's callback, Go's `io.ReaderAt`, a
    /// Rust `Arc<dyn Source>`), called from any querying thread.
    Shared(Arc<dyn Source + Send + Sync>),
}

impl Kept {
    /// The kept form of the file `file` opened at `path`.
    pub(crate) fn path(path: PathBuf, file: &File) -> std::io::Result<Kept> {
        let m = file.metadata()?;
        Ok(Kept::Path { path, len: m.len(), identity: identity(&m) })
    }

    /// Reads `buf.len()` bytes at `offset`; `file`: the file this query
    /// got already, if any; `pool` and `id`: where a path's open file is
    /// kept, under this handle's id.
    fn read(
        &self,
        offset: u64,
        buf: &mut [u8],
        file: &mut Option<Arc<File>>,
        pool: &FilePool,
        id: u64,
    ) -> Result<(), String> {
        match self {
            Kept::Shared(src) => src.read_exact_at(offset, buf).map_err(|e| e.to_string()),
            Kept::Path { path, len, identity: id0 } => {
                let f = match file {
                    Some(f) => f,
                    None => file.insert(pool.get(id, || {
                        let f = super::source::open_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
                        let m = f.metadata().map_err(|e| format!("{}: {e}", path.display()))?;
                        if m.len() != *len || identity(&m) != *id0 {
                            return Err(format!(
                                "{}: the file is no longer the one opened (length {} then {}, or replaced)",
                                path.display(),
                                len,
                                m.len()
                            ));
                        }
                        Ok(f)
                    })?),
                };
                Source::read_exact_at(&**f, offset, buf).map_err(|e| format!("{}: {e}", path.display()))
            }
        }
    }
}

#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What opening with a cache needs to set blocks up for on-demand reads.
#[derive(Clone)]
pub(crate) struct Keep {
    pub(crate) cache: FilterCache,
    pub(crate) src: Arc<Kept>,
    /// Whole full filters are cached too (not only partitions).
    pub(crate) full_filters: bool,
}

/// Filter blocks of one handle, read on demand into the cache.
pub(crate) struct OnDemand {
    cache: FilterCache,
    /// Distinguishes this handle's slots in the cache's shards.
    id: u64,
    src: Arc<Kept>,
    footer: Footer,
    verify: bool,
    /// Each block's handle; None: out of the file's bounds (known at open),
    /// so it answers "may match".
    blocks: Box<[Option<BlockHandle>]>,
    slots: Box<[Slot]>,
    what: &'static str,
}

impl std::fmt::Debug for OnDemand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} blocks read on demand into a cache", self.blocks.len(), self.what)
    }
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl OnDemand {
    /// Blocks at `blocks` of the file `footer` ends (`what`: for messages).
    /// Handles outside the file answer "may match".
    pub(crate) fn new(
        keep: &Keep,
        footer: &Footer,
        verify: bool,
        blocks: &[BlockHandle],
        what: &'static str,
    ) -> OnDemand {
        let blocks = blocks.iter().map(|&h| block_end(footer, h, what).ok().map(|_| h)).collect();
        OnDemand::assemble(keep.cache.clone(), keep.src.clone(), *footer, verify, blocks, what)
    }

    fn assemble(
        cache: FilterCache,
        src: Arc<Kept>,
        footer: Footer,
        verify: bool,
        blocks: Box<[Option<BlockHandle>]>,
        what: &'static str,
    ) -> OnDemand {
        let slots = blocks.iter().map(|_| Slot::default()).collect();
        OnDemand { cache, id: next_id(), src, footer, verify, blocks, slots, what }
    }

    /// Heap bytes this handle keeps for its blocks: their handles and
    /// slots (the blocks' bytes are the cache's).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.blocks.len() * std::mem::size_of::<Option<BlockHandle>>() + self.slots.len() * std::mem::size_of::<Slot>()
    }

    /// Number of blocks.
    pub(crate) fn len(&self) -> usize {
        self.blocks.len()
    }

    /// The cache the blocks go to.
    pub(crate) fn cache(&self) -> &FilterCache {
        &self.cache
    }

    /// Blocks whose handles lie outside the file, with why.
    pub(crate) fn out_of_bounds(&self) -> impl Iterator<Item = String> + '_ {
        self.blocks.iter().filter(|b| b.is_none()).map(move |_| format!("a {} handle lies outside the file", self.what))
    }

    fn key(&self, i: usize) -> u64 {
        (self.id << 32) ^ i as u64
    }

    /// Block `i` for one query: pinned from the cache (a hit), or read
    /// through the source and cached (a miss). `file`: the file this query
    /// or batch opened, kept for its further misses.
    pub(crate) fn hold(&self, i: usize, file: &mut Option<Arc<File>>) -> Held<'_> {
        let slot = &self.slots[i];
        if let Some(p) = self.cache.pin(slot) {
            self.cache.count(Count::Hit);
            return Held::Pinned(p);
        }
        self.cache.count(Count::Miss);
        let Some(h) = self.blocks[i] else { return Held::Transient(Filter::always_true()) };
        match self.fetch(h, i, file) {
            Ok(Ok(held)) => held,
            Ok(Err(_bad)) => {
                // RocksDB answers "may match" for a partition it cannot
                // read; cached as such so it is not read again.
                self.cache.count(Count::BadBlock);
                self.cache.insert(self.key(i), slot, Filter::always_true())
            }
            Err(_io) => {
                self.cache.count(Count::ReadError);
                Held::Transient(Filter::always_true())
            }
        }
    }

    /// [`OnDemand::hold`] for one query's use.
    pub(crate) fn with<R>(&self, i: usize, f: impl FnOnce(&Filter<'static>) -> R) -> R {
        let mut file = None;
        let held = self.hold(i, &mut file);
        f(held.filter())
    }

    /// Reads block `h` (block `i`) into the cache: straight into the place
    /// it reserves there, or, when the cache has no room (every entry
    /// pinned, or the block larger than a shard), into a buffer of this
    /// query's, used once. Ok(Ok(held)); Ok(Err(why)): not a block RocksDB
    /// would use; Err(why): the read failed.
    fn fetch(
        &self,
        h: BlockHandle,
        i: usize,
        file: &mut Option<Arc<File>>,
    ) -> Result<Result<Held<'_>, String>, String> {
        let n = match block_end(&self.footer, h, self.what) {
            Ok(end) => end - h.offset as usize,
            Err(e) => return Ok(Err(e.message().to_string())),
        };
        let Some(mut r) = self.cache.reserve(self.key(i), n) else {
            return Ok(self.load(h, n, file)?.map(|f| self.cache.uncached(f)));
        };
        if let Err(bad) = self.read_block(h, r.bytes_mut(), file)? {
            return Ok(Err(bad));
        }
        Ok(self.cache.publish(r, &self.slots[i], n - BLOCK_TRAILER_LEN))
    }

    /// Reads block `h` and its trailer into `buf` (exactly their length)
    /// and verifies them. Ok(Ok(())); Ok(Err(why)): the bytes are not a
    /// block RocksDB would use; Err(why): the read failed.
    fn read_block(
        &self,
        h: BlockHandle,
        buf: &mut [u8],
        file: &mut Option<Arc<File>>,
    ) -> Result<Result<(), String>, String> {
        let n = buf.len();
        self.src
            .read(h.offset, buf, file, self.cache.files(), self.id)
            .map_err(|e| format!("read of {n} bytes at offset {} failed: {e}", h.offset))?;
        self.cache.count(Count::Read(n as u64));
        if self.verify {
            if let Err(e) = verify_block(buf, &self.footer, h, self.what, None) {
                return Ok(Err(e.message().to_string()));
            }
        }
        Ok(Ok(()))
    }

    /// Reads block `h` (`n` bytes with its trailer) into an aligned buffer
    /// of its own and loads it, for the query to use uncached. Results as
    /// [`OnDemand::read_block`]'s.
    fn load(
        &self,
        h: BlockHandle,
        n: usize,
        file: &mut Option<Arc<File>>,
    ) -> Result<Result<Filter<'static>, String>, String> {
        let Some((mut v, at)) = crate::mem::zeroed_block(n) else {
            return Err(format!("cannot allocate {n} bytes for the {} at offset {}", self.what, h.offset));
        };
        if let Err(bad) = self.read_block(h, &mut v[at..], file)? {
            return Ok(Err(bad));
        }
        v.truncate(at + n - BLOCK_TRAILER_LEN);
        Ok(Filter::from_held(Bytes::Owned(v, at)).map_err(|e| e.message().to_string()))
    }
}

impl Clone for OnDemand {
    /// A handle of its own on the same blocks, source and cache (nothing
    /// cached yet).
    fn clone(&self) -> Self {
        OnDemand::assemble(
            self.cache.clone(),
            self.src.clone(),
            self.footer,
            self.verify,
            self.blocks.clone(),
            self.what,
        )
    }
}

impl Drop for OnDemand {
    fn drop(&mut self) {
        for (i, slot) in self.slots.iter().enumerate() {
            self.cache.forget(self.key(i), slot);
        }
        if matches!(*self.src, Kept::Path { .. }) {
            self.cache.files().forget(self.id);
        }
    }
}
