//! Crafted SST files: take a real SST, edit its metadata (metaindex,
//! properties, filter blocks, the partitioned filter's index), and write a
//! file whose every checksum is valid again, so that readers get past the
//! checksums to the logic behind them.
//!
//! The data blocks and the data index are kept byte for byte (everything
//! before the metaindex stays where it was); edited blocks are appended
//! after it, followed by a new metaindex and footer. Checksums are
//! recomputed for every block written (crc32c, xxHash32, xxHash64, XXH3),
//! with format_version >= 6's per-block context modifier, and the
//! format_version >= 6 footer checksum.
//!
//! Used by `tests/hostile.rs` (judged by real RocksDB), the resource and
//! C ABI tests (synthetic files: [`Crafted::minimal`],
//! [`Crafted::synthetic`]) and the structure-aware fuzz target
//! (`fuzz/fuzz_targets/sst_crafted.rs`): the one SST writer of the tests.

#![allow(dead_code)]

pub const MAGIC: u64 = 0x88e2_41b7_85f4_cff7;
/// `kLegacyBlockBasedTableMagicNumber`: the format_version 0 footer's.
pub const LEGACY_MAGIC: u64 = 0xdb47_7524_8b80_fb57;
const EXTENDED_MAGIC: [u8; 4] = [0x3e, 0x00, 0x7a, 0x00];

pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn get_varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let byte = *b.get(*pos + i)?;
        v |= ((byte & 0x7f) as u64) << (7 * i);
        if byte & 0x80 == 0 {
            *pos += i + 1;
            return Some(v);
        }
    }
    None
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    pub offset: u64,
    pub size: u64,
}

impl Handle {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::new();
        varint(&mut v, self.offset);
        varint(&mut v, self.size);
        v
    }
    pub fn decode(b: &[u8]) -> Option<Handle> {
        let mut p = 0;
        Some(Handle { offset: get_varint(b, &mut p)?, size: get_varint(b, &mut p)? })
    }
}

/// `ComputeBuiltinChecksum` for checksum type `t` (0 none .. 4 XXH3).
pub fn checksum(t: u8, data: &[u8]) -> u32 {
    match t {
        1 => crc32c::crc32c(data).rotate_right(15).wrapping_add(0xa282_ead8),
        2 => xxhash_rust::xxh32::xxh32(data, 0),
        3 => xxhash_rust::xxh64::xxh64(data, 0) as u32,
        4 => match data.split_last() {
            None => 0,
            Some((&last, rest)) => (xxhash_rust::xxh3::xxh3_64(rest) as u32) ^ (last as u32).wrapping_mul(0x6b90_83d9),
        },
        _ => 0,
    }
}

fn context_modifier(base: u32, offset: u64) -> u32 {
    if base == 0 {
        0
    } else {
        base ^ (offset as u32).wrapping_add((offset >> 32) as u32)
    }
}

/// One entry of a restart-point block.
pub type Entry = (Vec<u8>, Vec<u8>);

/// One entry of an index block: the separator key and the block's handle.
pub type IndexEntry = (Vec<u8>, Handle);

/// Decodes a restart-point block with explicit value lengths.
pub fn parse_kv_block(b: &[u8]) -> Option<Vec<Entry>> {
    let n = u32::from_le_bytes(b.get(b.len().checked_sub(4)?..)?.try_into().ok()?) as usize;
    let limit = b.len().checked_sub(n.checked_add(1)?.checked_mul(4)?)?;
    let mut out = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    let mut p = 0;
    while p < limit {
        let shared = get_varint(b, &mut p)? as usize;
        let non_shared = get_varint(b, &mut p)? as usize;
        let vlen = get_varint(b, &mut p)? as usize;
        if shared > key.len() {
            return None;
        }
        key.truncate(shared);
        key.extend_from_slice(b.get(p..p.checked_add(non_shared)?)?);
        p += non_shared;
        out.push((key.clone(), b.get(p..p.checked_add(vlen)?)?.to_vec()));
        p += vlen;
    }
    Some(out)
}

