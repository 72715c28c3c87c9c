//! The block-based table's physical format (`table/format.cc`,
//! `table/block_based/reader_common.cc`): varints, block handles, the footer,
//! block trailers and their checksums.
//!
//! Every read is bounds-checked against the file, and every error names the
//! structure and the file offset it concerns.

use crate::error::{Error, ErrorKind, Result};

/// `kBlockBasedTableMagicNumber`.
pub const BLOCK_BASED_MAGIC: u64 = 0x88e2_41b7_85f4_cff7;
/// `kLegacyBlockBasedTableMagicNumber`: LevelDB's table magic, which
/// RocksDB writes at format_version 0 (a 48-byte footer, below). RocksDB up
/// to 10.x reads it (`Footer::DecodeFrom` in RocksDB 7.8.3's
/// `table/format.cc` up-converts it to format_version 0, checksum crc32c);
/// RocksDB 11 refuses it. Pebble's `TableFormatLevelDB` and LevelDB's own
/// tables end in it too.
const LEGACY_BLOCK_BASED_MAGIC: u64 = 0xdb47_7524_8b80_fb57;
/// Pebble's own table formats (`TableFormatPebblev1` and later) end in the
/// bytes f0 9f aa b3 f0 9f aa b3 (Pebble's `sstable/format.go`,
/// `pebbleDBMagic`), read here as a little-endian u64.
const PEBBLE_MAGIC: u64 = u64::from_le_bytes([0xf0, 0x9f, 0xaa, 0xb3, 0xf0, 0x9f, 0xaa, 0xb3]);
const PLAIN_MAGIC: u64 = 0x8242_2296_63bf_9564;
const LEGACY_PLAIN_MAGIC: u64 = 0x4f34_18eb_7a8f_13b8;
const CUCKOO_MAGIC: u64 = 0x9267_89d0_c5f1_7873;

/// A block is followed by a 5-byte trailer: compression type, then a 32-bit
/// checksum of the block *and* the compression byte.
pub const BLOCK_TRAILER_LEN: usize = 5;
/// checksum type (1) + 40 bytes of handles or extended fields + format_version (4) + magic (8).
pub const FOOTER_LEN: usize = 53;
/// format_version 0 (`kVersion0EncodedLength`): two block handles padded to
/// 40 bytes, then the legacy magic; no checksum type (always crc32c) and no
/// version field.
pub(crate) const LEGACY_FOOTER_LEN: usize = 48;
/// format_version >= 6: the second footer part starts with these bytes,
/// which read as impossible (zero-size) handles to older readers.
const EXTENDED_MAGIC: [u8; 4] = [0x3e, 0x00, 0x7a, 0x00];

#[inline]
pub fn fixed32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
pub fn fixed64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Decodes a varint of at most `max_bytes` (5 for 32-bit, 10 for 64-bit) at
/// `*pos`, advancing it. None when truncated or overlong.
pub fn varint(b: &[u8], pos: &mut usize, max_bytes: usize) -> Option<u64> {
    let mut v: u64 = 0;
    for i in 0..max_bytes {
        let byte = *b.get(*pos + i)?;
        v |= ((byte & 0x7f) as u64) << (7 * i);
        if byte & 0x80 == 0 {
            *pos += i + 1;
            return Some(v);
        }
    }
    None
}

pub fn varint32(b: &[u8], pos: &mut usize) -> Option<u32> {
    varint(b, pos, 5).and_then(|v| u32::try_from(v).ok())
}

pub fn varint64(b: &[u8], pos: &mut usize) -> Option<u64> {
    varint(b, pos, 10)
}

/// A block's location: offset and size, not counting its trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BlockHandle {
    pub offset: u64,
    pub size: u64,
}

impl BlockHandle {
    pub fn decode(b: &[u8], pos: &mut usize) -> Option<BlockHandle> {
        let offset = varint64(b, pos)?;
        let size = varint64(b, pos)?;
        Some(BlockHandle { offset, size })
    }
}

/// Block checksum types (`ChecksumType` in `include/rocksdb/table.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ChecksumType {
    /// `kNoChecksum` (0).
    None,
    /// `kCRC32c` (1), masked as RocksDB masks it.
    Crc32c,
    /// `kxxHash` (2).
    XxHash32,
    /// `kxxHash64` (3), lower 32 bits.
    XxHash64,
    /// `kXXH3` (4), RocksDB's XXH3 with its last-byte modification.
    Xxh3,
}

