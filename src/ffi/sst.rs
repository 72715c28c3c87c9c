//! C ABI for SST files: a thin layer over [`crate::Sst`].

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

use super::guard::{guard, guard_out, guard_status};
use super::{
    batch_fail_open, batch_packed, bytes, null_arg, rocksfilter_filter, rocksfilter_status, write_sized, BatchTarget,
};
use crate::sst::{Source, Sst, SstFilter, SstFilterType, SstOptions};
use crate::{Error, ErrorKind, FilterCache};
use std::sync::Arc;

/// Flag for rocksfilter_sst_open_opts() and the other opens: do not verify
/// block checksums.
pub const ROCKSFILTER_SST_SKIP_CHECKSUMS: u32 = 1;
/// Flag for rocksfilter_sst_open_opts() only: memory-map the file instead of
/// reading it (the behaviour of 0.1.0). It saves the copy of the filter
/// bytes at open, and it risks the host process: queries then read the
/// mapping, so a file truncated while the handle is open (RocksDB's
/// DeleteScheduler truncates files it deletes in steps) or an I/O error on
/// a mapped page (a network filesystem, a failing disk) raises SIGBUS
/// inside a query, and a file rewritten in place is queried unverified.
/// Each handle also holds one of the process's `vm.max_map_count` mappings
/// (65,530 by default on Linux, shared with malloc): past that every
/// mapping of the process fails. Without it, no handle maps anything.
pub const ROCKSFILTER_SST_MMAP: u32 = 2;

/// Flag for the opens that take a cache (rocksfilter_sst_open_ex(),
/// rocksfilter_sst_open_source_ex()) with a cache set: whole full filters
/// go to the cache too, read on first use, so that many small files also
/// live within the budget (without it, full filters are read at open and
/// kept by their handle, outside the budget; only partitions are cached).
pub const ROCKSFILTER_SST_CACHE_FULL_FILTERS: u32 = 4;

/// rocksfilter_sst_filter_type(): the file has no filter.
pub const ROCKSFILTER_SST_FILTER_NONE: u32 = 0;
/// rocksfilter_sst_filter_type(): one full filter block.
pub const ROCKSFILTER_SST_FILTER_FULL: u32 = 1;
/// rocksfilter_sst_filter_type(): a partitioned filter.
pub const ROCKSFILTER_SST_FILTER_PARTITIONED: u32 = 2;
/// rocksfilter_sst_filter_type(): the obsolete block-based filter of RocksDB
/// < 7.0 (metaindex "filter.rocksdb.BuiltinBloomFilter"): one small filter
/// per 2 KiB of data-block offsets, looked up through the table's index.
/// rocksfilter_sst_may_match() and rocksfilter_sst_prefix_may_match() answer
/// from it; rocksfilter_sst_full_filter() returns ROCKSFILTER_NOT_FOUND.
/// (New after 0.1.0, which reported these files as UNSUPPORTED.)
pub const ROCKSFILTER_SST_FILTER_BLOCK_BASED: u32 = 4;
/// rocksfilter_sst_filter_type(): a filter this library cannot read (custom
/// policy) or that RocksDB would not use
/// either (a damaged filter block or partition index, unreadable
/// properties, an index out of order, names RocksDB releases read
/// differently); every key may match. rocksfilter_sst_full_filter() says why.
pub const ROCKSFILTER_SST_FILTER_UNSUPPORTED: u32 = 3;

/// An opened SST file's filter. Immutable: may be queried from many threads
/// at once. Free with rocksfilter_sst_free().
pub struct rocksfilter_sst {
    inner: Sst<'static>,
    /// NUL-terminated copies of the string properties, owned by the handle.
    strings: [Option<CString>; 4],
}

/// Properties of an SST file, filled by rocksfilter_sst_get_properties().
/// Strings are owned by the rocksfilter_sst and valid until it is freed;
/// NULL when absent. Numbers are 0 when absent.
#[repr(C)]
pub struct rocksfilter_sst_properties {
    /// The footer's format_version (0 to 8; 0 is the legacy magic number, which
    /// RocksDB 5.x to 10.x read and wrote on request).
    pub format_version: u32,
    /// Block checksum type: 0 none, 1 crc32c, 2 xxhash32, 3 xxhash64, 4 xxh3.
    pub checksum_type: u32,
    /// A ROCKSFILTER_SST_FILTER_* value.
    pub filter_type: u32,
    /// Number of filter partitions (1 for a full filter, 0 without filter).
    pub num_partitions: u32,
    /// Whether whole keys were added to the filter.
    pub whole_key_filtering: bool,
    /// Whether rocksfilter_sst_prefix_may_match() can answer from the filter.
    pub has_prefix_filter: bool,
    pub num_entries: u64,
    pub num_filter_entries: u64,
    /// Bytes of filter (all partitions), as recorded by RocksDB.
    pub filter_size: u64,
    pub creation_time: u64,
    pub file_creation_time: u64,
    /// rocksdb.filter.policy, e.g. "bloomfilter" or "ribbonfilter".
    pub filter_policy: *const c_char,
    /// rocksdb.comparator, e.g. "leveldb.BytewiseComparator".
    pub comparator: *const c_char,
    /// rocksdb.prefix.extractor.name, e.g. "rocksdb.FixedPrefix.4".
    pub prefix_extractor: *const c_char,
    /// The metaindex name of the filter block, e.g.
    /// "fullfilter.rocksdb.BuiltinBloomFilter".
    pub filter_block_name: *const c_char,
}

