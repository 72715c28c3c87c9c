//! A database's live SST files from its MANIFEST: which files, on which
//! level, in which column family, with their key ranges (what `rocksfilter
//! report` reads before it opens any SST).
//!
//! The format (RocksDB's `db/log_format.h` and `db/version_edit.h`):
//!
//! * **The log.** 32 KiB blocks of records, each a 7-byte header (masked
//!   CRC32c of the type byte and payload, 2-byte length, type) and its
//!   payload. A record never crosses a block: fewer than 7 bytes left at a
//!   block's end are zero padding, and a logical record longer than what is
//!   left is split into FIRST, MIDDLE... and LAST fragments. The
//!   recyclable types (a 4-byte log number in an 11-byte header) belong to
//!   recycled WALs; a MANIFEST writer never recycles, so they are refused.
//! * **The records** are VersionEdits: a sequence of (varint tag, value).
//!   The tags this reader needs are the column family (`kColumnFamily`,
//!   `kColumnFamilyAdd`, `kColumnFamilyDrop`), the comparator, deleted
//!   files (`kDeletedFile`: level, number) and new files (`kNewFile` to
//!   `kNewFile4`: level, number, size, smallest and largest internal keys,
//!   sequence numbers; `kNewFile4` then has custom fields until
//!   `kTerminate`, each (tag, length-prefixed value); an unknown field with
//!   bit 6 set must be understood, so it is an error). Every other known
//!   tag is decoded only to be skipped; an unknown tag with bit 13 set
//!   (`kTagSafeIgnoreMask`) is followed by its length and skipped, as
//!   RocksDB does; any other unknown tag is an error.
//! * **Atomic groups** (`kInAtomicGroup` with the count of edits still to
//!   come) apply together or not at all.
//!
//! What RocksDB's recovery refuses is an error here too, naming the MANIFEST
//! offset: a bad checksum, a fragment out of order, an edit that does not
//! decode, a deletion of a file that is not live. What it ignores is a
//! warning: a MANIFEST that ends inside a record or an atomic group (a
//! writer that died mid-append; RocksDB drops the partial edit).
//!
//! Memory: one entry per live file (its number, level and two keys); the
//! MANIFEST is read whole (RocksDB rewrites it when it passes
//! `max_manifest_file_size`, 1 GiB by default).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::sst::format::{varint32, varint64, ChecksumType};

/// The log's block size (`log::kBlockSize`).
const BLOCK: usize = 32 * 1024;
/// A record header: masked CRC32c (4), length (2), type (1).
const HEADER: usize = 7;

// Record types (`log::RecordType`).
const ZERO: u8 = 0;
const FULL: u8 = 1;
const FIRST: u8 = 2;
const MIDDLE: u8 = 3;
const LAST: u8 = 4;
const RECYCLABLE_FULL: u8 = 5;
const RECYCLABLE_LAST: u8 = 8;
// WAL metadata records: whole records that carry no VersionEdit.
const SET_COMPRESSION: u8 = 9;
const TIMESTAMP_SIZE: u8 = 10;
const RECYCLABLE_TIMESTAMP_SIZE: u8 = 11;
const PREDECESSOR_WAL_INFO: u8 = 130;
const RECYCLABLE_PREDECESSOR_WAL_INFO: u8 = 131;

// VersionEdit tags (`db/version_edit.h`, `enum Tag`).
const K_COMPARATOR: u32 = 1;
const K_LOG_NUMBER: u32 = 2;
const K_NEXT_FILE_NUMBER: u32 = 3;
const K_LAST_SEQUENCE: u32 = 4;
const K_COMPACT_CURSOR: u32 = 5;
const K_DELETED_FILE: u32 = 6;
const K_NEW_FILE: u32 = 7;
const K_PREV_LOG_NUMBER: u32 = 9;
const K_MIN_LOG_NUMBER_TO_KEEP: u32 = 10;
const K_NEW_FILE2: u32 = 100;
const K_NEW_FILE3: u32 = 102;
const K_NEW_FILE4: u32 = 103;
const K_COLUMN_FAMILY: u32 = 200;
const K_COLUMN_FAMILY_ADD: u32 = 201;
const K_COLUMN_FAMILY_DROP: u32 = 202;
const K_MAX_COLUMN_FAMILY: u32 = 203;
const K_IN_ATOMIC_GROUP: u32 = 300;
const K_BLOB_FILE_ADDITION: u32 = 400;
const K_BLOB_FILE_GARBAGE: u32 = 401;
const K_TAG_SAFE_IGNORE_MASK: u32 = 1 << 13;
const K_BLOB_FILE_ADDITION_DEPRECATED: u32 = K_TAG_SAFE_IGNORE_MASK + 2;
const K_BLOB_FILE_GARBAGE_DEPRECATED: u32 = K_TAG_SAFE_IGNORE_MASK + 3;
const K_WAL_ADDITION: u32 = K_TAG_SAFE_IGNORE_MASK + 4;
const K_WAL_DELETION: u32 = K_TAG_SAFE_IGNORE_MASK + 5;

