//! Slabs for the filter bytes that SST handles keep: buffers of 64 KiB to
//! 4 MiB carved out of shared 32 MiB chunks, so that a handle never costs
//! the process a kernel mapping of its own.
//!
//! Why: glibc's `malloc` serves each allocation of 128 KiB or more
//! (`M_MMAP_THRESHOLD`, raised dynamically after the first such free, up
//! to 32 MiB, unless the host fixed it) with an `mmap` of its own. Adjacent
//! mappings merge, but closing every other handle leaves one hole, and one
//! more mapping, per handle closed; Linux allows 65,530 per process
//! (`vm.max_map_count`), shared with everything else the host maps, so an
//! engine holding 100,000 SST handles whose filters are ~200 KB (a 16 MB
//! file at 10 bits/key) would run out. Here 100,000 such filters take 625
//! chunks, whatever the order they are freed in.
//!
//! Placement is first fit over free extents kept per chunk, in 4 KiB
//! pages (at most 4 KiB of slack per buffer, 2% of a 200 KB filter);
//! freed extents merge with their free neighbours, and a chunk that
//! becomes wholly free is returned to the system, except one kept for the
//! next open (so that opening and closing one handle in a loop does not
//! map and unmap 32 MiB each time). Chunks are anonymous mappings (`mmap`,
//! `VirtualAlloc` on Windows: zero pages that cost nothing until written;
//! not `alloc_zeroed`, which
//! for a page-aligned layout memsets all 32 MiB), so every byte of a
//! buffer is initialised memory, possibly a previous buffer's.
//! Buffers below 64 KiB come from `malloc`'s heap anyway; from 4 MiB on,
//! each is its own allocation (advised for huge pages, as before): a
//! process cannot hold 65,530 of those.

use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Smallest buffer placed in a chunk.
pub(crate) const SLAB_MIN: usize = 64 << 10;
/// Buffers from this size on are allocations of their own.
pub(crate) const SLAB_MAX: usize = 4 << 20;
const CHUNK: usize = 32 << 20;
pub(crate) const PAGE: usize = 4096;

struct Chunk {
    base: NonNull<u8>,
    extents: Extents,
}

/// The free extents of a range of pages, placed first fit, freed extents
/// merged with their free neighbours: the slabs' chunks and the filter
/// cache's arenas ([`crate::arena`]) both place their pages with it.
pub(crate) struct Extents {
    /// Free extents: start page -> pages.
    free: BTreeMap<usize, usize>,
    used: usize,
}

/// A freed extent after merging: the free extent it is now part of
/// (`start`, `pages`), and how many of those pages were free already
/// before and after it (`before`, `after`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Merged {
    pub(crate) start: usize,
    pub(crate) pages: usize,
    pub(crate) before: usize,
    pub(crate) after: usize,
}

impl Extents {
    /// `pages` pages, all free.
    pub(crate) fn new(pages: usize) -> Extents {
        let free = if pages == 0 { BTreeMap::new() } else { BTreeMap::from([(0, pages)]) };
        Extents { free, used: 0 }
    }

    /// First fit of `pages`: the first page of the extent taken.
    pub(crate) fn take(&mut self, pages: usize) -> Option<usize> {
        let (&start, &n) = self.free.iter().find(|(_, &n)| n >= pages)?;
        self.free.remove(&start);
        if n > pages {
            self.free.insert(start + pages, n - pages);
        }
        self.used += pages;
        Some(start)
    }

    /// Frees `pages` pages from `start` (taken before), merging them with
    /// the free extents on either side.
    pub(crate) fn give(&mut self, start: usize, pages: usize) -> Merged {
        let (mut at, mut n, mut before) = (start, pages, 0);
        if let Some((&s, &m)) = self.free.range(..start).next_back() {
            if s + m == start {
                self.free.remove(&s);
                (at, n, before) = (s, n + m, m);
            }
        }
        let after = self.free.remove(&(start + pages)).unwrap_or(0);
        n += after;
        self.free.insert(at, n);
        self.used -= pages;
        Merged { start: at, pages: n, before, after }
    }

    /// Pages taken now.
    pub(crate) fn used(&self) -> usize {
        self.used
    }
}

// SAFETY: a chunk is only an address range owned by the pool; its bytes
// are accessed through the buffers, never through the pool.
unsafe impl Send for Chunk {}

/// The chunks in use, and at most one wholly free chunk kept for reuse.
struct Pool {
    chunks: Vec<Chunk>,
    spare: Option<NonNull<u8>>,
}

// SAFETY: as for Chunk: the spare is an address range only the pool owns.
unsafe impl Send for Pool {}

