//! The C ABI: opaque handles over [`FilterBuilder`] and [`Filter`], status
//! codes, `errptr` messages, and a panic boundary on every function. No
//! filter logic lives here.
//!
//! The enums `rocksfilter_status`, `rocksfilter_policy` and `rocksfilter_kind`
//! are declared as C enums in the header (see `cbindgen.toml`) but cross the
//! ABI as `uint32_t`-compatible integers: a C caller can pass any integer
//! where an enum is expected, and an out-of-range value in a Rust enum would
//! be undefined behaviour, so we validate plain integers instead.
#![allow(non_camel_case_types)]
#![allow(missing_docs)] // the C header documents every item; Rust sees them only in tests
#![allow(clippy::missing_safety_doc)] // documented in the header, per function

mod guard;

use std::ffi::{c_char, CStr};
use std::ptr;

use guard::{guard, guard_out, guard_status};

use crate::{BuilderOptions, Error, ErrorKind, Filter, FilterBuilder, FilterInfo, Kind, Policy, RibbonFailure};

/// Status code (declared as a C enum in the header).
pub type rocksfilter_status = u32;
/// Filter policy (declared as a C enum in the header).
pub type rocksfilter_policy = u32;
/// Filter kind (declared as a C enum in the header).
pub type rocksfilter_kind = u32;

pub const ROCKSFILTER_OK: rocksfilter_status = 0;
pub const ROCKSFILTER_INVALID_ARGUMENT: rocksfilter_status = 1;
pub const ROCKSFILTER_CORRUPTION: rocksfilter_status = 2;
pub const ROCKSFILTER_NOT_SUPPORTED: rocksfilter_status = 3;
pub const ROCKSFILTER_IO_ERROR: rocksfilter_status = 4;
pub const ROCKSFILTER_NOT_FOUND: rocksfilter_status = 5;
pub const ROCKSFILTER_INTERNAL: rocksfilter_status = 6;

pub const ROCKSFILTER_POLICY_BLOOM: rocksfilter_policy = 1;
pub const ROCKSFILTER_POLICY_RIBBON: rocksfilter_policy = 2;
pub const ROCKSFILTER_POLICY_LEGACY_BLOOM: rocksfilter_policy = 3;

pub const ROCKSFILTER_KIND_ALWAYS_FALSE: rocksfilter_kind = 0;
pub const ROCKSFILTER_KIND_ALWAYS_TRUE: rocksfilter_kind = 1;
pub const ROCKSFILTER_KIND_FAST_LOCAL_BLOOM: rocksfilter_kind = 2;
pub const ROCKSFILTER_KIND_STANDARD128_RIBBON: rocksfilter_kind = 3;
pub const ROCKSFILTER_KIND_LEGACY_BLOOM: rocksfilter_kind = 4;

pub(crate) fn status_of(kind: ErrorKind) -> rocksfilter_status {
    match kind {
        ErrorKind::InvalidArgument => ROCKSFILTER_INVALID_ARGUMENT,
        ErrorKind::Corruption => ROCKSFILTER_CORRUPTION,
        ErrorKind::NotSupported => ROCKSFILTER_NOT_SUPPORTED,
        ErrorKind::Io => ROCKSFILTER_IO_ERROR,
        ErrorKind::NotFound => ROCKSFILTER_NOT_FOUND,
        ErrorKind::Internal => ROCKSFILTER_INTERNAL,
    }
}

pub(crate) fn kind_code(kind: Kind) -> rocksfilter_kind {
    match kind {
        Kind::AlwaysFalse => ROCKSFILTER_KIND_ALWAYS_FALSE,
        Kind::AlwaysTrue => ROCKSFILTER_KIND_ALWAYS_TRUE,
        Kind::FastLocalBloom => ROCKSFILTER_KIND_FAST_LOCAL_BLOOM,
        Kind::Standard128Ribbon => ROCKSFILTER_KIND_STANDARD128_RIBBON,
        Kind::LegacyBloom => ROCKSFILTER_KIND_LEGACY_BLOOM,
    }
}

/// A filter builder. Owned by one thread at a time; free with
/// `rocksfilter_builder_free`.
pub struct rocksfilter_builder {
    inner: FilterBuilder,
}

/// A loaded, immutable filter. May be queried from many threads at once;
/// free with `rocksfilter_filter_free` once no query is running.
pub struct rocksfilter_filter {
    inner: Filter<'static>,
}

/// Geometry of a loaded filter, filled by `rocksfilter_filter_get_info`.
#[repr(C)]
pub struct rocksfilter_filter_info {
    /// A `rocksfilter_kind` value.
    pub kind: u32,
    /// Whole block length in bytes, including the filter's 5-byte metadata
    /// (not the SST block trailer, which is not part of a filter block).
    pub bytes: u64,
    /// Bloom kinds: probes per key. 0 for other kinds.
    pub num_probes: u32,
    /// Legacy Bloom: number of cache lines. 0 for other kinds.
    pub num_lines: u32,
    /// Bloom kinds: cache-line size in bytes the block was written with.
    pub line_bytes: u32,
    /// Ribbon: number of 128-slot blocks. 0 for other kinds.
    pub num_blocks: u32,
    /// Ribbon: the hash seed (0..=255) the builder settled on.
    pub seed: u32,
    /// Ribbon: solution columns (result bits) per slot in blocks before
    /// `upper_start_block`; blocks from there on have one more.
    pub lower_num_columns: u32,
    /// Ribbon: first block with `lower_num_columns + 1` columns.
    pub upper_start_block: u32,
}