// kNewFile4's custom fields (`enum NewFileCustomTag`).
const F_TERMINATE: u32 = 1;
const F_EPOCH_NUMBER: u32 = 13;
const F_NON_SAFE_IGNORE_MASK: u32 = 1 << 6;
const F_PATH_ID: u32 = F_NON_SAFE_IGNORE_MASK + 1;

/// A live SST file of a column family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveFile {
    /// The file number: the file is `{number:06}.sst` in the database's
    /// directory (or in `db_paths[path_id]`).
    pub number: u64,
    /// The LSM level (0 = L0).
    pub level: u32,
    /// Index into the database's `db_paths` (0: the database directory).
    pub path_id: u32,
    /// The file's size in bytes, as the MANIFEST records it.
    pub file_size: u64,
    /// Smallest and largest internal keys (the user key and an 8-byte
    /// sequence/type trailer).
    pub smallest: Vec<u8>,
    /// See `smallest`.
    pub largest: Vec<u8>,
    /// The files' sequence number range.
    pub smallest_seqno: u64,
    /// See `smallest_seqno`.
    pub largest_seqno: u64,
    /// RocksDB 7.8+'s epoch number (0 when the MANIFEST has none): L0 files
    /// are newest first by it, then by `largest_seqno`.
    pub epoch_number: u64,
}

impl LiveFile {
    /// The smallest user key (the internal key without its 8-byte trailer).
    ///
    /// ```
    /// let f = rocksfilter::manifest::LiveFile { number: 7, level: 1, path_id: 0, file_size: 1,
    ///     smallest: b"apple\x01\0\0\0\0\0\0\0".to_vec(), largest: b"pear\x01\0\0\0\0\0\0\0".to_vec(),
    ///     smallest_seqno: 1, largest_seqno: 1, epoch_number: 0 };
    /// assert_eq!((f.smallest_user_key(), f.largest_user_key()), (&b"apple"[..], &b"pear"[..]));
    /// assert_eq!(f.file_name(), "000007.sst");
    /// ```
    pub fn smallest_user_key(&self) -> &[u8] {
        user_key(&self.smallest)
    }
    /// The largest user key.
    pub fn largest_user_key(&self) -> &[u8] {
        user_key(&self.largest)
    }
    /// The file's name as RocksDB writes it: the number in at least six
    /// digits and `.sst`.
    pub fn file_name(&self) -> String {
        format!("{:06}.sst", self.number)
    }
}

fn user_key(internal: &[u8]) -> &[u8] {
    &internal[..internal.len().saturating_sub(8)]
}

/// A column family and its live files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnFamily {
    /// Its id (0: `default`).
    pub id: u32,
    /// Its name.
    pub name: String,
    /// The comparator's name, when the MANIFEST records one.
    pub comparator: Option<String>,
    /// Live files, by level, then by smallest key (L0: newest first).
    pub files: Vec<LiveFile>,
}

/// What a MANIFEST says is live.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Column families by id.
    pub column_families: Vec<ColumnFamily>,
    /// What was read but not applied, with the offset (a MANIFEST that ends
    /// inside a record or an atomic group).
    pub warnings: Vec<String>,
    /// The VersionEdits applied.
    pub edits: usize,
}

/// One VersionEdit's effect.
#[derive(Default)]
struct Edit {
    column_family: u32,
    comparator: Option<String>,
    add_cf: Option<String>,
    drop_cf: bool,
    deleted: Vec<(u32, u64)>,
    added: Vec<LiveFile>,
    /// `kInAtomicGroup`: edits of the group still to come after this one.
    atomic_remaining: Option<u32>,
}