/// Decodes an index block (`delta`: `rocksdb.index.value.is.delta.encoded`).
pub fn parse_index_block(b: &[u8], delta: bool) -> Option<Vec<IndexEntry>> {
    let n = u32::from_le_bytes(b.get(b.len().checked_sub(4)?..)?.try_into().ok()?) as usize;
    let limit = b.len().checked_sub(n.checked_add(1)?.checked_mul(4)?)?;
    let mut out: Vec<(Vec<u8>, Handle)> = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    let mut p = 0;
    while p < limit {
        let shared = get_varint(b, &mut p)? as usize;
        let non_shared = get_varint(b, &mut p)? as usize;
        let vlen = if delta { None } else { Some(get_varint(b, &mut p)? as usize) };
        if shared > key.len() {
            return None;
        }
        key.truncate(shared);
        key.extend_from_slice(b.get(p..p.checked_add(non_shared)?)?);
        p += non_shared;
        let start = p;
        let h = if delta && shared > 0 {
            let zz = get_varint(b, &mut p)?;
            let d = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
            let prev = out.last()?.1;
            Handle {
                offset: prev.offset.checked_add(prev.size)?.checked_add(5)?,
                size: u64::try_from((prev.size as i64).checked_add(d)?).ok()?,
            }
        } else {
            let o = get_varint(b, &mut p)?;
            let s = get_varint(b, &mut p)?;
            Handle { offset: o, size: s }
        };
        if let Some(v) = vlen {
            p = start.checked_add(v)?;
        }
        out.push((key.clone(), h));
    }
    Some(out)
}