/// Geometry of a loaded filter, filled by `rocksfilter_filter_get_info_ex`.
/// Unlike `rocksfilter_filter_info`, this struct can grow: fields are only
/// ever added at the end, and the caller says how many bytes it has.
///
/// Before the call, set `struct_size = sizeof(rocksfilter_filter_info_ex)`
/// (as the caller's header declares it). The library fills at most that many
/// bytes (whole fields only) and sets `struct_size` to the number it filled,
/// so a program compiled against an older, shorter header keeps working with
/// a newer library, and a newer program can tell which fields an older
/// library filled.
#[repr(C)]
pub struct rocksfilter_filter_info_ex {
    /// In: bytes the caller provides. Out: bytes the library filled.
    pub struct_size: u32,
    /// A `rocksfilter_kind` value.
    pub kind: u32,
    /// Whole block length in bytes, its 5-byte trailer included.
    pub bytes: u64,
    /// Bloom kinds: probes per key. 0 for other kinds.
    pub num_probes: u32,
    /// Legacy Bloom: number of cache lines. 0 for other kinds.
    pub num_lines: u32,
    /// Legacy Bloom: the cache-line size the block was written with;
    /// FastLocalBloom: 64. 0 for other kinds.
    pub line_bytes: u32,
    /// Ribbon: number of 128-slot blocks. 0 for other kinds.
    pub num_blocks: u32,
    /// Ribbon: the hash seed (0..=255) the builder settled on.
    pub seed: u32,
    /// Ribbon: solution columns per slot in blocks before
    /// `upper_start_block`; blocks from there on have one more.
    pub lower_num_columns: u32,
    /// Ribbon: first block with `lower_num_columns + 1` columns.
    pub upper_start_block: u32,
    /// Always 0 (keeps the size a multiple of 8).
    pub reserved: u32,
}

/// How rocksfilter_builder_new_with_options() sizes a builder's blocks.
/// Like rocksfilter_filter_info_ex, this struct can grow: fields are only
/// ever added at the end, and the caller says how many bytes it has.
///
/// Zero-initialise it (`= {0}` or memset), set `struct_size =
/// sizeof(rocksfilter_builder_options)` and `policy`, then at most one of
/// `fp_rate` and `max_bytes` (else `bits_per_key`). Zero means "not set" for
/// every field after `policy`, so a program compiled against an older,
/// shorter header keeps working with a newer library: the library reads
/// only the whole fields within `struct_size` bytes and treats the rest as
/// zero. It never writes to the struct and does not keep it.
///
/// With only `policy` and `bits_per_key` set, the builder is exactly the one
/// rocksfilter_builder_new(policy, bits_per_key) makes: RocksDB's blocks.
#[repr(C)]
pub struct rocksfilter_builder_options {
    /// Bytes the caller provides: `sizeof(rocksfilter_builder_options)`
    /// (at least 8, the first two fields).
    pub struct_size: u32,
    /// A `rocksfilter_policy` value.
    pub policy: u32,
    /// RocksDB's bits/key (sanitised as rocksfilter_builder_new() does:
    /// below 0.5 is ROCKSFILTER_INVALID_ARGUMENT). Used only when neither
    /// `fp_rate` nor `max_bytes` is set; then ignored, whatever its value.
    pub bits_per_key: f64,
    /// 0: not set. Otherwise a target FP rate strictly between 0 and 1.
    /// Bloom: the smallest block whose estimated FP rate meets it; Ribbon:
    /// RocksDB's column split for that rate. Not for the legacy Bloom.
    pub fp_rate: f64,
    /// 0: not set. Otherwise a byte budget (the 5-byte trailer included, at
    /// least 69): the most accurate block that fits. Not for the legacy
    /// Bloom. Setting both this and `fp_rate` is ROCKSFILTER_INVALID_ARGUMENT.
    pub max_bytes: u64,
    /// Ribbon only (ignored by the Bloom policies): size the slots so that
    /// one seed fails to solve 1 time in this many: 2, 20 or 1000 (RocksDB's
    /// banding tables); 0 means 20, RocksDB's own. Other values are
    /// ROCKSFILTER_INVALID_ARGUMENT.
    pub ribbon_failure_one_in: u32,
    /// Must be 0 (keeps the size a multiple of 8).
    pub reserved: u32,
}

/// Where each field of `rocksfilter_builder_options` ends: the only places
/// a caller's shorter struct can end (`policy` is the least one can give).
const BUILDER_OPTIONS_FIELD_ENDS: [usize; 6] = {
    use std::mem::{offset_of, size_of};
    type T = rocksfilter_builder_options;
    [
        offset_of!(T, policy) + 4,
        offset_of!(T, bits_per_key) + size_of::<f64>(),
        offset_of!(T, fp_rate) + size_of::<f64>(),
        offset_of!(T, max_bytes) + size_of::<u64>(),
        offset_of!(T, ribbon_failure_one_in) + 4,
        offset_of!(T, reserved) + 4,
    ]
};

/// Why a (pointer, length) pair from C cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BadBuffer {
    /// NULL with a non-zero length.
    Null,
    /// A length above `isize::MAX`: no object in C or Rust can be that long,
    /// and building a slice of it would be undefined behaviour.
    TooLong(usize),
}

impl BadBuffer {
    /// The INVALID_ARGUMENT error naming the argument.
    pub(crate) fn error(self, what: &str) -> Error {
        match self {
            BadBuffer::Null => Error::invalid(format!("{what} (with non-zero length) is NULL")),
            BadBuffer::TooLong(len) => Error::invalid(format!(
                "{what}: length {len} exceeds the largest possible object ({} bytes)",
                isize::MAX
            )),
        }
    }
}

/// Borrows `len` bytes at `ptr`; NULL is the empty slice when `len == 0`.
/// Every (pointer, length) pair of the C ABI goes through here, so a NULL
/// buffer with a length, or a length above `isize::MAX`, is refused before
/// a byte is read.
///
/// # Safety
/// Non-NULL `ptr` must be valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], BadBuffer> {
    if ptr.is_null() {
        if len == 0 {
            Ok(&[])
        } else {
            Err(BadBuffer::Null)
        }
    } else if len > isize::MAX as usize {
        Err(BadBuffer::TooLong(len))
    } else {
        // SAFETY: the caller's contract (documented in the header for every
        // function taking a buffer): ptr is readable for len bytes; len is at
        // most isize::MAX (checked above), as from_raw_parts requires.
        Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
    }
}