static POOL: Mutex<Pool> = Mutex::new(Pool { chunks: Vec::new(), spare: None });

/// The two kernel32 calls a chunk needs on Windows (kernel32 is linked by
/// every Rust program there; the libc crate does not declare these).
#[cfg(all(windows, not(miri)))]
mod win {
    use std::ffi::c_void;
    pub(super) const MEM_COMMIT: u32 = 0x1000;
    pub(super) const MEM_RESERVE: u32 = 0x2000;
    pub(super) const MEM_RELEASE: u32 = 0x8000;
    pub(super) const PAGE_READWRITE: u32 = 0x04;
    #[link(name = "kernel32")]
    extern "system" {
        pub(super) fn VirtualAlloc(address: *mut c_void, size: usize, kind: u32, protect: u32) -> *mut c_void;
        pub(super) fn VirtualFree(address: *mut c_void, size: usize, kind: u32) -> i32;
    }
}

/// A new zeroed chunk of CHUNK bytes.
fn map_chunk() -> Option<NonNull<u8>> {
    map_pages(CHUNK)
}

/// `len` bytes (whole pages) of zero pages that cost no memory until
/// written, at an address the system picks: an anonymous mapping (Linux:
/// not counted against overcommit, so that a large cache's reservation
/// that is never filled costs nothing), `VirtualAlloc` on Windows, the
/// heap elsewhere.
pub(crate) fn map_pages(len: usize) -> Option<NonNull<u8>> {
    #[cfg(all(unix, not(miri)))]
    {
        // SAFETY: an anonymous private mapping at an address the kernel
        // picks; it aliases nothing.
        #[cfg(target_os = "linux")]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        #[cfg(not(target_os = "linux"))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: as above, `len` bytes.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
        if p == libc::MAP_FAILED {
            return None;
        }
        NonNull::new(p.cast())
    }
    #[cfg(all(windows, not(miri)))]
    {
        // SAFETY: reserves and commits CHUNK bytes of zero pages at an
        // address the system picks (as mmap above: no page costs memory
        // until written); it aliases nothing.
        let p = unsafe {
            win::VirtualAlloc(std::ptr::null_mut(), len, win::MEM_RESERVE | win::MEM_COMMIT, win::PAGE_READWRITE)
        };
        NonNull::new(p.cast())
    }
    #[cfg(not(any(all(unix, not(miri)), all(windows, not(miri)))))]
    {
        if len == 0 {
            return None;
        }
        // SAFETY: the layout has a non-zero size.
        NonNull::new(unsafe { std::alloc::alloc_zeroed(pages_layout(len)?) })
    }
}

/// Returns a chunk from `map_chunk` that no buffer uses any more.
fn unmap_chunk(base: NonNull<u8>) {
    unmap_pages(base, CHUNK)
}

/// Returns `len` bytes from [`map_pages`] that nothing uses any more.
pub(crate) fn unmap_pages(base: NonNull<u8>, len: usize) {
    #[cfg(all(unix, not(miri)))]
    // SAFETY: base..base + len is a mapping map_pages made, unused now.
    unsafe {
        libc::munmap(base.as_ptr().cast(), len);
    }
    #[cfg(all(windows, not(miri)))]
    // SAFETY: base is the start of a region map_pages reserved, unused now;
    // MEM_RELEASE takes size 0 and frees the whole reservation.
    unsafe {
        let _ = len;
        win::VirtualFree(base.as_ptr().cast(), 0, win::MEM_RELEASE);
    }
    #[cfg(not(any(all(unix, not(miri)), all(windows, not(miri)))))]
    if let Some(layout) = pages_layout(len) {
        // SAFETY: the pages came from alloc_zeroed with this layout.
        unsafe { std::alloc::dealloc(base.as_ptr(), layout) }
    }
}

