//! Where an SST file's bytes come from: a positional-read [`Source`].
//!
//! This is the bottom of the SST reader and the only way bytes enter it
//! (`fetch.rs` is the only caller). A source is asked for a few ranges
//! while a file is opened ([`super::Sst::open_source`]) and never again:
//! queries read only memory the handle owns (or the caller's bytes, for
//! [`super::Sst::from_bytes`], or a mapping the caller asked for).

use std::io;

/// A file that can be read at any offset: what the SST reader reads through
/// (RocksDB's `FSRandomAccessFile::Read`, Pebble's `objstorage.Readable`,
/// SQLite's `xRead`). Implemented for [`std::fs::File`] (`pread`), byte
/// slices and vectors, and references to any source; implement it for an
/// engine's own file layer or an object store's ranged reads.
///
/// The reader asks only during open, on the opening thread, and asks for
/// few ranges: one suffix of the file (its last 64 KiB), then at most one
/// range per filter kind (see `ARCHITECTURE.md`, "I/O").
///
/// ```
/// use rocksfilter::sst::Source;
/// let bytes: &[u8] = b"0123456789";
/// let mut buf = [0u8; 3];
/// bytes.read_exact_at(4, &mut buf)?;
/// assert_eq!((&buf, bytes.size()?), (b"456", 10));
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait Source {
    /// The file's length in bytes.
    fn size(&self) -> io::Result<u64>;
    /// Fills `buf` with the `buf.len()` bytes at `offset`, or fails. The
    /// reader never asks past [`Source::size`].
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}

/// Opens `path` for the reader's positional reads. On Windows the file is
/// shared for reading, writing and deleting, as POSIX files always are: an
/// engine must stay able to delete or replace an SST file (a compaction's
/// input) while a handle keeps it open, as RocksDB's own Windows
/// environment opens them (`FILE_SHARE_READ | FILE_SHARE_WRITE |
/// FILE_SHARE_DELETE`). Without it, deleting or renaming over the file
/// fails with "Access denied".
pub(crate) fn open_file(path: &std::path::Path) -> io::Result<std::fs::File> {
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE.
        const SHARE_ALL: u32 = 0x1 | 0x2 | 0x4;
        std::fs::OpenOptions::new().read(true).share_mode(SHARE_ALL).open(path)
    }
    #[cfg(not(windows))]
    {
        std::fs::File::open(path)
    }
}

#[cfg(unix)]
impl Source for std::fs::File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
}

#[cfg(windows)]
impl Source for std::fs::File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn read_exact_at(&self, mut offset: u64, mut buf: &mut [u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(self, buf, offset)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

impl Source for [u8] {
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|o| self.get(o..o.checked_add(buf.len())?))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

impl Source for Vec<u8> {
    fn size(&self) -> io::Result<u64> {
        self.as_slice().size()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }
}

impl<T: Source + ?Sized> Source for &T {
    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        (**self).read_exact_at(offset, buf)
    }
}

/// What opening a file read, and what the handle keeps
/// ([`super::Sst::open_stats`], `rocksfilter inspect --json`, the C ABI's
/// `rocksfilter_sst_get_open_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenStats {
    /// Calls to the source (0 for memory and mapped files).
    pub reads: u64,
    /// Bytes those calls returned.
    pub bytes_read: u64,
    /// Heap bytes the handle owns for its queries, alignment slack
    /// included: the filter blocks it loaded at open (0 for the caller's
    /// memory or a mapping, and for blocks read on demand into a cache,
    /// which the cache counts) and, for partitioned filters, the top-level
    /// index as kept (separators and their lookup tables, the partition to
    /// block map) and, with a cache, each block's handle and slot. Not the
    /// handle's fixed-size struct, nor the file name or properties.
    pub bytes_held: u64,
}
