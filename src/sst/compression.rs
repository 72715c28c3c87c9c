//! Decompression of the index blocks RocksDB compresses (the table's index
//! and a partitioned filter's top-level index; filter blocks and the
//! metaindex are never compressed). The block's trailer byte names the
//! algorithm (`CompressionType`, `include/rocksdb/compression_type.h`);
//! format_version 2 and later use compression format 2 (`util/compression.cc`):
//!
//! ```text
//! snappy (1):              the raw snappy format (it carries its own length)
//! zlib (2), lz4 (4),       varint32 uncompressed length, then the data:
//! lz4hc (5), zstd (7):     raw deflate (window bits -14), an LZ4 block, a zstd frame
//! ```
//!
//! format_version 0 and 1 use compression format 1
//! (`GetCompressFormatForVersion` and the `*_Uncompress` functions of RocksDB
//! 7.8.3's `util/compression.h`): zlib carries no length (RocksDB grows its
//! buffer until inflate ends; here the bound below applies), LZ4 an 8-byte
//! host-order `size_t` length (little-endian: RocksDB reads its low 4
//! bytes), snappy and zstd are as above.
//!
//! bzip2 (3) and xpress (6, Windows only) are not decompressed: the filter
//! that needs the block is then not used (every key may match).
//!
//! The crates are pure Rust (`snap`, `miniz_oxide`, `lz4_flex` with its safe
//! decoder, `ruzstd`). A block's declared length is checked against
//! [`MAX_DECOMPRESSED`] before any allocation, and the decoders are bounded
//! by it, so a hostile length costs nothing.

use super::format::{compression_name, varint32};

/// A compressed index block decompresses to at most this many bytes, and to
/// at most [`MAX_RATIO`] times its compressed size (index blocks of a
/// multi-GB SST file are a few MB; they compress 2 to 5 times).
pub const MAX_DECOMPRESSED: usize = 64 << 20;
/// See [`MAX_DECOMPRESSED`].
pub const MAX_RATIO: usize = 64;