/// Gives the memory of whole pages inside `ptr..ptr + len` (part of a
/// [`map_pages`] region, unused now) back to the system; they read as
/// zero when next touched. Linux: `MADV_DONTNEED`, which lowers the
/// resident set at once (`MADV_FREE` only when the system runs short of
/// memory, so RSS would not follow). Elsewhere nothing: the pages stay
/// resident and are reused.
pub(crate) fn release_pages(ptr: *mut u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    // SAFETY: the range lies in a private anonymous mapping the caller owns
    // and no longer uses; MADV_DONTNEED only drops its pages.
    unsafe {
        libc::madvise(ptr.cast(), len, libc::MADV_DONTNEED);
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (ptr, len);
}

#[cfg(not(any(all(unix, not(miri)), all(windows, not(miri)))))]
fn pages_layout(len: usize) -> Option<std::alloc::Layout> {
    std::alloc::Layout::from_size_align(len, PAGE).ok()
}

/// A buffer in a chunk, exclusively owned; freed on drop.
pub(crate) struct SlabBuf {
    ptr: NonNull<u8>,
    len: usize,
    pages: usize,
}

// SAFETY: the buffer's bytes are owned by this value alone (the pool hands
// each extent to one buffer) and plain bytes: sending or sharing it is
// sending or sharing a `Box<[u8]>`.
unsafe impl Send for SlabBuf {}
unsafe impl Sync for SlabBuf {}

impl SlabBuf {
    /// A buffer of `len` bytes (`SLAB_MIN <= len < SLAB_MAX`), page
    /// aligned; its contents are unspecified (but initialised). None when
    /// no chunk can be had.
    pub(crate) fn new(len: usize) -> Option<SlabBuf> {
        debug_assert!((SLAB_MIN..SLAB_MAX).contains(&len));
        let pages = len.div_ceil(PAGE);
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let found = pool.chunks.iter_mut().find_map(|c| take(c, pages));
        let start = match found {
            Some(s) => s,
            None => {
                let base = match pool.spare.take() {
                    Some(b) => b,
                    None => map_chunk()?,
                };
                let mut c = Chunk { base, extents: Extents::new(CHUNK / PAGE) };
                let s = take(&mut c, pages).expect("a new chunk holds any slab buffer");
                pool.chunks.push(c);
                s
            }
        };
        Some(SlabBuf { ptr: start, len, pages })
    }

    /// The bytes, how many pages they occupy included.
    pub(crate) fn capacity(&self) -> usize {
        self.pages * PAGE
    }
}

/// First fit of `pages` in `c`: the address of the extent taken.
fn take(c: &mut Chunk, pages: usize) -> Option<NonNull<u8>> {
    let start = c.extents.take(pages)?;
    // SAFETY: start + pages <= CHUNK / PAGE: the offset lies in the chunk.
    Some(unsafe { c.base.add(start * PAGE) })
}

impl Drop for SlabBuf {
    fn drop(&mut self) {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let addr = self.ptr.as_ptr() as usize;
        let Some(i) = pool
            .chunks
            .iter()
            .position(|c| (c.base.as_ptr() as usize..c.base.as_ptr() as usize + CHUNK).contains(&addr))
        else {
            debug_assert!(false, "a slab buffer outside every chunk");
            return;
        };
        let c = &mut pool.chunks[i];
        c.extents.give((addr - c.base.as_ptr() as usize) / PAGE, self.pages);
        if c.extents.used() == 0 {
            let c = pool.chunks.swap_remove(i);
            match pool.spare {
                None => pool.spare = Some(c.base),
                Some(_) => unmap_chunk(c.base),
            }
        }
    }
}

impl AsRef<[u8]> for SlabBuf {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: ptr..ptr + len lies in a live chunk (a chunk is freed only
        // once no buffer is in it), is initialised (chunks are zeroed when
        // made) and is this buffer's alone.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl AsMut<[u8]> for SlabBuf {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: as for as_ref; &mut self makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// Chunks in use now (for tests of the bound; the spare is not counted).
#[doc(hidden)]
pub fn slab_chunks() -> usize {
    POOL.lock().unwrap_or_else(|e| e.into_inner()).chunks.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_share_chunks_and_chunks_are_returned() {
        let before = slab_chunks();
        let mut bufs: Vec<SlabBuf> = (0..300).map(|i| SlabBuf::new(SLAB_MIN + i * 1000).unwrap()).collect();
        for (i, b) in bufs.iter_mut().enumerate() {
            b.as_mut().fill(i as u8);
        }
        // 300 buffers of 64 to 364 KB: about 64 MB, in 2 to 4 chunks.
        assert!(slab_chunks() - before <= 4, "{} chunks", slab_chunks() - before);
        for (i, b) in bufs.iter().enumerate() {
            assert!(b.as_ref().iter().all(|&x| x == i as u8), "buffer {i} was overwritten");
            assert_eq!(b.as_ref().as_ptr() as usize % PAGE, 0);
        }
        // Free every other, then refill the holes: no new chunk.
        let n = slab_chunks();
        let mut i = 0;
        bufs.retain(|_| {
            i += 1;
            i % 2 == 0
        });
        let refill: Vec<SlabBuf> = (0..150).map(|_| SlabBuf::new(SLAB_MIN).unwrap()).collect();
        assert!(slab_chunks() <= n);
        drop(refill);
        drop(bufs);
        assert!(slab_chunks() <= before, "chunks left after every buffer was freed");
    }
}
