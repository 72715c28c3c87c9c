//! Handles opened with a filter cache (`FilterCache`, the C ABI's
//! `rocksfilter_cache`): partitions (and, when asked, full filters) read on
//! demand through the kept source, with a byte budget. Answers equal the
//! fully loaded handle's; reads that fail, come back short or garbled, and
//! files truncated, replaced or rewritten under open handles answer "may
//! match" and are counted; the source's `release` hook runs exactly once.
//! Counts reads, bytes and calls, never time. (The budget under concurrent
//! load, counted by an allocator, is `tests/cache_budget.rs`.)

#[path = "support/craft.rs"]
mod craft;

use std::ffi::{c_int, c_void, CStr, CString};
use std::path::PathBuf;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use craft::Crafted;
use rocksfilter::internal_ffi::*;
use rocksfilter::sst::{Source, SstFilter, SstOptions};
use rocksfilter::{FilterCache, Policy, Sst};

fn keys(n: usize, tag: &str) -> Vec<Vec<u8>> {
    let mut k: Vec<Vec<u8>> = (0..n).map(|i| format!("{tag}{i:08}").into_bytes()).collect();
    k.sort();
    k
}

/// Present keys, then as many absent ones (between and after them).
fn probes(ks: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut p = ks.to_vec();
    p.extend(ks.iter().map(|k| [k.as_slice(), b"-absent"].concat()));
    p
}