/// Encodes a restart-point block; `interval` entries per restart point
/// (keys in between share their common prefix with the previous key).
/// `value_len`: write value lengths (every block but delta-encoded indexes).
pub fn kv_block(entries: &[Entry], interval: usize, value_len: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut restarts = Vec::new();
    let mut prev: &[u8] = &[];
    for (i, (k, v)) in entries.iter().enumerate() {
        let shared = if i % interval.max(1) == 0 {
            restarts.push(out.len() as u32);
            0
        } else {
            prev.iter().zip(k).take_while(|(a, b)| a == b).count()
        };
        varint(&mut out, shared as u64);
        varint(&mut out, (k.len() - shared) as u64);
        if value_len {
            varint(&mut out, v.len() as u64);
        }
        out.extend_from_slice(&k[shared..]);
        out.extend_from_slice(v);
        prev = k;
    }
    if restarts.is_empty() {
        restarts.push(0);
    }
    for r in &restarts {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
    out
}

/// An index block of (separator, handle) at restart interval 1, in the
/// encoding the file's `delta` property says (with value delta encoding
/// every restart entry holds a full handle and no value length).
pub fn index_block(entries: &[(Vec<u8>, Handle)], delta: bool) -> Vec<u8> {
    let e: Vec<Entry> = entries.iter().map(|(k, h)| (k.clone(), h.encode())).collect();
    kv_block(&e, 1, !delta)
}

/// A real SST split into what gets edited.
/// The footer of format_version 1 to 5: checksum type, metaindex and index
/// handles padded to 40 bytes, format_version, magic (`Footer::EncodeTo`).
pub fn legacy_footer(checksum_type: u8, metaindex: Handle, index: Handle, format_version: u32) -> Vec<u8> {
    let mut f = vec![checksum_type];
    f.extend_from_slice(&metaindex.encode());
    f.extend_from_slice(&index.encode());
    f.resize(41, 0);
    f.extend_from_slice(&format_version.to_le_bytes());
    f.extend_from_slice(&MAGIC.to_le_bytes());
    f
}

#[derive(Clone, Debug)]
pub struct Crafted {
    /// Everything before the old metaindex, unchanged.
    pub prefix: Vec<u8>,
    pub format_version: u32,
    pub checksum_type: u8,
    pub base_context: u32,
    /// format_version < 6: the data index handle from the footer.
    pub index: Option<Handle>,
    /// Metaindex entries, written in this order (not re-sorted).
    pub meta: Vec<Entry>,
    /// Restart interval of the metaindex written (RocksDB writes 1).
    pub meta_interval: usize,
    /// Compression byte of the metaindex's trailer (RocksDB writes 0).
    pub meta_compression: u8,
    /// Blocks appended after the prefix, before the metaindex.
    appended: Vec<u8>,
}

impl Crafted {
    pub fn parse(file: &[u8]) -> Option<Crafted> {
        let len = file.len();
        let f = file.get(len.checked_sub(53)?..)?;
        if u64::from_le_bytes(f[45..53].try_into().ok()?) != MAGIC {
            return None;
        }
        let format_version = u32::from_le_bytes(f[41..45].try_into().ok()?);
        let checksum_type = f[0];
        let footer_at = (len - 53) as u64;
        let (meta_h, index, base_context) = if format_version >= 6 {
            let size = u32::from_le_bytes(f[13..17].try_into().ok()?) as u64;
            (
                Handle { offset: footer_at.checked_sub(5 + size)?, size },
                None,
                u32::from_le_bytes(f[9..13].try_into().ok()?),
            )
        } else {
            let mut p = 1;
            let m = Handle { offset: get_varint(f, &mut p)?, size: get_varint(f, &mut p)? };
            let i = Handle { offset: get_varint(f, &mut p)?, size: get_varint(f, &mut p)? };
            (m, Some(i), 0)
        };
        let meta = parse_kv_block(file.get(meta_h.offset as usize..(meta_h.offset + meta_h.size) as usize)?)?;
        Some(Crafted {
            prefix: file[..meta_h.offset as usize].to_vec(),
            format_version,
            checksum_type,
            base_context,
            index,
            meta,
            meta_interval: 1,
            meta_compression: 0,
            appended: Vec::new(),
        })
    }

    /// Bytes of the block at `h` (in the kept prefix or appended since).
    /// Empty when the handle points nowhere (after hostile edits).
    pub fn block(&self, h: Handle) -> &[u8] {
        let (Ok(start), Ok(size)) = (usize::try_from(h.offset), usize::try_from(h.size)) else { return &[] };
        let range = |base: usize| start - base..(start - base).saturating_add(size);
        let got = if start < self.prefix.len() {
            self.prefix.get(range(0))
        } else {
            self.appended.get(range(self.prefix.len()))
        };
        got.unwrap_or(&[])
    }

    pub fn meta_value(&self, name: &[u8]) -> Option<&[u8]> {
        self.meta.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_slice())
    }

    pub fn meta_handle(&self, name: &[u8]) -> Option<Handle> {
        self.meta_value(name).and_then(Handle::decode)
    }

    pub fn set_meta(&mut self, name: &[u8], value: Vec<u8>) {
        match self.meta.iter_mut().find(|(k, _)| k == name) {
            Some(e) => e.1 = value,
            None => {
                self.meta.push((name.to_vec(), value));
                self.meta.sort();
            }
        }
    }

    pub fn rename_meta(&mut self, from: &[u8], to: &[u8]) {
        for e in &mut self.meta {
            if e.0 == from {
                e.0 = to.to_vec();
            }
        }
        self.meta.sort();
    }

    /// The properties block's entries (under either name; none when there
    /// is no readable properties block).
    pub fn properties(&self) -> Vec<Entry> {
        self.meta_handle(b"rocksdb.properties")
            .or_else(|| self.meta_handle(b"rocksdb.stats"))
            .and_then(|h| parse_kv_block(self.block(h)))
            .unwrap_or_default()
    }

    pub fn property(&self, name: &str) -> Option<Vec<u8>> {
        self.properties().into_iter().find(|(k, _)| k == name.as_bytes()).map(|(_, v)| v)
    }

    fn offset(&self) -> u64 {
        (self.prefix.len() + self.appended.len()) as u64
    }

    /// Appends a block with a valid trailer; returns its handle.
    pub fn add_block(&mut self, data: &[u8]) -> Handle {
        self.add_block_typed(data, 0)
    }

    /// As add_block with a given compression-type byte.
    pub fn add_block_typed(&mut self, data: &[u8], compression: u8) -> Handle {
        let offset = self.offset();
        let mut covered = data.to_vec();
        covered.push(compression);
        let c = checksum(self.checksum_type, &covered).wrapping_add(context_modifier(self.base_context, offset));
        self.appended.extend_from_slice(&covered);
        self.appended.extend_from_slice(&c.to_le_bytes());
        Handle { offset, size: data.len() as u64 }
    }

    /// Appends a block whose stored checksum is wrong.
    pub fn add_damaged_block(&mut self, data: &[u8]) -> Handle {
        let h = self.add_block(data);
        let n = self.appended.len();
        self.appended[n - 1] ^= 0x55;
        h
    }

    /// Replaces the properties block with these entries (written sorted or
    /// not, as given; restart `interval`).
    pub fn set_properties(&mut self, entries: &[Entry], interval: usize) {
        let h = self.add_block(&kv_block(entries, interval, true));
        self.set_meta(b"rocksdb.properties", h.encode());
    }

    /// Edits one property (adding it if missing), keeping the others.
    pub fn edit_property(&mut self, name: &str, value: Vec<u8>) {
        let mut props = self.properties();
        match props.iter_mut().find(|(k, _)| k == name.as_bytes()) {
            Some(e) => e.1 = value,
            None => {
                props.push((name.as_bytes().to_vec(), value));
                props.sort();
            }
        }
        self.set_properties(&props, 1);
    }

    /// The whole file: prefix, appended blocks, metaindex, footer.
    pub fn finish(&self) -> Vec<u8> {
        let mut c = self.clone();
        let meta = kv_block(&c.meta, c.meta_interval, true);
        let mh = c.add_block_typed(&meta, c.meta_compression);
        c.finish_footer(mh)
    }

    /// Prefix, appended blocks and a footer pointing at metaindex `mh`.
    fn finish_footer(self, mh: Handle) -> Vec<u8> {
        let c = self;
        let mut file = c.prefix;
        file.extend_from_slice(&c.appended);
        let footer_at = file.len() as u64;
        let mut f = Vec::with_capacity(53);
        f.push(c.checksum_type);
        if c.format_version >= 6 {
            f.extend_from_slice(&EXTENDED_MAGIC);
            f.extend_from_slice(&[0; 4]); // footer checksum, below
            f.extend_from_slice(&c.base_context.to_le_bytes());
            f.extend_from_slice(&(mh.size as u32).to_le_bytes());
            f.resize(41, 0);
            f.extend_from_slice(&c.format_version.to_le_bytes());
            f.extend_from_slice(&MAGIC.to_le_bytes());
        } else if c.format_version == 0 {
            // LevelDB's footer (`kVersion0EncodedLength`): the handles padded
            // to 40 bytes, the legacy magic; crc32c implied.
            f.clear();
            f.extend_from_slice(&mh.encode());
            f.extend_from_slice(&c.index.expect("index handle").encode());
            f.resize(40, 0);
            f.extend_from_slice(&LEGACY_MAGIC.to_le_bytes());
        } else {
            f = legacy_footer(c.checksum_type, mh, c.index.expect("index handle"), c.format_version);
        }
        if c.format_version >= 6 && c.checksum_type != 0 {
            let sum = checksum(c.checksum_type, &f).wrapping_add(context_modifier(c.base_context, footer_at));
            f[5..9].copy_from_slice(&sum.to_le_bytes());
        }
        file.extend_from_slice(&f);
        file
    }

    /// The filter metaindex entry: (name, handle).
    pub fn filter_entry(&self) -> Option<(Vec<u8>, Handle)> {
        self.meta
            .iter()
            .find(|(k, _)| k.starts_with(b"fullfilter.") || k.starts_with(b"partitionedfilter."))
            .and_then(|(k, v)| Some((k.clone(), Handle::decode(v)?)))
    }

    /// The partitioned filter's index entries.
    pub fn partition_index(&self) -> Option<(Handle, Vec<IndexEntry>)> {
        let (name, h) = self.filter_entry()?;
        if !name.starts_with(b"partitionedfilter.") {
            return None;
        }
        let delta = self.delta_encoded();
        Some((h, parse_index_block(self.block(h), delta)?))
    }

    pub fn delta_encoded(&self) -> bool {
        self.property("rocksdb.index.value.is.delta.encoded").and_then(|v| get_varint(&v, &mut 0)).unwrap_or(0) != 0
    }

    pub fn user_key_separators(&self) -> bool {
        self.property("rocksdb.index.key.is.user.key").and_then(|v| get_varint(&v, &mut 0)).unwrap_or(0) != 0
    }

    /// Replaces the partition index with these entries.
    pub fn set_partition_index(&mut self, entries: &[(Vec<u8>, Handle)]) {
        let delta = self.delta_encoded();
        let (name, _) = self.filter_entry().expect("partitioned filter");
        let h = self.add_block(&index_block(entries, delta));
        self.set_meta(&name, h.encode());
    }
}