fn policy_of(p: rocksfilter_policy) -> Result<Policy, Error> {
    match p {
        ROCKSFILTER_POLICY_BLOOM => Ok(Policy::Bloom),
        ROCKSFILTER_POLICY_RIBBON => Ok(Policy::Ribbon),
        ROCKSFILTER_POLICY_LEGACY_BLOOM => Ok(Policy::LegacyBloom),
        other => Err(Error::invalid(format!("unknown rocksfilter_policy value {other} (expected 1, 2 or 3)"))),
    }
}

pub(crate) fn null_arg(what: &str) -> Error {
    Error::invalid(format!("{what} is NULL"))
}

// ---------------------------------------------------------------- builder

/// ==========================================================================
/// BUILDERS: collect keys, then write the block RocksDB writes for them.
/// ==========================================================================
///
/// Creates a builder for `policy` at `bits_per_key`.
///
/// bits_per_key is sanitised as RocksDB does: below 0.5 (RocksDB writes no
/// filter at all) or NaN gives ROCKSFILTER_INVALID_ARGUMENT with a message;
/// below 1 becomes 1; 100 and above (+infinity too) becomes 100; the value
/// is rounded to thousandths of a bit. An unknown policy value gives
/// ROCKSFILTER_INVALID_ARGUMENT.
///
/// On success `*out` receives a builder the caller owns and frees with
/// rocksfilter_builder_free(); on failure `*out` is set to NULL.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_new(
    policy: rocksfilter_policy,
    bits_per_key: f64,
    out: *mut *mut rocksfilter_builder,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        let inner = FilterBuilder::new(policy_of(policy)?, bits_per_key)?;
        Ok(Box::into_raw(Box::new(rocksfilter_builder { inner })))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// Creates a builder sized by `*options` (see rocksfilter_builder_options):
/// RocksDB's bits/key, a target FP rate or a byte budget, and for Ribbon the
/// chance that one seed fails to solve. The library reads `*options` during
/// the call only; the caller keeps ownership of it.
///
/// ROCKSFILTER_INVALID_ARGUMENT, with a message, for NULL `options`, a
/// `struct_size` below 8, an unknown policy, a bad bits/key (when used), an
/// FP rate outside (0, 1), `max_bytes` below 69 or above SIZE_MAX, both an FP
/// rate and `max_bytes`, either with the legacy Bloom, an unsupported
/// `ribbon_failure_one_in`, or a non-zero `reserved`.
///
/// On success `*out` receives a builder the caller owns and frees with
/// rocksfilter_builder_free(); on failure `*out` is set to NULL.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_new_with_options(
    options: *const rocksfilter_builder_options,
    out: *mut *mut rocksfilter_builder,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    let make = || {
        if options.is_null() {
            return Err(null_arg("options"));
        }
        // SAFETY: options is non-NULL and points to struct_size readable
        // bytes, its first field included (header contract).
        let o = unsafe { read_sized(options, &BUILDER_OPTIONS_FIELD_ENDS) }?;
        if o.reserved != 0 {
            return Err(Error::invalid(format!("rocksfilter_builder_options.reserved is {}, not 0", o.reserved)));
        }
        let mut opts = BuilderOptions::new(policy_of(o.policy)?).bits_per_key(o.bits_per_key);
        if o.fp_rate != 0.0 {
            opts = opts.fp_rate(o.fp_rate);
        }
        if o.max_bytes != 0 {
            let b = usize::try_from(o.max_bytes)
                .map_err(|_| Error::invalid(format!("max_bytes {} is above SIZE_MAX", o.max_bytes)))?;
            opts = opts.max_bytes(b);
        }
        if o.ribbon_failure_one_in != 0 {
            opts = opts.ribbon_failure(RibbonFailure::from_one_in(u64::from(o.ribbon_failure_one_in))?);
        }
        let inner = FilterBuilder::with_options(&opts)?;
        Ok(Box::into_raw(Box::new(rocksfilter_builder { inner })))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// # Safety
/// `b` is NULL or a live builder not used concurrently.
unsafe fn builder_mut<'a>(b: *mut rocksfilter_builder) -> Option<&'a mut FilterBuilder> {
    // SAFETY: per the contract above.
    unsafe { b.as_mut() }.map(|b| &mut b.inner)
}

/// Adds a key (`len` bytes at `key`; NULL allowed when len is 0). The bytes
/// are hashed at once and not retained. Adjacent duplicate keys collapse into
/// one entry, as in RocksDB. No-op on a NULL builder. A NULL key with a
/// non-zero length is recorded and makes the next finish fail with
/// ROCKSFILTER_INVALID_ARGUMENT (a key is never silently dropped).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_add_key(b: *mut rocksfilter_builder, key: *const u8, len: usize) {
    guard((), || {
        // SAFETY: header contract: b is NULL or a live builder owned by this thread.
        let Some(b) = (unsafe { builder_mut(b) }) else { return };
        // SAFETY: header contract: key readable for len bytes.
        match unsafe { bytes(key, len) } {
            Ok(k) => b.add_key(k),
            Err(e) => b.poison(e.error("key in rocksfilter_builder_add_key")),
        }
    })
}