/// Reads `DIR/CURRENT` and the MANIFEST it names, and returns that
/// MANIFEST's path with what it says is live.
///
/// Errors name the file and, for a damaged MANIFEST, the offset.
pub fn read_db(dir: &Path) -> Result<(PathBuf, Manifest)> {
    let current = dir.join("CURRENT");
    let name = std::fs::read(&current).map_err(|e| {
        Error::new(ErrorKind::Io, format!("{}: {e} (not a RocksDB database directory?)", current.display()))
    })?;
    let name = std::str::from_utf8(&name)
        .ok()
        .map(str::trim_end)
        .filter(|n| n.starts_with("MANIFEST-") && !n.contains('/') && !n.contains('\\') && n.len() > "MANIFEST-".len());
    let Some(name) = name else {
        return Err(Error::corruption(format!(
            "{}: expected one line naming a MANIFEST-NNNNNN file, found {:?}",
            current.display(),
            String::from_utf8_lossy(&std::fs::read(&current).unwrap_or_default())
        )));
    };
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| Error::new(ErrorKind::Io, format!("{}: {e}", path.display())))?;
    let manifest = parse(&bytes).map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))?;
    Ok((path, manifest))
}

/// Parses a MANIFEST's bytes: the log's records, the VersionEdits in them,
/// applied in order.
///
/// ```
/// // An empty MANIFEST has no column family and no warning.
/// let m = rocksfilter::manifest::parse(&[]).unwrap();
/// assert!(m.column_families.is_empty() && m.warnings.is_empty());
/// // A bad checksum is an error naming the offset.
/// let e = rocksfilter::manifest::parse(&[0, 0, 0, 0, 1, 0, 1, 0x64]).unwrap_err();
/// assert!(e.message().contains("offset 0"), "{e}");
/// ```
pub fn parse(bytes: &[u8]) -> Result<Manifest> {
    let mut state = State::default();
    let mut out = Manifest::default();
    let mut group: Vec<(usize, Edit)> = Vec::new();
    let mut records = Records { bytes, pos: 0 };
    while let Some(record) = records.next_record()? {
        let (at, payload) = match record {
            Record::Whole(at, payload) => (at, payload),
            Record::Truncated(at, why) => {
                out.warnings.push(format!("MANIFEST ends inside a record at offset {at} ({why}): that edit is skipped, as RocksDB's recovery skips it"));
                break;
            }
        };
        let edit =
            decode_edit(&payload).map_err(|why| Error::corruption(format!("VersionEdit at offset {at}: {why}")))?;
        match edit.atomic_remaining {
            Some(remaining) => {
                group.push((at, edit));
                if remaining == 0 {
                    for (at, e) in group.drain(..) {
                        state.apply(at, e)?;
                        out.edits += 1;
                    }
                }
            }
            None => {
                if let Some((first, _)) = group.first() {
                    return Err(Error::corruption(format!(
                        "VersionEdit at offset {at}: an edit outside the atomic group begun at offset {first}, before its last edit"
                    )));
                }
                state.apply(at, edit)?;
                out.edits += 1;
            }
        }
    }
    if let Some((first, _)) = group.first() {
        out.warnings.push(format!(
            "MANIFEST ends inside the atomic group begun at offset {first}: its {} edit(s) are skipped, as RocksDB's recovery skips them",
            group.len()
        ));
    }
    out.column_families = state.finish();
    Ok(out)
}

/// `records` framed as RocksDB's `log::Writer` frames a MANIFEST (32 KiB
/// blocks, a 7-byte header with the masked CRC32c of type and payload, FULL
/// or FIRST/MIDDLE.../LAST fragments, a block's last bytes zero-padded when
/// a header does not fit): what [`parse`] reads. For tests and tools.
///
/// ```
/// use rocksfilter::manifest::{encode_log, parse};
/// // kColumnFamily 0, then kComparator "leveldb.BytewiseComparator".
/// let mut edit = vec![0xc8, 0x01, 0x00, 0x01, 26];
/// edit.extend_from_slice(b"leveldb.BytewiseComparator");
/// let m = parse(&encode_log(&[&edit])).unwrap();
/// assert_eq!(m.column_families[0].comparator.as_deref(), Some("leveldb.BytewiseComparator"));
/// ```
pub fn encode_log(records: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for record in records {
        let mut left = *record;
        let mut first = true;
        loop {
            let room = BLOCK - out.len() % BLOCK;
            if room < HEADER {
                out.resize(out.len() + room, 0);
                continue;
            }
            let n = left.len().min(room - HEADER);
            let last = n == left.len();
            let kind = match (first, last) {
                (true, true) => FULL,
                (true, false) => FIRST,
                (false, false) => MIDDLE,
                (false, true) => LAST,
            };
            let mut body = Vec::with_capacity(1 + n);
            body.push(kind);
            body.extend_from_slice(&left[..n]);
            out.extend_from_slice(&ChecksumType::Crc32c.compute(&body).to_le_bytes());
            out.extend_from_slice(&(n as u16).to_le_bytes());
            out.extend_from_slice(&body);
            left = &left[n..];
            first = false;
            if last {
                break;
            }
        }
    }
    out
}

