//! The open files a filter cache keeps for the handles that share it,
//! bounded and least recently used first. It knows files and handle ids
//! only: the SST reader (`sst::ondemand`) says what a handle's file is and
//! how to open it, the cache (`cache.rs`) owns one pool.

use std::collections::HashMap;
use std::fs::File;
use std::sync::{Arc, Mutex};

/// The files that handles opened by path with a cache keep open between
/// queries: at most `max` for all of the cache's handles, the least
/// recently used closed first (RocksDB's table cache with
/// `max_open_files` plays this part). Reopening costs an `open` and an
/// `fstat` (about 4 us here, against 1 us for the 4 KiB read itself); 0
/// keeps none (every query that misses opens its file). A file in use by a
/// query when it is closed here stays open until that query ends, so at
/// most `max` plus one per querying thread are open.
pub(crate) struct FilePool {
    max: usize,
    inner: Mutex<PoolInner>,
}

#[derive(Default)]
struct PoolInner {
    /// Handle id -> its file and when it was last used.
    files: HashMap<u64, (Arc<File>, u64)>,
    tick: u64,
}

impl FilePool {
    pub(crate) fn new(max: usize) -> FilePool {
        FilePool { max, inner: Mutex::new(PoolInner::default()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Handle `id`'s file: the pool's, or `open`ed (outside the lock) and kept.
    pub(crate) fn get(&self, id: u64, open: impl FnOnce() -> Result<File, String>) -> Result<Arc<File>, String> {
        if self.max == 0 {
            return open().map(Arc::new);
        }
        if let Some(f) = self.touch(&mut self.lock(), id) {
            return Ok(f);
        }
        let f = Arc::new(open()?);
        let mut g = self.lock();
        // Opened by another query of the same handle meanwhile: use that one.
        if let Some(kept) = self.touch(&mut g, id) {
            return Ok(kept);
        }
        if g.files.len() >= self.max {
            if let Some(&oldest) = g.files.iter().min_by_key(|(_, (_, t))| *t).map(|(k, _)| k) {
                g.files.remove(&oldest);
            }
        }
        g.tick += 1;
        let t = g.tick;
        g.files.insert(id, (f.clone(), t));
        Ok(f)
    }

    fn touch(&self, g: &mut PoolInner, id: u64) -> Option<Arc<File>> {
        g.tick += 1;
        let t = g.tick;
        g.files.get_mut(&id).map(|(f, last)| {
            *last = t;
            f.clone()
        })
    }

    /// Closes handle `id`'s file (the handle is gone).
    pub(crate) fn forget(&self, id: u64) {
        if self.max > 0 {
            self.lock().files.remove(&id);
        }
    }

    /// Files open now.
    pub(crate) fn open_files(&self) -> usize {
        self.lock().files.len()
    }
}
