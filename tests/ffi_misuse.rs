//! Misuse of the C ABI, called from Rust through `rocksfilter::internal_ffi`: NULL
//! handles and buffers, zero and huge lengths, NaN/infinite bits/key, unknown
//! policies and flags, bad packed offsets, builder reuse, errptr NULL and
//! not. Each call must return the status the header documents and touch
//! nothing it should not. Run under ASan/valgrind by scripts/hardening.sh.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use rocksfilter::internal_ffi::*;

#[path = "support/craft.rs"]
mod craft;

/// Takes the message out of an errptr slot (freeing it).
fn take(err: &mut *mut c_char) -> Option<String> {
    if err.is_null() {
        return None;
    }
    let s = unsafe { CStr::from_ptr(*err) }.to_string_lossy().into_owned();
    unsafe { rocksfilter_string_free(*err) };
    *err = null_mut();
    Some(s)
}

fn new_builder(policy: u32, bpk: f64) -> (u32, *mut rocksfilter_builder, Option<String>) {
    let mut b = std::ptr::dangling_mut::<rocksfilter_builder>(); // must be overwritten
    let mut err = null_mut();
    let st = unsafe { rocksfilter_builder_new(policy, bpk, &mut b, &mut err) };
    (st, b, take(&mut err))
}

fn finish(b: *mut rocksfilter_builder) -> (u32, Vec<u8>, Option<String>) {
    let mut data = std::ptr::dangling_mut::<u8>();
    let mut len = 12345usize;
    let mut err = null_mut();
    let st = unsafe { rocksfilter_builder_finish(b, &mut data, &mut len, &mut err) };
    let v = if data.is_null() {
        assert_eq!(len, 0, "NULL data with non-zero length");
        Vec::new()
    } else {
        let v = unsafe { std::slice::from_raw_parts(data, len) }.to_vec();
        unsafe { rocksfilter_bytes_free(data, len) };
        v
    };
    (st, v, take(&mut err))
}

fn load(block: &[u8]) -> *mut rocksfilter_filter {
    let mut f = null_mut();
    let st = unsafe { rocksfilter_filter_load(block.as_ptr(), block.len(), &mut f, null_mut()) };
    assert_eq!(st, ROCKSFILTER_OK);
    f
}

fn bloom_block(keys: &[&[u8]]) -> Vec<u8> {
    let (st, b, _) = new_builder(ROCKSFILTER_POLICY_BLOOM, 10.0);
    assert_eq!(st, ROCKSFILTER_OK);
    for k in keys {
        unsafe { rocksfilter_builder_add_key(b, k.as_ptr(), k.len()) };
    }
    let (st, v, _) = finish(b);
    assert_eq!(st, ROCKSFILTER_OK);
    unsafe { rocksfilter_builder_free(b) };
    v
}

#[test]
fn builder_new_rejects_unknown_policies_and_bad_bits_per_key() {
    for policy in [0u32, 4, 5, 0x8000_0000, 0xffff_ffff] {
        let (st, b, msg) = new_builder(policy, 10.0);
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT, "policy {policy}");
        assert!(b.is_null(), "*out not cleared for policy {policy}");
        let msg = msg.expect("message");
        assert!(msg.starts_with("invalid argument") && msg.contains(&policy.to_string()), "{msg}");
    }
    for bpk in [f64::NAN, -f64::NAN, f64::NEG_INFINITY, -1.0, 0.0, -0.0, 0.49, 0.4999999] {
        let (st, b, msg) = new_builder(ROCKSFILTER_POLICY_RIBBON, bpk);
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT, "bpk {bpk}");
        assert!(b.is_null());
        assert!(msg.unwrap().contains("bits_per_key"));
    }
    // Sanitised, not refused: +inf and huge become 100, tiny positive 1.
    for bpk in [f64::INFINITY, 1e300, f64::MAX, 0.5, 0.9, f64::MIN_POSITIVE + 0.5] {
        for policy in [ROCKSFILTER_POLICY_BLOOM, ROCKSFILTER_POLICY_RIBBON, ROCKSFILTER_POLICY_LEGACY_BLOOM] {
            let (st, b, msg) = new_builder(policy, bpk);
            assert_eq!(st, ROCKSFILTER_OK, "bpk {bpk}: {msg:?}");
            assert!(msg.is_none(), "errptr touched on success");
            unsafe { rocksfilter_builder_add_key(b, b"k".as_ptr(), 1) };
            let (st, v, _) = finish(b);
            assert_eq!(st, ROCKSFILTER_OK);
            let f = load(&v);
            assert!(unsafe { rocksfilter_filter_may_match(f, b"k".as_ptr(), 1) });
            unsafe { rocksfilter_filter_free(f) };
            unsafe { rocksfilter_builder_free(b) };
        }
    }
    // NULL out-pointer, with and without errptr.
    let st = unsafe { rocksfilter_builder_new(ROCKSFILTER_POLICY_BLOOM, 10.0, null_mut(), null_mut()) };
    assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
    let mut err = null_mut();
    let st = unsafe { rocksfilter_builder_new(ROCKSFILTER_POLICY_BLOOM, 10.0, null_mut(), &mut err) };
    assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
    assert!(take(&mut err).unwrap().contains("out is NULL"));
    // Unknown policy with errptr NULL: status only.
    let mut b = null_mut();
    assert_eq!(unsafe { rocksfilter_builder_new(7, 10.0, &mut b, null_mut()) }, ROCKSFILTER_INVALID_ARGUMENT);
    assert!(b.is_null());
}

