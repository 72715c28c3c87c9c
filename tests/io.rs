//! Faults an engine meets, as inputs: files truncated, rewritten and
//! deleted under open handles; a read callback that fails the N-th read,
//! returns short data or different bytes on a second read, for every N
//! across whole opens of full, partitioned and block-based files. Counts
//! reads and bytes, never time. (ASan runs this file in
//! `scripts/hardening.sh`, valgrind the fault test.)

#[path = "support/callback.rs"]
mod callback;
#[path = "support/craft.rs"]
mod craft;

use std::cell::RefCell;
use std::ffi::CString;
use std::ptr::null_mut;

use craft::Crafted;
use rocksfilter::internal_ffi::*;
use rocksfilter::sst::{Source, SstOptions, SUFFIX_READ};
use rocksfilter::{Policy, Sst};

fn keys(n: usize, tag: &str) -> Vec<Vec<u8>> {
    let mut k: Vec<Vec<u8>> = (0..n).map(|i| format!("{tag}{i:08}").into_bytes()).collect();
    k.sort();
    k
}

/// A test file: its description, its bytes and the keys it holds.
type TestFile = (&'static str, Vec<u8>, Vec<Vec<u8>>);

/// Synthetic files of each filter kind, with their keys: a small full
/// filter, one above glibc's 128 KiB mmap threshold, partitioned ones
/// (small, and larger than the first read), a block-based one.
fn files() -> Vec<TestFile> {
    let small = keys(2_000, "s");
    let big = keys(150_000, "b");
    let mut out = vec![
        ("full, 2,000 keys", Crafted::synthetic(&small, Policy::Bloom, None).finish(), small.clone()),
        ("full Ribbon, 150,000 keys", Crafted::synthetic(&big, Policy::Ribbon, None).finish(), big.clone()),
        ("partitioned, 2,000 keys", Crafted::synthetic(&small, Policy::Bloom, Some(200)).finish(), small.clone()),
        ("partitioned, 150,000 keys", Crafted::synthetic(&big, Policy::Bloom, Some(5_000)).finish(), big.clone()),
    ];
    let bb = keys(3_000, "k");
    out.push(("block-based, two-level index", Crafted::block_based(&bb, 20, 300, Some(7), None).finish(), bb));
    out
}

/// Each key's answer, and as many absent ones.
fn answers(q: impl Fn(&[u8]) -> bool, ks: &[Vec<u8>]) -> Vec<bool> {
    let absent = keys(ks.len().min(20_000), "zz-absent-");
    ks.iter().chain(&absent).map(|k| q(k)).collect()
}

#[test]
fn answers_survive_truncate_rewrite_and_delete_under_open_handles() {
    let dir = std::env::temp_dir().join(format!("rocksfilter-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, file, ks) in files() {
        let paths: Vec<_> =
            ["truncated", "rewritten", "deleted"].iter().map(|w| dir.join(format!("{w}.sst"))).collect();
        let mut handles = Vec::new();
        for p in &paths {
            std::fs::write(p, &file).unwrap();
            let rust = Sst::open(p).unwrap();
            assert!(
                rust.open_stats().reads >= 1 && rust.open_stats().bytes_held > 0,
                "{name}: {:?}",
                rust.open_stats()
            );
            let cpath = CString::new(p.to_str().unwrap()).unwrap();
            let mut c = null_mut();
            assert_eq!(unsafe { rocksfilter_sst_open(cpath.as_ptr(), &mut c, null_mut()) }, ROCKSFILTER_OK);
            let before = answers(|k| rust.may_match(k), &ks);
            assert!(before[..ks.len()].iter().all(|&b| b), "{name}: a key written answered absent");
            handles.push((rust, c, before));
        }
        // Truncated to 0 (RocksDB's DeleteScheduler truncates in steps),
        // rewritten in place with other bytes, deleted.
        std::fs::OpenOptions::new().write(true).open(&paths[0]).unwrap().set_len(0).unwrap();
        std::fs::write(&paths[1], vec![0xa5u8; file.len()]).unwrap();
        std::fs::remove_file(&paths[2]).unwrap();
        for (rust, c, before) in &handles {
            assert_eq!(&answers(|k| rust.may_match(k), &ks), before, "{name}: Rust answers changed");
            let ca = answers(|k| unsafe { rocksfilter_sst_may_match(*c, k.as_ptr(), k.len()) }, &ks);
            assert_eq!(&ca, before, "{name}: C answers changed");
        }
        for (_, c, _) in handles {
            unsafe { rocksfilter_sst_free(c) };
        }
        println!("{name}: {} bytes, answers unchanged after truncate, rewrite and delete", file.len());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_explicit_mmap_flag_maps_and_reads_nothing() {
    let (_, file, ks) = files().swap_remove(0);
    let p = std::env::temp_dir().join(format!("rocksfilter-io-mmap-{}.sst", std::process::id()));
    std::fs::write(&p, &file).unwrap();
    let mapped = Sst::open_with(&p, SstOptions::default().with_mmap(true)).unwrap();
    let read = Sst::open(&p).unwrap();
    assert_eq!(mapped.open_stats().reads, 0);
    assert_eq!(mapped.open_stats().bytes_held, 0);
    assert_eq!(answers(|k| mapped.may_match(k), &ks), answers(|k| read.may_match(k), &ks));
    std::fs::remove_file(&p).unwrap();
}

/// What a callback does on one read.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Returns -5.
    Fail,
    /// Copies half and returns success.
    Short,
    /// Returns the bytes with every byte flipped.
    Garbage,
}

#[test]
fn callback_faults_on_every_read_give_clean_errors_or_no_false_absent() {
    for (name, file, ks) in files() {
        // A clean open, by callback and from memory: same answers.
        let clean = callback::open_bytes(&file).unwrap();
        let calls = clean.calls;
        let want = answers(|k| clean.may_match(k), &ks);
        let memory = Sst::from_bytes(&file).unwrap();
        assert_eq!(want, answers(|k| memory.may_match(k), &ks), "{name}");
        assert_eq!(clean.stats().reads, calls, "{name}");
        assert!(calls >= 1);
        for fault in [Fault::Fail, Fault::Short, Fault::Garbage] {
            for n in 1..=calls {
                let seen = RefCell::new(0u64);
                let read = |off: u64, dst: &mut [u8]| -> std::ffi::c_int {
                    *seen.borrow_mut() += 1;
                    let src = &file[off as usize..off as usize + dst.len()];
                    if *seen.borrow() != n {
                        dst.copy_from_slice(src);
                        return 0;
                    }
                    match fault {
                        Fault::Fail => -5,
                        Fault::Short => {
                            dst[..src.len() / 2].copy_from_slice(&src[..src.len() / 2]);
                            0
                        }
                        Fault::Garbage => {
                            for (d, s) in dst.iter_mut().zip(src) {
                                *d = !s;
                            }
                            0
                        }
                    }
                };
                let (r, made) = callback::open_with(file.len() as u64, 0, &read);
                assert!(made <= calls, "{name}: a fault made the open read more ({made} > {calls})");
                match (fault, r) {
                    (Fault::Fail, Err((st, msg))) => {
                        assert_eq!(st, ROCKSFILTER_IO_ERROR, "{name}: read {n}: {msg}");
                        assert!(msg.contains("at offset") && msg.contains("read_at returned -5"), "{name}: {msg}");
                    }
                    (Fault::Fail, Ok(_)) => panic!("{name}: read {n} failed but the open succeeded"),
                    // Damaged bytes: refused as RocksDB would (a bad footer
                    // or metaindex), or as a file that changed (bytes read
                    // twice differ), or opened with every damaged filter
                    // answering "may match": never a false "absent".
                    (_, Err((st, msg))) => assert!(
                        st == ROCKSFILTER_CORRUPTION
                            || st == ROCKSFILTER_NOT_SUPPORTED
                            || (st == ROCKSFILTER_IO_ERROR && msg.contains("changed while it was opened")),
                        "{name}: {fault:?} {n}: {st} {msg}"
                    ),
                    (_, Ok(sst)) => {
                        let got = answers(|k| sst.may_match(k), &ks);
                        assert!(
                            got[..ks.len()].iter().all(|&b| b),
                            "{name}: {fault:?} on read {n}: a key answered absent"
                        );
                    }
                }
            }
        }
        println!("{name}: {calls} reads per open; every one failed, shortened and garbled in turn");
    }
}

#[test]
fn bytes_that_change_between_reads_are_an_error() {
    // A file whose filter lies outside the first read: the second read
    // overlaps nothing read before unless the file is small, so change
    // the bytes of the suffix when they are read again.
    for (name, file, _) in files() {
        let served: RefCell<Vec<(u64, usize)>> = RefCell::new(Vec::new());
        let overlapped = RefCell::new(false);
        let read = |off: u64, dst: &mut [u8]| -> std::ffi::c_int {
            let src = &file[off as usize..off as usize + dst.len()];
            dst.copy_from_slice(src);
            let end = off + dst.len() as u64;
            for &(o, l) in served.borrow().iter() {
                let (lo, hi) = (off.max(o), end.min(o + l as u64));
                if lo < hi {
                    *overlapped.borrow_mut() = true;
                    dst[(lo - off) as usize] ^= 1;
                }
            }
            served.borrow_mut().push((off, dst.len()));
            0
        };
        let (r, _) = callback::open_with(file.len() as u64, 0, &read);
        if *overlapped.borrow() {
            let (st, msg) = r.err().unwrap_or_else(|| panic!("{name}: changed bytes were accepted"));
            assert_eq!(st, ROCKSFILTER_IO_ERROR, "{msg}");
            assert!(msg.contains("changed while it was opened"), "{msg}");
            println!("{name}: a range read twice with different bytes: {msg}");
        } else {
            assert!(r.is_ok(), "{name}");
        }
    }
}

#[test]
fn reads_are_few_and_sized_from_the_suffix() {
    for (name, file, _) in files() {
        let sst = Sst::open_source(file.as_slice(), SstOptions::default()).unwrap();
        let st = sst.open_stats();
        // The first read is the last 64 KiB; a file that small is read whole, once.
        if file.len() as u64 <= SUFFIX_READ {
            assert_eq!((st.reads, st.bytes_read), (1, file.len() as u64), "{name}");
        }
        assert!(st.reads <= 3, "{name}: {st:?}");
        println!(
            "{name}: {} bytes, {} reads, {} bytes read, {} bytes held",
            file.len(),
            st.reads,
            st.bytes_read,
            st.bytes_held
        );
    }
}

#[test]
fn every_declared_length_is_checked_before_allocating() {
    // A source that claims to be 1 TiB, with a footer at its end pointing
    // at a metaindex of almost 1 TiB.
    struct Huge;
    impl Source for Huge {
        fn size(&self) -> std::io::Result<u64> {
            Ok(1 << 40)
        }
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            assert!(buf.len() as u64 <= SUFFIX_READ, "{} bytes at {offset} were allocated", buf.len());
            buf.fill(0);
            if offset + buf.len() as u64 == 1 << 40 {
                // A format_version 5 footer: metaindex handle (0, 2^40 - 100).
                let mut f = vec![1u8];
                craft::varint(&mut f, 0);
                craft::varint(&mut f, (1 << 40) - 100);
                craft::varint(&mut f, 0);
                craft::varint(&mut f, 0);
                f.resize(41, 0);
                f.extend_from_slice(&5u32.to_le_bytes());
                f.extend_from_slice(&rocksfilter::sst::BLOCK_BASED_MAGIC.to_le_bytes());
                let n = buf.len();
                buf[n - 53..].copy_from_slice(&f);
            }
            Ok(())
        }
    }
    // It fits the source's size, so it is asked for: the allocation fails
    // cleanly (a fallible one) instead of aborting.
    let err = Sst::open_source(&Huge, SstOptions::default()).unwrap_err();
    assert!(err.message().contains("cannot allocate") && err.message().contains("at offset 0"), "{err}");
}