enum Record {
    Whole(usize, Vec<u8>),
    Truncated(usize, String),
}

/// The log's logical records.
struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Records<'_> {
    /// The next physical record: (offset, type, payload); None at the end
    /// of the file; Err with the record's offset for damage or truncation.
    fn physical(&mut self) -> std::result::Result<Option<Physical<'_>>, (usize, PhysicalError)> {
        loop {
            let left_in_block = BLOCK - self.pos % BLOCK;
            if left_in_block < HEADER {
                // Trailer padding.
                self.pos += left_in_block;
                continue;
            }
            let at = self.pos;
            if at >= self.bytes.len() {
                return Ok(None);
            }
            if self.bytes.len() - at < HEADER {
                return Err((at, PhysicalError::TruncatedHeader));
            }
            let h = &self.bytes[at..at + HEADER];
            let length = u16::from_le_bytes([h[4], h[5]]) as usize;
            let kind = h[6];
            if (RECYCLABLE_FULL..=RECYCLABLE_LAST).contains(&kind)
                || kind == RECYCLABLE_TIMESTAMP_SIZE
                || kind == RECYCLABLE_PREDECESSOR_WAL_INFO
            {
                return Err((at, PhysicalError::Recyclable(kind)));
            }
            if kind == ZERO && length == 0 {
                // Preallocated (zeroed) space: the rest of the block is empty.
                self.pos = at + left_in_block;
                if self.bytes[at..self.bytes.len().min(at + left_in_block)].iter().any(|&b| b != 0) {
                    return Err((at, PhysicalError::ZeroRecordBeforeData));
                }
                continue;
            }
            if HEADER + length > left_in_block {
                return Err((at, PhysicalError::BeyondBlock(length, left_in_block - HEADER)));
            }
            if at + HEADER + length > self.bytes.len() {
                return Err((at, PhysicalError::TruncatedPayload(length, self.bytes.len() - at - HEADER)));
            }
            let stored = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
            let computed = ChecksumType::Crc32c.compute(&self.bytes[at + 6..at + HEADER + length]);
            if stored != computed {
                return Err((at, PhysicalError::Checksum(stored, computed)));
            }
            self.pos = at + HEADER + length;
            return Ok(Some((at, kind, &self.bytes[at + HEADER..at + HEADER + length])));
        }
    }

    /// The next logical record (fragments joined). Truncation at the end of
    /// the file is `Record::Truncated`; damage elsewhere is an error.
    fn next_record(&mut self) -> Result<Option<Record>> {
        let mut partial: Option<(usize, Vec<u8>)> = None;
        loop {
            let (at, kind, payload) = match self.physical() {
                Ok(Some(r)) => r,
                Ok(None) => {
                    return Ok(partial
                        .map(|(at, _)| Record::Truncated(at, "no LAST fragment before the end of the file".into())));
                }
                Err((at, e)) if e.is_truncation() => {
                    return Ok(Some(Record::Truncated(partial.map_or(at, |(start, _)| start), e.describe())));
                }
                Err((at, e)) => {
                    return Err(Error::corruption(format!("MANIFEST record at offset {at}: {}", e.describe())))
                }
            };
            match (kind, &mut partial) {
                (FULL, None) => return Ok(Some(Record::Whole(at, payload.to_vec()))),
                (FIRST, None) => partial = Some((at, payload.to_vec())),
                (MIDDLE, Some((_, buf))) => buf.extend_from_slice(payload),
                (LAST, Some((_, buf))) => {
                    buf.extend_from_slice(payload);
                    let (start, buf) = partial.take().expect("matched Some");
                    return Ok(Some(Record::Whole(start, buf)));
                }
                (SET_COMPRESSION | TIMESTAMP_SIZE | PREDECESSOR_WAL_INFO, None) => {}
                (FULL | FIRST | SET_COMPRESSION | TIMESTAMP_SIZE | PREDECESSOR_WAL_INFO, Some((start, _))) => {
                    return Err(Error::corruption(format!(
                        "MANIFEST record at offset {at}: type {kind} inside the fragmented record begun at offset {start} (expected MIDDLE (3) or LAST (4))"
                    )))
                }
                (MIDDLE | LAST, None) => {
                    return Err(Error::corruption(format!(
                        "MANIFEST record at offset {at}: a {} fragment with no FIRST before it",
                        if kind == MIDDLE { "MIDDLE" } else { "LAST" }
                    )))
                }
                _ => {
                    return Err(Error::corruption(format!(
                        "MANIFEST record at offset {at}: unknown record type {kind} (expected 1 to 4)"
                    )))
                }
            }
        }
    }
}