/// The uncompressed block, or why not (a message naming the block).
pub(super) fn decompress(
    kind: u8,
    data: &[u8],
    what: &str,
    offset: u64,
    format_version: u32,
) -> Result<Vec<u8>, String> {
    let name = compression_name(kind);
    let bad = |why: String| format!("{what} block at offset {offset}: {name} data {why}");
    let limit = MAX_DECOMPRESSED.min(data.len().saturating_mul(MAX_RATIO).saturating_add(4096));
    let check = |n: usize| {
        if n > limit {
            Err(bad(format!(
                "declares {n} bytes uncompressed, more than this library's limit of {limit} for a {}-byte block",
                data.len()
            )))
        } else {
            Ok(n)
        }
    };
    match kind {
        1 => {
            let n = snap::raw::decompress_len(data).map_err(|e| bad(format!("is malformed ({e})")))?;
            check(n)?;
            snap::raw::Decoder::new().decompress_vec(data).map_err(|e| bad(format!("is malformed ({e})")))
        }
        2 if format_version < 2 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, limit).map_err(|e| {
            bad(match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                    format!("inflates to more than this library's limit of {limit} bytes for a {}-byte block", data.len())
                }
                s => format!("is malformed ({s:?})"),
            })
        }),
        4 | 5 if format_version < 2 => {
            if data.len() < 8 {
                return Err(bad("has no 8-byte uncompressed length (compression format 1)".into()));
            }
            let n = check(super::format::fixed32(data, 0) as usize)?;
            let mut out = vec![0u8; n];
            let got = lz4_flex::block::decompress_into(&data[8..], &mut out).map_err(|e| bad(format!("is malformed ({e})")))?;
            if got != n {
                return Err(bad(format!("decompresses to {got} bytes, not the {n} it declares")));
            }
            Ok(out)
        }
        2 | 4 | 5 | 7 => {
            let mut pos = 0;
            let n = varint32(data, &mut pos).ok_or_else(|| bad("has no uncompressed length".into()))? as usize;
            check(n)?;
            let body = &data[pos..];
            let out = match kind {
                2 => miniz_oxide::inflate::decompress_to_vec_with_limit(body, n)
                    .map_err(|e| bad(format!("is malformed ({:?})", e.status)))?,
                7 => {
                    use std::io::Read;
                    let dec = ruzstd::StreamingDecoder::new(body).map_err(|e| bad(format!("is malformed ({e})")))?;
                    let mut out = Vec::with_capacity(n);
                    dec.take(n as u64 + 1).read_to_end(&mut out).map_err(|e| bad(format!("is malformed ({e})")))?;
                    out
                }
                _ => {
                    let mut out = vec![0u8; n];
                    let got = lz4_flex::block::decompress_into(body, &mut out)
                        .map_err(|e| bad(format!("is malformed ({e})")))?;
                    out.truncate(got);
                    out
                }
            };
            if out.len() != n {
                return Err(bad(format!("decompresses to {} bytes, not the {n} it declares", out.len())));
            }
            Ok(out)
        }
        _ => Err(format!("{what} block at offset {offset} is compressed with {name} (type {kind}), which this library does not decompress")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "40 KB through two codecs: slow under Miri (safe code only)")]
    fn snappy_and_lz4_round_trip_and_lengths_are_bounded() {
        let block: Vec<u8> = (0..10_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let s = snap::raw::Encoder::new().compress_vec(&block).unwrap();
        assert_eq!(decompress(1, &s, "index", 0, 2).unwrap(), block);
        let mut l = Vec::new();
        let mut n = block.len() as u32;
        while n >= 0x80 {
            l.push(n as u8 | 0x80);
            n >>= 7;
        }
        l.push(n as u8);
        l.extend_from_slice(&lz4_flex::block::compress(&block));
        assert_eq!(decompress(4, &l, "index", 0, 2).unwrap(), block);
        assert_eq!(decompress(5, &l, "index", 0, 2).unwrap(), block);
        // A declared length past the limit is refused before allocating.
        let huge = [0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0];
        assert!(decompress(7, &huge, "index", 0, 2).unwrap_err().contains("limit"));
        assert!(decompress(2, &huge, "index", 0, 2).unwrap_err().contains("limit"));
        // Truncated data fails cleanly.
        assert!(decompress(4, &l[..l.len() / 2], "index", 0, 2).is_err());
        assert!(decompress(1, &s[..s.len() / 2], "index", 0, 2).is_err());
        assert!(decompress(3, &s, "index", 0, 2).unwrap_err().contains("bzip2"));
    }

    #[test]
    #[cfg_attr(miri, ignore = "40 KB through two codecs: slow under Miri (safe code only)")]
    fn compression_format_1_of_format_versions_0_and_1() {
        let block: Vec<u8> = (0..10_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        // LZ4: the length as an 8-byte little-endian size_t, then the block.
        let mut l = (block.len() as u64).to_le_bytes().to_vec();
        l.extend_from_slice(&lz4_flex::block::compress(&block));
        assert_eq!(decompress(4, &l, "index", 0, 0).unwrap(), block);
        assert_eq!(decompress(5, &l, "index", 0, 1).unwrap(), block);
        assert!(decompress(4, &l[..7], "index", 0, 1).unwrap_err().contains("8-byte"));
        // The same bytes are not format 2 (whose varint length differs).
        assert!(decompress(4, &l, "index", 0, 2).is_err());
        // zlib: raw deflate, no length; bounded by the ratio limit.
        let z = miniz_oxide::deflate::compress_to_vec(&block, 6);
        assert_eq!(decompress(2, &z, "index", 0, 1).unwrap(), block);
        let zeros = miniz_oxide::deflate::compress_to_vec(&vec![0u8; 4 << 20], 6);
        assert!(decompress(2, &zeros, "index", 0, 0).unwrap_err().contains("limit"));
        // Snappy and zstd are the same in both formats.
        let s = snap::raw::Encoder::new().compress_vec(&block).unwrap();
        assert_eq!(decompress(1, &s, "index", 0, 0).unwrap(), block);
    }
}
