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
pub(crate) fn guard_status(
    errptr: *mut *mut c_char,
    f: impl FnOnce() -> Result<(), Error>,
) -> rocksfilter_status {
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

/// Stores a newly allocated copy of the message in `*errptr` (RocksDB's C
/// API convention). A previous non-NULL value is overwritten, not freed.
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