#[test]
fn builder_null_handles_and_keys() {
    // Void calls on a NULL builder are no-ops; queries on it answer 0.
    unsafe {
        rocksfilter_builder_add_key(null_mut(), b"x".as_ptr(), 1);
        rocksfilter_builder_add_key(null_mut(), null(), usize::MAX);
        rocksfilter_builder_add_key_and_alt(null_mut(), null(), 5, null(), 5);
        rocksfilter_builder_add_hash(null_mut(), 42);
        assert_eq!(rocksfilter_builder_num_entries(null()), 0);
        rocksfilter_builder_free(null_mut());
    }
    // finish on a NULL builder: INVALID_ARGUMENT, outputs cleared.
    let (st, v, msg) = finish(null_mut());
    assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
    assert!(v.is_empty() && msg.unwrap().contains("builder is NULL"));

    let (_, b, _) = new_builder(ROCKSFILTER_POLICY_BLOOM, 10.0);
    // NULL out-pointers.
    let mut len = 0usize;
    let mut data = null_mut();
    assert_eq!(
        unsafe { rocksfilter_builder_finish(b, null_mut(), &mut len, null_mut()) },
        ROCKSFILTER_INVALID_ARGUMENT
    );
    assert_eq!(
        unsafe { rocksfilter_builder_finish(b, &mut data, null_mut(), null_mut()) },
        ROCKSFILTER_INVALID_ARGUMENT
    );

    // A NULL key of length 0 is the empty key.
    unsafe { rocksfilter_builder_add_key(b, null(), 0) };
    assert_eq!(unsafe { rocksfilter_builder_num_entries(b) }, 1);
    let (st, v, _) = finish(b);
    assert_eq!(st, ROCKSFILTER_OK);
    let f = load(&v);
    assert!(unsafe { rocksfilter_filter_may_match(f, null(), 0) });
    assert!(unsafe { rocksfilter_filter_may_match(f, b"".as_ptr(), 0) });
    unsafe { rocksfilter_filter_free(f) };

    // A NULL key with a non-zero length (even a huge one) poisons the next
    // finish: the key is never silently dropped; the builder then recovers.
    for (what, add) in [
        (
            "add_key",
            Box::new(|b| unsafe { rocksfilter_builder_add_key(b, null(), usize::MAX) })
                as Box<dyn Fn(*mut rocksfilter_builder)>,
        ),
        (
            "add_key_and_alt key",
            Box::new(|b| unsafe { rocksfilter_builder_add_key_and_alt(b, null(), 3, b"a".as_ptr(), 1) }),
        ),
        (
            "add_key_and_alt alt",
            Box::new(|b| unsafe { rocksfilter_builder_add_key_and_alt(b, b"a".as_ptr(), 1, null(), 3) }),
        ),
    ] {
        unsafe { rocksfilter_builder_add_key(b, b"good".as_ptr(), 4) };
        add(b);
        unsafe { rocksfilter_builder_add_key(b, b"good2".as_ptr(), 5) };
        let (st, v, msg) = finish(b);
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT, "{what}");
        assert!(v.is_empty());
        let msg = msg.unwrap();
        assert!(msg.contains("NULL") && msg.contains("rocksfilter_builder_add_key"), "{what}: {msg}");
        assert_eq!(unsafe { rocksfilter_builder_num_entries(b) }, 0, "{what}: failed finish must empty the builder");
        let (st, v, _) = finish(b);
        assert_eq!((st, v.len()), (ROCKSFILTER_OK, 0), "{what}: builder not reusable after a failed finish");
    }
    // NULL alt with length 0 is the empty alt: fine.
    unsafe { rocksfilter_builder_add_key_and_alt(b, b"k".as_ptr(), 1, null(), 0) };
    assert_eq!(finish(b).0, ROCKSFILTER_OK);
    unsafe { rocksfilter_builder_free(b) };

    // add_hash on a legacy builder fails at finish, then recovers.
    let (_, b, _) = new_builder(ROCKSFILTER_POLICY_LEGACY_BLOOM, 10.0);
    unsafe { rocksfilter_builder_add_hash(b, rocksfilter_hash64(b"k".as_ptr(), 1)) };
    let (st, _, msg) = finish(b);
    assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
    assert!(msg.unwrap().contains("legacy"));
    unsafe { rocksfilter_builder_add_key(b, b"k".as_ptr(), 1) };
    assert_eq!(finish(b).0, ROCKSFILTER_OK);
    unsafe { rocksfilter_builder_free(b) };
}

#[test]
fn builder_reuse_after_finish_gives_identical_blocks() {
    for policy in [ROCKSFILTER_POLICY_BLOOM, ROCKSFILTER_POLICY_RIBBON, ROCKSFILTER_POLICY_LEGACY_BLOOM] {
        let (_, b, _) = new_builder(policy, 9.9);
        let mut blocks = Vec::new();
        for round in 0..4 {
            for i in 0..(300 + round % 2) {
                let k = format!("key{i}");
                unsafe { rocksfilter_builder_add_key(b, k.as_ptr(), k.len()) };
            }
            let (st, v, _) = finish(b);
            assert_eq!(st, ROCKSFILTER_OK);
            blocks.push(v);
            // finish right after finish: empty (always-false), still OK.
            let (st, v, _) = finish(b);
            assert_eq!((st, v.len()), (ROCKSFILTER_OK, 0));
        }
        assert_eq!(blocks[0], blocks[2], "policy {policy}: reuse changed the block");
        assert_eq!(blocks[1], blocks[3]);
        unsafe { rocksfilter_builder_free(b) };
    }
}

