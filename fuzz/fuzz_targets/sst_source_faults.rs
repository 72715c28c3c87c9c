//! An SST file opened through a read source whose reads fail, come back
//! short, or change between reads: the faults an engine's file layer or an
//! object store produces. Input: six bytes of fault description, then the
//! file (real or crafted SSTs from the seeds; shorter inputs pick a
//! synthetic base: full or partitioned, Bloom or Ribbon, or a block-based
//! filter of RocksDB < 7.0, `tests/support/craft.rs`).
//!
//! Checked: opening through the source never panics and allocates nothing
//! large; a failed read fails the open with an I/O error naming the offset;
//! when no fault fired, the open equals the open from memory (same filter
//! type, same answers) and every key of a synthetic base may match; the
//! source is never asked past its size, nor after the open returned.
//!
//! Then the same file through a filter cache of a few KiB (the source kept,
//! partitions and full filters read by queries), with the faults firing on
//! the queries' reads: no panic, every key of a synthetic base may match,
//! and where no fault fired, the answers of the open from memory.
#![no_main]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use rocksfilter::sst::{Source, SstOptions};
use rocksfilter::{ErrorKind, FilterCache, Sst};
use rocksfilter_fuzz::craft::Crafted;
use rocksfilter_fuzz::probe_keys;

/// What the source does on its `nth` read (counting from 1).
struct Faulty<'a> {
    file: &'a [u8],
    /// The size it claims (the file's, or off by a little).
    size: u64,
    mode: u8,
    nth: u32,
    at: usize,
    xor: u8,
    calls: Cell<u32>,
    fired: Cell<bool>,
}

impl Source for Faulty<'_> {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.size)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        assert!(offset + buf.len() as u64 <= self.size, "read past the claimed size");
        let n = self.calls.get() + 1;
        self.calls.set(n);
        // Bytes past the real file read as zero (a size that lies).
        buf.fill(0);
        if let Some(src) = self.file.get(offset as usize..) {
            let k = src.len().min(buf.len());
            buf[..k].copy_from_slice(&src[..k]);
        }
        let hit = match self.mode % 4 {
            // Faults on the nth read only.
            0..=2 => n == self.nth,
            // Every read after the first changes a byte (a file rewritten
            // while being opened).
            _ => n > 1,
        };
        if !hit || buf.is_empty() {
            return Ok(());
        }
        self.fired.set(true);
        match self.mode % 4 {
            0 => Err(std::io::Error::other("injected failure")),
            1 => {
                let keep = self.at % buf.len();
                buf[keep..].fill(0);
                Ok(())
            }
            _ => {
                let i = self.at % buf.len();
                buf[i] ^= self.xor | 1;
                Ok(())
            }
        }
    }
}

/// A source a cached handle keeps: the same faults, on the reads after
/// `open_reads` (the queries' reads).
struct KeptFaulty {
    file: Vec<u8>,
    mode: u8,
    nth: u32,
    at: usize,
    xor: u8,
    calls: AtomicU32,
    open_reads: AtomicU32,
    fired: AtomicBool,
}

impl Source for KeptFaulty {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.file.len() as u64)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        assert!(offset + buf.len() as u64 <= self.file.len() as u64, "read past the size");
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        buf.copy_from_slice(&self.file[offset as usize..offset as usize + buf.len()]);
        let after = n.saturating_sub(self.open_reads.load(Ordering::SeqCst));
        let hit = after > 0 && (self.mode % 4 == 3 || after.is_multiple_of(self.nth));
        if !hit || buf.is_empty() {
            return Ok(());
        }
        self.fired.store(true, Ordering::SeqCst);
        match self.mode % 4 {
            0 => Err(std::io::Error::other("injected failure")),
            1 => {
                let keep = self.at % buf.len();
                buf[keep..].fill(0);
                Ok(())
            }
            _ => {
                let i = self.at % buf.len();
                buf[i] ^= self.xor | 1;
                Ok(())
            }
        }
    }
}