fn cstring(s: Option<&str>) -> Option<CString> {
    s.map(|s| CString::new(s.replace('\0', " ")).unwrap_or_default())
}

fn wrap(inner: Sst<'static>) -> *mut rocksfilter_sst {
    let p = inner.properties();
    let strings = [
        cstring(p.filter_policy.as_deref()),
        cstring(p.comparator.as_deref()),
        cstring(p.prefix_extractor_name.as_deref()),
        cstring(inner.filter_block_name()),
    ];
    Box::into_raw(Box::new(rocksfilter_sst { inner, strings }))
}

/// The options `flags` ask for; `allowed` the flags this open takes.
fn options(flags: u32, allowed: u32) -> Result<SstOptions, Error> {
    if flags & !(ROCKSFILTER_SST_SKIP_CHECKSUMS | ROCKSFILTER_SST_MMAP | ROCKSFILTER_SST_CACHE_FULL_FILTERS) != 0 {
        return Err(Error::invalid(format!("unknown flags {flags:#x}")));
    }
    let bad = flags & !allowed;
    if bad & ROCKSFILTER_SST_MMAP != 0 {
        return Err(Error::invalid(format!(
            "flags {bad:#x} apply only to rocksfilter_sst_open_opts() and rocksfilter_sst_open_ex() (ROCKSFILTER_SST_MMAP maps a file by path)"
        )));
    }
    if bad != 0 {
        return Err(Error::invalid(format!(
            "flags {bad:#x} apply only to rocksfilter_sst_open_ex() and rocksfilter_sst_open_source_ex() with a cache (ROCKSFILTER_SST_CACHE_FULL_FILTERS)"
        )));
    }
    Ok(SstOptions::default()
        .with_verify_checksums(flags & ROCKSFILTER_SST_SKIP_CHECKSUMS == 0)
        .with_mmap(flags & ROCKSFILTER_SST_MMAP != 0)
        .with_cache_full_filters(flags & ROCKSFILTER_SST_CACHE_FULL_FILTERS != 0))
}

/// The options of a rocksfilter_sst_options (NULL: the defaults) for an
/// open that takes the flags `allowed`.
///
/// # Safety
/// `opts` is NULL or points to at least `opts->struct_size` readable bytes.
unsafe fn options_ex(opts: *const rocksfilter_sst_options, allowed: u32) -> Result<SstOptions, Error> {
    if opts.is_null() {
        return options(0, allowed);
    }
    // SAFETY: header contract: the leading struct_size is readable.
    let provided = unsafe { ptr::addr_of!((*opts).struct_size).read() };
    let needed = std::mem::size_of::<rocksfilter_sst_options>();
    if provided < needed {
        return Err(Error::invalid(format!(
            "rocksfilter_sst_options.struct_size is {provided}, below the {needed} bytes of its fields: set it to sizeof(struct rocksfilter_sst_options)"
        )));
    }
    // SAFETY: both fields lie within the caller's struct_size bytes.
    let (flags, cache) = unsafe { ((*opts).flags, (*opts).cache) };
    let o = options(flags, allowed)?;
    // SAFETY: header contract: cache is NULL or a live rocksfilter_cache.
    match unsafe { cache.as_ref() } {
        Some(c) => Ok(o.with_cache(c.inner.clone())),
        None if o.cache_full_filters => Err(Error::invalid(
            "ROCKSFILTER_SST_CACHE_FULL_FILTERS needs a cache (rocksfilter_sst_options.cache is NULL)",
        )),
        None => Ok(o),
    }
}

/// A cache of filter blocks with a byte budget, shared by the SST handles
/// opened with it (rocksfilter_sst_options.cache). Thread-safe. Made by
/// rocksfilter_cache_new(), freed by rocksfilter_cache_free().
pub struct rocksfilter_cache {
    inner: FilterCache,
}

/// Options of rocksfilter_sst_open_ex() and rocksfilter_sst_open_source_ex().
/// Zero-initialise it and set `struct_size = sizeof(struct
/// rocksfilter_sst_options)` (lets the struct grow), then what you need.
#[repr(C)]
pub struct rocksfilter_sst_options {
    /// sizeof(struct rocksfilter_sst_options).
    pub struct_size: usize,
    /// ROCKSFILTER_SST_SKIP_CHECKSUMS, ROCKSFILTER_SST_MMAP (path opens
    /// only, not with a cache), ROCKSFILTER_SST_CACHE_FULL_FILTERS (with a
    /// cache only).
    pub flags: u32,
    /// NULL: every filter block is read at open and kept by the handle, as
    /// rocksfilter_sst_open() does. Otherwise a cache (not owned: it must
    /// outlive nothing, the handle keeps its own reference): the handle
    /// keeps a partitioned filter's top-level index and its source, and
    /// reads each partition into the cache when a query first needs it.
    pub cache: *mut rocksfilter_cache,
}