/// A physical record: its offset, type and payload.
type Physical<'a> = (usize, u8, &'a [u8]);

enum PhysicalError {
    TruncatedHeader,
    TruncatedPayload(usize, usize),
    BeyondBlock(usize, usize),
    Checksum(u32, u32),
    Recyclable(u8),
    ZeroRecordBeforeData,
}

impl PhysicalError {
    fn is_truncation(&self) -> bool {
        matches!(self, PhysicalError::TruncatedHeader | PhysicalError::TruncatedPayload(..))
    }
    fn describe(&self) -> String {
        match self {
            PhysicalError::TruncatedHeader => "a record header cut short by the end of the file".into(),
            PhysicalError::TruncatedPayload(len, present) => {
                format!("a record payload of {len} bytes cut short by the end of the file ({present} present)")
            }
            PhysicalError::BeyondBlock(len, room) => {
                format!("length {len} runs past its 32 KiB block (room for {room}): a damaged length")
            }
            PhysicalError::Checksum(stored, computed) => {
                format!("checksum mismatch: expected 0x{stored:08x} (stored), found 0x{computed:08x}")
            }
            PhysicalError::Recyclable(t) => {
                format!("recyclable record type {t}: a recycled WAL's record, never a MANIFEST's")
            }
            PhysicalError::ZeroRecordBeforeData => "a zero-type record followed by data in its block".into(),
        }
    }
}