impl Crafted {
    /// A synthetic SST (no data blocks: this library never reads them) with
    /// a full or partitioned filter over `keys` (sorted), format_version 5,
    /// crc32c, user-key separators with value delta encoding, as RocksDB 7.x
    /// writes them. Partitions hold `per_partition` keys each.
    pub fn synthetic(keys: &[Vec<u8>], policy: rocksfilter::Policy, partitioned: Option<usize>) -> Crafted {
        Crafted::synthetic_as(keys, policy, partitioned, 5, 1)
    }

    /// As [`Crafted::synthetic`] at another format_version (>= 6 adds the
    /// context checksums and puts the index handle in the metaindex) and
    /// checksum type.
    pub fn synthetic_as(
        keys: &[Vec<u8>],
        policy: rocksfilter::Policy,
        partitioned: Option<usize>,
        format_version: u32,
        checksum_type: u8,
    ) -> Crafted {
        Crafted::synthetic_bits(keys, policy, partitioned, format_version, checksum_type, &|_| 10.0)
    }

    /// As [`Crafted::synthetic_as`], filter partition i (or the full
    /// filter, i = 0) built at `bits(i)` bits per key: partitions that
    /// differ in probe count, as RocksDB writes them when it sizes each
    /// partition to its allocation (`optimize_filters_for_memory`).
    pub fn synthetic_bits(
        keys: &[Vec<u8>],
        policy: rocksfilter::Policy,
        partitioned: Option<usize>,
        format_version: u32,
        checksum_type: u8,
        bits: &dyn Fn(usize) -> f64,
    ) -> Crafted {
        let build = |i: usize, ks: &[Vec<u8>]| {
            let mut b = rocksfilter::FilterBuilder::new(policy, bits(i)).unwrap();
            for k in ks {
                b.add_key(k);
            }
            b.finish().unwrap()
        };
        let fv6 = format_version >= 6;
        let mut c = Crafted {
            prefix: Vec::new(),
            format_version,
            checksum_type,
            base_context: if fv6 { 0x9e37_79b9 } else { 0 },
            index: (!fv6).then_some(Handle { offset: 0, size: 0 }),
            meta: Vec::new(),
            meta_interval: 1,
            meta_compression: 0,
            appended: Vec::new(),
        };
        let mut props: Vec<Entry> = vec![
            (b"rocksdb.comparator".to_vec(), b"leveldb.BytewiseComparator".to_vec()),
            (b"rocksdb.index.key.is.user.key".to_vec(), vec![1]),
            (b"rocksdb.index.value.is.delta.encoded".to_vec(), vec![1]),
        ];
        let mut n = Vec::new();
        varint(&mut n, keys.len() as u64);
        props.push((b"rocksdb.num.entries".to_vec(), n));
        props.sort();
        let ph = c.add_block(&kv_block(&props, 1, true));
        c.meta.push((b"rocksdb.properties".to_vec(), ph.encode()));
        match partitioned {
            None => {
                let fh = c.add_block(&build(0, keys));
                c.meta.push((b"fullfilter.rocksdb.BuiltinBloomFilter".to_vec(), fh.encode()));
            }
            Some(per) => {
                let mut entries = Vec::new();
                for (i, chunk) in keys.chunks(per.max(1)).enumerate() {
                    let h = c.add_block(&build(i, chunk));
                    entries.push((chunk.last().unwrap().clone(), h));
                }
                let ih = c.add_block(&index_block(&entries, true));
                c.meta.push((b"partitionedfilter.rocksdb.BuiltinBloomFilter".to_vec(), ih.encode()));
            }
        }
        if fv6 {
            // An empty index block, found through the metaindex.
            let ih = c.add_block(&kv_block(&[], 1, true));
            c.meta.push((b"rocksdb.index".to_vec(), ih.encode()));
        }
        c.meta.sort();
        // The appended blocks become the kept prefix.
        c.prefix = std::mem::take(&mut c.appended);
        c
    }