/// A cache that holds at most `capacity_bytes` of filter blocks and their
/// entries, split into shards of at least 8 MiB (at most 16): a block
/// larger than a shard's share is read by each query that needs it and
/// never cached. Evicts by recency (CLOCK: a hit sets a bit, an insertion
/// sweeps); hits take no lock and allocate nothing. NULL on failure (none
/// expected). Free with rocksfilter_cache_free().
///
/// Memory: the blocks live in memory the cache maps itself (per shard, its
/// share of the capacity rounded up to 4 KiB pages, at least 32 KiB;
/// reserved at the first miss, resident only as it fills), never in the
/// host's malloc heap. So the resident memory the cache's blocks cause is
/// at most the capacity plus a fixed slack of 4 KiB per shard (32 KiB per
/// shard for a cache below 32 KiB per shard), plus its bookkeeping (about
/// 24 bytes per cached block). A miss reads its block straight into that
/// memory; only when every cached block is in use by a query is a block
/// read into the querying thread's own buffer and not cached. Freed space of 64 KiB or more is given back to the system
/// (Linux); the rest is reused. The memory is unmapped when the cache and
/// every handle opened with it are freed.
///
/// Handles opened by path keep their file open between queries, at most
/// 128 files for all of the cache's handles (the least recently used
/// closed first: rocksfilter_cache_new_with_open_files() sets the number).
#[no_mangle]
pub extern "C" fn rocksfilter_cache_new(capacity_bytes: usize) -> *mut rocksfilter_cache {
    rocksfilter_cache_new_with_open_files(capacity_bytes, crate::DEFAULT_OPEN_FILES)
}

/// As rocksfilter_cache_new(), with at most `max_open_files` files kept open
/// for the handles opened by path (RocksDB's `max_open_files`). A file closed
/// here is reopened at its handle's next miss, checked to be the file opened
/// (device, inode, length); 0 keeps none open (an open and an fstat, about 4
/// us, more per miss). A file kept open is read even after it is deleted or
/// replaced by rename (its answers stay those of the file opened).
#[no_mangle]
pub extern "C" fn rocksfilter_cache_new_with_open_files(
    capacity_bytes: usize,
    max_open_files: usize,
) -> *mut rocksfilter_cache {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(rocksfilter_cache {
            inner: FilterCache::with_open_files(capacity_bytes, max_open_files),
        }))
    })
}

/// Frees the caller's reference. Handles opened with the cache keep it
/// alive until they are freed too, so freeing it first is harmless (but
/// its counters can then no longer be read); its memory goes back to the
/// system when the last of them is freed. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_cache_free(cache: *mut rocksfilter_cache) {
    guard((), || {
        if !cache.is_null() {
            // SAFETY: from Box::into_raw in rocksfilter_cache_new, freed once (contract).
            drop(unsafe { Box::from_raw(cache) });
        }
    })
}

/// Bytes the cache holds now: its blocks and their entries, as placed in
/// the cache's own memory (a power-of-two size up to 2 KiB, else whole
/// 4 KiB pages); at most its capacity. Not the handles' own memory (their
/// rocksfilter_sst_open_stats.bytes_held). 0 for NULL. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_cache_bytes_held(cache: *const rocksfilter_cache) -> usize {
    // SAFETY: header contract: NULL or live.
    guard(0, || unsafe { cache.as_ref() }.map_or(0, |c| c.inner.bytes_held()))
}

/// A cache's counters and occupancy, filled by rocksfilter_cache_get_stats().
/// Set `struct_size = sizeof(struct rocksfilter_cache_stats)`; the library
/// fills at most that many bytes and sets `struct_size` to what it filled.
/// Counters count since the cache was made.
#[repr(C)]
pub struct rocksfilter_cache_stats {
    /// In: bytes the caller provides. Out: bytes the library filled.
    pub struct_size: u32,
    /// Always 0.
    pub reserved: u32,
    /// The capacity in bytes.
    pub capacity: u64,
    /// Bytes held now (at most capacity), as rocksfilter_cache_bytes_held.
    pub bytes_held: u64,
    /// Blocks held now.
    pub entries: u64,
    /// Block lookups that found the block (one per partition a single
    /// query consults; one per partition per batch).
    pub hits: u64,
    /// Block lookups that did not (and read it, or found it unreadable).
    pub misses: u64,
    /// Reads of a source for blocks, and the bytes they returned.
    pub reads: u64,
    pub bytes_read: u64,
    /// Reads that failed (the source's error, a file replaced or
    /// truncated): that query answered "may match", nothing was cached.
    pub read_errors: u64,
    /// Blocks whose bytes are no filter RocksDB would use (bad checksum or
    /// geometry): cached as "may match".
    pub bad_blocks: u64,
    /// Blocks evicted to make room.
    pub evictions: u64,
    /// Blocks read but not cached (larger than a shard's share, or every
    /// block of the shard in use).
    pub uncached: u64,
    /// Files kept open now for handles opened by path.
    pub open_files: u64,
}