/// Adds a key and an alternate form of it (typically its prefix, for prefix
/// filtering) with RocksDB's AddKeyAndAlt de-duplication: an alt equal to the
/// previous alt, to the key, or to the previous key is not added again; a key
/// equal to the previous key or previous alt is not added again. NULL rules
/// as rocksfilter_builder_add_key().
///
/// This is the order of RocksDB 8.x and later (alt first). RocksDB 7.x adds
/// the key first and then the prefix (skipping a prefix equal to the last
/// one added); Ribbon takes its seed from the first entry, so to reproduce a
/// RocksDB 7.x block call rocksfilter_builder_add_key() for the key, then for
/// each new prefix. (With whole-key filtering off, RocksDB 7.x also adds the
/// empty key once, after the first key that has a prefix.)
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_add_key_and_alt(
    b: *mut rocksfilter_builder,
    key: *const u8,
    key_len: usize,
    alt: *const u8,
    alt_len: usize,
) {
    guard((), || {
        // SAFETY: header contract: b is NULL or a live builder owned by this thread.
        let Some(b) = (unsafe { builder_mut(b) }) else { return };
        // SAFETY: header contract: key/alt readable for their lengths.
        match unsafe { (bytes(key, key_len), bytes(alt, alt_len)) } {
            (Ok(k), Ok(a)) => b.add_key_and_alt(k, a),
            (Err(e), _) => b.poison(e.error("key in rocksfilter_builder_add_key_and_alt")),
            (_, Err(e)) => b.poison(e.error("alt in rocksfilter_builder_add_key_and_alt")),
        }
    })
}

/// Adds a key by its rocksfilter_hash64(), exactly as add_key would
/// (including collapsing an adjacent duplicate). Legacy Bloom builders hash
/// keys with a different 32-bit hash that cannot be derived from this one:
/// there the call is recorded and the next finish fails with
/// ROCKSFILTER_INVALID_ARGUMENT. No-op on a NULL builder.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_add_hash(b: *mut rocksfilter_builder, hash: u64) {
    guard((), || {
        // SAFETY: header contract: b is NULL or a live builder owned by this thread.
        if let Some(b) = unsafe { builder_mut(b) } {
            b.add_hash(hash)
        }
    })
}

/// Number of entries added since the last finish, after collapsing
/// duplicates (RocksDB's EstimateEntriesAdded). 0 for a NULL builder.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_num_entries(b: *const rocksfilter_builder) -> usize {
    // SAFETY: header contract: b is NULL or a live builder.
    guard(0, || unsafe { b.as_ref() }.map_or(0, |b| b.inner.num_entries()))
}

/// Writes the filter block for the added keys, byte for byte as RocksDB
/// would, and empties the builder so it can be reused.
///
/// On success `*out_data` receives a malloc()ed buffer of `*out_len` bytes
/// that the caller owns and frees with rocksfilter_bytes_free(). With no
/// keys added, `*out_len` is 0 and `*out_data` NULL: RocksDB's empty
/// (always-false) filter. On failure both are set to NULL/0 and the builder
/// is emptied too.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_finish(
    b: *mut rocksfilter_builder,
    out_data: *mut *mut u8,
    out_len: *mut usize,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        if out_data.is_null() || out_len.is_null() {
            return Err(null_arg("out_data or out_len"));
        }
        // SAFETY: both out-pointers are non-NULL and writable (contract).
        unsafe {
            *out_data = ptr::null_mut();
            *out_len = 0;
        }
        // SAFETY: header contract: b is NULL or a live builder owned by this thread.
        let b = unsafe { builder_mut(b) }.ok_or_else(|| null_arg("builder"))?;
        // Written straight into malloc memory (no copy of the block).
        let Some(block) = b.finish_into::<MallocBlock>()? else { return Ok(()) };
        let len = block.len();
        // SAFETY: as above.
        unsafe {
            *out_data = block.into_raw();
            *out_len = len;
        }
        Ok(())
    })
}

/// A zeroed `calloc` buffer the builder writes a block into, so that C
/// callers can release it with `free()` and no length has to be remembered.
/// Freed on drop unless handed out with `into_raw`.
struct MallocBlock {
    /// Invariant: a live `calloc` allocation of `len > 0` bytes owned here.
    ptr: ptr::NonNull<u8>,
    len: usize,
}

impl crate::builder::BlockBuf for MallocBlock {
    fn zeroed(len: usize) -> Result<Self, Error> {
        // SAFETY: plain allocation of a non-zero size; checked for NULL.
        let p = unsafe { libc::calloc(len, 1) } as *mut u8;
        let ptr = ptr::NonNull::new(p)
            .ok_or_else(|| Error::new(ErrorKind::Internal, format!("out of memory allocating {len} bytes")))?;
        Ok(MallocBlock { ptr, len })
    }
}

impl MallocBlock {
    fn into_raw(self) -> *mut u8 {
        let p = self.ptr.as_ptr();
        std::mem::forget(self);
        p
    }
}

impl std::ops::Deref for MallocBlock {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: struct invariant: len initialised (zeroed) bytes owned here.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for MallocBlock {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for MallocBlock {
    fn drop(&mut self) {
        // SAFETY: struct invariant: ours to free, once.
        unsafe { libc::free(self.ptr.as_ptr() as *mut libc::c_void) }
    }
}

/// Frees a builder. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_builder_free(b: *mut rocksfilter_builder) {
    guard((), || {
        if !b.is_null() {
            // SAFETY: b came from Box::into_raw in rocksfilter_builder_new and
            // is freed once (contract).
            drop(unsafe { Box::from_raw(b) });
        }
    })
}

/// ==========================================================================
/// MEMORY: buffers and messages the library returns.
/// ==========================================================================
///
/// Frees a buffer returned by this library (`len` is accepted for symmetry
/// and ignored; the buffer is malloc()ed, so free() works too). NULL is
/// ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_bytes_free(data: *mut u8, _len: usize) {
    // SAFETY: data is NULL or a malloc'ed buffer this library returned (contract).
    guard((), || unsafe { libc::free(data as *mut libc::c_void) })
}

/// Frees an error message stored through an errptr. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_string_free(s: *mut c_char) {
    guard((), || {
        if !s.is_null() {
            // SAFETY: s came from CString::into_raw in set_error (contract).
            drop(unsafe { std::ffi::CString::from_raw(s) });
        }
    })
}