    /// A synthetic SST with the block-based filter of RocksDB < 7.0 over
    /// `keys` (sorted): `per_block` keys per data block (placeholder data
    /// blocks of `block_bytes` bytes: only their offsets matter), a
    /// binary-search index with user-key separators (or, with
    /// `two_level`, a top-level index over index partitions of that many
    /// entries), format_version 4, crc32c, and a filter per 2 KiB of data
    /// offsets holding each key and, with `prefix_len`, its prefix.
    pub fn block_based(
        keys: &[Vec<u8>],
        per_block: usize,
        block_bytes: usize,
        two_level: Option<usize>,
        prefix_len: Option<usize>,
    ) -> Crafted {
        let mut c = Crafted {
            prefix: Vec::new(),
            format_version: 4,
            checksum_type: 1,
            base_context: 0,
            index: Some(Handle { offset: 0, size: 0 }),
            meta: Vec::new(),
            meta_interval: 1,
            meta_compression: 0,
            appended: Vec::new(),
        };
        // Data blocks, and each block's keys.
        let mut blocks: Vec<(Handle, &[Vec<u8>])> = Vec::new();
        for chunk in keys.chunks(per_block.max(1)) {
            let h = c.add_block(&vec![0u8; block_bytes]);
            blocks.push((h, chunk));
        }
        // The filter block (BlockBasedFilterBlockBuilder): filter i covers
        // data offsets [i << 11, (i + 1) << 11).
        let mut filter = Vec::new();
        let mut offsets = Vec::new();
        let mut pending: Vec<Vec<u8>> = Vec::new();
        let flush = |filter: &mut Vec<u8>, offsets: &mut Vec<u32>, pending: &mut Vec<Vec<u8>>| {
            offsets.push(filter.len() as u32);
            if !pending.is_empty() {
                filter.extend_from_slice(&leveldb_bloom(pending, 10));
                pending.clear();
            }
        };
        for (h, chunk) in &blocks {
            while (h.offset >> 11) as usize > offsets.len() {
                flush(&mut filter, &mut offsets, &mut pending);
            }
            let mut last_prefix: Option<Vec<u8>> = None;
            for k in chunk.iter() {
                if let Some(n) = prefix_len {
                    let p = k[..n.min(k.len())].to_vec();
                    if last_prefix.as_ref() != Some(&p) {
                        pending.push(p.clone());
                        last_prefix = Some(p);
                    }
                }
                pending.push(k.clone());
            }
        }
        if !pending.is_empty() {
            flush(&mut filter, &mut offsets, &mut pending);
        }
        let array = filter.len() as u32;
        for o in &offsets {
            filter.extend_from_slice(&o.to_le_bytes());
        }
        filter.extend_from_slice(&array.to_le_bytes());
        filter.push(11);
        let fh = c.add_block(&filter);
        c.meta.push((b"filter.rocksdb.BuiltinBloomFilter".to_vec(), fh.encode()));
        // The index: separator = the block's last key (user keys).
        let entries: Vec<(Vec<u8>, Handle)> = blocks.iter().map(|(h, ks)| (ks.last().unwrap().clone(), *h)).collect();
        let index_type: u32 = match two_level {
            None => {
                c.index = Some(c.add_block(&index_block(&entries, true)));
                0
            }
            Some(per) => {
                let mut top = Vec::new();
                for part in entries.chunks(per.max(1)) {
                    let h = c.add_block(&index_block(part, true));
                    top.push((part.last().unwrap().0.clone(), h));
                }
                c.index = Some(c.add_block(&index_block(&top, true)));
                2
            }
        };
        let mut props: Vec<Entry> = vec![
            (b"rocksdb.comparator".to_vec(), b"leveldb.BytewiseComparator".to_vec()),
            (b"rocksdb.index.key.is.user.key".to_vec(), vec![1]),
            (b"rocksdb.index.value.is.delta.encoded".to_vec(), vec![1]),
            (b"rocksdb.block.based.table.index.type".to_vec(), index_type.to_le_bytes().to_vec()),
            (b"rocksdb.filter.policy".to_vec(), b"rocksdb.BuiltinBloomFilter".to_vec()),
        ];
        if let Some(n) = prefix_len {
            props.push((b"rocksdb.prefix.extractor.name".to_vec(), format!("rocksdb.CappedPrefix.{n}").into_bytes()));
        }
        props.sort();
        let ph = c.add_block(&kv_block(&props, 1, true));
        c.meta.push((b"rocksdb.properties".to_vec(), ph.encode()));
        c.meta.sort();
        c.prefix = std::mem::take(&mut c.appended);
        c
    }