/// Fills `*out` (see rocksfilter_cache_stats). ROCKSFILTER_INVALID_ARGUMENT
/// on NULL arguments or a `struct_size` below 16. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_cache_get_stats(
    cache: *const rocksfilter_cache,
    out: *mut rocksfilter_cache_stats,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: NULL or live.
        let c = unsafe { cache.as_ref() }.ok_or_else(|| null_arg("cache"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: out is non-NULL, aligned, its first field readable.
        let provided = unsafe { ptr::addr_of!((*out).struct_size).read() } as usize;
        let s = c.inner.stats();
        let full = rocksfilter_cache_stats {
            struct_size: 0,
            reserved: 0,
            capacity: s.capacity,
            bytes_held: s.bytes_held,
            entries: s.entries,
            hits: s.hits,
            misses: s.misses,
            reads: s.reads,
            bytes_read: s.bytes_read,
            read_errors: s.read_errors,
            bad_blocks: s.bad_blocks,
            evictions: s.evictions,
            uncached: s.uncached,
            open_files: s.open_files,
        };
        // SAFETY: out points to `provided` writable bytes (contract).
        unsafe { write_sized(out, &full, provided, &CACHE_STATS_FIELD_ENDS) }
    })
}

/// Where each field of rocksfilter_cache_stats ends.
const CACHE_STATS_FIELD_ENDS: [usize; 12] = {
    use std::mem::offset_of;
    type T = rocksfilter_cache_stats;
    [
        offset_of!(T, capacity) + 8,
        offset_of!(T, bytes_held) + 8,
        offset_of!(T, entries) + 8,
        offset_of!(T, hits) + 8,
        offset_of!(T, misses) + 8,
        offset_of!(T, reads) + 8,
        offset_of!(T, bytes_read) + 8,
        offset_of!(T, read_errors) + 8,
        offset_of!(T, bad_blocks) + 8,
        offset_of!(T, evictions) + 8,
        offset_of!(T, uncached) + 8,
        offset_of!(T, open_files) + 8,
    ]
};

/// ==========================================================================
/// SST FILES: open a RocksDB SST file and ask whether it can hold a key.
/// ==========================================================================
///
/// Opens the SST file at `path` (NUL-terminated): reads the blocks its
/// filter needs with pread() into memory the handle owns (two reads for a
/// file with a full or partitioned filter, see rocksfilter_source), verifies
/// the footer and every block read, and closes the file before returning.
/// Queries read only that memory: truncating, rewriting or deleting the
/// file while the handle is open changes no answer. On success `*out`
/// receives a handle freed with rocksfilter_sst_free(); on failure NULL,
/// with ROCKSFILTER_IO_ERROR, ROCKSFILTER_CORRUPTION (what and at which
/// offset) or ROCKSFILTER_NOT_SUPPORTED (e.g. PlainTable files).
///
/// Files are read by RocksDB's rules: a file RocksDB refuses (bad footer
/// or metaindex) is refused; a filter RocksDB would not use (damaged,
/// unreadable properties, ...) is not used, and every key may match; a
/// damaged filter partition answers "may match". Opening costs time and
/// memory linear in the file's metadata, with limits RocksDB does not have:
/// at most 4 MiB plus 8 times the index block's size of decompressed
/// partition separators (past that the filter is not used), at most 1 MiB
/// plus 4 times the block's size of properties kept for
/// rocksfilter_sst_property(); a query consults at most 64 partitions
/// (past that it answers "may match").
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open(
    path: *const c_char,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { rocksfilter_sst_open_opts(path, 0, out, errptr) }
}

/// As rocksfilter_sst_open() with flags (ROCKSFILTER_SST_SKIP_CHECKSUMS,
/// ROCKSFILTER_SST_MMAP: read its comment before using it).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_opts(
    path: *const c_char,
    flags: u32,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: path NULL or NUL-terminated.
        let path = unsafe { path_arg(path) }?;
        Ok(wrap(Sst::open_with(path, options(flags, ROCKSFILTER_SST_SKIP_CHECKSUMS | ROCKSFILTER_SST_MMAP)?)?))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// # Safety
/// `path` is NULL or a NUL-terminated string.
unsafe fn path_arg(path: *const c_char) -> Result<std::path::PathBuf, Error> {
    if path.is_null() {
        return Err(null_arg("path"));
    }
    // SAFETY: header contract: path is a NUL-terminated string.
    let path = unsafe { CStr::from_ptr(path) };
    #[cfg(unix)]
    let path = std::path::PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()));
    #[cfg(not(unix))]
    let path = std::path::PathBuf::from(path.to_str().map_err(|_| Error::invalid("path is not UTF-8"))?);
    Ok(path)
}

/// As rocksfilter_sst_open() with options (`opts` NULL: the defaults).
/// With `opts->cache` set, the handle keeps the top-level index of a
/// partitioned filter (and, with ROCKSFILTER_SST_CACHE_FULL_FILTERS, no
/// full filter either) and reads each partition into the cache when a
/// query first needs it: it keeps the path, and the file is open only while
/// the cache keeps it among its open files (at most 128 for all its handles
/// by default, the least recently used closed first; see
/// rocksfilter_cache_new_with_open_files()), so 100,000s of handles need no
/// file descriptor each. A file reopened must still be the one opened: a
/// read that fails, or a file that is no longer the one opened (other
/// device, inode or length), answers "may match" for that query and is
/// counted (rocksfilter_cache_stats.read_errors). Queries stay thread-safe;
/// a miss costs the read in the querying thread.
/// ROCKSFILTER_INVALID_ARGUMENT for a cache with ROCKSFILTER_SST_MMAP.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_ex(
    path: *const c_char,
    opts: *const rocksfilter_sst_options,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: path NULL or NUL-terminated.
        let path = unsafe { path_arg(path) }?;
        let all = ROCKSFILTER_SST_SKIP_CHECKSUMS | ROCKSFILTER_SST_MMAP | ROCKSFILTER_SST_CACHE_FULL_FILTERS;
        // SAFETY: header contract: opts NULL or struct_size readable bytes.
        Ok(wrap(Sst::open_with(path, unsafe { options_ex(opts, all) }?)?))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// Reads an SST file held in memory (`len` bytes at `data`) without copying:
/// `data` must stay valid and unmodified until the handle and every filter
/// obtained from it are freed. Errors as rocksfilter_sst_open().
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_memory(
    data: *const u8,
    len: usize,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { rocksfilter_sst_open_memory_opts(data, len, 0, out, errptr) }
}

/// As rocksfilter_sst_open_memory() with flags (ROCKSFILTER_SST_SKIP_CHECKSUMS).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_memory_opts(
    data: *const u8,
    len: usize,
    flags: u32,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: data readable for len bytes and outliving
        // the handle (the 'static here stands for that promise).
        let file: &'static [u8] = unsafe { bytes(data, len) }.map_err(|e| e.error("data"))?;
        Ok(wrap(Sst::from_bytes_with(file, options(flags, ROCKSFILTER_SST_SKIP_CHECKSUMS)?)?))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// A file the caller reads for the library: its own file layer, an object
/// store's ranged GETs, an encrypted or remote file. Zero-initialise it,
/// set `struct_size = sizeof(struct rocksfilter_source)`, `size` and
/// `read_at` (and `ctx`, handed back to `read_at` and `release`).
///
/// `read_at` must copy exactly `len` bytes of the file at `offset` into
/// `dst` and return 0, or return anything else for an I/O error (the open
/// then fails with ROCKSFILTER_IO_ERROR naming the offset, the length and
/// that code). With a cache (rocksfilter_sst_open_source_ex()), the handle
/// keeps the source and calls `read_at` when a query needs a filter block
/// the cache does not hold, from the querying thread, so from many threads
/// at once: `read_at` must then be thread-safe, and a failure answers "may
/// match" for that query. `release`, when set, is called exactly once with
/// `ctx` when the library is done with it: before the open returns when
/// the handle keeps no source (no cache, or the open failed), else when the
/// handle is freed, after its last read. The library never asks past `size`, and asks few ranges: the
/// last 64 KiB of the file (all of it when smaller: footer, metaindex and
/// properties), then for a full filter its block (nothing more when the
/// first read held it), for a partitioned filter one range holding every
/// partition and their index, for the block-based filter of RocksDB < 7.0
/// one range from the filter to the end of the table's index.
#[repr(C)]
pub struct rocksfilter_source {
    /// sizeof(struct rocksfilter_source): lets the struct grow.
    pub struct_size: usize,
    /// The file's length in bytes.
    pub size: u64,
    /// Handed back to read_at.
    pub ctx: *mut c_void,
    /// Copy exactly len bytes at offset into dst. 0 = success; anything
    /// else = I/O error.
    pub read_at: Option<unsafe extern "C" fn(ctx: *mut c_void, offset: u64, dst: *mut u8, len: usize) -> c_int>,
    /// Optional (NULL, or a struct_size that ends before it: never called):
    /// called once with ctx when the library no longer needs it.
    pub release: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
}

/// A rocksfilter_source as a [`Source`]; calls `release` when dropped.
struct CallbackSource {
    size: u64,
    ctx: *mut c_void,
    read_at: unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> c_int,
    release: Option<unsafe extern "C" fn(*mut c_void)>,
}

// SAFETY: the caller's contract (rocksfilter_source): a source given with a
// cache has a thread-safe read_at and a ctx usable from any thread; without
// a cache the source is used only on the opening thread, during the open.
unsafe impl Send for CallbackSource {}
// SAFETY: as above.
unsafe impl Sync for CallbackSource {}

impl Drop for CallbackSource {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: the caller's contract: release takes ctx, once.
            unsafe { release(self.ctx) };
        }
    }
}

impl Source for CallbackSource {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.size)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        // SAFETY: the caller's contract (rocksfilter_source): read_at copies
        // at most len bytes into dst, which is buf, writable for len bytes.
        let rc = unsafe { (self.read_at)(self.ctx, offset, buf.as_mut_ptr(), buf.len()) };
        match rc {
            0 => Ok(()),
            rc => Err(std::io::Error::other(format!("read_at returned {rc}"))),
        }
    }
}

/// Opens an SST file through the caller's reads (see rocksfilter_source).
/// `read_at` is called only inside this call, on the calling thread;
/// nothing keeps `src` or `ctx` after it returns. Everything else is as
/// rocksfilter_sst_open(): the handle owns what it queries, the same
/// answers, the same errors, plus ROCKSFILTER_IO_ERROR when a read fails
/// ("read of LEN bytes at offset OFF failed: read_at returned CODE") or the
/// bytes of a range read twice differ. `flags`: ROCKSFILTER_SST_SKIP_CHECKSUMS.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_source(
    src: *const rocksfilter_source,
    flags: u32,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: src NULL or readable for its struct_size.
        let source = unsafe { callback_source(src) }?;
        Ok(wrap(Sst::open_shared(source, options(flags, ROCKSFILTER_SST_SKIP_CHECKSUMS)?)?))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// The caller's source, owning its `release` from here on (called when