/// A test file: its description, its bytes and the keys it holds.
type TestFile = (&'static str, Vec<u8>, Vec<Vec<u8>>);

/// Partitioned files (Bloom and Ribbon, hundreds of partitions) and a full one.
fn files() -> Vec<TestFile> {
    let k = keys(60_000, "k");
    vec![
        ("partitioned Bloom, 300 partitions", Crafted::synthetic(&k, Policy::Bloom, Some(200)).finish(), k.clone()),
        ("partitioned Ribbon, 300 partitions", Crafted::synthetic(&k, Policy::Ribbon, Some(200)).finish(), k.clone()),
        ("partitioned Bloom, fv6 xxh3", Crafted::synthetic_as(&k, Policy::Bloom, Some(500), 6, 4).finish(), k.clone()),
        ("full Bloom", Crafted::synthetic(&k, Policy::Bloom, None).finish(), k),
    ]
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocksfilter-cache-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn answers(sst: &Sst<'_>, p: &[Vec<u8>]) -> (Vec<bool>, Vec<bool>) {
    let single: Vec<bool> = p.iter().map(|k| sst.may_match(k)).collect();
    let mut batch = vec![false; p.len()];
    sst.may_match_batch(p, &mut batch);
    (single, batch)
}

#[test]
fn a_small_cache_answers_as_the_loaded_handle() {
    let d = dir();
    for (name, file, ks) in files() {
        let path = d.join("answers.sst");
        std::fs::write(&path, &file).unwrap();
        let p = probes(&ks);
        let loaded = Sst::from_bytes(&file).unwrap();
        let (want, want_batch) = answers(&loaded, &p);
        assert_eq!(want, want_batch, "{name}");
        assert!(want[..ks.len()].iter().all(|&b| b), "{name}");
        let absent_rejected = want[ks.len()..].iter().filter(|&&b| !b).count();
        assert!(absent_rejected > ks.len() * 9 / 10, "{name}: {absent_rejected}");
        // 16 KiB: a few partitions at a time.
        let cache = FilterCache::new(16 << 10);
        let opts = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(true);
        let by_path = Sst::open_with(&path, opts.clone()).unwrap();
        let shared: Arc<dyn Source + Send + Sync> = Arc::new(file.clone());
        let by_source = Sst::open_shared(shared, opts.clone()).unwrap();
        for (how, sst) in [("path", &by_path), ("shared source", &by_source)] {
            // Queries read the source: the open kept no filter bytes.
            match sst.filter() {
                SstFilter::Partitioned(parts) => assert!(parts.on_demand() && parts.filters().is_empty()),
                SstFilter::CachedFull(_) => {}
                other => panic!("{name}: {other:?}"),
            }
            let before = cache.stats();
            assert_eq!(answers(sst, &p), (want.clone(), want.clone()), "{name}, {how}");
            let after = cache.stats();
            assert!(after.misses > before.misses && after.reads > before.reads, "{name}, {how}: {after:?}");
            assert!(after.bytes_held <= after.capacity, "{name}, {how}: {after:?}");
            assert_eq!((after.read_errors, after.bad_blocks), (0, 0), "{name}, {how}");
        }
        let s = cache.stats();
        if name.starts_with("partitioned") {
            assert!(s.evictions > 0 && s.hits > 0, "{name}: {s:?}");
            // The handle keeps the index only: less than the filter, even
            // with partitions of 200 keys (250 bytes): its separators,
            // lookup tables and per partition a block handle and a slot
            // (measured: 42,438 bytes against 78,300 of filter).
            let held = by_path.open_stats().bytes_held;
            let SstFilter::Partitioned(parts) = loaded.filter() else { unreachable!() };
            let filter_bytes: usize = parts.filters().iter().map(|f| f.as_bytes().len()).sum();
            assert!(held < filter_bytes as u64, "{name}: {held} of {filter_bytes}");
        } else {
            // The full filter (75 KB) is larger than the cache: read for
            // each query, never cached.
            assert!(s.uncached > 0 && s.entries == 0, "{name}: {s:?}");
        }
        drop((by_path, by_source));
        assert_eq!((cache.bytes_held(), cache.stats().entries), (0, 0), "{name}: closed handles leave nothing");
        // Prefix queries: the file has no prefix filter either way.
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn many_small_files_live_within_the_budget() {
    let cache = FilterCache::new(64 << 10);
    let opts = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(true);
    let mut all = Vec::new();
    for f in 0..200 {
        let ks = keys(2_000, &format!("f{f:03}-"));
        let file = Crafted::synthetic(&ks, if f % 2 == 0 { Policy::Bloom } else { Policy::Ribbon }, None).finish();
        let shared: Arc<dyn Source + Send + Sync> = Arc::new(file.clone());
        let sst = Sst::open_shared(shared, opts.clone()).unwrap();
        // A cached full filter is the cache's: the handle keeps its block
        // handle and slot (40 bytes).
        assert!(sst.open_stats().bytes_held <= 64, "{:?}", sst.open_stats());
        assert_eq!(sst.filter().filter_type(), rocksfilter::SstFilterType::Full);
        let loaded = Sst::open_source(&file[..], SstOptions::default()).unwrap();
        all.push((sst, loaded, probes(&ks)));
    }
    for round in 0..2 {
        for (sst, loaded, p) in &all {
            assert_eq!(answers(sst, p), answers(loaded, p), "round {round}");
            assert!(cache.bytes_held() <= 64 << 10);
        }
    }
    let s = cache.stats();
    // 200 filters of about 2.5 KB: about 25 fit; every file was read again
    // in the second round.
    assert!(s.entries >= 10 && s.evictions >= 150 && s.reads >= 400, "{s:?}");
    assert_eq!(s.uncached, 0);
    drop(all);
    assert_eq!(cache.bytes_held(), 0);
}

/// A C source over bytes whose reads can fail, come back short or garbled,
/// and which counts its calls and its release.
struct Faulty {
    file: Vec<u8>,
    /// 0 clean, 1 fail, 2 short (half copied, success), 3 garbled.
    mode: AtomicU32,
    calls: AtomicU64,
    released: AtomicU32,
}

unsafe extern "C" fn faulty_read(ctx: *mut c_void, offset: u64, dst: *mut u8, len: usize) -> c_int {
    // SAFETY: ctx is the Faulty the test keeps alive past the handle.
    let f = unsafe { &*(ctx as *const Faulty) };
    f.calls.fetch_add(1, Ordering::SeqCst);
    // SAFETY: dst is writable for len bytes (library contract).
    let dst = unsafe { std::slice::from_raw_parts_mut(dst, len) };
    let src = &f.file[offset as usize..offset as usize + len];
    match f.mode.load(Ordering::SeqCst) {
        0 => dst.copy_from_slice(src),
        1 => return -5,
        2 => dst[..len / 2].copy_from_slice(&src[..len / 2]),
        _ => dst.iter_mut().zip(src).for_each(|(d, s)| *d = !s),
    }
    0
}

unsafe extern "C" fn faulty_release(ctx: *mut c_void) {
    // SAFETY: as above.
    unsafe { &*(ctx as *const Faulty) }.released.fetch_add(1, Ordering::SeqCst);
}

fn source(f: &Faulty) -> rocksfilter_source {
    rocksfilter_source {
        struct_size: std::mem::size_of::<rocksfilter_source>(),
        size: f.file.len() as u64,
        ctx: f as *const Faulty as *mut c_void,
        read_at: Some(faulty_read),
        release: Some(faulty_release),
    }
}

fn cache_stats(c: *const rocksfilter_cache) -> rocksfilter_cache_stats {
    // SAFETY: an all-zero rocksfilter_cache_stats is valid (integers).
    let mut s: rocksfilter_cache_stats = unsafe { std::mem::zeroed() };
    s.struct_size = std::mem::size_of::<rocksfilter_cache_stats>() as u32;
    assert_eq!(unsafe { rocksfilter_cache_get_stats(c, &mut s, null_mut()) }, ROCKSFILTER_OK);
    s
}

fn open_ex(
    src: &rocksfilter_source,
    cache: *mut rocksfilter_cache,
    flags: u32,
) -> Result<*mut rocksfilter_sst, (u32, String)> {
    let opts = rocksfilter_sst_options { struct_size: std::mem::size_of::<rocksfilter_sst_options>(), flags, cache };
    let (mut out, mut err) = (null_mut(), null_mut());
    let st = unsafe { rocksfilter_sst_open_source_ex(src, &opts, &mut out, &mut err) };
    if st == ROCKSFILTER_OK {
        return Ok(out);
    }
    let msg = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
    unsafe { rocksfilter_string_free(err) };
    Err((st, msg))
}

fn c_answers(s: *const rocksfilter_sst, p: &[Vec<u8>]) -> Vec<bool> {
    p.iter().map(|k| unsafe { rocksfilter_sst_may_match(s, k.as_ptr(), k.len()) }).collect()
}

#[test]
fn reads_failing_short_or_garbled_in_queries_answer_may_match_and_are_counted() {
    for (name, file, ks) in files() {
        let p = probes(&ks);
        let want: Vec<bool> = {
            let loaded = Sst::from_bytes(&file).unwrap();
            p.iter().map(|k| loaded.may_match(k)).collect()
        };
        let f = Faulty { file, mode: AtomicU32::new(0), calls: AtomicU64::new(0), released: AtomicU32::new(0) };
        let cache = rocksfilter_cache_new(32 << 10);
        let s = open_ex(&source(&f), cache, ROCKSFILTER_SST_CACHE_FULL_FILTERS).unwrap();
        let opened_with = f.calls.load(Ordering::SeqCst);
        assert_eq!(f.released.load(Ordering::SeqCst), 0, "{name}: released while the handle keeps it");
        // Every read fails: every key may match, nothing is cached.
        f.mode.store(1, Ordering::SeqCst);
        assert!(c_answers(s, &p).iter().all(|&b| b), "{name}: failing reads");
        let st = cache_stats(cache);
        assert!(st.read_errors > 0 && st.entries == 0 && st.bytes_held == 0, "{name}: {}", st.read_errors);
        // Reads that come back short or garbled: checksums fail, the blocks
        // answer "may match" and are cached as such (not read again). A
        // fresh handle for each (opened on the clean source).
        f.mode.store(0, Ordering::SeqCst);
        for mode in [2, 3] {
            let h = open_ex(&source(&f), cache, ROCKSFILTER_SST_CACHE_FULL_FILTERS).unwrap();
            f.mode.store(mode, Ordering::SeqCst);
            let bad_before = cache_stats(cache).bad_blocks;
            assert!(c_answers(h, &p[..ks.len()]).iter().all(|&b| b), "{name}: mode {mode}");
            let calls = f.calls.load(Ordering::SeqCst);
            assert!(c_answers(h, &p[..ks.len()]).iter().all(|&b| b), "{name}: mode {mode}, again");
            let st = cache_stats(cache);
            assert!(st.bad_blocks > bad_before, "{name}: mode {mode}: {st:?}", st = st.bad_blocks);
            if name.starts_with("partitioned") {
                // The bad blocks stay cached (small entries): the second
                // pass reads only what was evicted.
                assert!(f.calls.load(Ordering::SeqCst) - calls < (p.len() / 2) as u64, "{name}: mode {mode}");
            }
            f.mode.store(0, Ordering::SeqCst);
            unsafe { rocksfilter_sst_free(h) };
        }
        // A new handle (nothing cached for it) on a clean source
        // answers exactly as loaded.
        let clean = open_ex(&source(&f), cache, ROCKSFILTER_SST_CACHE_FULL_FILTERS).unwrap();
        assert_eq!(c_answers(clean, &p), want, "{name}: clean source after faults");
        assert!(opened_with > 0);
        let released = f.released.load(Ordering::SeqCst);
        unsafe { rocksfilter_sst_free(s) };
        assert_eq!(f.released.load(Ordering::SeqCst), released + 1, "{name}: released once when freed");
        unsafe { rocksfilter_sst_free(clean) };
        // The cache outlives nothing: freeing it last, with nothing left.
        assert_eq!(unsafe { rocksfilter_cache_bytes_held(cache) }, 0);
        unsafe { rocksfilter_cache_free(cache) };
    }
}

#[test]
fn release_runs_exactly_once_whatever_the_open_does() {
    let ks = keys(20_000, "r");
    let file = Crafted::synthetic(&ks, Policy::Bloom, Some(500)).finish();
    let f = Faulty { file, mode: AtomicU32::new(0), calls: AtomicU64::new(0), released: AtomicU32::new(0) };
    let cache = rocksfilter_cache_new(1 << 20);
    let released = || f.released.load(Ordering::SeqCst);
    // Without a cache: nothing is kept, released before the open returns.
    let s = open_ex(&source(&f), null_mut(), 0).unwrap();
    assert_eq!(released(), 1);
    unsafe { rocksfilter_sst_free(s) };
    let mut plain = (null_mut(), null_mut());
    assert_eq!(unsafe { rocksfilter_sst_open_source(&source(&f), 0, &mut plain.0, &mut plain.1) }, ROCKSFILTER_OK);
    assert_eq!(released(), 2, "rocksfilter_sst_open_source releases too");
    unsafe { rocksfilter_sst_free(plain.0) };
    // A failed open (every read fails) releases.
    f.mode.store(1, Ordering::SeqCst);
    let (st, msg) = open_ex(&source(&f), cache, 0).unwrap_err();
    assert_eq!(st, ROCKSFILTER_IO_ERROR, "{msg}");
    assert_eq!(released(), 3);
    f.mode.store(0, Ordering::SeqCst);
    // Misuse that fails before any read releases.
    let mut no_read = source(&f);
    no_read.read_at = None;
    assert_eq!(open_ex(&no_read, cache, 0).unwrap_err().0, ROCKSFILTER_INVALID_ARGUMENT);
    assert_eq!(released(), 4);
    assert_eq!(
        open_ex(&source(&f), null_mut(), ROCKSFILTER_SST_CACHE_FULL_FILTERS).unwrap_err().0,
        ROCKSFILTER_INVALID_ARGUMENT
    );
    assert_eq!(released(), 5);
    // A caller built against the header before `release` (a smaller
    // struct): never called.
    let mut old = source(&f);
    old.struct_size = std::mem::offset_of!(rocksfilter_source, release);
    let s = open_ex(&old, null_mut(), 0).unwrap();
    unsafe { rocksfilter_sst_free(s) };
    assert_eq!(released(), 5);
    // With a cache: kept until the handle is freed.
    let s = open_ex(&source(&f), cache, 0).unwrap();
    assert!(c_answers(s, &ks[..100]).iter().all(|&b| b));
    assert_eq!(released(), 5);
    unsafe { rocksfilter_sst_free(s) };
    assert_eq!(released(), 6);
    unsafe { rocksfilter_cache_free(cache) };
}

/// Whether `r`, renaming over or deleting a file a handle keeps open, is
/// Windows refusing it: the library opens files sharing delete access
/// (`source::open_file`), but Wine (where these tests run for Windows)
/// refuses both anyway. Anything else must have succeeded.
fn refused_by_windows(r: std::io::Result<()>, what: &str) -> bool {
    match r {
        Ok(()) => false,
        Err(e) if cfg!(windows) && e.kind() == std::io::ErrorKind::PermissionDenied => {
            println!("{what}: the file system refused it under an open handle ({e}); case skipped");
            true
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

#[test]
fn files_truncated_replaced_rewritten_or_deleted_under_cached_handles() {
    let d = dir();
    let ks = keys(60_000, "t");
    let file = Crafted::synthetic(&ks, Policy::Bloom, Some(200)).finish();
    let p = probes(&ks);
    let want: Vec<bool> = {
        let loaded = Sst::from_bytes(&file).unwrap();
        p.iter().map(|k| loaded.may_match(k)).collect()
    };
    // Files kept open between queries (the default), and none kept.
    for open_files in [rocksfilter::DEFAULT_OPEN_FILES, 0] {
        for what in ["truncated", "replaced", "rewritten", "deleted"] {
            let cache = FilterCache::with_open_files(8 << 10, open_files);
            let path = d.join(format!("{what}.sst"));
            std::fs::write(&path, &file).unwrap();
            let sst = Sst::open_with(&path, SstOptions::default().with_cache(cache.clone())).unwrap();
            // Some partitions cached, then the file changes under the handle.
            assert_eq!(answers(&sst, &p[..1000]).0, want[..1000]);
            assert_eq!(cache.stats().open_files, u64::from(open_files > 0), "{what}");
            match what {
                "truncated" => {
                    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(file.len() as u64 / 2).unwrap()
                }
                "replaced" => {
                    // Another file of the same length renamed over it (another inode).
                    let other = d.join("other.sst");
                    let mut garbled = file.clone();
                    garbled[..file.len() - 200].iter_mut().for_each(|b| *b = !*b);
                    std::fs::write(&other, &garbled).unwrap();
                    if refused_by_windows(std::fs::rename(&other, &path), what) {
                        continue;
                    }
                }
                "rewritten" => {
                    // Same inode and length, different bytes: checksums catch it.
                    let mut garbled = file.clone();
                    garbled[..file.len() - 200].iter_mut().for_each(|b| *b ^= 0x55);
                    std::fs::write(&path, &garbled).unwrap();
                }
                _ => {
                    if refused_by_windows(std::fs::remove_file(&path), what) {
                        continue;
                    }
                }
            }
            let (single, batch) = answers(&sst, &p);
            let case = format!("{what}, {open_files} open files");
            assert!(single[..ks.len()].iter().all(|&b| b), "{case}: a present key answered absent");
            assert!(batch[..ks.len()].iter().all(|&b| b), "{case}: a present key answered absent (batch)");
            // The answers differ from the loaded handle's only by "may match".
            assert!(single.iter().zip(&want).all(|(&g, &w)| g || !w), "{case}");
            let s = cache.stats();
            match (what, open_files) {
                ("rewritten", _) => assert!(s.bad_blocks > 0 && s.read_errors == 0, "{case}: {s:?}"),
                // Windows gives no file identity to compare (std has no
                // stable file index): a file of the same length renamed
                // over it is read, and its checksums fail instead.
                ("replaced", 0) if cfg!(windows) => assert!(s.bad_blocks + s.read_errors > 0, "{case}: {s:?}"),
                // The file kept open is the one opened: the old answers.
                ("replaced" | "deleted", n) if n > 0 => {
                    assert_eq!(single, want, "{case}");
                    assert_eq!((s.read_errors, s.bad_blocks), (0, 0), "{case}: {s:?}");
                }
                _ => assert!(s.read_errors > 0, "{case}: {s:?}"),
            }
            drop(sst);
            assert_eq!(cache.stats().open_files, 0, "{case}: the handle's file is closed with it");
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[test]
fn misuse_is_refused_with_a_message() {
    let ks = keys(1_000, "m");
    let file = Crafted::synthetic(&ks, Policy::Bloom, Some(100)).finish();
    let cache = FilterCache::new(1 << 20);
    let with = SstOptions::default().with_cache(cache);
    let e = Sst::from_bytes_with(&file, with.clone()).unwrap_err();
    assert!(e.message().contains("a cache applies to files read through a source"), "{e}");
    let e = Sst::open_source(&file[..], with.clone()).unwrap_err();
    assert!(e.message().contains("Sst::open_shared"), "{e}");
    let path = dir().join("misuse.sst");
    std::fs::write(&path, &file).unwrap();
    let e = Sst::open_with(&path, with.with_mmap(true)).unwrap_err();
    assert!(e.message().contains("exclude each other"), "{e}");
    // The C ABI: a struct_size too small, a cache with MMAP, CACHE_FULL
    // without a cache, an unknown flag.
    let c = rocksfilter_cache_new(1 << 20);
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    for (size, flags, cache, want) in [
        (8, 0, c, "struct_size is 8"),
        (std::mem::size_of::<rocksfilter_sst_options>(), ROCKSFILTER_SST_MMAP, c, "exclude each other"),
        (
            std::mem::size_of::<rocksfilter_sst_options>(),
            ROCKSFILTER_SST_CACHE_FULL_FILTERS,
            null_mut(),
            "needs a cache",
        ),
        (std::mem::size_of::<rocksfilter_sst_options>(), 64, c, "unknown flags"),
    ] {
        let opts = rocksfilter_sst_options { struct_size: size, flags, cache };
        let (mut out, mut err) = (null_mut(), null_mut());
        let st = unsafe { rocksfilter_sst_open_ex(cpath.as_ptr(), &opts, &mut out, &mut err) };
        assert_eq!(st, ROCKSFILTER_INVALID_ARGUMENT);
        assert!(out.is_null());
        let msg = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
        unsafe { rocksfilter_string_free(err) };
        assert!(msg.contains(want), "{msg}");
    }
    // NULL options: the defaults (everything loaded at open).
    let (mut out, mut err) = (null_mut(), null_mut());
    assert_eq!(
        unsafe { rocksfilter_sst_open_ex(cpath.as_ptr(), std::ptr::null(), &mut out, &mut err) },
        ROCKSFILTER_OK
    );
    unsafe { rocksfilter_sst_free(out) };
    // A freed cache's handles keep theirs alive.
    let opts =
        rocksfilter_sst_options { struct_size: std::mem::size_of::<rocksfilter_sst_options>(), flags: 0, cache: c };
    assert_eq!(unsafe { rocksfilter_sst_open_ex(cpath.as_ptr(), &opts, &mut out, &mut err) }, ROCKSFILTER_OK);
    unsafe { rocksfilter_cache_free(c) };
    assert!(ks.iter().all(|k| unsafe { rocksfilter_sst_may_match(out, k.as_ptr(), k.len()) }));
    unsafe { rocksfilter_sst_free(out) };
    assert_eq!(unsafe { rocksfilter_cache_bytes_held(std::ptr::null()) }, 0);
    std::fs::remove_file(&path).unwrap();
}