    /// The smallest file RocksDB's reader opens with a full filter: this
    /// filter block, a metaindex naming it, a format_version 5 footer
    /// (crc32c); no properties, data or index blocks (this library never
    /// reads them).
    pub fn minimal(filter_block: &[u8]) -> Vec<u8> {
        let mut c = Crafted {
            prefix: Vec::new(),
            format_version: 5,
            checksum_type: 1,
            base_context: 0,
            index: Some(Handle { offset: 0, size: 0 }),
            meta: Vec::new(),
            meta_interval: 1,
            meta_compression: 0,
            appended: Vec::new(),
        };
        let fh = c.add_block(filter_block);
        c.meta.push((b"fullfilter.rocksdb.BuiltinBloomFilter".to_vec(), fh.encode()));
        c.prefix = std::mem::take(&mut c.appended);
        c.finish()
    }

    /// Replaces the full filter block with these bytes (valid checksum).
    pub fn set_full_filter(&mut self, block: &[u8]) {
        let (name, _) = self.filter_entry().expect("a filter");
        let h = self.add_block(block);
        self.set_meta(&name, h.encode());
    }

    /// The full filter block's bytes.
    pub fn full_filter(&self) -> Vec<u8> {
        let (name, h) = self.filter_entry().expect("a filter");
        assert!(name.starts_with(b"fullfilter."));
        self.block(h).to_vec()
    }