/// the returned value is dropped, even on error paths).
///
/// # Safety
/// `src` is NULL or points to at least `src->struct_size` readable bytes.
unsafe fn callback_source(src: *const rocksfilter_source) -> Result<Arc<dyn Source + Send + Sync>, Error> {
    if src.is_null() {
        return Err(null_arg("src"));
    }
    // SAFETY: header contract: the leading struct_size is readable.
    let provided = unsafe { ptr::addr_of!((*src).struct_size).read() };
    let needed = std::mem::offset_of!(rocksfilter_source, release);
    if provided < needed {
        return Err(Error::invalid(format!(
            "rocksfilter_source.struct_size is {provided}, below the {needed} bytes of its fields: set it to sizeof(struct rocksfilter_source)"
        )));
    }
    // SAFETY: the first four fields lie within the caller's struct_size
    // bytes; release only when struct_size covers it (a caller compiled
    // against a header without it has a smaller struct).
    let (size, ctx, read_at) = unsafe { ((*src).size, (*src).ctx, (*src).read_at) };
    let release = if provided >= std::mem::size_of::<rocksfilter_source>() {
        // SAFETY: as above.
        unsafe { (*src).release }
    } else {
        None
    };
    let source = CallbackSource { size, ctx, read_at: read_at.unwrap_or(no_read_at), release };
    if read_at.is_none() {
        // Dropped here: release runs, as documented for a failed open.
        drop(source);
        return Err(null_arg("src->read_at"));
    }
    Ok(Arc::new(source))
}

/// Stands in for a NULL read_at in a source about to be released.
unsafe extern "C" fn no_read_at(_: *mut c_void, _: u64, _: *mut u8, _: usize) -> c_int {
    -1
}

/// As rocksfilter_sst_open_source() with options (`opts` NULL: the
/// defaults; flags ROCKSFILTER_SST_SKIP_CHECKSUMS and, with a cache,
/// ROCKSFILTER_SST_CACHE_FULL_FILTERS). With `opts->cache` set, the handle
/// keeps the source (its fields are copied; `ctx` must stay valid until
/// `release` is called) and reads filter blocks through it when queries
/// need them, from the querying threads: `read_at` must be thread-safe (see
/// rocksfilter_source). Without a cache, as rocksfilter_sst_open_source().
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_open_source_ex(
    src: *const rocksfilter_source,
    opts: *const rocksfilter_sst_options,
    out: *mut *mut rocksfilter_sst,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: src NULL or readable for its struct_size.
        let source = unsafe { callback_source(src) }?;
        // SAFETY: header contract: opts NULL or struct_size readable bytes.
        let o = unsafe { options_ex(opts, ROCKSFILTER_SST_SKIP_CHECKSUMS | ROCKSFILTER_SST_CACHE_FULL_FILTERS) }?;
        Ok(wrap(Sst::open_shared(source, o)?))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// What opening a file read and what its handle keeps, filled by
/// rocksfilter_sst_get_open_stats(). Like rocksfilter_filter_info_ex, it
/// can grow: set `struct_size = sizeof(struct rocksfilter_sst_open_stats)`;
/// the library fills at most that many bytes and sets `struct_size` to the
/// number it filled.
#[repr(C)]
pub struct rocksfilter_sst_open_stats {
    /// In: bytes the caller provides. Out: bytes the library filled.
    pub struct_size: u32,
    /// Always 0.
    pub reserved: u32,
    /// Reads the open made: pread() calls, or read_at calls of a
    /// rocksfilter_source; 0 for memory and mapped files.
    pub reads: u64,
    /// Bytes those reads returned.
    pub bytes_read: u64,
    /// Heap bytes the handle owns for its queries, alignment included:
    /// the filter blocks it loaded at open (not those of the caller's
    /// memory or a mapping, nor blocks read on demand into a cache, which
    /// rocksfilter_cache_bytes_held counts) and, for a partitioned filter,
    /// its top-level index as kept (separators, lookup tables, partition
    /// to block map) and, with a cache, a handle and a slot per block. The
    /// handle's other memory is small and fixed (the struct, the file name,
    /// the properties), plus the separators of a block-based filter's
    /// index.
    pub bytes_held: u64,
}

/// Fills `*out` (see rocksfilter_sst_open_stats). ROCKSFILTER_INVALID_ARGUMENT,
/// with a message in `*errptr`, on NULL arguments or a `struct_size` below
/// 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_get_open_stats(
    s: *const rocksfilter_sst,
    out: *mut rocksfilter_sst_open_stats,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: s NULL or live.
        let s = unsafe { sst_ref(s) }.ok_or_else(|| null_arg("sst"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: out is non-NULL, aligned and its first field readable
        // (contract: at least struct_size bytes, which write_sized checks).
        let provided = unsafe { ptr::addr_of!((*out).struct_size).read() } as usize;
        let st = s.inner.open_stats();
        let full = rocksfilter_sst_open_stats {
            struct_size: 0,
            reserved: 0,
            reads: st.reads,
            bytes_read: st.bytes_read,
            bytes_held: st.bytes_held,
        };
        // SAFETY: out points to `provided` writable bytes (contract).
        unsafe { write_sized(out, &full, provided, &OPEN_STATS_FIELD_ENDS) }
    })
}

