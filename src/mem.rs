//! Page pre-faulting for the builders' large buffers.
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

/// Pre-faults the whole pages inside `ptr..ptr + len`, memory owned by the
/// caller that it is about to write.
#[inline]
pub(crate) fn populate_write(ptr: *const u8, len: usize) {
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