// ---------------------------------------------------------------- filter

unsafe fn load(
    data: *const u8,
    len: usize,
    out: *mut *mut rocksfilter_filter,
    errptr: *mut *mut c_char,
    copy: bool,
) -> rocksfilter_status {
    let make = || {
        // SAFETY: header contract: data readable for len bytes; for the
        // borrowed form it stays valid and unmodified until the filter is freed,
        // which is what the 'static lifetime stands for here.
        let block: &'static [u8] = unsafe { bytes(data, len) }.map_err(|e| e.error("data"))?;
        let inner = if copy { Filter::from_copy(block)? } else { Filter::new(block)? };
        Ok(Box::into_raw(Box::new(rocksfilter_filter { inner })))
    };
    // SAFETY: header contract: out is NULL or writable.
    unsafe { guard_out(errptr, out, make) }
}

/// ==========================================================================
/// FILTERS: load a block (validated once), then query it from any thread.
/// ==========================================================================
///
/// Loads a filter block, copying its `len` bytes (the caller may free `data`
/// right after). Blocks of 5 bytes or fewer load as ALWAYS_FALSE; reserved
/// or unknown formats as ALWAYS_TRUE (RocksDB's future-safe rule); a block
/// whose declared geometry does not fit its length gives
/// ROCKSFILTER_CORRUPTION with the offending offset and values. On success
/// `*out` receives a filter freed with rocksfilter_filter_free(); on failure
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_load(
    data: *const u8,
    len: usize,
    out: *mut *mut rocksfilter_filter,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { load(data, len, out, errptr, true) }
}

/// As rocksfilter_filter_load() but without copying: `data` must stay valid
/// and unmodified until the filter is freed.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_load_borrowed(
    data: *const u8,
    len: usize,
    out: *mut *mut rocksfilter_filter,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { load(data, len, out, errptr, false) }
}

/// # Safety
/// `f` is NULL or a live filter.
unsafe fn filter_ref<'a>(f: *const rocksfilter_filter) -> Option<&'a Filter<'static>> {
    // SAFETY: per the contract above.
    unsafe { f.as_ref() }.map(|f| &f.inner)
}

/// May the key (`len` bytes at `key`) have been added? false is definite;
/// true may be a false positive. Never fails: geometry was validated at load
/// and no query reads outside the block. Returns true for a NULL filter or a
/// NULL key with non-zero length. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_may_match(
    f: *const rocksfilter_filter,
    key: *const u8,
    len: usize,
) -> bool {
    guard(true, || {
        // SAFETY: header contract: f is NULL or live; key readable for len bytes.
        match unsafe { (filter_ref(f), bytes(key, len)) } {
            (Some(f), Ok(k)) => f.may_match(k),
            _ => true,
        }
    })
}

/// Query by a precomputed rocksfilter_hash64() of the key. On a legacy
/// Bloom filter, which is built from a different 32-bit hash, this always
/// answers true (never a false negative; use rocksfilter_filter_may_match()
/// there). Returns true for a NULL filter. Thread-safe.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_may_match_hash(f: *const rocksfilter_filter, hash: u64) -> bool {
    // SAFETY: header contract: f is NULL or live.
    guard(true, || unsafe { filter_ref(f) }.is_none_or(|f| f.may_match_hash(hash)))
}

/// Batch query: results[i] answers keys[i] (lens[i] bytes), for i < n.
/// Hashes and prefetches ahead of probing (RocksDB's MultiGet style), so it
/// is faster per key than a loop of single queries on large filters.
/// Fails open: answers true for every key when the filter, keys or lens is
/// NULL, and for a NULL keys[i] with non-zero lens[i] (or lens[i] above
/// PTRDIFF_MAX). No-op when results is NULL or n is larger than any array of
/// pointers can be. rocksfilter_filter_may_match_batch_ex() reports these
/// misuses as a status instead.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_may_match_batch(
    f: *const rocksfilter_filter,
    keys: *const *const u8,
    lens: *const usize,
    n: usize,
    results: *mut bool,
) {
    // SAFETY: header contract: f is NULL or live; the arrays as documented.
    guard((), || unsafe { batch_fail_open(filter_ref(f), keys, lens, n, results) })
}

/// What the batch entry points query: a filter, or an SST file's filter.
pub(crate) trait BatchTarget {
    /// `results[i]` answers `key(i)` for `i < n`.
    fn query<'k>(&self, n: usize, key: impl Fn(usize) -> &'k [u8], results: &mut [bool]);
}

impl BatchTarget for Filter<'_> {
    fn query<'k>(&self, n: usize, key: impl Fn(usize) -> &'k [u8], results: &mut [bool]) {
        self.may_match_indexed(n, key, results)
    }
}

/// The body of the fail-open pointer-array batch calls
/// (rocksfilter_filter_may_match_batch, rocksfilter_sst_may_match_batch).
/// Safety: `keys` and `lens` NULL or readable for `n` elements, each
/// `keys[i]` readable for `lens[i]` bytes; `results` NULL or writable for `n`.
pub(crate) unsafe fn batch_fail_open<T: BatchTarget>(
    t: Option<&T>,
    keys: *const *const u8,
    lens: *const usize,
    n: usize,
    results: *mut bool,
) {
    // No caller holds n pointers and n lengths for a larger n; the
    // slices below would exceed isize::MAX bytes (undefined behaviour).
    if results.is_null() || n == 0 || n > isize::MAX as usize / std::mem::size_of::<usize>() {
        return;
    }
    // SAFETY: per the contract above: results writable for n bools.
    let results = unsafe { std::slice::from_raw_parts_mut(results, n) };
    let Some(t) = t else { return results.fill(true) };
    if keys.is_null() || lens.is_null() {
        return results.fill(true);
    }
    // SAFETY: per the contract above: keys and lens readable for n elements.
    let (keys, lens) = unsafe { (std::slice::from_raw_parts(keys, n), std::slice::from_raw_parts(lens, n)) };
    // A NULL key with a non-zero length has no bytes to test: it is
    // queried as empty, noted, and answered "may match" afterwards
    // rather than risking a false negative (no second pass otherwise).
    let saw_null = std::cell::Cell::new(false);
    // SAFETY: per the contract above: each keys[i] readable for lens[i] bytes.
    let key = |i: usize| {
        unsafe { bytes(keys[i], lens[i]) }.unwrap_or_else(|_| {
            saw_null.set(true);
            &[]
        })
    };
    t.query(n, key, results);
    if saw_null.get() {
        for i in 0..n {
            // SAFETY: as above; bytes() only inspects the pointer here.
            if unsafe { bytes(keys[i], lens[i]) }.is_err() {
                results[i] = true;
            }
        }
    }
}