    /// Replaces the properties block by `entries` whose stored checksum is
    /// that of the same block with the global sequence number's value
    /// zeroed, and that value set to `seqno`: what older ingestion left.
    pub fn set_properties_with_rewritten_global_seqno(&mut self, entries: &[Entry], seqno: u64) {
        const NAME: &[u8] = b"rocksdb.external_sst_file.global_seqno";
        let mut zeroed: Vec<Entry> = entries.to_vec();
        match zeroed.iter_mut().find(|(k, _)| k == NAME) {
            Some(e) => e.1 = vec![0; 8],
            None => {
                zeroed.push((NAME.to_vec(), vec![0; 8]));
                zeroed.sort();
            }
        }
        let block = kv_block(&zeroed, 1, true);
        let h = self.add_block(&block);
        // Find the value in the block (the 8 zero bytes right after the name).
        let start = self.prefix.len() + self.appended.len() - 5 - block.len();
        let at = block.windows(NAME.len()).position(|w| w == NAME).unwrap() + NAME.len();
        self.appended[start - self.prefix.len() + at..][..8].copy_from_slice(&seqno.to_le_bytes());
        self.set_meta(b"rocksdb.properties", h.encode());
    }
}

/// A restart-point block of `base` entries (restart interval 1) followed by
/// `n` entries whose keys each extend the previous one by `ext` (the first
/// extends the last base key), all sharing one restart point, with value
/// `value` (explicit lengths). Written in time linear in its size: the
/// shared lengths are known, not recomputed.
pub fn chain_block(base: &[Entry], n: usize, ext: u8, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut restarts = Vec::new();
    for (k, v) in base {
        restarts.push(out.len() as u32);
        varint(&mut out, 0);
        varint(&mut out, k.len() as u64);
        varint(&mut out, v.len() as u64);
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
    let start = base.last().map_or(0, |(k, _)| k.len());
    if base.is_empty() {
        restarts.push(0);
    }
    for len in start..start + n {
        varint(&mut out, len as u64);
        varint(&mut out, 1);
        varint(&mut out, value.len() as u64);
        out.push(ext);
        out.extend_from_slice(value);
    }
    for r in &restarts {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
    out
}

/// Hostile files for the resource limits, each under about 1 MB, with
/// valid checksums: (name, file, a prefix to query or empty).
pub fn resource_files() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let keys: Vec<Vec<u8>> = (0..2000).map(|i| format!("p{:03}:{i:06}", i % 20).into_bytes()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    let mut out = Vec::new();

    // 1. A properties block of ~240 KB whose names each extend the previous.
    let mut c = Crafted::synthetic(&sorted, rocksfilter::Policy::Bloom, None);
    let props = c.properties();
    let h = c.add_block(&chain_block(&props, 48_000, b'~', b""));
    c.set_meta(b"rocksdb.properties", h.encode());
    out.push(("properties: 48,000 names each extending the previous", c.finish(), vec![]));

    // 2. A metaindex of ~900 KB whose names each extend the previous.
    let c = Crafted::synthetic(&sorted, rocksfilter::Policy::Bloom, None);
    let chain = chain_block(&c.meta, 110_000, b'~', &Handle { offset: 0, size: 0 }.encode());
    out.push(("metaindex: 110,000 names each extending the previous", c.finish_with_metaindex(&chain), vec![]));

    // 3. A partition index of ~450 KB whose separators each extend the
    // previous (explicit handles: no value delta encoding), all pointing at
    // one partition.
    let mut c = Crafted::synthetic(&sorted, rocksfilter::Policy::Bloom, Some(500));
    let (_, entries) = c.partition_index().unwrap();
    c.edit_property("rocksdb.index.value.is.delta.encoded", vec![0]);
    let base: Vec<Entry> = entries.iter().map(|(k, h)| (k.clone(), h.encode())).collect();
    let last = entries.last().unwrap().1.encode();
    let (name, _) = c.filter_entry().unwrap();
    let h = c.add_block(&chain_block(&base, 40_000, 0xff, &last));
    c.set_meta(&name, h.encode());
    out.push(("partition index: 40,000 separators each extending the previous", c.finish(), vec![]));

    // 4. 50,000 partition entries pointing at one 512 KiB filter block.
    let big: Vec<Vec<u8>> = (0..420_000u32).map(|i| i.to_be_bytes().to_vec()).collect();
    let mut c = Crafted::synthetic(&big[..1000], rocksfilter::Policy::Bloom, Some(1000));
    let mut b = rocksfilter::FilterBuilder::new(rocksfilter::Policy::Bloom, 10.0).unwrap();
    for k in &big {
        b.add_key(k);
    }
    let fh = c.add_block(&b.finish().unwrap());
    let entries: Vec<(Vec<u8>, Handle)> = (0..50_000u32).map(|i| ((i * 8).to_be_bytes().to_vec(), fh)).collect();
    c.set_partition_index(&entries);
    out.push(("50,000 partition entries pointing at one 512 KiB block", c.finish(), vec![]));

    // 5. 60,000 partitions whose separators all share a prefix, for a
    // prefix query.
    let mut c = Crafted::synthetic(&sorted[..100], rocksfilter::Policy::Bloom, Some(100));
    c.edit_property("rocksdb.prefix.extractor.name", b"rocksdb.FixedPrefix.4".to_vec());
    let (_, first) = c.partition_index().unwrap();
    let entries: Vec<(Vec<u8>, Handle)> =
        (0..60_000u32).map(|i| ([&b"p000"[..], &i.to_be_bytes()].concat(), first[0].1)).collect();
    c.set_partition_index(&entries);
    out.push(("60,000 partitions sharing a prefix, prefix query", c.finish(), b"p000".to_vec()));
    out
}

impl Crafted {
    /// As [`Crafted::finish`], with these bytes as the metaindex block.
    pub fn finish_with_metaindex(&self, meta: &[u8]) -> Vec<u8> {
        let mut c = self.clone();
        let mh = c.add_block(meta);
        c.finish_footer(mh)
    }
}

/// LevelDB's Bloom filter as RocksDB 6.29's block-based filter writes each
/// range's (`BloomFilterPolicy::CreateFilter`): a test-only builder, this
/// library reads the format but does not write it.
pub fn leveldb_bloom(keys: &[Vec<u8>], bits_per_key: u32) -> Vec<u8> {
    let bits = ((keys.len() as u32) * bits_per_key).max(64);
    let bytes = bits.div_ceil(8);
    let bits = bytes * 8;
    let k = ((bits_per_key as f64 * 0.69) as u32).clamp(1, 30);
    let mut out = vec![0u8; bytes as usize];
    for key in keys {
        let mut h = rocksfilter::bloom_hash(key);
        let delta = h.rotate_right(17);
        for _ in 0..k {
            let bit = h % bits;
            out[(bit / 8) as usize] |= 1 << (bit % 8);
            h = h.wrapping_add(delta);
        }
    }
    out.push(k as u8);
    out
}