#[test]
fn load_null_zero_and_huge_lengths() {
    for borrowed in [false, true] {
        let load_fn = if borrowed { rocksfilter_filter_load_borrowed } else { rocksfilter_filter_load };
        // NULL data, length 0: the empty block, ALWAYS_FALSE.
        let mut f = std::ptr::dangling_mut::<rocksfilter_filter>();
        assert_eq!(unsafe { load_fn(null(), 0, &mut f, null_mut()) }, ROCKSFILTER_OK);
        assert_eq!(unsafe { rocksfilter_filter_kind(f) }, ROCKSFILTER_KIND_ALWAYS_FALSE);
        assert!(!unsafe { rocksfilter_filter_may_match(f, b"x".as_ptr(), 1) });
        unsafe { rocksfilter_filter_free(f) };
        // NULL data with any non-zero length, huge ones included: refused
        // without dereferencing.
        for len in [1usize, 69, u32::MAX as usize, usize::MAX / 2, usize::MAX] {
            let mut f = std::ptr::dangling_mut::<rocksfilter_filter>();
            let mut err = null_mut();
            assert_eq!(unsafe { load_fn(null(), len, &mut f, &mut err) }, ROCKSFILTER_INVALID_ARGUMENT);
            assert!(f.is_null());
            assert!(take(&mut err).unwrap().contains("data (with non-zero length) is NULL"));
        }
        // NULL out.
        assert_eq!(unsafe { load_fn(b"abc".as_ptr(), 3, null_mut(), null_mut()) }, ROCKSFILTER_INVALID_ARGUMENT);
        // Lengths above isize::MAX with a real pointer: refused before a
        // byte is read (the pointer is never dereferenced).
        for len in [isize::MAX as usize + 1, usize::MAX] {
            let mut f = std::ptr::dangling_mut::<rocksfilter_filter>();
            let mut err = null_mut();
            assert_eq!(unsafe { load_fn(b"abc".as_ptr(), len, &mut f, &mut err) }, ROCKSFILTER_INVALID_ARGUMENT);
            assert!(f.is_null());
            let msg = take(&mut err).unwrap();
            assert!(msg.starts_with("invalid argument: data: length") && msg.contains("largest possible"), "{msg}");
        }
        // A FastLocalBloom shorter than one cache line: RocksDB's reader would
        // probe past the block; read as always true, as every reserved form.
        let mut short = vec![0u8; 63];
        short.extend_from_slice(&[0xff, 0, 6, 0, 0]);
        let mut f = std::ptr::dangling_mut::<rocksfilter_filter>();
        assert_eq!(unsafe { load_fn(short.as_ptr(), short.len(), &mut f, null_mut()) }, ROCKSFILTER_OK);
        assert_eq!(unsafe { rocksfilter_filter_kind(f) }, ROCKSFILTER_KIND_ALWAYS_TRUE);
        unsafe { rocksfilter_filter_free(f) };
    }
}

#[test]
fn errptr_conventions() {
    // Untouched on success.
    let sentinel = CString::new("untouched").unwrap().into_raw();
    let mut err = sentinel;
    let mut f = null_mut();
    let block = bloom_block(&[b"a"]);
    assert_eq!(unsafe { rocksfilter_filter_load(block.as_ptr(), block.len(), &mut f, &mut err) }, ROCKSFILTER_OK);
    assert_eq!(err, sentinel);
    unsafe { rocksfilter_filter_free(f) };
    // Overwritten (not freed: the caller still owns the old one) on failure.
    assert_eq!(unsafe { rocksfilter_filter_load(null(), 1, &mut f, &mut err) }, ROCKSFILTER_INVALID_ARGUMENT);
    assert_ne!(err, sentinel);
    assert!(take(&mut err).unwrap().starts_with("invalid argument: "));
    unsafe { rocksfilter_string_free(sentinel) };
    unsafe { rocksfilter_string_free(null_mut()) };
    unsafe { rocksfilter_bytes_free(null_mut(), 0) };
    unsafe { rocksfilter_bytes_free(null_mut(), 123) };
    assert!(f.is_null(), "*out not cleared on failure");
}

