//! JNI entry points of the Java binding's JNI backend (the class
//! `io.github.rocksfilter.JniNative`, for JDKs without the Foreign Function
//! & Memory API). They live in the same `librocksfilter.so` as the C ABI and
//! call the C ABI's functions (`crate::ffi`), exactly as the FFM backend
//! does, so both backends give the same answers, statuses and messages.
//!
//! Handles cross as `jlong` (the C ABI's pointers). **No panic crosses the
//! JNI boundary:** every entry point runs its body in [`run`], which catches
//! a panic and throws `RocksFilterException` (status `INTERNAL`); a failed
//! C call throws `RocksFilterException` with the call's status and message.
//! Not part of the C ABI: the header generator ignores this module.

use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use jni::objects::{JByteArray, JClass, JLongArray, JObject, JString, JThrowable, JValue, ReleaseMode};
use jni::sys::{jboolean, jdouble, jint, jlong, jstring};
use jni::JNIEnv;

use crate::ffi::rocksfilter_sst;
use crate::ffi::{self, rocksfilter_builder, rocksfilter_filter, ROCKSFILTER_INTERNAL};

/// Why an entry point did not return normally.
enum Failure {
    /// A C call failed: its status and message.
    Status(u32, Option<String>),
    /// A JNI call failed; a Java exception may already be pending.
    Jni(jni::errors::Error),
}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

type Res<T> = Result<T, Failure>;

/// Runs `body`; on a failure or a panic throws the matching Java exception
/// and returns `fallback` (which Java never sees: the exception is pending).
fn run<'l, T>(env: &mut JNIEnv<'l>, fallback: T, body: impl FnOnce(&mut JNIEnv<'l>) -> Res<T>) -> T {
    let failure = match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(v)) => return v,
        Ok(Err(f)) => f,
        Err(_) => Failure::Status(
            ROCKSFILTER_INTERNAL,
            Some("internal error: panic inside rocksfilter's JNI entry point (please report)".into()),
        ),
    };
    // Throwing may itself fail (out of memory): then a Java exception is
    // pending already, or the JVM is beyond help; never unwind either way.
    let _ = catch_unwind(AssertUnwindSafe(|| throw(env, failure)));
    fallback
}

fn throw(env: &mut JNIEnv<'_>, failure: Failure) {
    match failure {
        Failure::Jni(jni::errors::Error::JavaException) => {} // already pending
        Failure::Jni(e) => {
            if !env.exception_check().unwrap_or(true) {
                let _ = env.throw_new("java/lang/IllegalStateException", format!("rocksfilter JNI: {e}"));
            }
        }
        Failure::Status(status, msg) => {
            let msg: JObject = match msg {
                Some(m) => match env.new_string(m) {
                    Ok(s) => s.into(),
                    Err(_) => return,
                },
                None => JObject::null(),
            };
            // JniNative.exception(int, String) builds the RocksFilterException,
            // with the same status mapping as the FFM backend.
            let made = env.call_static_method(
                "io/github/rocksfilter/JniNative",
                "exception",
                "(ILjava/lang/String;)Lio/github/rocksfilter/RocksFilterException;",
                &[JValue::Int(status as jint), JValue::Object(&msg)],
            );
            if let Ok(Ok(obj)) = made.map(|v| v.l()) {
                let _ = env.throw(JThrowable::from(obj));
            }
        }
    }
}

/// Calls a C function taking an `errptr`; a non-OK status becomes
/// [`Failure::Status`] with the message (freed here).
fn call(f: impl FnOnce(*mut *mut c_char) -> u32) -> Res<()> {
    let mut err: *mut c_char = ptr::null_mut();
    let status = f(&mut err);
    if status == 0 {
        return Ok(());
    }
    let msg = (!err.is_null()).then(|| {
        // SAFETY: a non-NULL errptr message is a NUL-terminated string the
        // library allocated; read once, then freed exactly once.
        let s = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
        unsafe { ffi::rocksfilter_string_free(err) };
        s
    });
    Err(Failure::Status(status, msg))
}

/// Runs `f` on the bytes of `arr` in place (a JNI critical region).
fn with_bytes<R>(env: &mut JNIEnv<'_>, arr: &JByteArray<'_>, f: impl FnOnce(&[u8]) -> R) -> Res<R> {
    if arr.is_null() {
        return Err(Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some("invalid argument: array is null".into())));
    }
    // SAFETY: `f` makes no JNI call while the region is held (it only runs
    // C-ABI code on the bytes), and the region is released before returning.
    let elems = unsafe { env.get_array_elements_critical(arr, ReleaseMode::NoCopyBack) }?;
    let len = elems.len();
    // SAFETY: the JVM pinned `len` jbytes (i8, same layout as u8) at this
    // address until `elems` drops at the end of this function.
    let bytes = unsafe { std::slice::from_raw_parts(elems.as_ptr() as *const u8, len) };
    Ok(f(bytes))
}

fn filter_ptr(f: jlong) -> *const rocksfilter_filter {
    f as usize as *const rocksfilter_filter
}

fn builder_ptr(b: jlong) -> *mut rocksfilter_builder {
    b as usize as *mut rocksfilter_builder
}