impl ChecksumType {
    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            0 => ChecksumType::None,
            1 => ChecksumType::Crc32c,
            2 => ChecksumType::XxHash32,
            3 => ChecksumType::XxHash64,
            4 => ChecksumType::Xxh3,
            _ => return None,
        })
    }

    /// The name `inspect` prints, e.g. "crc32c".
    pub fn name(&self) -> &'static str {
        match self {
            ChecksumType::None => "none",
            ChecksumType::Crc32c => "crc32c",
            ChecksumType::XxHash32 => "xxhash32",
            ChecksumType::XxHash64 => "xxhash64",
            ChecksumType::Xxh3 => "xxh3",
        }
    }

    /// `ComputeBuiltinChecksum`. CRC32c is stored masked (rotated and offset)
    /// because CRCs of data that embeds CRCs are weak. XXH3 covers all but
    /// the last byte, which is then mixed in by a multiply (RocksDB's way to
    /// append the compression-type byte without a second hash pass).
    pub fn compute(&self, data: &[u8]) -> u32 {
        match self {
            ChecksumType::None => 0,
            ChecksumType::Crc32c => {
                let crc = crc32c::crc32c(data);
                crc.rotate_right(15).wrapping_add(0xa282_ead8)
            }
            ChecksumType::XxHash32 => xxhash_rust::xxh32::xxh32(data, 0),
            ChecksumType::XxHash64 => xxhash_rust::xxh64::xxh64(data, 0) as u32,
            ChecksumType::Xxh3 => match data.split_last() {
                None => 0,
                Some((&last, rest)) => {
                    (xxhash_rust::xxh3::xxh3_64(rest) as u32) ^ (last as u32).wrapping_mul(0x6b90_83d9)
                }
            },
        }
    }
}

/// `ChecksumModifierForContext`: format_version >= 6 adds a value derived
/// from the file's base context checksum and the block's offset to each
/// checksum, so a block copied to the wrong place (or from another file)
/// fails verification. Zero when the feature is off.
pub fn context_modifier(base_context_checksum: u32, offset: u64) -> u32 {
    if base_context_checksum == 0 {
        return 0;
    }
    base_context_checksum ^ (offset as u32).wrapping_add((offset >> 32) as u32)
}

/// Oldest and newest footer versions some RocksDB reads: RocksDB 7.x to
/// 10.x read 0 (the legacy magic) and 1 (the new magic, version field 1);
/// RocksDB 11.12 reads 2 (`kMinSupportedBbtFormatVersionForRead`) to 8
/// (`kLatestBbtFormatVersion`, `table/format.h`). The library reads the union.
pub const MIN_FORMAT_VERSION: u32 = 0;
/// See [`MIN_FORMAT_VERSION`].
pub const LATEST_FORMAT_VERSION: u32 = 8;

/// `FormatVersionUsesMetaindexGap` (`table/format.h`): the footer's
/// metaindex size field also holds the gap before the footer.
pub fn uses_metaindex_gap(format_version: u32) -> bool {
    format_version >= 8
}

/// `FormatVersionUsesValueDeltaEscape` (`table/format.h`): in delta-encoded
/// index values, varint 0 escapes to a full block handle and size deltas are
/// stored as zigzag + 1.
pub fn uses_value_delta_escape(format_version: u32) -> bool {
    format_version >= 8
}

/// The decoded footer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    pub format_version: u32,
    pub checksum: ChecksumType,
    pub metaindex: BlockHandle,
    /// None for format_version >= 6 (the index handle is in the metaindex).
    pub index: Option<BlockHandle>,
    /// format_version >= 6; 0 otherwise.
    pub base_context_checksum: u32,
    /// Where the footer starts in the file.
    pub offset: u64,
}