/// rocksfilter_filter_may_match_batch() that reports misuse instead of
/// failing open: ROCKSFILTER_INVALID_ARGUMENT (results untouched, a message
/// in `*errptr` naming the argument or the index i) for a NULL filter, keys,
/// lens or results when n > 0, a NULL keys[i] with non-zero lens[i], or a
/// lens[i] above PTRDIFF_MAX. Every key is checked before any is queried.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_may_match_batch_ex(
    f: *const rocksfilter_filter,
    keys: *const *const u8,
    lens: *const usize,
    n: usize,
    results: *mut bool,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        if n == 0 {
            return Ok(());
        }
        // SAFETY: header contract: f is NULL or live.
        let f = unsafe { filter_ref(f) }.ok_or_else(|| null_arg("filter"))?;
        if keys.is_null() || lens.is_null() || results.is_null() {
            return Err(null_arg("keys, lens or results"));
        }
        if n > isize::MAX as usize / std::mem::size_of::<usize>() {
            return Err(Error::invalid(format!("n = {n} keys: more than any array of pointers can hold")));
        }
        // SAFETY: header contract: keys and lens readable for n elements,
        // results writable for n bools.
        let (keys, lens, results) = unsafe {
            (
                std::slice::from_raw_parts(keys, n),
                std::slice::from_raw_parts(lens, n),
                std::slice::from_raw_parts_mut(results, n),
            )
        };
        for i in 0..n {
            // SAFETY: header contract: keys[i] readable for lens[i] bytes.
            unsafe { bytes(keys[i], lens[i]) }.map_err(|e| e.error(&format!("keys[{i}]")))?;
        }
        // SAFETY: as above; every pair was checked just now.
        let key = |i: usize| unsafe { bytes(keys[i], lens[i]) }.unwrap_or(&[]);
        f.may_match_indexed(n, key, results);
        Ok(())
    })
}

/// Batch query over one packed buffer (for callers such as Go's cgo that
/// cannot pass arrays of pointers): key i is buf[offsets[i] .. offsets[i+1]],
/// so `offsets` has n + 1 entries. Offsets that decrease or exceed `buf_len`
/// give ROCKSFILTER_INVALID_ARGUMENT (results untouched, message in *errptr),
/// as do NULL filter, offsets or results when n > 0.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_may_match_packed(
    f: *const rocksfilter_filter,
    buf: *const u8,
    buf_len: usize,
    offsets: *const usize,
    n: usize,
    results: *mut bool,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    // SAFETY: header contract: f is NULL or live; the buffers as documented.
    guard_status(errptr, || unsafe { batch_packed(filter_ref(f), "filter", buf, buf_len, offsets, n, results) })
}

/// The body of the packed-buffer batch calls
/// (rocksfilter_filter_may_match_packed, rocksfilter_sst_may_match_packed);
/// `what` names the handle in the error for a NULL one.
/// Safety: `buf` NULL or readable for `buf_len` bytes, `offsets` NULL or
/// readable for `n + 1` elements, `results` NULL or writable for `n`.
pub(crate) unsafe fn batch_packed<T: BatchTarget>(
    t: Option<&T>,
    what: &str,
    buf: *const u8,
    buf_len: usize,
    offsets: *const usize,
    n: usize,
    results: *mut bool,
) -> Result<(), Error> {
    if n == 0 {
        return Ok(());
    }
    if results.is_null() || offsets.is_null() {
        return Err(null_arg("results or offsets"));
    }
    let t = t.ok_or_else(|| null_arg(what))?;
    // Hardening (tests/ffi_misuse.rs): no real buffer holds n + 1
    // offsets for a larger n; without this check `n + 1` overflows (a
    // panic in debug builds, an empty slice in release) and the slices
    // below would exceed isize::MAX bytes, which is undefined behaviour.
    if n >= isize::MAX as usize / std::mem::size_of::<usize>() {
        return Err(Error::invalid(format!("n = {n} keys: more offsets than any buffer can hold")));
    }
    // SAFETY: per the contract above.
    let (buf, offsets, results) = unsafe {
        (
            bytes(buf, buf_len).map_err(|e| e.error("buf"))?,
            std::slice::from_raw_parts(offsets, n + 1),
            std::slice::from_raw_parts_mut(results, n),
        )
    };
    for i in 0..n {
        if offsets[i] > offsets[i + 1] || offsets[i + 1] > buf_len {
            return Err(Error::invalid(format!(
                "offsets[{i}..={}] = {}..{} is not a range within the {buf_len}-byte buffer",
                i + 1,
                offsets[i],
                offsets[i + 1]
            )));
        }
    }
    t.query(n, |i| &buf[offsets[i]..offsets[i + 1]], results);
    Ok(())
}

/// The kind of block loaded. ROCKSFILTER_KIND_ALWAYS_TRUE for NULL.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_kind(f: *const rocksfilter_filter) -> rocksfilter_kind {
    // SAFETY: header contract: f is NULL or live.
    guard(ROCKSFILTER_KIND_ALWAYS_TRUE, || {
        unsafe { filter_ref(f) }.map_or(ROCKSFILTER_KIND_ALWAYS_TRUE, |f| kind_code(f.kind()))
    })
}