/// Decodes one VersionEdit; the error says which field failed.
fn decode_edit(b: &[u8]) -> std::result::Result<Edit, String> {
    let mut e = Edit::default();
    let mut pos = 0;
    let v32 =
        |pos: &mut usize, what: &str| varint32(b, pos).ok_or_else(|| format!("{what} at byte {}: bad varint32", *pos));
    let v64 =
        |pos: &mut usize, what: &str| varint64(b, pos).ok_or_else(|| format!("{what} at byte {}: bad varint64", *pos));
    let slice = |pos: &mut usize, what: &str| -> std::result::Result<&[u8], String> {
        let at = *pos;
        let n = varint32(b, pos).ok_or_else(|| format!("{what} at byte {at}: bad length"))? as usize;
        if b.len() - *pos < n {
            return Err(format!("{what} at byte {at}: length {n} past the edit's end ({} bytes left)", b.len() - *pos));
        }
        let s = &b[*pos..*pos + n];
        *pos += n;
        Ok(s)
    };
    let internal_key = |pos: &mut usize, what: &str| -> std::result::Result<Vec<u8>, String> {
        let at = *pos;
        let k = slice(pos, what)?;
        if k.len() < 8 {
            return Err(format!("{what} at byte {at}: an internal key of {} bytes (expected at least 8)", k.len()));
        }
        Ok(k.to_vec())
    };
    while pos < b.len() {
        let tag_at = pos;
        let tag = v32(&mut pos, "tag")?;
        match tag {
            K_COMPARATOR => {
                e.comparator = Some(String::from_utf8_lossy(slice(&mut pos, "comparator name")?).into_owned())
            }
            K_LOG_NUMBER | K_PREV_LOG_NUMBER | K_NEXT_FILE_NUMBER | K_MIN_LOG_NUMBER_TO_KEEP | K_LAST_SEQUENCE => {
                v64(&mut pos, "log/file/sequence number")?;
            }
            K_MAX_COLUMN_FAMILY => {
                v32(&mut pos, "max column family")?;
            }
            K_COMPACT_CURSOR => {
                v32(&mut pos, "compaction cursor level")?;
                internal_key(&mut pos, "compaction cursor key")?;
            }
            K_DELETED_FILE => {
                let level = v32(&mut pos, "deleted file level")?;
                let number = v64(&mut pos, "deleted file number")?;
                e.deleted.push((level, number));
            }
            K_NEW_FILE | K_NEW_FILE2 | K_NEW_FILE3 | K_NEW_FILE4 => {
                let level = v32(&mut pos, "new file level")?;
                let number = v64(&mut pos, "new file number")?;
                let mut path_id = if tag == K_NEW_FILE3 { v32(&mut pos, "new file path id")? } else { 0 };
                let file_size = v64(&mut pos, "new file size")?;
                let smallest = internal_key(&mut pos, "new file smallest key")?;
                let largest = internal_key(&mut pos, "new file largest key")?;
                let (smallest_seqno, largest_seqno) = if tag == K_NEW_FILE {
                    (0, u64::MAX >> 8)
                } else {
                    (v64(&mut pos, "new file smallest seqno")?, v64(&mut pos, "new file largest seqno")?)
                };
                let mut epoch_number = 0;
                if tag == K_NEW_FILE4 {
                    loop {
                        let field_at = pos;
                        let field = v32(&mut pos, "new file custom field tag")?;
                        if field == F_TERMINATE {
                            break;
                        }
                        let value = slice(&mut pos, "new file custom field")?;
                        match field {
                            F_PATH_ID => {
                                if value.len() != 1 || value[0] > 3 {
                                    return Err(format!(
                                        "path id field at byte {field_at}: expected one byte 0-3, found {value:?}"
                                    ));
                                }
                                path_id = value[0] as u32;
                            }
                            F_EPOCH_NUMBER => {
                                let mut p = 0;
                                epoch_number = varint64(value, &mut p)
                                    .ok_or_else(|| format!("epoch number field at byte {field_at}: bad varint64"))?;
                            }
                            f if f & F_NON_SAFE_IGNORE_MASK != 0 => {
                                return Err(format!(
                                    "new file custom field {f} at byte {field_at}: marked must-understand (bit 6) and unknown to this reader"
                                ));
                            }
                            _ => {}
                        }
                    }
                }
                e.added.push(LiveFile {
                    number,
                    level,
                    path_id,
                    file_size,
                    smallest,
                    largest,
                    smallest_seqno,
                    largest_seqno,
                    epoch_number,
                });
            }
            K_COLUMN_FAMILY => e.column_family = v32(&mut pos, "column family id")?,
            K_COLUMN_FAMILY_ADD => {
                e.add_cf = Some(String::from_utf8_lossy(slice(&mut pos, "column family name")?).into_owned())
            }
            K_COLUMN_FAMILY_DROP => e.drop_cf = true,
            K_IN_ATOMIC_GROUP => e.atomic_remaining = Some(v32(&mut pos, "atomic group remaining entries")?),
            K_BLOB_FILE_ADDITION
            | K_BLOB_FILE_ADDITION_DEPRECATED
            | K_BLOB_FILE_GARBAGE
            | K_BLOB_FILE_GARBAGE_DEPRECATED => {
                v64(&mut pos, "blob file number")?;
                v64(&mut pos, "blob count")?;
                v64(&mut pos, "blob bytes")?;
                if tag == K_BLOB_FILE_ADDITION || tag == K_BLOB_FILE_ADDITION_DEPRECATED {
                    slice(&mut pos, "blob checksum method")?;
                    slice(&mut pos, "blob checksum value")?;
                }
                loop {
                    let field_at = pos;
                    let field = v32(&mut pos, "blob custom field tag")?;
                    if field == 1 {
                        break;
                    }
                    if field & F_NON_SAFE_IGNORE_MASK != 0 {
                        return Err(format!("blob custom field {field} at byte {field_at}: marked must-understand"));
                    }
                    slice(&mut pos, "blob custom field")?;
                }
            }
            K_WAL_ADDITION => {
                v64(&mut pos, "WAL number")?;
                loop {
                    let field_at = pos;
                    match v32(&mut pos, "WAL addition tag")? {
                        1 => break,
                        2 => {
                            v64(&mut pos, "WAL synced size")?;
                        }
                        t => return Err(format!("WAL addition tag {t} at byte {field_at}: unknown")),
                    }
                }
            }
            K_WAL_DELETION => {
                v64(&mut pos, "WAL number")?;
            }
            t if t & K_TAG_SAFE_IGNORE_MASK != 0 => {
                // Forward-compatible tags (kDbId, kWalAddition2, ...): a
                // length-prefixed value this reader does not need.
                slice(&mut pos, "ignorable field")?;
            }
            t => return Err(format!("unknown tag {t} at byte {tag_at} (not marked ignorable: bit 13 clear)")),
        }
    }
    Ok(e)
}

/// A column family's name, comparator and files by number.
type CfState = (String, Option<String>, BTreeMap<u64, LiveFile>);

/// The live files of each column family while edits apply.
#[derive(Default)]
struct State {
    cfs: BTreeMap<u32, CfState>,
    seen_default: bool,
}