#[test]
fn queries_with_null_and_huge_arguments() {
    let block = bloom_block(&[b"apple", b"", b"cherry"]);
    let f = load(&block);
    unsafe {
        // NULL filter: "may match" / conservative answers.
        assert!(rocksfilter_filter_may_match(null(), b"x".as_ptr(), 1));
        assert!(rocksfilter_filter_may_match_hash(null(), 0));
        assert_eq!(rocksfilter_filter_kind(null()), ROCKSFILTER_KIND_ALWAYS_TRUE);
        assert_eq!(rocksfilter_filter_estimated_fp_rate(null(), 10), 1.0);
        let mut info = std::mem::zeroed::<rocksfilter_filter_info>();
        assert_eq!(rocksfilter_filter_get_info(null(), &mut info), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_filter_get_info(f, null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_filter_get_info(f, &mut info), ROCKSFILTER_OK);
        assert_eq!((info.kind, info.bytes), (ROCKSFILTER_KIND_FAST_LOCAL_BLOOM, block.len() as u64));
        let (mut d, mut l) = (null(), 0usize);
        assert_eq!(rocksfilter_filter_data(null(), &mut d, &mut l), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_filter_data(f, null_mut(), &mut l), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_filter_data(f, &mut d, null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_filter_data(f, &mut d, &mut l), ROCKSFILTER_OK);
        assert_eq!(std::slice::from_raw_parts(d, l), &block[..]);
        rocksfilter_filter_free(null_mut());

        // NULL key: empty key when len 0, "may match" otherwise (any length).
        assert!(rocksfilter_filter_may_match(f, null(), 0)); // "" was added
        for len in [1usize, 1 << 40, usize::MAX] {
            assert!(rocksfilter_filter_may_match(f, null(), len));
        }
        assert!(rocksfilter_filter_may_match(f, b"apple".as_ptr(), 5));

        // Hashes.
        assert_eq!(rocksfilter_hash64(null(), 0), 0x5342_c301_0fe1_dd04);
        assert_eq!(rocksfilter_hash64(b"".as_ptr(), 0), 0x5342_c301_0fe1_dd04);
        assert_eq!(rocksfilter_hash64(null(), usize::MAX), 0);
        assert_eq!(rocksfilter_hash64(b"k".as_ptr(), usize::MAX), 0);
        // Every length on both sides of the 128-byte fast path, from four
        // offsets: the C call hashes as the Rust one.
        let bytes: Vec<u8> = (0..400u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in 0..=300 {
            for at in [0, 1, 7, 63] {
                let k = &bytes[at..at + len];
                assert_eq!(rocksfilter_hash64(k.as_ptr(), len), rocksfilter::hash64(k), "{len} bytes at {at}");
            }
        }
        assert_eq!(rocksfilter_legacy_hash32(null(), usize::MAX), 0);
        assert_eq!(rocksfilter_legacy_hash32(null(), 0), rocksfilter_legacy_hash32(b"".as_ptr(), 0));
        let v = CStr::from_ptr(rocksfilter_version()).to_str().unwrap();
        assert_eq!(v, rocksfilter::VERSION);
    }
    unsafe { rocksfilter_filter_free(f) };
}

#[test]
fn batch_with_null_pieces() {
    let block = bloom_block(&[b"apple", b"banana"]);
    let f = load(&block);
    let keys: [*const u8; 4] = [b"apple".as_ptr(), null(), null(), b"nope-not-there".as_ptr()];
    let lens: [usize; 4] = [5, 0, 7, 14];
    unsafe {
        let mut r = [false; 4];
        rocksfilter_filter_may_match_batch(f, keys.as_ptr(), lens.as_ptr(), 4, r.as_mut_ptr());
        // keys[2] is NULL with length 7: "may match".
        assert!(r[0] && r[2]);
        assert_eq!(r[1], rocksfilter_filter_may_match(f, null(), 0));
        assert_eq!(r[3], rocksfilter_filter_may_match(f, keys[3], 14));
        // NULL results: no-op (nothing to write); n = 0: no-op.
        rocksfilter_filter_may_match_batch(f, keys.as_ptr(), lens.as_ptr(), 4, null_mut());
        rocksfilter_filter_may_match_batch(f, null(), null(), 0, null_mut());
        let mut r = [false; 4];
        rocksfilter_filter_may_match_batch(f, null(), null(), 0, r.as_mut_ptr());
        assert_eq!(r, [false; 4], "n = 0 wrote results");
        // NULL filter, keys or lens: every answer true.
        for (ff, kk, ll) in [
            (null(), keys.as_ptr(), lens.as_ptr()),
            (f as *const _, null(), lens.as_ptr()),
            (f as *const _, keys.as_ptr(), null()),
        ] {
            let mut r = [false; 4];
            rocksfilter_filter_may_match_batch(ff, kk, ll, 4, r.as_mut_ptr());
            assert_eq!(r, [true; 4]);
        }
        rocksfilter_filter_free(f);
    }
}

fn packed(
    f: *const rocksfilter_filter,
    buf: *const u8,
    buf_len: usize,
    offsets: *const usize,
    n: usize,
    results: *mut bool,
) -> (u32, Option<String>) {
    let mut err = null_mut();
    let st = unsafe { rocksfilter_filter_may_match_packed(f, buf, buf_len, offsets, n, results, &mut err) };
    (st, take(&mut err))
}

#[test]
fn packed_batch_with_bad_offsets() {
    let block = bloom_block(&[b"apple", b"banana"]);
    let f = load(&block);
    let buf = b"applebananacherry";
    let good = [0usize, 5, 11, 17];
    let mut r = [false; 3];
    assert_eq!(packed(f, buf.as_ptr(), buf.len(), good.as_ptr(), 3, r.as_mut_ptr()).0, ROCKSFILTER_OK);
    assert!(r[0] && r[1]);
    // n = 0: OK with everything NULL.
    assert_eq!(packed(null(), null(), 0, null(), 0, null_mut()).0, ROCKSFILTER_OK);
    // NULL results / offsets / filter / buf(with length): INVALID_ARGUMENT.
    assert_eq!(packed(f, buf.as_ptr(), buf.len(), good.as_ptr(), 3, null_mut()).0, ROCKSFILTER_INVALID_ARGUMENT);
    assert_eq!(packed(f, buf.as_ptr(), buf.len(), null(), 3, r.as_mut_ptr()).0, ROCKSFILTER_INVALID_ARGUMENT);
    assert_eq!(
        packed(null(), buf.as_ptr(), buf.len(), good.as_ptr(), 3, r.as_mut_ptr()).0,
        ROCKSFILTER_INVALID_ARGUMENT
    );
    assert_eq!(packed(f, null(), usize::MAX, good.as_ptr(), 3, r.as_mut_ptr()).0, ROCKSFILTER_INVALID_ARGUMENT);
    // NULL buf of length 0 with all-zero offsets: n empty keys.
    let zeros = [0usize; 4];
    let (st, _) = packed(f, null(), 0, zeros.as_ptr(), 3, r.as_mut_ptr());
    assert_eq!(st, ROCKSFILTER_OK);
    // Decreasing, past-the-end and wrapped offsets: INVALID_ARGUMENT naming
    // the index, results untouched.
    for bad in [[0usize, 5, 4, 17], [0, 5, 11, 18], [0, 5, 11, usize::MAX], [6, 5, 11, 17], [usize::MAX, 0, 0, 0]] {
        let mut r = [true, false, true];
        let (st, msg) = packed(f, buf.as_ptr(), buf.len(), bad.as_ptr(), 3, r.as_mut_ptr());
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT, "{bad:?}");
        let msg = msg.unwrap();
        assert!(msg.contains("offsets[") && msg.contains("17-byte buffer"), "{msg}");
        assert_eq!(r, [true, false, true], "results touched for {bad:?}");
    }
    // n so large that n + 1 offsets cannot exist: refused, not UB.
    let one = [0usize];
    let mut r1 = [false];
    for n in [usize::MAX, usize::MAX / 2, isize::MAX as usize + 1] {
        let (st, msg) = packed(f, buf.as_ptr(), buf.len(), one.as_ptr(), n, r1.as_mut_ptr());
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT, "n = {n}: {msg:?}");
    }
    unsafe { rocksfilter_filter_free(f) };
}

// ---------------------------------------------------------------- SST

/// A minimal valid SST (format_version 5, crc32c) with a full Bloom filter
/// over `keys` and no properties.
fn tiny_sst(keys: &[&[u8]]) -> Vec<u8> {
    craft::Crafted::minimal(&bloom_block(keys))
}

#[test]
fn sst_null_and_bad_arguments() {
    unsafe {
        let mut s = std::ptr::dangling_mut::<rocksfilter_sst>();
        let mut err = null_mut();
        assert_eq!(rocksfilter_sst_open(null(), &mut s, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(s.is_null() && take(&mut err).unwrap().contains("path is NULL"));
        let p = CString::new("/nonexistent/rocksfilter/x.sst").unwrap();
        assert_eq!(rocksfilter_sst_open(p.as_ptr(), null_mut(), null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(rocksfilter_sst_open(p.as_ptr(), &mut s, &mut err), ROCKSFILTER_IO_ERROR);
        let msg = take(&mut err).unwrap();
        assert!(msg.contains("/nonexistent/rocksfilter/x.sst"), "I/O error must name the path: {msg}");
        assert_eq!(rocksfilter_sst_open_opts(p.as_ptr(), 4, &mut s, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(take(&mut err).unwrap().contains("flags"));
        // Mapping is for paths only.
        let bytes = [0u8; 64];
        assert_eq!(
            rocksfilter_sst_open_memory_opts(bytes.as_ptr(), bytes.len(), ROCKSFILTER_SST_MMAP, &mut s, &mut err),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        assert!(s.is_null() && take(&mut err).unwrap().contains("apply only to rocksfilter_sst_open_opts"));
        // A directory and an empty file.
        let d = CString::new(std::env::temp_dir().to_str().unwrap()).unwrap();
        let st = rocksfilter_sst_open(d.as_ptr(), &mut s, &mut err);
        assert!(st == ROCKSFILTER_IO_ERROR || st == ROCKSFILTER_CORRUPTION, "directory: {st}");
        take(&mut err);

        // Memory: NULL with length 0 is a 0-byte file (too short); NULL with
        // a length is refused without reading.
        assert_eq!(rocksfilter_sst_open_memory(null(), 0, &mut s, &mut err), ROCKSFILTER_CORRUPTION);
        assert!(take(&mut err).unwrap().contains("too short"));
        for len in [1usize, 53, usize::MAX] {
            assert_eq!(rocksfilter_sst_open_memory(null(), len, &mut s, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
            take(&mut err);
        }
        assert_eq!(
            rocksfilter_sst_open_memory_opts(b"x".as_ptr(), 1, 0xffff_fffe, &mut s, &mut err),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        take(&mut err);

        // NULL handle everywhere.
        assert!(rocksfilter_sst_may_match(null(), b"k".as_ptr(), 1));
        let mut out = false;
        assert_eq!(
            rocksfilter_sst_prefix_may_match(null(), b"k".as_ptr(), 1, &mut out, null_mut()),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        let mut ff = std::ptr::dangling_mut::<rocksfilter_filter>();
        assert_eq!(rocksfilter_sst_full_filter(null(), &mut ff, null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(ff.is_null());
        assert_eq!(rocksfilter_sst_filter_type(null()), ROCKSFILTER_SST_FILTER_UNSUPPORTED);
        let mut props = std::mem::zeroed::<rocksfilter_sst_properties>();
        assert_eq!(rocksfilter_sst_get_properties(null(), &mut props), ROCKSFILTER_INVALID_ARGUMENT);
        let mut len = 0usize;
        let name = CString::new("rocksdb.num.entries").unwrap();
        assert!(rocksfilter_sst_property(null(), name.as_ptr(), &mut len).is_null());
        rocksfilter_sst_free(null_mut());
    }
}

#[test]
fn sst_valid_handle_with_bad_arguments_and_filter_lifetime() {
    let keys: [&[u8]; 3] = [b"k1", b"k2", b"k3"];
    let file = tiny_sst(&keys);
    let path = std::env::temp_dir().join(format!("rocksfilter-ffi-misuse-{}.sst", std::process::id()));
    std::fs::write(&path, &file).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    unsafe {
        let mut s = null_mut();
        let mut err = null_mut();
        assert_eq!(rocksfilter_sst_open(cpath.as_ptr(), &mut s, &mut err), ROCKSFILTER_OK, "{:?}", take(&mut err));
        assert_eq!(rocksfilter_sst_filter_type(s), ROCKSFILTER_SST_FILTER_FULL);
        for k in keys {
            assert!(rocksfilter_sst_may_match(s, k.as_ptr(), k.len()));
        }
        assert!(rocksfilter_sst_may_match(s, null(), usize::MAX));
        // No prefix extractor: NOT_SUPPORTED; NULL prefix/out: INVALID_ARGUMENT.
        let mut out = false;
        assert_eq!(
            rocksfilter_sst_prefix_may_match(s, b"k".as_ptr(), 1, &mut out, &mut err),
            ROCKSFILTER_NOT_SUPPORTED
        );
        assert!(take(&mut err).unwrap().contains("no prefix filter"));
        assert_eq!(rocksfilter_sst_prefix_may_match(s, null(), 3, &mut out, null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(
            rocksfilter_sst_prefix_may_match(s, b"k".as_ptr(), 1, null_mut(), null_mut()),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        // Properties: absent block -> NULL strings; property lookups NULL-safe.
        assert_eq!(rocksfilter_sst_get_properties(s, null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        let mut props = std::mem::zeroed::<rocksfilter_sst_properties>();
        assert_eq!(rocksfilter_sst_get_properties(s, &mut props), ROCKSFILTER_OK);
        assert_eq!(
            (props.format_version, props.filter_type, props.num_partitions),
            (5, ROCKSFILTER_SST_FILTER_FULL, 1)
        );
        assert!(props.comparator.is_null());
        assert_eq!(CStr::from_ptr(props.filter_block_name).to_str().unwrap(), "fullfilter.rocksdb.BuiltinBloomFilter");
        let mut len = 7usize;
        assert!(rocksfilter_sst_property(s, null(), &mut len).is_null());
        let name = CString::new("rocksdb.num.entries").unwrap();
        assert!(rocksfilter_sst_property(s, name.as_ptr(), null_mut()).is_null());
        assert!(rocksfilter_sst_property(s, name.as_ptr(), &mut len).is_null());
        let bad_utf8 = [0xffu8, 0xfe, 0];
        assert!(rocksfilter_sst_property(s, bad_utf8.as_ptr() as *const c_char, &mut len).is_null());
        // The full filter outlives the handle for files opened by path.
        assert_eq!(rocksfilter_sst_full_filter(s, null_mut(), null_mut()), ROCKSFILTER_INVALID_ARGUMENT);
        let mut f = null_mut();
        assert_eq!(rocksfilter_sst_full_filter(s, &mut f, null_mut()), ROCKSFILTER_OK);
        rocksfilter_sst_free(s);
        std::fs::remove_file(&path).unwrap();
        for k in keys {
            assert!(rocksfilter_filter_may_match(f, k.as_ptr(), k.len()), "filter died with its SST handle");
        }
        rocksfilter_filter_free(f);

        // In memory: same answers. A flipped byte in the filter fails its
        // checksum; RocksDB then opens the table without the filter, and so
        // does this library: every key may match, and the full filter call
        // says why.
        let mut s = null_mut();
        assert_eq!(rocksfilter_sst_open_memory(file.as_ptr(), file.len(), &mut s, null_mut()), ROCKSFILTER_OK);
        assert!(rocksfilter_sst_may_match(s, b"k2".as_ptr(), 2));
        rocksfilter_sst_free(s);
        let mut damaged = file.clone();
        damaged[10] ^= 0x01; // inside the filter's bit array
        let mut s = null_mut();
        assert_eq!(rocksfilter_sst_open_memory(damaged.as_ptr(), damaged.len(), &mut s, &mut err), ROCKSFILTER_OK);
        assert_eq!(rocksfilter_sst_filter_type(s), ROCKSFILTER_SST_FILTER_UNSUPPORTED);
        assert!(rocksfilter_sst_may_match(s, b"absent".as_ptr(), 6));
        let mut f = null_mut();
        assert_eq!(rocksfilter_sst_full_filter(s, &mut f, &mut err), ROCKSFILTER_NOT_SUPPORTED);
        let msg = take(&mut err).unwrap();
        assert!(msg.contains("filter block at offset 0") && msg.contains("checksum mismatch"), "{msg}");
        rocksfilter_sst_free(s);
        assert_eq!(
            rocksfilter_sst_open_memory_opts(
                damaged.as_ptr(),
                damaged.len(),
                ROCKSFILTER_SST_SKIP_CHECKSUMS,
                &mut s,
                null_mut()
            ),
            ROCKSFILTER_OK
        );
        rocksfilter_sst_free(s);
    }
}

/// No panic is reachable through the C ABI with valid-per-contract
/// arguments (every one found by fuzzing or review was fixed), so the panic
/// boundary itself (`guard`/`guard_status` -> ROCKSFILTER_INTERNAL with a
/// message) is tested by a unit test inside `src/ffi/guard.rs`. Here: a
/// panic can never escape as an abort through the batch forms, even with
/// the largest lengths a caller could claim for real buffers.
#[test]
fn no_panic_escapes_with_extreme_but_valid_arguments() {
    let block = bloom_block(&[b"a"]);
    let f = load(&block);
    // 10,000 keys of length 0 .. 3 in one packed buffer, the last one ending
    // exactly at buf_len.
    let mut buf = Vec::new();
    let mut offsets = vec![0usize];
    for i in 0..10_000usize {
        buf.extend(std::iter::repeat_n(b'x', i % 4));
        offsets.push(buf.len());
    }
    let mut r = vec![false; 10_000];
    let (st, _) = packed(f, buf.as_ptr(), buf.len(), offsets.as_ptr(), 10_000, r.as_mut_ptr());
    assert_eq!(st, ROCKSFILTER_OK);
    unsafe { rocksfilter_filter_free(f) };
}

/// Every (pointer, length) pair of the C ABI refuses a length above
/// isize::MAX before reading anything: the pointer given here is valid for
/// 3 bytes only, so a read past them would be caught by ASan and Miri.
#[test]
fn lengths_above_isize_max_are_refused_everywhere() {
    let three = b"abc";
    let block = bloom_block(&[b"a"]);
    let f = load(&block);
    for len in [isize::MAX as usize + 1, usize::MAX - 8, usize::MAX] {
        unsafe {
            let mut s = std::ptr::dangling_mut::<rocksfilter_sst>();
            let mut err = null_mut();
            assert_eq!(
                rocksfilter_sst_open_memory(three.as_ptr(), len, &mut s, &mut err),
                ROCKSFILTER_INVALID_ARGUMENT
            );
            assert!(s.is_null());
            assert!(take(&mut err).unwrap().contains("largest possible object"));
            // Queries answer "may match"; hashes are 0.
            assert!(rocksfilter_filter_may_match(f, three.as_ptr(), len));
            assert_eq!(rocksfilter_hash64(three.as_ptr(), len), 0);
            assert_eq!(rocksfilter_legacy_hash32(three.as_ptr(), len), 0);
            let keys = [three.as_ptr()];
            let lens = [len];
            let mut r = [false];
            rocksfilter_filter_may_match_batch(f, keys.as_ptr(), lens.as_ptr(), 1, r.as_mut_ptr());
            assert!(r[0]);
            // Packed: the buffer length itself.
            let offsets = [0usize, 1];
            let (st, _) = packed(f, three.as_ptr(), len, offsets.as_ptr(), 1, r.as_mut_ptr());
            assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
            // Builders: the key is refused at finish, naming the call.
            let mut b = null_mut();
            assert_eq!(rocksfilter_builder_new(ROCKSFILTER_POLICY_BLOOM, 10.0, &mut b, null_mut()), ROCKSFILTER_OK);
            rocksfilter_builder_add_key(b, three.as_ptr(), len);
            let (st, _, msg) = finish(b);
            assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
            assert!(msg.unwrap().contains("rocksfilter_builder_add_key"));
            rocksfilter_builder_add_key_and_alt(b, three.as_ptr(), 3, three.as_ptr(), len);
            let (st, _, msg) = finish(b);
            assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
            assert!(msg.unwrap().contains("alt in rocksfilter_builder_add_key_and_alt"));
            rocksfilter_builder_free(b);
        }
    }
    unsafe { rocksfilter_filter_free(f) };
}

/// The `_ex` calls: an errptr message on every failure, the `struct_size`
/// protocol of `rocksfilter_filter_info_ex`, and a batch that reports misuse
/// instead of failing open.
#[test]
fn ex_calls_report_misuse_with_messages() {
    let block = bloom_block(&[b"apple", b"banana"]);
    let f = load(&block);
    let full = std::mem::size_of::<rocksfilter_filter_info_ex>();
    unsafe {
        // Full struct: every field, struct_size says how much.
        let mut info = std::mem::zeroed::<rocksfilter_filter_info_ex>();
        info.struct_size = full as u32;
        let mut err = null_mut();
        assert_eq!(rocksfilter_filter_get_info_ex(f, &mut info, &mut err), ROCKSFILTER_OK);
        assert!(err.is_null());
        assert_eq!(info.struct_size as usize, full);
        assert_eq!(
            (info.kind, info.bytes, info.num_probes, info.line_bytes),
            (ROCKSFILTER_KIND_FAST_LOCAL_BLOOM, block.len() as u64, 6, 64)
        );
        // Agrees with the fixed 0.1 struct.
        let mut old = std::mem::zeroed::<rocksfilter_filter_info>();
        assert_eq!(rocksfilter_filter_get_info(f, &mut old), ROCKSFILTER_OK);
        assert_eq!(
            (old.kind, old.bytes, old.num_probes, old.line_bytes),
            (info.kind, info.bytes, info.num_probes, info.line_bytes)
        );
        // An older, shorter caller (kind and bytes only): nothing past them is
        // written, and struct_size reports the 16 bytes filled.
        let mut buf = [0xa5u8; 64];
        let p = buf.as_mut_ptr() as *mut rocksfilter_filter_info_ex;
        (p as *mut u32).write(16);
        assert_eq!(rocksfilter_filter_get_info_ex(f, p, null_mut()), ROCKSFILTER_OK);
        assert_eq!((p as *const u32).read(), 16);
        assert!(buf[16..].iter().all(|&b| b == 0xa5), "wrote past struct_size");
        // A size that ends inside a field: only whole fields are written.
        (p as *mut u32).write(13);
        assert_eq!(rocksfilter_filter_get_info_ex(f, p, null_mut()), ROCKSFILTER_OK);
        assert_eq!((p as *const u32).read(), 8);
        // Too small, NULLs: INVALID_ARGUMENT with a message.
        (p as *mut u32).write(4);
        assert_eq!(rocksfilter_filter_get_info_ex(f, p, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(take(&mut err).unwrap().contains("struct_size is 4"));
        assert_eq!(rocksfilter_filter_get_info_ex(null(), &mut info, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(take(&mut err).unwrap(), "invalid argument: filter is NULL");
        assert_eq!(rocksfilter_filter_get_info_ex(f, null_mut(), &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(take(&mut err).is_some());

        // data_ex
        let (mut d, mut l) = (null(), 0usize);
        assert_eq!(rocksfilter_filter_data_ex(f, &mut d, &mut l, &mut err), ROCKSFILTER_OK);
        assert_eq!(std::slice::from_raw_parts(d, l), &block[..]);
        assert_eq!(rocksfilter_filter_data_ex(f, null_mut(), &mut l, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert!(take(&mut err).unwrap().contains("data or len"));

        // batch_ex: answers like the batch on good input ...
        let keys: [&[u8]; 3] = [b"apple", b"banana", b"cherry"];
        let ptrs: Vec<*const u8> = keys.iter().map(|k| k.as_ptr()).collect();
        let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
        let mut got = [false; 3];
        let mut want = [false; 3];
        assert_eq!(
            rocksfilter_filter_may_match_batch_ex(f, ptrs.as_ptr(), lens.as_ptr(), 3, got.as_mut_ptr(), &mut err),
            ROCKSFILTER_OK
        );
        rocksfilter_filter_may_match_batch(f, ptrs.as_ptr(), lens.as_ptr(), 3, want.as_mut_ptr());
        assert_eq!(got, want);
        assert!(got[0] && got[1]);
        // ... and refuses a NULL key with a length, naming it, results untouched.
        let bad = [ptrs[0], null(), ptrs[2]];
        let mut untouched = [false; 3];
        assert_eq!(
            rocksfilter_filter_may_match_batch_ex(f, bad.as_ptr(), lens.as_ptr(), 3, untouched.as_mut_ptr(), &mut err),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        assert_eq!(take(&mut err).unwrap(), "invalid argument: keys[1] (with non-zero length) is NULL");
        assert_eq!(untouched, [false; 3]);
        let huge = [1usize, usize::MAX, 1];
        assert_eq!(
            rocksfilter_filter_may_match_batch_ex(f, ptrs.as_ptr(), huge.as_ptr(), 3, untouched.as_mut_ptr(), &mut err),
            ROCKSFILTER_INVALID_ARGUMENT
        );
        assert!(take(&mut err).unwrap().starts_with("invalid argument: keys[1]: length"));
        for (ff, k, l, r) in [
            (null(), ptrs.as_ptr(), lens.as_ptr(), untouched.as_mut_ptr()),
            (f as *const _, null(), lens.as_ptr(), untouched.as_mut_ptr()),
            (f as *const _, ptrs.as_ptr(), null(), untouched.as_mut_ptr()),
            (f as *const _, ptrs.as_ptr(), lens.as_ptr(), null_mut()),
        ] {
            assert_eq!(rocksfilter_filter_may_match_batch_ex(ff, k, l, 3, r, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
            assert!(take(&mut err).is_some());
        }
        // n == 0 is a no-op even with NULLs.
        assert_eq!(
            rocksfilter_filter_may_match_batch_ex(null(), null(), null(), 0, null_mut(), &mut err),
            ROCKSFILTER_OK
        );
        rocksfilter_filter_free(f);

        // sst_get_properties_ex: NULLs with messages.
        let mut props = std::mem::zeroed::<rocksfilter_sst_properties>();
        assert_eq!(rocksfilter_sst_get_properties_ex(null(), &mut props, &mut err), ROCKSFILTER_INVALID_ARGUMENT);
        assert_eq!(take(&mut err).unwrap(), "invalid argument: sst is NULL");
    }
}