/// Where each field of rocksfilter_sst_open_stats ends.
const OPEN_STATS_FIELD_ENDS: [usize; 3] = {
    use std::mem::offset_of;
    type T = rocksfilter_sst_open_stats;
    [offset_of!(T, reads) + 8, offset_of!(T, bytes_read) + 8, offset_of!(T, bytes_held) + 8]
};

/// # Safety
/// `s` is NULL or a live handle.
unsafe fn sst_ref<'a>(s: *const rocksfilter_sst) -> Option<&'a rocksfilter_sst> {
    // SAFETY: per the contract above.
    unsafe { s.as_ref() }
}

/// Can the file hold this key? false is definite. Answers as RocksDB's Get
/// consults the filter: the whole key, or its prefix when the file was
/// written without whole-key filtering. Files without a readable filter, a
/// NULL handle, or a NULL key with non-zero length answer true. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_may_match(s: *const rocksfilter_sst, key: *const u8, len: usize) -> bool {
    guard(true, || {
        // SAFETY: header contract: s NULL or live; key readable for len bytes.
        match unsafe { (sst_ref(s), bytes(key, len)) } {
            (Some(s), Ok(k)) => s.inner.may_match(k),
            _ => true,
        }
    })
}

/// Batch form of rocksfilter_sst_may_match(): results[i] answers keys[i]
/// (lens[i] bytes), for i < n, exactly as rocksfilter_sst_may_match() would.
/// Faster per key on full and partitioned filters (RocksDB's MultiGet
/// style): keys are taken 32 at a time, each one's filter partition found
/// and its probe hashed and prefetched, before any is probed. On a
/// partitioned filter, keys in the file's order (as RocksDB's MultiGet sorts
/// them) are faster still: a key in the same partition as the one before it
/// is routed with one compare; any order gives the same answers. The caller
/// owns every array; nothing is kept after the call. Fails open as rocksfilter_filter_may_match_batch():
/// true for every key when the handle, keys or lens is NULL, and for a NULL
/// keys[i] with non-zero lens[i]; no-op when results is NULL. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_may_match_batch(
    s: *const rocksfilter_sst,
    keys: *const *const u8,
    lens: *const usize,
    n: usize,
    results: *mut bool,
) {
    // SAFETY: header contract: s NULL or live; the arrays as documented.
    guard((), || unsafe { batch_fail_open(sst_ref(s).map(|s| &s.inner), keys, lens, n, results) })
}

/// Batch form of rocksfilter_sst_may_match() over one packed buffer (for
/// callers such as Go's cgo that cannot pass arrays of pointers): key i is
/// buf[offsets[i] .. offsets[i+1]], so `offsets` has n + 1 entries.
/// ROCKSFILTER_INVALID_ARGUMENT (results untouched, message in *errptr) for
/// offsets that decrease or exceed `buf_len`, and for a NULL handle,
/// offsets or results when n > 0. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_may_match_packed(
    s: *const rocksfilter_sst,
    buf: *const u8,
    buf_len: usize,
    offsets: *const usize,
    n: usize,
    results: *mut bool,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: header contract: s NULL or live; the buffers as documented.
    guard_status(errptr, || unsafe {
        batch_packed(sst_ref(s).map(|s| &s.inner), "sst", buf, buf_len, offsets, n, results)
    })
}

impl BatchTarget for Sst<'_> {
    fn query<'k>(&self, n: usize, key: impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_indexed(n, key, results)
    }
}

/// Can the file hold a key with this prefix (exactly as the file's prefix
/// extractor produces it)? Stores the answer in `*out`.
/// ROCKSFILTER_NOT_SUPPORTED when the file has no prefix filter;
/// ROCKSFILTER_INVALID_ARGUMENT when the prefix cannot come from the file's
/// extractor (e.g. wrong length for rocksdb.FixedPrefix.N) or on NULLs.
/// On error `*out` is left untouched.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_prefix_may_match(
    s: *const rocksfilter_sst,
    prefix: *const u8,
    len: usize,
    out: *mut bool,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: s NULL or live; prefix readable for len bytes.
        let s = unsafe { sst_ref(s) }.ok_or_else(|| null_arg("sst"))?;
        // SAFETY: as above.
        let prefix = unsafe { bytes(prefix, len) }.map_err(|e| e.error("prefix"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let answer = s.inner.prefix_may_match(prefix)?;
        // SAFETY: out is non-NULL and writable (contract).
        unsafe { *out = answer };
        Ok(())
    })
}

