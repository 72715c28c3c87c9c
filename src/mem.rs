//! Page pre-faulting for the builders' large buffers, and transparent huge
//! pages for the large buffers the library owns.
//!
//! A build writes every page of its hash buffer and (for Bloom at useful
//! bits/key) every page of its bit array. Left to demand paging, each 4 KiB
//! page costs one page-fault exception on first touch, and in a virtual
//! machine an exception costs microseconds: at 1,000,000 keys the 8 MB hash
//! buffer and the 1.25 MB filter take ~2,300 faults, more time than hashing
//! the keys. `madvise(MADV_POPULATE_WRITE)` (Linux 5.14+) maps the same
//! pages in one system call per region, with no exception per page.
//!
//! It is only advice: contents are unchanged (fresh pages read as zero,
//! resident ones are untouched) and on failure (older kernel, no memory to
//! populate now) the pages are simply faulted on first touch as before.
//! Only memory the caller is about to write is populated, so resident
//! memory never exceeds what the build would touch anyway.
//!
//! Huge pages: a query touches one random cache line of the filter, so on a
//! filter much larger than the TLB's reach (1,536 entries of 4 KiB pages,
//! 6 MiB, on Zen 3's L2 TLB) nearly every query also misses the TLB and
//! walks the page table. `madvise(MADV_HUGEPAGE)` asks the kernel to back
//! the buffer with 2 MiB pages, which cover 3 GiB with the same TLB entries
//! (BENCHMARKS.md, "Large filters": measured before and after at 100M
//! keys). It applies to buffers of at least [`HUGE_MIN_BYTES`] the library
//! allocates and is about to fill: blocks it builds, blocks it copies at
//! load, Ribbon's banding rows. Only the 2 MiB-aligned interior is advised,
//! so no page beyond the buffer's own is ever made resident. It is advice
//! too: with THP off (`/sys/kernel/mm/transparent_hugepage/enabled` =
//! never) nothing changes. `ROCKSFILTER_NO_HUGEPAGES=1` in the environment
//! (read once per process) turns it off, for measuring what it buys.

/// Buffers below this get no huge-page advice: two 2 MiB pages at least,
/// and below a few MiB the 4 KiB pages' TLB misses cost little anyway.
#[cfg(all(target_os = "linux", not(miri)))]
const HUGE_MIN_BYTES: usize = 4 << 20;

/// Whether huge-page advice is on (not `ROCKSFILTER_NO_HUGEPAGES=1`).
#[cfg(all(target_os = "linux", not(miri)))]
fn huge_pages_wanted() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    // 0 = not read yet, 1 = on, 2 = off.
    static STATE: AtomicU8 = AtomicU8::new(0);
    match STATE.load(Ordering::Relaxed) {
        0 => {
            let off = std::env::var_os("ROCKSFILTER_NO_HUGEPAGES").is_some_and(|v| v != "0");
            STATE.store(if off { 2 } else { 1 }, Ordering::Relaxed);
            !off
        }
        v => v == 1,
    }
}

/// Advises transparent huge pages for the 2 MiB-aligned interior of
/// `ptr..ptr + len`, memory owned by the caller that nothing has touched
/// yet (the kernel backs pages with huge pages as they are first faulted).
#[inline]
pub(crate) fn advise_huge(ptr: *const u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const HUGE: usize = 2 << 20;
        if len < HUGE_MIN_BYTES || !huge_pages_wanted() {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) & !(HUGE - 1);
        if end > start {
            // SAFETY: as for MADV_POPULATE_WRITE below: advice on a range
            // inside an allocation the caller owns; contents are unchanged.
            // Errors (THP compiled out, unsupported) are ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (ptr, len);
}

/// A copy of a block that queries will read: in a vector, starting at the
/// returned offset, which is 64-byte aligned (so each of a FastLocalBloom
/// block's lines is one cache line: a query touches one line, not two),
/// and advised for huge pages when large. Costs at most 63 bytes of slack.
pub(crate) fn copy_block(bytes: &[u8]) -> (Vec<u8>, usize) {
    const ALIGN: usize = 64;
    let mut v = Vec::with_capacity(bytes.len() + ALIGN - 1);
    let at = (v.as_ptr() as usize).next_multiple_of(ALIGN) - v.as_ptr() as usize;
    advise_huge(v.as_ptr(), bytes.len() + at);
    v.resize(at, 0);
    v.extend_from_slice(bytes);
    (v, at)
}

/// A zeroed buffer of `len` bytes that the library reads a file's blocks
/// into: in a vector, from the returned offset on, 64-byte aligned as
/// [`copy_block`]'s, and advised for huge pages when large. None when the
/// memory cannot be had (the allocation is fallible: a source that claims
/// to be huge must not abort the host).
pub(crate) fn zeroed_block(len: usize) -> Option<(Vec<u8>, usize)> {
    const ALIGN: usize = 64;
    let mut v = Vec::new();
    v.try_reserve_exact(len.checked_add(ALIGN - 1)?).ok()?;
    let at = (v.as_ptr() as usize).next_multiple_of(ALIGN) - v.as_ptr() as usize;
    advise_huge(v.as_ptr(), len + at);
    v.resize(at + len, 0);
    Some((v, at))
}

/// Pre-faults the whole pages inside `ptr..ptr + len`, memory owned by the
/// caller that it is about to write (advised for huge pages first, when
/// large).
#[inline]
pub(crate) fn populate_write(ptr: *const u8, len: usize) {
    advise_huge(ptr, len);
    // (Miri cannot run system calls; the advice changes nothing it checks.)
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // Regions smaller than this are not worth a system call.
        const MIN_BYTES: usize = 64 * 1024;
        if len < MIN_BYTES {
            return;
        }
        // 4 KiB pages; where pages are larger, madvise refuses the
        // unaligned range (EINVAL) and the advice is simply skipped.
        const PAGE: usize = 4096;
        let start = (ptr as usize + PAGE - 1) & !(PAGE - 1);
        let end = (ptr as usize + len) & !(PAGE - 1);
        if end > start {
            // SAFETY: madvise only takes an address range and cannot touch
            // Rust-visible memory semantics: MADV_POPULATE_WRITE faults in
            // pages of this range (which lies inside an allocation the
            // caller owns) as if written with their current contents.
            // Errors are ignored (the advice is optional).
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_POPULATE_WRITE);
            }
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (ptr, len);
}

/// [`populate_write`] over a vector's spare capacity: the memory its next
/// pushes (or a `resize`) will write.
#[inline]
pub(crate) fn populate_spare<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    populate_write(spare.as_ptr() as *const u8, std::mem::size_of_val(spare));
}