impl Footer {
    /// Decodes the footer of a file of `len` bytes from `tail`, its last
    /// [`FOOTER_LEN`] bytes (or all of it when shorter), as
    /// `Footer::DecodeFrom`.
    pub fn decode(tail: &[u8], len: u64, verify: bool) -> Result<Footer> {
        if tail.len() < LEGACY_FOOTER_LEN {
            return Err(Error::corruption(format!(
                "file is {len} bytes, too short for an SST footer ({LEGACY_FOOTER_LEN} to {FOOTER_LEN} bytes)"
            )));
        }
        let magic = fixed64(tail, tail.len() - 8);
        match magic {
            BLOCK_BASED_MAGIC => {}
            LEGACY_BLOCK_BASED_MAGIC => return Self::decode_legacy(&tail[tail.len() - LEGACY_FOOTER_LEN..], len),
            PLAIN_MAGIC | LEGACY_PLAIN_MAGIC => {
                return Err(Error::not_supported(
                    "this is a RocksDB PlainTable file (PlainTableFactory), not a block-based table: it has no filter blocks this library reads",
                ))
            }
            CUCKOO_MAGIC => {
                return Err(Error::not_supported(
                    "this is a RocksDB CuckooTable file (CuckooTableFactory), not a block-based table: it has no filter blocks this library reads",
                ))
            }
            PEBBLE_MAGIC => {
                let v = if tail.len() >= 12 { fixed32(tail, tail.len() - 12) } else { 0 };
                return Err(Error::not_supported(format!(
                    "this is a Pebble table in Pebble's own format (magic f09faab3f09faab3, footer version {v}: TableFormatPebblev{v}), \
                     not a RocksDB block-based table; Pebble's RocksDB-compatible formats (TableFormatLevelDB, TableFormatRocksDBv2) are read"
                )));
            }
            other => {
                return Err(Error::corruption(format!(
                    "bad magic number at offset {}: expected {BLOCK_BASED_MAGIC:#018x} (block-based table), found {other:#018x} \
                     (not an SST file of the RocksDB family, or a truncated one)",
                    len - 8
                )))
            }
        }
        if tail.len() < FOOTER_LEN {
            return Err(Error::corruption(format!(
                "file is {len} bytes, too short for a format_version >= 1 SST footer ({FOOTER_LEN} bytes)"
            )));
        }
        let f = &tail[tail.len() - FOOTER_LEN..];
        let offset = len - FOOTER_LEN as u64;
        let format_version = fixed32(f, FOOTER_LEN - 12);
        if !(MIN_FORMAT_VERSION..=LATEST_FORMAT_VERSION).contains(&format_version) {
            let kind =
                if format_version > LATEST_FORMAT_VERSION { ErrorKind::NotSupported } else { ErrorKind::Corruption };
            return Err(Error::new(
                kind,
                format!(
                    "footer at offset {offset}: format_version {format_version} (supported: {MIN_FORMAT_VERSION} to {LATEST_FORMAT_VERSION})"
                ),
            ));
        }
        let checksum = ChecksumType::from_byte(f[0])
            .ok_or_else(|| Error::corruption(format!("footer at offset {offset}: unknown checksum type {}", f[0])))?;
        if format_version >= 6 {
            if f[1..5] != EXTENDED_MAGIC {
                return Err(Error::corruption(format!(
                    "footer at offset {offset}: bad extended magic {:02x?}, expected {EXTENDED_MAGIC:02x?}",
                    &f[1..5]
                )));
            }
            let stored = fixed32(f, 5);
            let base_context_checksum = fixed32(f, 9);
            if base_context_checksum == 0 {
                return Err(Error::corruption(format!(
                    "footer at offset {offset}: base context checksum is 0 (invalid for format_version {format_version})"
                )));
            }
            if verify && checksum != ChecksumType::None {
                let mut copy = [0u8; FOOTER_LEN];
                copy.copy_from_slice(f);
                copy[5..9].fill(0);
                let computed = checksum.compute(&copy).wrapping_add(context_modifier(base_context_checksum, offset));
                if computed != stored {
                    return Err(Error::corruption(format!(
                        "footer at offset {offset}: {} checksum mismatch: stored {stored:#010x}, computed {computed:#010x}",
                        checksum.name()
                    )));
                }
            }
            let field = fixed32(f, 13);
            // format_version >= 8: the high 16 bits are the gap between the
            // metaindex block's trailer and the footer, the low 16 its size.
            let (metaindex_size, gap) = if uses_metaindex_gap(format_version) {
                ((field & 0xffff) as u64, (field >> 16) as u64)
            } else {
                (field as u64, 0)
            };
            if fixed64(f, 33) != 0 {
                return Err(Error::not_supported(format!(
                    "footer at offset {offset}: reserved field set (a future RocksDB feature)"
                )));
            }
            // The metaindex block (and its trailer) ends `gap` bytes before the footer.
            let end = offset.checked_sub(BLOCK_TRAILER_LEN as u64 + metaindex_size + gap).ok_or_else(|| {
                Error::corruption(format!(
                    "footer at offset {offset}: metaindex size {metaindex_size} and gap {gap} do not fit before the footer"
                ))
            })?;
            Ok(Footer {
                format_version,
                checksum,
                metaindex: BlockHandle { offset: end, size: metaindex_size },
                index: None,
                base_context_checksum,
                offset,
            })
        } else {
            let mut pos = 1;
            let bad = || Error::corruption(format!("footer at offset {offset}: malformed block handle"));
            let metaindex = BlockHandle::decode(f, &mut pos).ok_or_else(bad)?;
            let index = BlockHandle::decode(f, &mut pos).ok_or_else(bad)?;
            if pos > 41 {
                return Err(bad());
            }
            Ok(Footer { format_version, checksum, metaindex, index: Some(index), base_context_checksum: 0, offset })
        }
    }