impl State {
    fn apply(&mut self, at: usize, e: Edit) -> Result<()> {
        // The default column family exists from the first edit on (RocksDB
        // creates it before it reads the MANIFEST).
        if !self.seen_default {
            self.seen_default = true;
            self.cfs.insert(0, ("default".into(), None, BTreeMap::new()));
        }
        if let Some(name) = e.add_cf {
            if self.cfs.contains_key(&e.column_family) && e.column_family != 0 {
                return Err(Error::corruption(format!(
                    "VersionEdit at offset {at}: adds column family {} ({name:?}), which exists",
                    e.column_family
                )));
            }
            self.cfs.insert(e.column_family, (name, None, BTreeMap::new()));
        }
        if e.drop_cf {
            self.cfs.remove(&e.column_family);
            return Ok(());
        }
        let Some((_, comparator, files)) = self.cfs.get_mut(&e.column_family) else {
            if e.deleted.is_empty() && e.added.is_empty() {
                return Ok(());
            }
            return Err(Error::corruption(format!(
                "VersionEdit at offset {at}: changes column family {}, which does not exist",
                e.column_family
            )));
        };
        if e.comparator.is_some() {
            *comparator = e.comparator;
        }
        // RocksDB's VersionBuilder applies an edit's deletions before its
        // additions (a trivial move is both, for the same file).
        for (level, number) in e.deleted {
            match files.get(&number) {
                Some(f) if f.level == level => {
                    files.remove(&number);
                }
                Some(f) => {
                    return Err(Error::corruption(format!(
                        "VersionEdit at offset {at}: deletes file {number} from level {level}, but it is on level {}",
                        f.level
                    )))
                }
                None => {
                    return Err(Error::corruption(format!(
                        "VersionEdit at offset {at}: deletes file {number} from level {level}, which is not live"
                    )))
                }
            }
        }
        for f in e.added {
            files.insert(f.number, f);
        }
        Ok(())
    }