/// The filter's geometry in the fixed (version 0.1) struct.
fn info_of(f: &Filter<'_>) -> rocksfilter_filter_info {
    let (probes, lines, line_bytes, blocks, seed, lower, upper) = match f.info() {
        FilterInfo::FastLocalBloom { num_probes, .. } => (num_probes, 0, 64, 0, 0, 0, 0),
        FilterInfo::LegacyBloom { num_probes, num_lines, line_bytes, .. } => {
            (num_probes, num_lines, line_bytes, 0, 0, 0, 0)
        }
        FilterInfo::Standard128Ribbon { num_blocks, seed, lower_num_columns, upper_start_block, .. } => {
            (0, 0, 0, num_blocks, u32::from(seed), lower_num_columns, upper_start_block)
        }
        _ => (0, 0, 0, 0, 0, 0, 0),
    };
    rocksfilter_filter_info {
        kind: kind_code(f.kind()),
        bytes: f.as_bytes().len() as u64,
        num_probes: probes,
        num_lines: lines,
        line_bytes,
        num_blocks: blocks,
        seed,
        lower_num_columns: lower,
        upper_start_block: upper,
    }
}

/// Fills `*out` with the filter's geometry. ROCKSFILTER_INVALID_ARGUMENT on
/// NULL arguments (no message: prefer rocksfilter_filter_get_info_ex(),
/// which takes an errptr and a struct that can grow).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_get_info(
    f: *const rocksfilter_filter,
    out: *mut rocksfilter_filter_info,
) -> rocksfilter_status {
    guard_status(ptr::null_mut(), || {
        // SAFETY: header contract: f is NULL or live.
        let f = unsafe { filter_ref(f) }.ok_or_else(|| null_arg("filter"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: out is non-NULL and writable (contract).
        unsafe { out.write(info_of(f)) };
        Ok(())
    })
}

/// Fills `*out` with the filter's geometry (see rocksfilter_filter_info_ex
/// for the `struct_size` protocol). ROCKSFILTER_INVALID_ARGUMENT, with a
/// message in `*errptr`, on NULL arguments or a `struct_size` smaller than
/// the first two fields (8 bytes).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_get_info_ex(
    f: *const rocksfilter_filter,
    out: *mut rocksfilter_filter_info_ex,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: f is NULL or live.
        let f = unsafe { filter_ref(f) }.ok_or_else(|| null_arg("filter"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        // SAFETY: out is non-NULL, aligned and its first field readable
        // (contract: at least struct_size bytes, which we check next).
        let provided = unsafe { ptr::addr_of!((*out).struct_size).read() } as usize;
        let i = info_of(f);
        let full = rocksfilter_filter_info_ex {
            struct_size: 0,
            kind: i.kind,
            bytes: i.bytes,
            num_probes: i.num_probes,
            num_lines: i.num_lines,
            line_bytes: i.line_bytes,
            num_blocks: i.num_blocks,
            seed: i.seed,
            lower_num_columns: i.lower_num_columns,
            upper_start_block: i.upper_start_block,
            reserved: 0,
        };
        // SAFETY: out points to `provided` writable bytes (contract); the
        // table lists the struct's field ends.
        unsafe { write_sized(out, &full, provided, &INFO_EX_FIELD_ENDS) }
    })
}

/// Where each field of `rocksfilter_filter_info_ex` ends: the only places a
/// caller's shorter struct can end (`kind` is the least every version fills).
const INFO_EX_FIELD_ENDS: [usize; 10] = {
    use std::mem::{offset_of, size_of};
    type T = rocksfilter_filter_info_ex;
    [
        offset_of!(T, kind) + 4,
        offset_of!(T, bytes) + size_of::<u64>(),
        offset_of!(T, num_probes) + 4,
        offset_of!(T, num_lines) + 4,
        offset_of!(T, line_bytes) + 4,
        offset_of!(T, num_blocks) + 4,
        offset_of!(T, seed) + 4,
        offset_of!(T, lower_num_columns) + 4,
        offset_of!(T, upper_start_block) + 4,
        offset_of!(T, reserved) + 4,
    ]
};

/// The `struct_size` protocol of the extensible structs: copies the leading
/// fields of `value` that fit whole in the caller's `provided` bytes (`ends`
/// lists where each field ends, ascending, the last being the struct's
/// size), then stores the number of bytes copied in the leading `u32
/// struct_size`. Fewer bytes than the first entry is INVALID_ARGUMENT.
///
/// # Safety
/// `out` is non-NULL, aligned for `T` and writable for `provided` bytes; `T`
/// is `repr(C)` and starts with a `u32`.
pub(crate) unsafe fn write_sized<T>(out: *mut T, value: &T, provided: usize, ends: &[usize]) -> Result<(), Error> {
    debug_assert_eq!(ends.last(), Some(&std::mem::size_of::<T>()));
    let Some(&n) = ends.iter().rev().find(|&&e| e <= provided) else {
        return Err(Error::invalid(format!(
            "struct_size is {provided}, below the {} bytes every version fills: set it to the sizeof of the struct",
            ends[0]
        )));
    };
    // SAFETY: `value` is size_of::<T>() >= n readable bytes; `out` has
    // `provided >= n` writable bytes (contract); the regions are distinct.
    unsafe { ptr::copy_nonoverlapping((value as *const T).cast::<u8>(), out.cast::<u8>(), n) };
    // SAFETY: n >= 4 (the first field ends after struct_size): the leading
    // u32 lies inside the caller's bytes.
    unsafe { out.cast::<u32>().write(n as u32) };
    Ok(())
}

/// The input side of the `struct_size` protocol: the leading fields of
/// `*src` that lie whole within its `struct_size` bytes (`ends` as for
/// `write_sized`), the rest zero. Fewer bytes than the first entry is
/// INVALID_ARGUMENT.
///
/// # Safety
/// `src` is non-NULL, aligned for `T` and readable for its leading `u32`
/// and for that many bytes; `T` is `repr(C)`, starts with a `u32` and is
/// valid when all zero.
unsafe fn read_sized<T>(src: *const T, ends: &[usize]) -> Result<T, Error> {
    debug_assert_eq!(ends.last(), Some(&std::mem::size_of::<T>()));
    // SAFETY: the leading u32 is readable (contract).
    let provided = unsafe { src.cast::<u32>().read() } as usize;
    let Some(&n) = ends.iter().rev().find(|&&e| e <= provided) else {
        return Err(Error::invalid(format!(
            "struct_size is {provided}, below the {} bytes every version reads: set it to the sizeof of the struct",
            ends[0]
        )));
    };
    let mut value = std::mem::MaybeUninit::<T>::zeroed();
    // SAFETY: `src` has `provided >= n` readable bytes (contract), `value`
    // has size_of::<T>() >= n; all-zero is a valid T (contract).
    unsafe {
        ptr::copy_nonoverlapping(src.cast::<u8>(), value.as_mut_ptr().cast::<u8>(), n);
        Ok(value.assume_init())
    }
}

/// Points `*data` at the filter's block bytes (its 5-byte trailer included)
/// and stores their length in `*len`. The bytes are owned by the filter (or,
/// for borrowed filters, the caller's buffer) and valid until it is freed.
/// ROCKSFILTER_INVALID_ARGUMENT on NULL arguments (no message: prefer
/// rocksfilter_filter_data_ex()).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_data(
    f: *const rocksfilter_filter,
    data: *mut *const u8,
    len: *mut usize,
) -> rocksfilter_status {
    // SAFETY: forwarded contract.
    unsafe { rocksfilter_filter_data_ex(f, data, len, ptr::null_mut()) }
}