    /// The format_version 0 footer (`f`: its 48 bytes), as RocksDB 7.8.3's
    /// `Footer::DecodeFrom` reads it: metaindex and index handles, padding
    /// that is not checked, the legacy magic; checksum crc32c.
    fn decode_legacy(f: &[u8], len: u64) -> Result<Footer> {
        let offset = len - LEGACY_FOOTER_LEN as u64;
        let bad = || Error::corruption(format!("footer at offset {offset}: malformed block handle"));
        let mut pos = 0;
        let metaindex = BlockHandle::decode(f, &mut pos).ok_or_else(bad)?;
        let index = BlockHandle::decode(f, &mut pos).ok_or_else(bad)?;
        if pos > LEGACY_FOOTER_LEN - 8 {
            return Err(bad());
        }
        Ok(Footer {
            format_version: 0,
            checksum: ChecksumType::Crc32c,
            metaindex,
            index: Some(index),
            base_context_checksum: 0,
            offset,
        })
    }
}

/// Checks that the block at `handle` and its trailer lie before the footer;
/// returns the end of the trailer.
pub(crate) fn block_end(footer: &Footer, handle: BlockHandle, what: &str) -> Result<usize> {
    let limit = footer.offset;
    handle
        .offset
        .checked_add(handle.size)
        .and_then(|e| e.checked_add(BLOCK_TRAILER_LEN as u64))
        .filter(|&e| e <= limit)
        .map(|e| e as usize)
        .ok_or_else(|| {
            Error::corruption(format!(
                "{what} block at offset {} with size {} (+{BLOCK_TRAILER_LEN}-byte trailer) extends past the end of the data ({limit} bytes before the footer)",
                handle.offset, handle.size
            ))
        })
}

/// Verifies the checksum in the block's trailer (`VerifyBlockChecksum`),
/// if the file has checksums: `with_trailer` is the block at `handle` and
/// its 5-byte trailer. With `zero_at`, the 8 bytes at that block offset
/// are taken as zero: the properties block's global sequence number, which
/// older ingestion rewrote without updating the checksum.
pub fn verify_block(
    with_trailer: &[u8],
    footer: &Footer,
    handle: BlockHandle,
    what: &str,
    zero_at: Option<usize>,
) -> Result<()> {
    if footer.checksum == ChecksumType::None {
        return Ok(());
    }
    let data_end = with_trailer.len() - BLOCK_TRAILER_LEN;
    let stored = fixed32(with_trailer, data_end + 1);
    let covered = &with_trailer[..data_end + 1];
    let computed = match zero_at {
        None => footer.checksum.compute(covered),
        Some(at) => {
            let mut copy = covered.to_vec();
            copy[at..at + 8].fill(0);
            footer.checksum.compute(&copy)
        }
    };
    let unmodified = stored.wrapping_sub(context_modifier(footer.base_context_checksum, handle.offset));
    if unmodified != computed {
        return Err(Error::corruption(format!(
            "{what} block at offset {} (size {}): {} checksum mismatch: stored {unmodified:#010x}, computed {computed:#010x}",
            handle.offset,
            handle.size,
            footer.checksum.name()
        )));
    }
    Ok(())
}

pub fn compression_name(t: u8) -> &'static str {
    match t {
        0 => "none",
        1 => "snappy",
        2 => "zlib",
        3 => "bzip2",
        4 => "lz4",
        5 => "lz4hc",
        6 => "xpress",
        7 => "zstd",
        _ => "an unknown compression",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let b = [0x96, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x80];
        let mut p = 0;
        assert_eq!(varint32(&b, &mut p), Some(150));
        assert_eq!(varint32(&b, &mut p), Some(u32::MAX));
        assert_eq!(varint32(&b, &mut p), None); // truncated
        let mut p = 0;
        assert_eq!(varint32(&[0xff, 0xff, 0xff, 0xff, 0x1f], &mut p), None); // > u32
    }

    #[test]
    fn crc32c_mask_matches_rocksdb() {
        // crc32c::Mask(crc32c::Value("", 0)) = Mask(0)
        assert_eq!(ChecksumType::Crc32c.compute(b""), 0xa282_ead8);
    }

    #[test]
    fn context_modifier_is_off_without_base() {
        assert_eq!(context_modifier(0, 12345), 0);
        assert_eq!(context_modifier(7, 1 << 32), 7 ^ 1);
    }
}