/// The file's full filter as a rocksfilter_filter, sharing the handle's bytes
/// (no copy): it stays valid after rocksfilter_sst_free() for files opened
/// by path or source; for rocksfilter_sst_open_memory() the caller's buffer
/// must outlive it. A full filter in a cache (ROCKSFILTER_SST_CACHE_FULL_FILTERS)
/// is read through the cache and copied: the copy is the returned filter's,
/// outside the cache's budget. Free it with rocksfilter_filter_free().
/// ROCKSFILTER_NOT_FOUND when the file's filter is partitioned or absent;
/// ROCKSFILTER_NOT_SUPPORTED when it is of a kind this library cannot read.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_full_filter(
    s: *const rocksfilter_sst,
    out: *mut *mut rocksfilter_filter,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: s NULL or live.
        let s = unsafe { sst_ref(s) }.ok_or_else(|| null_arg("sst"))?;
        let filter = match s.inner.filter() {
            SstFilter::Full(f) => f.clone(),
            // A copy, owned by the returned filter (not charged to the cache).
            SstFilter::CachedFull(c) => c.with_filter(|f| f.clone().into_owned()),
            SstFilter::Partitioned(p) => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!("the file's filter is partitioned ({} partitions), not a full filter", p.len()),
                ))
            }
            SstFilter::BlockBased(b) => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "the file's filter is the block-based filter of RocksDB < 7.0 ({} per-range filters), not a full filter",
                        b.num_filters()
                    ),
                ))
            }
            SstFilter::None => return Err(Error::new(ErrorKind::NotFound, "the file has no filter")),
            SstFilter::Unsupported(why) => return Err(Error::not_supported(why.clone())),
        };
        Ok(Box::into_raw(Box::new(rocksfilter_filter { inner: filter })))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// A ROCKSFILTER_SST_FILTER_* value (UNSUPPORTED for NULL).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_filter_type(s: *const rocksfilter_sst) -> u32 {
    guard(ROCKSFILTER_SST_FILTER_UNSUPPORTED, || {
        // SAFETY: header contract: s NULL or live.
        unsafe { sst_ref(s) }.map_or(ROCKSFILTER_SST_FILTER_UNSUPPORTED, |s| filter_type(&s.inner))
    })
}

fn filter_type(s: &Sst<'_>) -> u32 {
    match s.filter().filter_type() {
        SstFilterType::None => ROCKSFILTER_SST_FILTER_NONE,
        SstFilterType::Full => ROCKSFILTER_SST_FILTER_FULL,
        SstFilterType::Partitioned => ROCKSFILTER_SST_FILTER_PARTITIONED,
        SstFilterType::BlockBased => ROCKSFILTER_SST_FILTER_BLOCK_BASED,
        // And any type a later version adds that this ABI cannot name.
        _ => ROCKSFILTER_SST_FILTER_UNSUPPORTED,
    }
}

/// Fills `*out` with the file's format and properties (strings owned by the
/// handle). ROCKSFILTER_INVALID_ARGUMENT on NULLs (no message: prefer
/// rocksfilter_sst_get_properties_ex()).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_get_properties(
    s: *const rocksfilter_sst,
    out: *mut rocksfilter_sst_properties,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { rocksfilter_sst_get_properties_ex(s, out, ptr::null_mut()) }
}

/// rocksfilter_sst_get_properties() with a message in `*errptr` on failure.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_get_properties_ex(
    s: *const rocksfilter_sst,
    out: *mut rocksfilter_sst_properties,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: s NULL or live.
        let s = unsafe { sst_ref(s) }.ok_or_else(|| null_arg("sst"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let sst = &s.inner;
        let p = sst.properties();
        let ptr_of = |i: usize| s.strings[i].as_ref().map_or(ptr::null(), |c| c.as_ptr());
        let props = rocksfilter_sst_properties {
            format_version: sst.format_version(),
            checksum_type: sst.checksum_type() as u32,
            filter_type: filter_type(sst),
            num_partitions: match sst.filter() {
                SstFilter::Full(_) | SstFilter::CachedFull(_) => 1,
                SstFilter::Partitioned(p) => p.len() as u32,
                SstFilter::BlockBased(b) => b.num_filters() as u32,
                _ => 0,
            },
            whole_key_filtering: sst.whole_key_filtering(),
            has_prefix_filter: sst.has_prefix_filter(),
            num_entries: p.num_entries.unwrap_or(0),
            num_filter_entries: p.num_filter_entries.unwrap_or(0),
            filter_size: p.filter_size.unwrap_or(0),
            creation_time: p.creation_time.unwrap_or(0),
            file_creation_time: p.file_creation_time.unwrap_or(0),
            filter_policy: ptr_of(0),
            comparator: ptr_of(1),
            prefix_extractor: ptr_of(2),
            filter_block_name: ptr_of(3),
        };
        // SAFETY: out is non-NULL and writable (contract).
        unsafe { out.write(props) };
        Ok(())
    })
}

/// The raw bytes of the table property `name` (NUL-terminated), e.g.
/// "rocksdb.num.entries" (a varint) or "rocksdb.comparator" (a string).
/// Returns a pointer owned by the handle and stores the length in `*len`;
/// NULL when absent or on NULL arguments.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_property(
    s: *const rocksfilter_sst,
    name: *const c_char,
    len: *mut usize,
) -> *const u8 {
    guard(ptr::null(), || {
        if name.is_null() || len.is_null() {
            return ptr::null();
        }
        // SAFETY: header contract: s NULL or live; name NUL-terminated.
        let (Some(s), name) = (unsafe { sst_ref(s) }, unsafe { CStr::from_ptr(name) }) else { return ptr::null() };
        match s.inner.properties().raw_property(name.to_bytes()) {
            Some(v) => {
                // SAFETY: len is non-NULL and writable (contract).
                unsafe { *len = v.len() };
                v.as_ptr()
            }
            None => ptr::null(),
        }
    })
}

/// Frees the handle. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_sst_free(s: *mut rocksfilter_sst) {
    guard((), || {
        if !s.is_null() {
            // SAFETY: s came from Box::into_raw in wrap() and is freed once (contract).
            drop(unsafe { Box::from_raw(s) });
        }
    })
}
