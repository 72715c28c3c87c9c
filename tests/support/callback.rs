//! SST files opened through the C ABI's callback source
//! (`rocksfilter_sst_open_source`), so that the suites which judge files by
//! RocksDB's answers also check the callback path: same answers as the
//! default path open, and the number of reads an open makes.

#![allow(dead_code)]

use std::ffi::{c_int, c_void, CStr};
use std::fs::File;
use std::path::Path;
use std::ptr::{null_mut, NonNull};

use rocksfilter::internal_ffi::*;
// Positional reads of a File on every platform (pread, or seek_read on
// Windows).
use rocksfilter::sst::Source;

/// What the callback reads from, and what it saw.
pub struct Ctx<'a> {
    pub read: &'a dyn Fn(u64, &mut [u8]) -> c_int,
    pub calls: u64,
    pub bytes: u64,
}

unsafe extern "C" fn read_at(ctx: *mut c_void, offset: u64, dst: *mut u8, len: usize) -> c_int {
    // SAFETY: ctx is the &mut Ctx passed to open_with below, alive for the
    // whole open; dst is writable for len bytes (the library's contract).
    let ctx = unsafe { &mut *(ctx as *mut Ctx) };
    ctx.calls += 1;
    ctx.bytes += len as u64;
    let dst = unsafe { std::slice::from_raw_parts_mut(dst, len) };
    (ctx.read)(offset, dst)
}

/// An open handle (freed on drop).
pub struct CallbackSst {
    ptr: NonNull<rocksfilter_sst>,
    /// read_at calls the open made.
    pub calls: u64,
}

// SAFETY: a rocksfilter_sst may be queried from any thread (header contract).
unsafe impl Send for CallbackSst {}
unsafe impl Sync for CallbackSst {}

impl Drop for CallbackSst {
    fn drop(&mut self) {
        unsafe { rocksfilter_sst_free(self.ptr.as_ptr()) }
    }
}

/// Opens a file of `size` bytes whose reads `read` serves. Err: the status
/// and the message; `calls` counts the callback's calls either way.
pub fn open_with(
    size: u64,
    flags: u32,
    read: &dyn Fn(u64, &mut [u8]) -> c_int,
) -> (Result<CallbackSst, (u32, String)>, u64) {
    let mut ctx = Ctx { read, calls: 0, bytes: 0 };
    let src = rocksfilter_source {
        struct_size: std::mem::size_of::<rocksfilter_source>(),
        size,
        ctx: &mut ctx as *mut Ctx as *mut c_void,
        read_at: Some(read_at),
        release: None,
    };
    let mut out = null_mut();
    let mut err = null_mut();
    let st = unsafe { rocksfilter_sst_open_source(&src, flags, &mut out, &mut err) };
    let calls = ctx.calls;
    if st != ROCKSFILTER_OK {
        assert!(out.is_null(), "a failed open returned a handle");
        let msg = if err.is_null() {
            String::new()
        } else {
            let m = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
            unsafe { rocksfilter_string_free(err) };
            m
        };
        return (Err((st, msg)), calls);
    }
    (Ok(CallbackSst { ptr: NonNull::new(out).expect("handle"), calls }), calls)
}

/// Opens `bytes` through the callback (reads are copies out of it).
pub fn open_bytes(bytes: &[u8]) -> Result<CallbackSst, (u32, String)> {
    let read = |off: u64, dst: &mut [u8]| match bytes.get(off as usize..off as usize + dst.len()) {
        Some(src) => {
            dst.copy_from_slice(src);
            0
        }
        None => -1,
    };
    open_with(bytes.len() as u64, 0, &read).0
}

/// Opens the file at `path` through the callback (pread).
pub fn open_path(path: &Path) -> Result<CallbackSst, (u32, String)> {
    let file = File::open(path).map_err(|e| (ROCKSFILTER_IO_ERROR, e.to_string()))?;
    let size = file.metadata().unwrap().len();
    let read = |off: u64, dst: &mut [u8]| match Source::read_exact_at(&file, off, dst) {
        Ok(()) => 0,
        Err(e) => e.raw_os_error().unwrap_or(-1),
    };
    open_with(size, 0, &read).0
}

impl CallbackSst {
    pub fn may_match(&self, key: &[u8]) -> bool {
        unsafe { rocksfilter_sst_may_match(self.ptr.as_ptr(), key.as_ptr(), key.len()) }
    }

    /// Ok(answer), or Err(status) when the file has no prefix filter or the
    /// prefix is not one its extractor makes.
    pub fn prefix_may_match(&self, prefix: &[u8]) -> Result<bool, u32> {
        let mut out = false;
        let st = unsafe {
            rocksfilter_sst_prefix_may_match(self.ptr.as_ptr(), prefix.as_ptr(), prefix.len(), &mut out, null_mut())
        };
        if st == ROCKSFILTER_OK {
            Ok(out)
        } else {
            Err(st)
        }
    }

    pub fn filter_type(&self) -> u32 {
        unsafe { rocksfilter_sst_filter_type(self.ptr.as_ptr()) }
    }

    pub fn stats(&self) -> rocksfilter_sst_open_stats {
        let mut s = rocksfilter_sst_open_stats { struct_size: 0, reserved: 0, reads: 0, bytes_read: 0, bytes_held: 0 };
        s.struct_size = std::mem::size_of::<rocksfilter_sst_open_stats>() as u32;
        let st = unsafe { rocksfilter_sst_get_open_stats(self.ptr.as_ptr(), &mut s, null_mut()) };
        assert_eq!(st, ROCKSFILTER_OK);
        s
    }
}

/// The most reads an open of a file RocksDB wrote may make: one suffix
/// read, then one range for a full or partitioned filter, and for the
/// block-based filter one from the filter to the end of the index (three
/// allowed: a file whose index is not where RocksDB puts it).
pub fn max_reads(filter_type: u32) -> u64 {
    if filter_type == ROCKSFILTER_SST_FILTER_BLOCK_BASED {
        3
    } else {
        2
    }
}