// ---- hashing, version ----

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_version<'l>(mut env: JNIEnv<'l>, _: JClass<'l>) -> jstring {
    run(&mut env, ptr::null_mut(), |env| {
        // SAFETY: rocksfilter_version returns a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(ffi::rocksfilter_version()) }.to_string_lossy().into_owned();
        Ok(env.new_string(v)?.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_hash64<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    key: JByteArray<'l>,
) -> jlong {
    run(&mut env, 0, |env| {
        // SAFETY: the slice is valid for its length during the call.
        with_bytes(env, &key, |k| unsafe { ffi::rocksfilter_hash64(k.as_ptr(), k.len()) } as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_legacyHash32<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    key: JByteArray<'l>,
) -> jint {
    run(&mut env, 0, |env| {
        // SAFETY: the slice is valid for its length during the call.
        with_bytes(env, &key, |k| unsafe { ffi::rocksfilter_legacy_hash32(k.as_ptr(), k.len()) } as jint)
    })
}

// ---- builder ----

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderNew<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    policy: jint,
    bits_per_key: jdouble,
) -> jlong {
    run(&mut env, 0, |_| {
        let mut out: *mut rocksfilter_builder = ptr::null_mut();
        // SAFETY: out and errptr are valid slots for the call.
        call(|err| unsafe { ffi::rocksfilter_builder_new(policy as u32, bits_per_key, &mut out, err) })?;
        Ok(out as usize as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderAddKey<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
    key: JByteArray<'l>,
) {
    run(&mut env, (), |env| {
        // SAFETY: b is a live builder (the Java side checks it is open and
        // uses it from one thread); the slice is valid during the call.
        with_bytes(env, &key, |k| unsafe { ffi::rocksfilter_builder_add_key(builder_ptr(b), k.as_ptr(), k.len()) })
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderAddHash<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
    hash: jlong,
) {
    // SAFETY: b is a live builder (see builderAddKey).
    run(&mut env, (), |_| {
        unsafe { ffi::rocksfilter_builder_add_hash(builder_ptr(b), hash as u64) };
        Ok(())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderNumEntries<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
) -> jlong {
    // SAFETY: b is a live builder (see builderAddKey).
    run(&mut env, 0, |_| Ok(unsafe { ffi::rocksfilter_builder_num_entries(builder_ptr(b)) } as jlong))
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderFinish<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
) -> jni::sys::jbyteArray {
    run(&mut env, ptr::null_mut(), |env| {
        let (mut data, mut len): (*mut u8, usize) = (ptr::null_mut(), 0);
        // SAFETY: b is a live builder (see builderAddKey); the out slots are valid.
        call(|err| unsafe { ffi::rocksfilter_builder_finish(builder_ptr(b), &mut data, &mut len, err) })?;
        let bytes: &[u8] = if data.is_null() {
            &[]
        } else {
            // SAFETY: on success the library returned `len` bytes at `data`,
            // ours until rocksfilter_bytes_free below.
            unsafe { std::slice::from_raw_parts(data, len) }
        };
        let arr = env.byte_array_from_slice(bytes);
        // SAFETY: data/len are what rocksfilter_builder_finish returned, freed once.
        unsafe { ffi::rocksfilter_bytes_free(data, len) };
        Ok(arr?.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderFree<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
) {
    // SAFETY: the Java side frees each builder exactly once (NativeRef).
    run(&mut env, (), |_| {
        unsafe { ffi::rocksfilter_builder_free(builder_ptr(b)) };
        Ok(())
    })
}

// ---- filter ----

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterLoad<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    block: JByteArray<'l>,
) -> jlong {
    run(&mut env, 0, |env| {
        let mut out: *mut rocksfilter_filter = ptr::null_mut();
        // SAFETY: rocksfilter_filter_load copies the block (valid during the
        // call); out and errptr are valid slots.
        with_bytes(env, &block, |blk| {
            call(|err| unsafe { ffi::rocksfilter_filter_load(blk.as_ptr(), blk.len(), &mut out, err) })
        })??;
        Ok(out as usize as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterMayMatch<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(&mut env, 1, |env| {
        // SAFETY: f is a live filter (the Java side checks it is open); the
        // slice is valid during the call.
        with_bytes(env, &key, |k| unsafe { ffi::rocksfilter_filter_may_match(filter_ptr(f), k.as_ptr(), k.len()) }
            as jboolean)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterMayMatchHash<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
    hash: jlong,
) -> jboolean {
    // SAFETY: f is a live filter (see filterMayMatch).
    run(&mut env, 1, |_| Ok(unsafe { ffi::rocksfilter_filter_may_match_hash(filter_ptr(f), hash as u64) } as jboolean))
}

/// Packed batch: key i is `buf[offsets[first + i] .. offsets[first + i + 1]]`,
/// `n` keys; the answers go into `results`, one byte each (1 = may match).
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterMayMatchPacked<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
    buf: JByteArray<'l>,
    offsets: JLongArray<'l>,
    first: jint,
    n: jint,
    results: JByteArray<'l>,
) {
    run(&mut env, (), |env| {
        packed(env, filter_ptr(f), &buf, &offsets, first, n, &results, ffi::rocksfilter_filter_may_match_packed)
    })
}

/// A C packed-batch function (`rocksfilter_filter_may_match_packed`,
/// `rocksfilter_sst_may_match_packed`).
type PackedFn<T> =
    unsafe extern "C" fn(*const T, *const u8, usize, *const usize, usize, *mut bool, *mut *mut c_char) -> u32;

/// The body of both packed-batch entry points: calls `query` on the keys,
/// the offsets and the answers in place (nested JNI critical regions, no
/// copy: with the offsets and the answers copied, the JNI arena call was
/// about 2 ns per key above the C call at 4096 keys, one `bench/bindings`
/// run), one byte per answer into `out`.
/// Throws `ArrayIndexOutOfBoundsException` when `offsets` has no
/// `first .. first + n + 1` or `out` fewer than `n` entries.
#[allow(clippy::too_many_arguments)] // the JNI entry points' arguments, passed through
fn packed<T>(
    env: &mut JNIEnv<'_>,
    handle: *const T,
    buf: &JByteArray<'_>,
    offsets: &JLongArray<'_>,
    first: jint,
    n: jint,
    out: &JByteArray<'_>,
    query: PackedFn<T>,
) -> Res<()> {
    let n = usize::try_from(n)
        .map_err(|_| Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some(format!("invalid argument: n = {n}"))))?;
    if offsets.is_null() || out.is_null() {
        return Err(Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some("invalid argument: array is null".into())));
    }
    // Bounds first: no JNI call may run inside the critical regions.
    let (olen, rlen) = (env.get_array_length(offsets)? as usize, env.get_array_length(out)? as usize);
    let start = usize::try_from(first).ok().filter(|&f| f.checked_add(n + 1).is_some_and(|end| end <= olen));
    let Some(start) = start.filter(|_| rlen >= n) else {
        let msg = if rlen < n {
            format!("results has {rlen} entries for {n} keys")
        } else {
            format!("offsets[{first} .. {first} + {n} + 1] is outside an array of {olen}")
        };
        env.throw_new("java/lang/ArrayIndexOutOfBoundsException", msg)?;
        return Err(Failure::Jni(jni::errors::Error::JavaException));
    };
    // SAFETY (the three regions): nothing below makes a JNI call until all
    // are released (they are nested, which JNI allows); each pointer stays
    // valid while its guard lives, and the guards outlive the C call.
    let mut env_offs = unsafe { env.unsafe_clone() };
    let mut env_out = unsafe { env.unsafe_clone() };
    let offs = unsafe { env_offs.get_array_elements_critical(offsets, ReleaseMode::NoCopyBack) }?;
    let answers = unsafe { env_out.get_array_elements_critical(out, ReleaseMode::CopyBack) }?;
    // jlong offsets as size_t: the same 8 bytes on 64-bit targets (a
    // negative offset reads as a huge one, which the C call refuses);
    // elsewhere converted.
    let converted: Vec<usize>;
    let offs_ptr = if std::mem::size_of::<usize>() == 8 {
        // SAFETY: start + n + 1 <= olen (checked above); i64 and usize have
        // the same size and alignment here and every bit pattern is valid.
        unsafe { offs.as_ptr().add(start) as *const usize }
    } else {
        // SAFETY: as above; olen jlongs are readable.
        converted = unsafe { std::slice::from_raw_parts(offs.as_ptr().add(start), n + 1) }
            .iter()
            .map(|&o| o as usize)
            .collect();
        converted.as_ptr()
    };
    let answers_ptr = answers.as_ptr() as *mut bool;
    // SAFETY: rlen >= n bytes are writable; zeroed first, so that every
    // byte is a valid bool before the C call sees them as bools.
    unsafe { ptr::write_bytes(answers_ptr as *mut u8, 0, n) };
    // SAFETY: handle is a live filter or SST handle (the Java side checks it
    // is open); buf is valid during the call, offs_ptr points at n + 1
    // offsets, answers_ptr at n writable bools.
    let done = with_bytes(env, buf, |b| {
        call(|err| unsafe { query(handle, b.as_ptr(), b.len(), offs_ptr, n, answers_ptr, err) })
    });
    drop(answers);
    drop(offs);
    done?
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterKind<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
) -> jint {
    // SAFETY: f is a live filter (see filterMayMatch).
    run(&mut env, 0, |_| Ok(unsafe { ffi::rocksfilter_filter_kind(filter_ptr(f)) } as jint))
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterEstimatedFpRate<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
    keys: jlong,
) -> jdouble {
    // SAFETY: f is a live filter (see filterMayMatch).
    run(&mut env, 1.0, |_| Ok(unsafe { ffi::rocksfilter_filter_estimated_fp_rate(filter_ptr(f), keys as usize) }))
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterBytes<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
) -> jni::sys::jbyteArray {
    run(&mut env, ptr::null_mut(), |env| {
        let (mut data, mut len): (*const u8, usize) = (ptr::null(), 0);
        // SAFETY: f is a live filter (see filterMayMatch); the out slots are valid.
        call(|err| unsafe { ffi::rocksfilter_filter_data_ex(filter_ptr(f), &mut data, &mut len, err) })?;
        let bytes: &[u8] = if len == 0 {
            &[]
        } else {
            // SAFETY: the filter's block, `len` bytes at `data`, lives as long
            // as the filter, which the Java caller keeps reachable.
            unsafe { std::slice::from_raw_parts(data, len) }
        };
        Ok(env.byte_array_from_slice(bytes)?.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterFree<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
) {
    // SAFETY: the Java side frees each filter exactly once (NativeRef).
    run(&mut env, (), |_| {
        unsafe { ffi::rocksfilter_filter_free(filter_ptr(f) as *mut rocksfilter_filter) };
        Ok(())
    })
}

// ---- sst ----

fn sst_ptr(s: jlong) -> *const rocksfilter_sst {
    s as usize as *const rocksfilter_sst
}

/// Opens the SST file at `path` (its bytes, as the FFM backend passes them:
/// UTF-8); `flags` as rocksfilter_sst_open_opts takes them.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpen<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    path: JString<'l>,
    flags: jint,
) -> jlong {
    run(&mut env, 0, |env| {
        let path: String = env.get_string(&path)?.into();
        let cpath = std::ffi::CString::new(path).map_err(|_| {
            Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some("invalid argument: path holds a NUL byte".into()))
        })?;
        let mut out: *mut rocksfilter_sst = ptr::null_mut();
        // SAFETY: cpath is NUL-terminated; out and errptr are valid slots.
        call(|err| unsafe { ffi::rocksfilter_sst_open_opts(cpath.as_ptr(), flags as u32, &mut out, err) })?;
        Ok(out as usize as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstMayMatch<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(&mut env, 1, |env| {
        // SAFETY: s is a live SST handle (the Java side checks it is open);
        // the slice is valid during the call.
        with_bytes(env, &key, |k| unsafe { ffi::rocksfilter_sst_may_match(sst_ptr(s), k.as_ptr(), k.len()) }
            as jboolean)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstMayMatchPacked<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    buf: JByteArray<'l>,
    offsets: JLongArray<'l>,
    first: jint,
    n: jint,
    results: JByteArray<'l>,
) {
    run(&mut env, (), |env| {
        packed(env, sst_ptr(s), &buf, &offsets, first, n, &results, ffi::rocksfilter_sst_may_match_packed)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstPrefixMayMatch<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    prefix: JByteArray<'l>,
) -> jboolean {
    run(&mut env, 1, |env| {
        let mut answer = true;
        // SAFETY: s is a live SST handle (see sstMayMatch); the slice is
        // valid during the call, answer and errptr are valid slots.
        with_bytes(env, &prefix, |p| {
            call(|err| unsafe {
                ffi::rocksfilter_sst_prefix_may_match(sst_ptr(s), p.as_ptr(), p.len(), &mut answer, err)
            })
        })??;
        Ok(answer as jboolean)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstFilterType<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
) -> jint {
    // SAFETY: s is a live SST handle (see sstMayMatch).
    run(&mut env, 0, |_| Ok(unsafe { ffi::rocksfilter_sst_filter_type(sst_ptr(s)) } as jint))
}

/// The full filter as a new filter handle (freed with filterFree), or 0
/// when the file has none (NOT_FOUND is not an error here).
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstFullFilter<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
) -> jlong {
    run(&mut env, 0, |_| {
        let mut out: *mut rocksfilter_filter = ptr::null_mut();
        // SAFETY: s is a live SST handle (see sstMayMatch); out and errptr are valid slots.
        match call(|err| unsafe { ffi::rocksfilter_sst_full_filter(sst_ptr(s), &mut out, err) }) {
            Err(Failure::Status(ffi::ROCKSFILTER_NOT_FOUND, _)) => Ok(0),
            r => r.map(|()| out as usize as jlong),
        }
    })
}

/// The raw bytes of the table property `name`, or null when absent.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstProperty<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    name: JString<'l>,
) -> jni::sys::jbyteArray {
    run(&mut env, ptr::null_mut(), |env| {
        let name: String = env.get_string(&name)?.into();
        let Ok(cname) = std::ffi::CString::new(name) else { return Ok(ptr::null_mut()) };
        let mut len = 0usize;
        // SAFETY: s is a live SST handle (see sstMayMatch); cname is NUL-terminated, len a valid slot.
        let p = unsafe { ffi::rocksfilter_sst_property(sst_ptr(s), cname.as_ptr(), &mut len) };
        if p.is_null() {
            return Ok(ptr::null_mut());
        }
        // SAFETY: a non-NULL result points to `len` bytes owned by the live handle.
        let bytes = unsafe { std::slice::from_raw_parts(p, len) };
        Ok(env.byte_array_from_slice(bytes)?.into_raw())
    })
}

/// What the open read and what the handle keeps: {reads, bytesRead, bytesHeld}.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpenStats<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
) -> jni::sys::jlongArray {
    run(&mut env, ptr::null_mut(), |env| {
        let mut st = ffi::rocksfilter_sst_open_stats {
            struct_size: std::mem::size_of::<ffi::rocksfilter_sst_open_stats>() as u32,
            reserved: 0,
            reads: 0,
            bytes_read: 0,
            bytes_held: 0,
        };
        // SAFETY: s is a live SST handle (see sstMayMatch); st is a valid, sized struct.
        call(|err| unsafe { ffi::rocksfilter_sst_get_open_stats(sst_ptr(s), &mut st, err) })?;
        let arr = env.new_long_array(3)?;
        env.set_long_array_region(&arr, 0, &[st.reads as jlong, st.bytes_read as jlong, st.bytes_held as jlong])?;
        Ok(arr.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstFree<'l>(mut env: JNIEnv<'l>, _: JClass<'l>, s: jlong) {
    // SAFETY: the Java side frees each SST handle exactly once.
    run(&mut env, (), |_| {
        unsafe { ffi::rocksfilter_sst_free(sst_ptr(s) as *mut rocksfilter_sst) };
        Ok(())
    })
}

// ---- builder options, filter info, SST opens over Java bytes and readers, properties ----

/// `rocksfilter_builder_new_with_options` from `BuilderOptions`' fields.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderNewWithOptions<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    policy: jint,
    bits_per_key: jdouble,
    fp_rate: jdouble,
    max_bytes: jlong,
    ribbon_failure_one_in: jint,
) -> jlong {
    run(&mut env, 0, |_| {
        let opts = ffi::rocksfilter_builder_options {
            struct_size: std::mem::size_of::<ffi::rocksfilter_builder_options>() as u32,
            policy: policy as u32,
            bits_per_key,
            fp_rate,
            max_bytes: max_bytes as u64,
            ribbon_failure_one_in: ribbon_failure_one_in as u32,
            reserved: 0,
        };
        let mut out: *mut rocksfilter_builder = ptr::null_mut();
        // SAFETY: opts is a valid, sized struct; out and errptr are valid slots.
        call(|err| unsafe { ffi::rocksfilter_builder_new_with_options(&opts, &mut out, err) })?;
        Ok(out as usize as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_builderAddKeyAndAlt<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    b: jlong,
    key: JByteArray<'l>,
    alt: JByteArray<'l>,
) {
    run(&mut env, (), |env| {
        // Two arrays: the key is copied out first (one critical region at a time).
        let key: Vec<u8> = with_bytes(env, &key, |k| k.to_vec())?;
        // SAFETY: b is a live builder (the Java side checks it is open); both
        // slices are valid during the call.
        with_bytes(env, &alt, |a| unsafe {
            ffi::rocksfilter_builder_add_key_and_alt(builder_ptr(b), key.as_ptr(), key.len(), a.as_ptr(), a.len())
        })
    })
}

/// `rocksfilter_filter_get_info_ex` as {kind, bytes, num_probes, num_lines,
/// line_bytes, num_blocks, seed, lower_num_columns, upper_start_block}.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_filterInfo<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    f: jlong,
) -> jni::sys::jlongArray {
    run(&mut env, ptr::null_mut(), |env| {
        let mut i = ffi::rocksfilter_filter_info_ex {
            struct_size: std::mem::size_of::<ffi::rocksfilter_filter_info_ex>() as u32,
            kind: 0,
            bytes: 0,
            num_probes: 0,
            num_lines: 0,
            line_bytes: 0,
            num_blocks: 0,
            seed: 0,
            lower_num_columns: 0,
            upper_start_block: 0,
            reserved: 0,
        };
        // SAFETY: f is a live filter (see filterMayMatch); i is a valid, sized struct.
        call(|err| unsafe { ffi::rocksfilter_filter_get_info_ex(filter_ptr(f), &mut i, err) })?;
        let v = [
            i.kind as jlong,
            i.bytes as jlong,
            i.num_probes as jlong,
            i.num_lines as jlong,
            i.line_bytes as jlong,
            i.num_blocks as jlong,
            i.seed as jlong,
            i.lower_num_columns as jlong,
            i.upper_start_block as jlong,
        ];
        let arr = env.new_long_array(v.len() as jint)?;
        env.set_long_array_region(&arr, 0, &v)?;
        Ok(arr.into_raw())
    })
}

/// A `rocksfilter_source` over bytes in memory.
extern "C" fn read_slice(ctx: *mut std::ffi::c_void, offset: u64, dst: *mut u8, len: usize) -> std::ffi::c_int {
    // SAFETY: ctx is the `&[u8]` sstOpenBytes passes, alive during the open;
    // the library asks only within `size` (checked again here) and dst holds
    // len writable bytes.
    let file = unsafe { &*(ctx as *const &[u8]) };
    let Some(range) = usize::try_from(offset).ok().and_then(|o| file.get(o..o.checked_add(len)?)) else {
        return 1;
    };
    unsafe { ptr::copy_nonoverlapping(range.as_ptr(), dst, len) };
    0
}

/// Opens an SST file held in a Java byte array. The array is read in place
/// (no JNI call is made meanwhile) through a source, so that the handle
/// copies only what it queries and keeps nothing of the array.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpenBytes<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    file: JByteArray<'l>,
    flags: jint,
) -> jlong {
    run(&mut env, 0, |env| {
        let mut out: *mut rocksfilter_sst = ptr::null_mut();
        with_bytes(env, &file, |bytes| {
            let mut ctx: &[u8] = bytes;
            let src = ffi::rocksfilter_source {
                struct_size: std::mem::size_of::<ffi::rocksfilter_source>(),
                size: bytes.len() as u64,
                ctx: &mut ctx as *mut &[u8] as *mut std::ffi::c_void,
                read_at: Some(read_slice),
                release: None,
            };
            // SAFETY: src is valid and its ctx outlives the call; out and errptr are valid slots.
            call(|err| unsafe { ffi::rocksfilter_sst_open_source(&src, flags as u32, &mut out, err) })
        })??;
        Ok(out as usize as jlong)
    })
}

/// What `read_java` needs: the calling thread's JNI environment, the class
/// `JniNative` and the Java side's per-open reader object, all local to the
/// entry point's native frame.
struct JavaReader {
    env: *mut jni::sys::JNIEnv,
    class: jni::sys::jclass,
    call: jni::sys::jobject,
}

/// Largest range asked of Java in one call (a byte array holds < 2 GiB).
const JAVA_READ_MAX: usize = 1 << 30;

/// A `rocksfilter_source` whose reads call `JniNative.readAt(call, offset,
/// len)`: a new byte[] of exactly `len` bytes, copied into `dst`, or null
/// for a failure (which the Java side records).
extern "C" fn read_java(ctx: *mut std::ffi::c_void, offset: u64, dst: *mut u8, len: usize) -> std::ffi::c_int {
    let read = || -> Option<()> {
        // SAFETY: ctx is the JavaReader of sstOpenReader, alive during the
        // open; the C ABI calls read_at only inside that call and on its
        // thread, so the env and the local references are valid here.
        let r = unsafe { &*(ctx as *const JavaReader) };
        let mut env = unsafe { JNIEnv::from_raw(r.env) }.ok()?;
        let class = unsafe { JClass::from_raw(r.class) };
        let call = unsafe { JObject::from_raw(r.call) };
        read_through_java(&mut env, &class, &call, offset, dst, len).ok()?.then_some(())
    };
    match catch_unwind(AssertUnwindSafe(read)) {
        Ok(Some(())) => 0,
        _ => 1,
    }
}

/// Opens an SST file through a Java `RangeReader` (wrapped in `call`, whose
/// `readAt` the source calls); `size` is the file's length.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpenReader<'l>(
    mut env: JNIEnv<'l>,
    class: JClass<'l>,
    reader: JObject<'l>,
    size: jlong,
    flags: jint,
) -> jlong {
    run(&mut env, 0, |env| {
        let ctx = JavaReader { env: env.get_raw(), class: class.as_raw(), call: reader.as_raw() };
        let src = ffi::rocksfilter_source {
            struct_size: std::mem::size_of::<ffi::rocksfilter_source>(),
            size: size as u64,
            ctx: &ctx as *const JavaReader as *mut std::ffi::c_void,
            read_at: Some(read_java),
            release: None,
        };
        let mut out: *mut rocksfilter_sst = ptr::null_mut();
        // SAFETY: src is valid and ctx outlives the call; out and errptr are valid slots.
        let opened = call(|err| unsafe { ffi::rocksfilter_sst_open_source(&src, flags as u32, &mut out, err) });
        if env.exception_check()? {
            // An exception the reader's call left pending (the Java side
            // catches the reader's own): keep it, free what was opened.
            // SAFETY: out is NULL or the handle just opened, freed once.
            unsafe { ffi::rocksfilter_sst_free(out) };
            return Err(Failure::Jni(jni::errors::Error::JavaException));
        }
        opened?;
        Ok(out as usize as jlong)
    })
}

/// `rocksfilter_sst_get_properties_ex`'s numbers: {format_version,
/// checksum_type, filter_type, num_partitions, whole_key_filtering (0/1),
/// has_prefix_filter (0/1), num_entries, num_filter_entries, filter_size,
/// creation_time, file_creation_time}.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstPropertyNumbers<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
) -> jni::sys::jlongArray {
    run(&mut env, ptr::null_mut(), |env| {
        let p = sst_properties(s)?;
        let v = [
            p.format_version as jlong,
            p.checksum_type as jlong,
            p.filter_type as jlong,
            p.num_partitions as jlong,
            p.whole_key_filtering as jlong,
            p.has_prefix_filter as jlong,
            p.num_entries as jlong,
            p.num_filter_entries as jlong,
            p.filter_size as jlong,
            p.creation_time as jlong,
            p.file_creation_time as jlong,
        ];
        let arr = env.new_long_array(v.len() as jint)?;
        env.set_long_array_region(&arr, 0, &v)?;
        Ok(arr.into_raw())
    })
}

/// `rocksfilter_sst_get_properties_ex`'s strings: {filter_policy,
/// comparator, prefix_extractor, filter_block_name}, null where absent.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstPropertyStrings<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
) -> jni::sys::jobjectArray {
    run(&mut env, ptr::null_mut(), |env| {
        let p = sst_properties(s)?;
        let arr = env.new_object_array(4, "java/lang/String", JObject::null())?;
        for (i, c) in [p.filter_policy, p.comparator, p.prefix_extractor, p.filter_block_name].into_iter().enumerate() {
            if c.is_null() {
                continue;
            }
            // SAFETY: a non-NULL string of the struct is NUL-terminated and
            // owned by the live handle s.
            let text = unsafe { CStr::from_ptr(c) }.to_string_lossy().into_owned();
            let js = env.new_string(text)?;
            env.set_object_array_element(&arr, i as jint, &js)?;
            env.delete_local_ref(js)?;
        }
        Ok(arr.into_raw())
    })
}

fn sst_properties(s: jlong) -> Res<ffi::rocksfilter_sst_properties> {
    // SAFETY: all-zero is a valid value of this plain C struct (NULL
    // pointers, false, 0).
    let mut p: ffi::rocksfilter_sst_properties = unsafe { std::mem::zeroed() };
    // SAFETY: s is a live SST handle (see sstMayMatch); p is a valid struct.
    call(|err| unsafe { ffi::rocksfilter_sst_get_properties_ex(sst_ptr(s), &mut p, err) })?;
    Ok(p)
}

// ---- the filter cache; opens with options (a cache keeps the reader) ----
//
// A handle opened with a cache (or a memory-mapped file) may read while it
// answers: `rocksfilter_sst_open_ex` reopens the file and `pread`s, a kept
// Java reader is called back through `read_kept` on the querying thread.
// Its queries therefore never run inside a JNI critical region (no JNI call
// is allowed there, and a GC must not wait for file I/O): the Java side
// calls the `*Copy` entry points below, which copy the keys out first.

fn cache_ptr(c: jlong) -> *mut ffi::rocksfilter_cache {
    c as usize as *mut ffi::rocksfilter_cache
}

/// `rocksfilter_cache_new`, or `rocksfilter_cache_new_with_open_files` for
/// `max_open_files >= 0`; the Java side refuses a negative capacity.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_cacheNew<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    capacity: jlong,
    max_open_files: jlong,
) -> jlong {
    run(&mut env, 0, |_| {
        let c = match usize::try_from(max_open_files) {
            Ok(files) => ffi::rocksfilter_cache_new_with_open_files(capacity as usize, files),
            Err(_) => ffi::rocksfilter_cache_new(capacity as usize),
        };
        if c.is_null() {
            return Err(Failure::Status(
                ROCKSFILTER_INTERNAL,
                Some(format!("internal error: rocksfilter_cache_new({capacity}) returned NULL")),
            ));
        }
        Ok(c as usize as jlong)
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_cacheFree<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    c: jlong,
) {
    // SAFETY: the Java side frees each cache exactly once (JniRef); handles
    // opened with it keep their own reference.
    run(&mut env, (), |_| {
        unsafe { ffi::rocksfilter_cache_free(cache_ptr(c)) };
        Ok(())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_cacheBytesHeld<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    c: jlong,
) -> jlong {
    // SAFETY: c is a live cache (the Java side checks it is open).
    run(&mut env, 0, |_| Ok(unsafe { ffi::rocksfilter_cache_bytes_held(cache_ptr(c)) } as jlong))
}

/// `rocksfilter_cache_get_stats` as {capacity, bytes_held, entries, hits,
/// misses, reads, bytes_read, read_errors, bad_blocks, evictions, uncached,
/// open_files}.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_cacheStats<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    c: jlong,
) -> jni::sys::jlongArray {
    run(&mut env, ptr::null_mut(), |env| {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut st: ffi::rocksfilter_cache_stats = unsafe { std::mem::zeroed() };
        st.struct_size = std::mem::size_of::<ffi::rocksfilter_cache_stats>() as u32;
        // SAFETY: c is a live cache (see cacheBytesHeld); st is a valid, sized struct.
        call(|err| unsafe { ffi::rocksfilter_cache_get_stats(cache_ptr(c), &mut st, err) })?;
        let v = [
            st.capacity,
            st.bytes_held,
            st.entries,
            st.hits,
            st.misses,
            st.reads,
            st.bytes_read,
            st.read_errors,
            st.bad_blocks,
            st.evictions,
            st.uncached,
            st.open_files,
        ]
        .map(|x| x as jlong);
        let arr = env.new_long_array(v.len() as jint)?;
        env.set_long_array_region(&arr, 0, &v)?;
        Ok(arr.into_raw())
    })
}

fn sst_options(flags: jint, cache: jlong) -> ffi::rocksfilter_sst_options {
    ffi::rocksfilter_sst_options {
        struct_size: std::mem::size_of::<ffi::rocksfilter_sst_options>(),
        flags: flags as u32,
        cache: cache_ptr(cache),
    }
}

/// `rocksfilter_sst_open_ex`: the path (UTF-8, as sstOpen takes it), the
/// flags and a cache (0: none).
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpenEx<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    path: JString<'l>,
    flags: jint,
    cache: jlong,
) -> jlong {
    run(&mut env, 0, |env| {
        let path: String = env.get_string(&path)?.into();
        let cpath = std::ffi::CString::new(path).map_err(|_| {
            Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some("invalid argument: path holds a NUL byte".into()))
        })?;
        let opts = sst_options(flags, cache);
        let mut out: *mut rocksfilter_sst = ptr::null_mut();
        // SAFETY: cpath is NUL-terminated, opts a valid, sized struct whose
        // cache is 0 or live (the Java side checks it is open); out and
        // errptr are valid slots.
        call(|err| unsafe { ffi::rocksfilter_sst_open_ex(cpath.as_ptr(), &opts, &mut out, err) })?;
        Ok(out as usize as jlong)
    })
}

/// A Java reader the library may keep beyond the open (a handle with a
/// cache): global references, and the VM to find the calling thread's
/// environment with. Boxed into the source's `ctx`; `release_kept` frees it.
struct KeptReader {
    vm: jni::JavaVM,
    /// The class `JniNative` (its `readAt` and `released`).
    class: jni::objects::GlobalRef,
    /// The Java side's `Readers.Call`.
    call: jni::objects::GlobalRef,
}

/// Opens an SST file through a Java `RangeReader` (wrapped in `call`) with
/// `rocksfilter_sst_open_source_ex`: `flags`, and a cache (0: none). With
/// a cache the handle keeps the reader and calls it from querying threads
/// (`read_kept`); `release_kept` drops it, once, when the library is done
/// with it (before this returns when the handle keeps no source).
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstOpenReaderEx<'l>(
    mut env: JNIEnv<'l>,
    class: JClass<'l>,
    reader: JObject<'l>,
    size: jlong,
    flags: jint,
    cache: jlong,
) -> jlong {
    run(&mut env, 0, |env| {
        let kept = Box::new(KeptReader {
            vm: env.get_java_vm()?,
            class: env.new_global_ref(&class)?,
            call: env.new_global_ref(&reader)?,
        });
        let src = ffi::rocksfilter_source {
            struct_size: std::mem::size_of::<ffi::rocksfilter_source>(),
            size: size as u64,
            ctx: Box::into_raw(kept) as *mut std::ffi::c_void,
            read_at: Some(read_kept),
            release: Some(release_kept),
        };
        let opts = sst_options(flags, cache);
        let mut out: *mut rocksfilter_sst = ptr::null_mut();
        // SAFETY: src and opts are valid, sized structs (opts' cache 0 or
        // live); from here the library owns ctx and releases it exactly once
        // (release_kept); out and errptr are valid slots.
        call(|err| unsafe { ffi::rocksfilter_sst_open_source_ex(&src, &opts, &mut out, err) })?;
        Ok(out as usize as jlong)
    })
}

/// Reads `len` bytes at `offset` into `dst` through `JniNative.readAt(call,
/// offset, n)` (at most `JAVA_READ_MAX` bytes per call); false when the
/// Java side answered null (its failure) or a wrong length.
fn read_through_java(
    env: &mut JNIEnv<'_>,
    class: &JClass<'_>,
    call: &JObject<'_>,
    offset: u64,
    dst: *mut u8,
    len: usize,
) -> Result<bool, jni::errors::Error> {
    let mut done = 0usize;
    while done < len {
        let n = (len - done).min(JAVA_READ_MAX);
        let args = [JValue::Object(call), JValue::Long((offset + done as u64) as jlong), JValue::Int(n as jint)];
        let arr = env.call_static_method(class, "readAt", "(Ljava/lang/Object;JI)[B", &args)?.l()?;
        if arr.is_null() {
            return Ok(false);
        }
        let arr = JByteArray::from(arr);
        if env.get_array_length(&arr)? as usize != n {
            return Ok(false);
        }
        // SAFETY: dst holds len writable bytes (C ABI contract), so
        // [done, done + n) lies within it; jbyte is i8, u8's layout.
        let out = unsafe { std::slice::from_raw_parts_mut(dst.add(done) as *mut i8, n) };
        env.get_byte_array_region(&arr, 0, out)?;
        env.delete_local_ref(arr)?;
        done += n;
    }
    Ok(true)
}

/// The `read_at` of a kept reader: on whichever thread the library reads
/// from (a querying Java thread, already attached; any other thread is
/// attached for the call). Nothing the Java side throws gets past it: a
/// pending exception is cleared and the read fails (the query answers "may
/// match", the cache counts a read error).
extern "C" fn read_kept(ctx: *mut std::ffi::c_void, offset: u64, dst: *mut u8, len: usize) -> std::ffi::c_int {
    let read = || -> Option<()> {
        // SAFETY: ctx is the KeptReader of sstOpenReaderEx, alive until
        // release_kept, which the library calls after its last read.
        let k = unsafe { &*(ctx as *const KeptReader) };
        let mut env = k.vm.attach_current_thread().ok()?;
        if env.exception_check().ok()? {
            // Never call Java with an exception pending (not expected: the
            // entry points call the library with none).
            return None;
        }
        let class: &JClass = k.class.as_obj().into();
        let read = env.with_local_frame(8, |env| read_through_java(env, class, k.call.as_obj(), offset, dst, len));
        if env.exception_check().unwrap_or(true) {
            let _ = env.exception_clear();
            return None;
        }
        read.ok()?.then_some(())
    };
    match catch_unwind(AssertUnwindSafe(read)) {
        Ok(Some(())) => 0,
        _ => 1,
    }
}

/// The `release` of a kept reader: tells the Java side
/// (`JniNative.released`), then drops the global references.
extern "C" fn release_kept(ctx: *mut std::ffi::c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: ctx is the Box of sstOpenReaderEx; the library calls
        // release exactly once, after the last read_at.
        let k = unsafe { Box::from_raw(ctx as *mut KeptReader) };
        if let Ok(mut env) = k.vm.attach_current_thread() {
            // An exception already pending (none expected) is kept for its
            // thread, and nothing is left pending by the call.
            let pending = env.exception_occurred().ok().filter(|e| !e.is_null());
            if pending.is_some() {
                let _ = env.exception_clear();
            }
            let class: &JClass = k.class.as_obj().into();
            let _ =
                env.call_static_method(class, "released", "(Ljava/lang/Object;)V", &[JValue::Object(k.call.as_obj())]);
            if env.exception_check().unwrap_or(true) {
                let _ = env.exception_clear();
            }
            if let Some(e) = pending {
                let _ = env.throw(e);
            }
        }
        // The global references are deleted here (GlobalRef's drop attaches
        // the thread if needed).
        drop(k);
    }));
}

/// Copies `arr` out of the Java heap (no critical region: see above).
fn copied(env: &mut JNIEnv<'_>, arr: &JByteArray<'_>) -> Res<Vec<u8>> {
    if arr.is_null() {
        return Err(Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some("invalid argument: array is null".into())));
    }
    Ok(env.convert_byte_array(arr)?)
}

/// sstMayMatch for a handle that may read while it answers.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstMayMatchCopy<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    key: JByteArray<'l>,
) -> jboolean {
    run(&mut env, 1, |env| {
        let k = copied(env, &key)?;
        // SAFETY: s is a live SST handle (the Java side checks it is open).
        Ok(unsafe { ffi::rocksfilter_sst_may_match(sst_ptr(s), k.as_ptr(), k.len()) } as jboolean)
    })
}

/// sstPrefixMayMatch for a handle that may read while it answers.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstPrefixMayMatchCopy<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    prefix: JByteArray<'l>,
) -> jboolean {
    run(&mut env, 1, |env| {
        let p = copied(env, &prefix)?;
        let mut answer = true;
        // SAFETY: s is a live SST handle (see sstMayMatchCopy); answer and
        // errptr are valid slots.
        call(|err| unsafe {
            ffi::rocksfilter_sst_prefix_may_match(sst_ptr(s), p.as_ptr(), p.len(), &mut answer, err)
        })?;
        Ok(answer as jboolean)
    })
}

/// sstMayMatchPacked for a handle that may read while it answers: copies
/// only the bytes the `n` keys span (an arena batch passes its whole array
/// for every chunk) and rebases the offsets; offsets the C call would
/// refuse go to it unchanged, over the array's length, for the same message.
#[no_mangle]
pub extern "system" fn Java_io_github_rocksfilter_JniNative_sstMayMatchPackedCopy<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    s: jlong,
    buf: JByteArray<'l>,
    offsets: JLongArray<'l>,
    first: jint,
    n: jint,
    results: JByteArray<'l>,
) {
    run(&mut env, (), |env| {
        let n = usize::try_from(n).map_err(|_| {
            Failure::Status(ffi::ROCKSFILTER_INVALID_ARGUMENT, Some(format!("invalid argument: n = {n}")))
        })?;
        if buf.is_null() {
            return Err(Failure::Status(
                ffi::ROCKSFILTER_INVALID_ARGUMENT,
                Some("invalid argument: array is null".into()),
            ));
        }
        let mut offs = vec![0i64; n + 1];
        // Throws ArrayIndexOutOfBoundsException (pending) past the array's end.
        env.get_long_array_region(&offsets, first, &mut offs)?;
        let len = env.get_array_length(&buf)? as usize;
        // A negative offset becomes a huge one, which the C call refuses.
        let mut offs: Vec<usize> = offs.iter().map(|&o| o as usize).collect();
        let valid = offs.windows(2).all(|w| w[0] <= w[1]) && offs[n] <= len;
        let (base, span) = if valid { (offs[0], offs[n] - offs[0]) } else { (0, len) };
        let mut keys = vec![0i8; span];
        if valid {
            env.get_byte_array_region(&buf, base as jint, &mut keys)?;
            offs.iter_mut().for_each(|o| *o -= base);
        }
        let mut answers = vec![false; n];
        // SAFETY: s is a live SST handle (see sstMayMatchCopy); keys holds
        // span bytes, offs n + 1 offsets, answers n writable bools.
        call(|err| unsafe {
            ffi::rocksfilter_sst_may_match_packed(
                sst_ptr(s),
                keys.as_ptr() as *const u8,
                span,
                offs.as_ptr(),
                n,
                answers.as_mut_ptr(),
                err,
            )
        })?;
        let bytes: Vec<i8> = answers.iter().map(|&r| r as i8).collect();
        // Throws ArrayIndexOutOfBoundsException (pending) when `results` is shorter than n.
        env.set_byte_array_region(&results, 0, &bytes)?;
        Ok(())
    })
}