    fn finish(self) -> Vec<ColumnFamily> {
        self.cfs
            .into_iter()
            .map(|(id, (name, comparator, files))| {
                let mut files: Vec<LiveFile> = files.into_values().collect();
                files.sort_by(|a, b| {
                    a.level.cmp(&b.level).then_with(|| {
                        if a.level == 0 {
                            // Newest first, as RocksDB searches L0.
                            (b.epoch_number, b.largest_seqno, b.number).cmp(&(
                                a.epoch_number,
                                a.largest_seqno,
                                a.number,
                            ))
                        } else {
                            a.smallest_user_key().cmp(b.smallest_user_key())
                        }
                    })
                });
                ColumnFamily { id, name, comparator, files }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn put_slice(out: &mut Vec<u8>, s: &[u8]) {
        put_varint(out, s.len() as u64);
        out.extend_from_slice(s);
    }
    fn ikey(k: &[u8]) -> Vec<u8> {
        let mut v = k.to_vec();
        v.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
        v
    }
    fn new_file4(out: &mut Vec<u8>, level: u64, number: u64, lo: &[u8], hi: &[u8], epoch: u64) {
        put_varint(out, K_NEW_FILE4 as u64);
        put_varint(out, level);
        put_varint(out, number);
        put_varint(out, 1000);
        put_slice(out, &ikey(lo));
        put_slice(out, &ikey(hi));
        put_varint(out, 1);
        put_varint(out, 2);
        put_varint(out, F_EPOCH_NUMBER as u64);
        let mut e = Vec::new();
        put_varint(&mut e, epoch);
        put_slice(out, &e);
        put_varint(out, F_TERMINATE as u64);
    }
    fn log(edits: &[Vec<u8>]) -> Vec<u8> {
        encode_log(&edits.iter().map(Vec::as_slice).collect::<Vec<_>>())
    }

    #[test]
    fn files_added_moved_deleted_and_column_families() {
        let mut e1 = Vec::new();
        put_varint(&mut e1, K_COMPARATOR as u64);
        put_slice(&mut e1, b"leveldb.BytewiseComparator");
        new_file4(&mut e1, 0, 10, b"a", b"m", 1);
        new_file4(&mut e1, 0, 11, b"c", b"z", 2);
        let mut e2 = Vec::new();
        // A trivial move: deleted from L0, added to L2, in one edit.
        put_varint(&mut e2, K_DELETED_FILE as u64);
        put_varint(&mut e2, 0);
        put_varint(&mut e2, 10);
        new_file4(&mut e2, 2, 10, b"a", b"m", 1);
        // An ignorable tag from the future.
        put_varint(&mut e2, (K_TAG_SAFE_IGNORE_MASK + 99) as u64);
        put_slice(&mut e2, b"whatever");
        let mut e3 = Vec::new();
        put_varint(&mut e3, K_COLUMN_FAMILY as u64);
        put_varint(&mut e3, 1);
        put_varint(&mut e3, K_COLUMN_FAMILY_ADD as u64);
        put_slice(&mut e3, b"other");
        let mut e4 = Vec::new();
        put_varint(&mut e4, K_COLUMN_FAMILY as u64);
        put_varint(&mut e4, 1);
        // Large enough to be fragmented across blocks.
        for i in 0..3000u64 {
            new_file4(&mut e4, 1 + (i % 3), 100 + i, format!("k{i:05}").as_bytes(), format!("k{i:05}z").as_bytes(), 0);
        }
        assert!(e4.len() > 2 * BLOCK);
        let m = parse(&log(&[e1, e2, e3, e4])).unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.edits, 4);
        let d = &m.column_families[0];
        assert_eq!(
            (d.id, d.name.as_str(), d.comparator.as_deref()),
            (0, "default", Some("leveldb.BytewiseComparator"))
        );
        let placed: Vec<(u32, u64)> = d.files.iter().map(|f| (f.level, f.number)).collect();
        assert_eq!(placed, vec![(0, 11), (2, 10)]);
        let o = &m.column_families[1];
        assert_eq!((o.id, o.name.as_str(), o.files.len()), (1, "other", 3000));
        assert!(o
            .files
            .windows(2)
            .all(|w| (w[0].level, w[0].smallest_user_key()) <= (w[1].level, w[1].smallest_user_key())));
    }

    #[test]
    fn damage_is_an_error_with_the_offset_and_truncation_a_warning() {
        let mut e1 = Vec::new();
        new_file4(&mut e1, 0, 10, b"a", b"m", 1);
        let mut big = Vec::new();
        for i in 0..2000u64 {
            new_file4(&mut big, 1, 100 + i, format!("k{i:05}").as_bytes(), format!("k{i:05}z").as_bytes(), 0);
        }
        let good = log(&[e1.clone(), big]);
        // Every truncation: a report of what came before, with a warning,
        // or (at a record boundary) no warning.
        for cut in (0..good.len()).step_by(997) {
            let m = parse(&good[..cut]).unwrap();
            if cut > 0 && cut < good.len() && cut != HEADER + e1.len() {
                assert_eq!(m.warnings.len(), 1, "cut {cut}");
                assert!(m.warnings[0].contains("offset"), "{:?}", m.warnings);
            }
        }
        // A flipped byte in a payload: a checksum error naming its record.
        let mut bad = good.clone();
        bad[HEADER + e1.len() + HEADER + 40] ^= 1;
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains(&format!("offset {}", HEADER + e1.len())) && e.contains("checksum"), "{e}");
        // A length damaged past its block.
        let mut bad = good.clone();
        bad[5] = 0xff;
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("offset 0") && e.contains("block"), "{e}");
        // An unknown tag that is not ignorable.
        let mut e2 = Vec::new();
        put_varint(&mut e2, 77);
        let e = parse(&log(&[e1.clone(), e2])).unwrap_err().to_string();
        assert!(e.contains("unknown tag 77") && e.contains(&format!("offset {}", HEADER + e1.len())), "{e}");
        // A must-understand custom field.
        let mut e3 = Vec::new();
        put_varint(&mut e3, K_NEW_FILE4 as u64);
        for v in [0u64, 5, 9] {
            put_varint(&mut e3, v);
        }
        put_slice(&mut e3, &ikey(b"a"));
        put_slice(&mut e3, &ikey(b"b"));
        put_varint(&mut e3, 1);
        put_varint(&mut e3, 1);
        put_varint(&mut e3, 70);
        put_slice(&mut e3, b"x");
        put_varint(&mut e3, F_TERMINATE as u64);
        assert!(parse(&log(&[e3])).unwrap_err().to_string().contains("must-understand"));
        // Deleting a file that is not live.
        let mut e4 = Vec::new();
        put_varint(&mut e4, K_DELETED_FILE as u64);
        put_varint(&mut e4, 3);
        put_varint(&mut e4, 10);
        assert!(parse(&log(&[e1, e4])).unwrap_err().to_string().contains("on level 0"));
    }

    #[test]
    fn an_atomic_group_applies_whole_or_not_at_all() {
        let edit = |number: u64, remaining: u64| {
            let mut e = Vec::new();
            put_varint(&mut e, K_IN_ATOMIC_GROUP as u64);
            put_varint(&mut e, remaining);
            new_file4(&mut e, 1, number, b"a", b"b", 0);
            e
        };
        let whole = log(&[edit(1, 1), edit(2, 0)]);
        assert_eq!(parse(&whole).unwrap().column_families[0].files.len(), 2);
        let half = log(&[edit(1, 1)]);
        let m = parse(&half).unwrap();
        assert!(m.column_families.is_empty() && m.warnings[0].contains("atomic group"), "{m:?}");
    }
}
