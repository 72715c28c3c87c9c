//! Decompression of the index blocks RocksDB compresses (the table's index
//! and a partitioned filter's top-level index; filter blocks and the
//! metaindex are never compressed). The block's trailer byte names the
//! algorithm (`CompressionType`, `include/rocksdb/compression_type.h`);
//! every format_version this library reads uses compression format 2
//! (`util/compression.cc`):
//!
//! ```text
//! snappy (1):              the raw snappy format (it carries its own length)
//! zlib (2), lz4 (4),       varint32 uncompressed length, then the data:
//! lz4hc (5), zstd (7):     raw deflate (window bits -14), an LZ4 block, a zstd frame
//! ```
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
pub(super) fn decompress(kind: u8, data: &[u8], what: &str, offset: u64) -> Result<Vec<u8>, String> {
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
        assert_eq!(decompress(1, &s, "index", 0).unwrap(), block);
        let mut l = Vec::new();
        let mut n = block.len() as u32;
        while n >= 0x80 {
            l.push(n as u8 | 0x80);
            n >>= 7;
        }
        l.push(n as u8);
        l.extend_from_slice(&lz4_flex::block::compress(&block));
        assert_eq!(decompress(4, &l, "index", 0).unwrap(), block);
        assert_eq!(decompress(5, &l, "index", 0).unwrap(), block);
        // A declared length past the limit is refused before allocating.
        let huge = [0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0];
        assert!(decompress(7, &huge, "index", 0).unwrap_err().contains("limit"));
        assert!(decompress(2, &huge, "index", 0).unwrap_err().contains("limit"));
        // Truncated data fails cleanly.
        assert!(decompress(4, &l[..l.len() / 2], "index", 0).is_err());
        assert!(decompress(1, &s[..s.len() / 2], "index", 0).is_err());
        assert!(decompress(3, &s, "index", 0).unwrap_err().contains("bzip2"));
    }
}