fn synthetic(sel: u8) -> (Vec<u8>, Vec<Vec<u8>>) {
    let n = [1usize, 50, 300, 3000][(sel & 3) as usize];
    let keys: Vec<Vec<u8>> = (0..n).map(|i| format!("key{i:06}").into_bytes()).collect();
    let policy = if sel & 4 != 0 { rocksfilter::Policy::Ribbon } else { rocksfilter::Policy::Bloom };
    let file = match (sel >> 3) & 3 {
        0 => Crafted::synthetic_as(&keys, policy, None, 5 + (sel >> 5 & 1) as u32, 1).finish(),
        1 => Crafted::synthetic_as(&keys, policy, Some(64), 5 + (sel >> 5 & 1) as u32, 4).finish(),
        2 => Crafted::block_based(&keys, 7, 200, Some(5), None).finish(),
        _ => Crafted::block_based(&keys, 7, 200, None, Some(4)).finish(),
    };
    (file, keys)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (head, rest) = data.split_at(6);
    let (file, keys) = if rest.len() >= 53 { (rest.to_vec(), Vec::new()) } else { synthetic(head[5]) };
    let size = match head[0] >> 4 {
        0 => file.len() as u64 + 1 + head[4] as u64,
        1 => (file.len() as u64).saturating_sub(1 + head[4] as u64),
        _ => file.len() as u64,
    };
    let src = Faulty {
        file: &file,
        size,
        mode: head[0],
        nth: 1 + (head[1] % 4) as u32,
        at: u16::from_le_bytes([head[2], head[3]]) as usize,
        xor: head[4],
        calls: Cell::new(0),
        fired: Cell::new(false),
    };
    let opened = Sst::open_source(&src, SstOptions::default());
    let calls = src.calls.get();
    let probes = probe_keys(rest);
    match &opened {
        Err(e) => {
            if src.fired.get() && src.mode.is_multiple_of(4) {
                assert_eq!(e.kind(), ErrorKind::Io, "{e}");
                assert!(e.message().contains("at offset"), "{e}");
            }
        }
        Ok(sst) => {
            assert!(!(src.fired.get() && src.mode.is_multiple_of(4)), "a failed read, yet the open succeeded");
            assert_eq!(sst.open_stats().reads, calls as u64);
            for k in &probes {
                let _ = sst.may_match(k);
            }
        }
    }
    // No fault fired and the size is true: the same as the open from memory.
    if !src.fired.get() && size == file.len() as u64 {
        let memory = Sst::from_bytes(&file);
        match (&opened, &memory) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.filter().filter_type(), b.filter().filter_type());
                for k in probes.iter().copied().chain(keys.iter().map(Vec::as_slice)) {
                    assert_eq!(a.may_match(k), b.may_match(k), "source and memory opens differ on {k:?}");
                }
                for k in &keys {
                    assert!(a.may_match(k), "a key of the synthetic base answered absent");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{a} / {b}"),
            (a, b) => panic!("source open {:?}, memory open {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }
    // Nothing reads the source after the open returned.
    drop(opened);
    assert_eq!(src.calls.get(), calls);

    // Through a cache: the source kept, faults on the queries' reads.
    let kept = Arc::new(KeptFaulty {
        file: file.clone(),
        mode: head[0],
        nth: 1 + (head[1] % 4) as u32,
        at: u16::from_le_bytes([head[2], head[3]]) as usize,
        xor: head[4],
        calls: AtomicU32::new(0),
        open_reads: AtomicU32::new(u32::MAX),
        fired: AtomicBool::new(false),
    });
    let cache = FilterCache::new(2048 + 1024 * (head[1] as usize >> 4));
    let options = SstOptions::default().with_cache(cache.clone()).with_cache_full_filters(head[0] & 8 != 0);
    let Ok(cached) = Sst::open_shared(kept.clone(), options) else { return };
    kept.open_reads.store(kept.calls.load(Ordering::SeqCst), Ordering::SeqCst);
    let memory = Sst::from_bytes(&file).ok();
    let mut batch = vec![false; probes.len()];
    cached.may_match_batch(&probes, &mut batch);
    for (k, b) in probes.iter().zip(&batch) {
        let single = cached.may_match(k);
        if !kept.fired.load(Ordering::SeqCst) {
            if let Some(m) = &memory {
                assert_eq!(single, m.may_match(k), "cached and memory opens differ on {k:?}");
                assert_eq!(*b, single, "cached batch and single differ on {k:?}");
            }
        }
    }
    for k in &keys {
        assert!(cached.may_match(k), "a key of the synthetic base answered absent through the cache");
    }
    assert!(cache.bytes_held() <= cache.capacity());
    drop(cached);
    assert_eq!(cache.bytes_held(), 0);
});
