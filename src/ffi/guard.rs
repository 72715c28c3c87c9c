//! The panic boundary: every exported function runs its body through
//! [`guard`] or [`guard_status`], so no panic ever unwinds into C.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{rocksfilter_status, status_of, ROCKSFILTER_INTERNAL, ROCKSFILTER_OK};
use crate::{Error, ErrorKind};

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs `f`; on a panic returns `fallback`. Used by functions that return a
/// value or nothing: their fallbacks are the conservative answers documented
/// in the header (e.g. "may match").
pub(crate) fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Runs `f`; maps its error or a panic to a status code and, when `errptr`
/// is non-NULL, stores a message there.
pub(crate) fn guard_status(errptr: *mut *mut c_char, f: impl FnOnce() -> Result<(), Error>) -> rocksfilter_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => ROCKSFILTER_OK,
        Ok(Err(e)) => {
            set_error(errptr, &e);
            status_of(e.kind())
        }
        Err(payload) => {
            let e = Error::new(
                ErrorKind::Internal,
                format!("panic inside rocksfilter (please report): {}", panic_message(&*payload)),
            );
            set_error(errptr, &e);
            ROCKSFILTER_INTERNAL
        }
    }
}

/// For functions that create a handle: `*out` is set to NULL first (so it
/// is NULL on every failure), then to the handle `make` returns. A NULL
/// `out` is INVALID_ARGUMENT.
///
/// # Safety
/// `out` is NULL or points to a writable `T *` (the header's contract).
pub(crate) unsafe fn guard_out<T>(
    errptr: *mut *mut c_char,
    out: *mut *mut T,
    make: impl FnOnce() -> Result<*mut T, Error>,
) -> rocksfilter_status {
    guard_status(errptr, || {
        if out.is_null() {
            return Err(Error::invalid("out is NULL"));
        }
        // SAFETY: out is non-NULL and writable (contract above).
        unsafe { *out = std::ptr::null_mut() };
        let handle = make()?;
        // SAFETY: as above.
        unsafe { *out = handle };
        Ok(())
    })
}

/// Stores a newly allocated copy of the message in `*errptr`. Unlike
/// RocksDB's C API (`SaveError` in `db/c.cc` frees a message already
/// there), a previous non-NULL value is overwritten, not freed: it may be
/// the caller's own pointer, so freeing it could be a double free. Callers
/// pass the address of a NULL `char *` (the header says so) or free the old
/// message first; a message left there and overwritten is leaked.
pub(crate) fn set_error(errptr: *mut *mut c_char, e: &Error) {
    if errptr.is_null() {
        return;
    }
    // Interior NULs cannot come from our messages, but be total anyway.
    let msg = CString::new(e.to_string().replace('\0', " ")).unwrap_or_default();
    // SAFETY: errptr is non-NULL and, per the header contract, points to a
    // writable `char *`.
    unsafe { *errptr = msg.into_raw() };
}

#[cfg(test)]
mod tests {
    //! The panic boundary cannot be reached through the public C ABI (no
    //! exported function panics on contract-respecting input), so it is
    //! tested directly (tests/ffi_misuse.rs covers the exported functions).
    use super::*;

    #[test]
    fn a_panic_becomes_internal_with_a_message() {
        let mut err: *mut c_char = std::ptr::null_mut();
        let st = guard_status(&mut err, || panic!("boom {}", 42));
        assert_eq!(st, ROCKSFILTER_INTERNAL);
        // SAFETY: set_error stored a CString::into_raw pointer.
        let msg = unsafe { CString::from_raw(err) }.into_string().unwrap();
        assert_eq!(msg, "internal error: panic inside rocksfilter (please report): boom 42");
        // &str payloads, NULL errptr, and the value-returning form.
        assert_eq!(guard_status(std::ptr::null_mut(), || panic!("static")), ROCKSFILTER_INTERNAL);
        assert!(guard(true, || -> bool { panic!("query") }));
        assert_eq!(guard(7u32, || 3), 3);
        // Errors and success pass through unchanged.
        assert_eq!(
            guard_status(std::ptr::null_mut(), || Err(Error::invalid("x"))),
            super::super::ROCKSFILTER_INVALID_ARGUMENT
        );
        assert_eq!(guard_status(std::ptr::null_mut(), || Ok(())), ROCKSFILTER_OK);
    }
}