/// rocksfilter_filter_data() with a message in `*errptr` on failure.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_data_ex(
    f: *const rocksfilter_filter,
    data: *mut *const u8,
    len: *mut usize,
    errptr: *mut *mut c_char,
) -> rocksfilter_status {
    guard_status(errptr, || {
        // SAFETY: header contract: f is NULL or live.
        let f = unsafe { filter_ref(f) }.ok_or_else(|| null_arg("filter"))?;
        if data.is_null() || len.is_null() {
            return Err(null_arg("data or len"));
        }
        let b = f.as_bytes();
        // SAFETY: both out-pointers are non-NULL and writable (contract).
        unsafe {
            *data = b.as_ptr();
            *len = b.len();
        }
        Ok(())
    })
}

/// RocksDB's estimate of the false-positive rate of this filter if it holds
/// `num_keys` keys (0.0 for ALWAYS_FALSE, 1.0 for ALWAYS_TRUE or NULL).
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_estimated_fp_rate(f: *const rocksfilter_filter, num_keys: usize) -> f64 {
    // SAFETY: header contract: f is NULL or live.
    guard(1.0, || unsafe { filter_ref(f) }.map_or(1.0, |f| f.estimated_fp_rate(num_keys)))
}

/// Frees a filter. No query may be running on it. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_filter_free(f: *mut rocksfilter_filter) {
    guard((), || {
        if !f.is_null() {
            // SAFETY: f came from Box::into_raw in load and is freed once (contract).
            drop(unsafe { Box::from_raw(f) });
        }
    })
}

// ---------------------------------------------------------------- misc

/// ==========================================================================
/// HASHES AND VERSION.
/// ==========================================================================
///
/// RocksDB's filter hash (Hash64 / GetSliceHash64: the XXH3 preview frozen
/// in RocksDB, not final XXH3) of `len` bytes at `key`. The empty key hashes
/// to 0x5342c3010fe1dd04. A NULL key with non-zero length, or a length
/// above PTRDIFF_MAX, returns 0.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_hash64(key: *const u8, len: usize) -> u64 {
    // Keys up to 128 bytes (nearly every key an engine hashes) in straight
    // code: their hash calls nothing that could unwind, so the function
    // needs no frame, no saved registers and no unwind guard. Measured
    // (`bench/compare --ops hash`, 20-byte keys): see BENCHMARKS.md.
    if len <= 128 {
        // SAFETY: header contract: key readable for len bytes.
        if let Ok(k) = unsafe { bytes(key, len) } {
            return crate::hash::hash64_inline(k);
        }
    }
    hash64_guarded(key, len)
}

/// [`rocksfilter_hash64`] for long keys and bad arguments.
#[cold]
#[inline(never)]
unsafe fn hash64_guarded(key: *const u8, len: usize) -> u64 {
    // SAFETY: header contract: key readable for len bytes.
    guard(0, || unsafe { bytes(key, len) }.map_or(0, crate::hash64))
}

/// RocksDB's legacy Bloom hash (BloomHash) of `len` bytes at `key`. A NULL
/// key with non-zero length, or a length above PTRDIFF_MAX, returns 0.
#[no_mangle]
pub unsafe extern "C" fn rocksfilter_legacy_hash32(key: *const u8, len: usize) -> u32 {
    // SAFETY: header contract: key readable for len bytes.
    guard(0, || unsafe { bytes(key, len) }.map_or(0, crate::bloom_hash))
}

/// This library's version as a static string ("MAJOR.MINOR.PATCH"); compare
/// with ROCKSFILTER_VERSION_STRING to detect a header/library mismatch.
#[no_mangle]
pub extern "C" fn rocksfilter_version() -> *const c_char {
    static VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("version string"),
    };
    VERSION.as_ptr()
}

// SST files come after the core calls in the header.
mod sst;
#[allow(unused_imports)] // used by the crate's tests through the internal-ffi feature
pub use sst::*;
