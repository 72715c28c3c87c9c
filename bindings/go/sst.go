package rocksfilter

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// SSTFilterType says what filter an SST file has.
type SSTFilterType int

const (
	SSTFilterNone        SSTFilterType = 0 // no filter
	SSTFilterFull        SSTFilterType = 1 // one full filter block
	SSTFilterPartitioned SSTFilterType = 2 // a partitioned filter
	// SSTFilterUnsupported is a filter this library cannot read (custom
	// policy) or that RocksDB would not use either: every key may match.
	// Closed handles report it too.
	SSTFilterUnsupported SSTFilterType = 3
	// SSTFilterBlockBased is the obsolete block-based filter of RocksDB
	// < 7.0: a small filter per 2 KiB of data-block offsets, looked up
	// through the table's index. MayMatch and PrefixMayMatch answer from it.
	SSTFilterBlockBased SSTFilterType = 4
)

// String returns the filter type name, e.g. "full".
func (t SSTFilterType) String() string {
	switch t {
	case SSTFilterNone:
		return "none"
	case SSTFilterFull:
		return "full"
	case SSTFilterPartitioned:
		return "partitioned"
	case SSTFilterUnsupported:
		return "unsupported"
	case SSTFilterBlockBased:
		return "block_based"
	}
	return "SSTFilterType(" + strconv.Itoa(int(t)) + ")"
}

// SSTProperties are an SST file's format and table properties
// (rocksfilter_sst_properties). Numbers are 0 and strings empty when
// absent.
type SSTProperties struct {
	FormatVersion int // footer format_version (0 to 8; 0 is the legacy magic number)
	// ChecksumType is the block checksum type: 0 none, 1 crc32c,
	// 2 xxhash32, 3 xxhash64, 4 xxh3.
	ChecksumType      int
	FilterType        SSTFilterType
	NumPartitions     int  // filter partitions: 1 for a full filter, 0 without filter
	WholeKeyFiltering bool // whole keys were added to the filter
	HasPrefixFilter   bool // PrefixMayMatch can answer from the filter
	NumEntries        uint64
	NumFilterEntries  uint64
	FilterSize        uint64 // bytes of filter (all partitions), as recorded by RocksDB
	CreationTime      uint64
	FileCreationTime  uint64
	FilterPolicy      string // rocksdb.filter.policy, e.g. "bloomfilter" or "ribbonfilter"
	Comparator        string // rocksdb.comparator, e.g. "leveldb.BytewiseComparator"
	PrefixExtractor   string // rocksdb.prefix.extractor.name, e.g. "rocksdb.FixedPrefix.4"
	FilterBlockName   string // metaindex name of the filter block
}

// An SST is an opened RocksDB SST file's filter. It may be queried from
// many goroutines at once; Close must not run concurrently with a query.
// Close it when done; a finalizer frees a leaked SST, but Close frees it
// (and the filter bytes it read, or the copy OpenSSTMemory made, or its
// reference to a [Cache] and the ReaderAt it kept) at once.
//
// On a closed SST, MayMatch answers true (and MayMatchBatch true for every
// key), PrefixMayMatch and FullFilter
// return an error matching [ErrClosed], FilterType returns
// SSTFilterUnsupported, Properties returns the zero value with FilterType
// SSTFilterUnsupported, and Property returns nil, false.
type SST struct {
	ptr *C.rocksfilter_sst
	mem *cBuf // OpenSSTMemory: the C copy of the file
}

func newSST(ptr *C.rocksfilter_sst, mem *cBuf) *SST {
	s := &SST{ptr: ptr, mem: mem}
	runtime.SetFinalizer(s, (*SST).Close)
	return s
}

// OpenSST opens the SST file at path: it reads the blocks the filter
// needs with pread into C memory the SST owns (the last 64 KiB of the
// file, then the filter when it lies before them: one or two reads for
// files RocksDB writes, see [SST.OpenStats]), verifies the footer and
// every block it reads, and closes the file before returning. Queries
// read only that memory, so truncating, rewriting or deleting the file
// afterwards changes no answer. For a file that is not on a local
// filesystem (an object store, an engine's own file layer), use
// [OpenSSTReaderAt]. Errors match [ErrIO], [ErrCorruption] (the
// message says what and at which offset) or [ErrNotSupported] (e.g.
// PlainTable files). When the file cannot be opened, the [ErrIO]
// error also wraps the *[io/fs.PathError] saying why, so that
// errors.Is(err, [io/fs.ErrNotExist]) holds for a missing file (and
// [io/fs.ErrPermission] for an unreadable one).
func OpenSST(path string) (*SST, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return nil, &Error{Status: StatusInvalidArgument, Op: "OpenSST", Msg: "invalid argument: path contains a NUL byte"}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out *C.rocksfilter_sst
	var msg *C.char
	st := C.rocksfilter_sst_open(cpath, &out, &msg)
	if err := statusError("OpenSST", st, msg); err != nil {
		if e := err.(*Error); e.Status == StatusIOError {
			e.wrapped = openCause(path)
		}
		return nil, err
	}
	return newSST(out, nil), nil
}

// SSTOptions are the options of [OpenSSTWithOptions] and
// [OpenSSTReaderAtWithOptions] (rocksfilter_sst_options). The zero value
// opens as [OpenSST] and [OpenSSTReaderAt] do.
type SSTOptions struct {
	// SkipChecksums does not verify block checksums
	// (ROCKSFILTER_SST_SKIP_CHECKSUMS).
	SkipChecksums bool
	// Mmap memory-maps the file instead of reading it
	// (ROCKSFILTER_SST_MMAP; OpenSSTWithOptions only, not with a Cache). It
	// saves the copy of the filter at open and risks the whole process:
	// queries then read the mapping, so a file truncated while the SST is
	// open (RocksDB's DeleteScheduler truncates the files it deletes in
	// steps) or an I/O error on a mapped page raises SIGBUS inside a query,
	// which crashes a Go program, and a file rewritten in place is queried
	// unverified. Each SST also holds one of the process's vm.max_map_count
	// mappings (65,530 by default on Linux).
	Mmap bool
	// Cache, when not nil, makes the SST keep only a partitioned filter's
	// top-level index and read each partition into the cache when a query
	// first needs it (see [Cache]). The SST keeps its own reference to the
	// cache. A query that misses reads in the querying goroutine: by path,
	// it reopens the file for the reads of that query or batch (the SST
	// holds no file descriptor), so the file must stay in place; a
	// ReaderAt is kept and called (see [OpenSSTReaderAtWithOptions]). A
	// read that fails answers "may match" for that query and is counted in
	// [CacheStats].ReadErrors. Without a cache, every filter block is read
	// at open and kept by the SST.
	Cache *Cache
	// CacheFullFilters (with a Cache only) puts whole full filters in the
	// cache too, read on first use, so that many small files also live
	// within the budget (ROCKSFILTER_SST_CACHE_FULL_FILTERS). Without it,
	// full filters are read at open and kept by their SST, outside the
	// budget; only partitions are cached.
	CacheFullFilters bool
}

// toC returns o as rocksfilter_sst_options, or an error matching
// [ErrClosed] for a closed Cache. The caller keeps o.Cache alive
// (runtime.KeepAlive) until the C call returns.
func (o SSTOptions) toC(op string) (C.rocksfilter_sst_options, error) {
	var c C.rocksfilter_sst_options
	c.struct_size = C.size_t(C.sizeof_rocksfilter_sst_options)
	if o.SkipChecksums {
		c.flags |= C.ROCKSFILTER_SST_SKIP_CHECKSUMS
	}
	if o.Mmap {
		c.flags |= C.ROCKSFILTER_SST_MMAP
	}
	if o.CacheFullFilters {
		c.flags |= C.ROCKSFILTER_SST_CACHE_FULL_FILTERS
	}
	if o.Cache != nil {
		if o.Cache.ptr == nil {
			return c, &Error{Status: StatusInvalidArgument, Op: op, Msg: "invalid argument: SSTOptions.Cache is closed", wrapped: ErrClosed}
		}
		c.cache = o.Cache.ptr
	}
	return c, nil
}

// OpenSSTWithOptions is [OpenSST] with options
// (rocksfilter_sst_open_ex): skip checksums, map the file, or share a
// [Cache] (see [SSTOptions]). Options the library refuses
// (CacheFullFilters without a Cache, Mmap with one) and a closed Cache
// give an error matching [ErrInvalidArgument] with the library's
// message (and [ErrClosed] for the closed Cache). Other errors are as
// OpenSST's.
func OpenSSTWithOptions(path string, opts SSTOptions) (*SST, error) {
	const op = "OpenSSTWithOptions"
	if strings.IndexByte(path, 0) >= 0 {
		return nil, &Error{Status: StatusInvalidArgument, Op: op, Msg: "invalid argument: path contains a NUL byte"}
	}
	copts, err := opts.toC(op)
	if err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out *C.rocksfilter_sst
	var msg *C.char
	st := C.rocksfilter_sst_open_ex(cpath, &copts, &out, &msg)
	runtime.KeepAlive(opts.Cache)
	if err := statusError(op, st, msg); err != nil {
		if e := err.(*Error); e.Status == StatusIOError {
			e.wrapped = openCause(path)
		}
		return nil, err
	}
	return newSST(out, nil), nil
}

// openCause returns why path cannot be opened for reading, as the
// *fs.PathError of os.Stat or os.Open, or nil if it can be (the C
// library's I/O error then came later, reading the file). It
// opens regular files only: opening a FIFO or device could block.
func openCause(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	f.Close()
	return nil
}

// OpenSSTMemory reads an SST file held in memory. Because the C library
// reads the file in place for as long as the handle (and any filter from
// FullFilter) lives, and may not keep pointers to Go memory, data is
// copied once into C memory owned by the SST; filters from FullFilter
// share that copy, which is freed when the SST and all of them are
// closed. data may be modified or dropped right after the call. Errors as
// [OpenSST].
func OpenSSTMemory(data []byte) (*SST, error) {
	mem := newCBuf(data)
	var out *C.rocksfilter_sst
	var msg *C.char
	st := C.rocksfilter_sst_open_memory((*C.uint8_t)(mem.p), C.size_t(mem.n), &out, &msg)
	if err := statusError("OpenSSTMemory", st, msg); err != nil {
		mem.release()
		return nil, err
	}
	return newSST(out, mem), nil
}

// MayMatch reports whether the file can hold key; false is definite. It
// answers as RocksDB's Get consults the filter: by the whole key, or by
// its prefix when the file was written without whole-key filtering. Files
// without a readable filter answer true.
func (s *SST) MayMatch(key []byte) bool {
	if s == nil || s.ptr == nil {
		return true
	}
	p, n := keyArg(key)
	r := C.rocksfilter_sst_may_match(s.ptr, p, n)
	runtime.KeepAlive(s)
	return bool(r)
}

// MayMatchBatch answers MayMatch for every key: result i answers keys[i],
// exactly as MayMatch(keys[i]) would. It passes the keys as one packed
// buffer (in place when they lie back to back in one backing array, else
// copied) and makes a single C call (rocksfilter_sst_may_match_packed),
// which groups the keys by filter partition and hashes and prefetches each
// group before probing, so it costs much less per key than a loop of
// MayMatch calls. It allocates the result; use [SST.MayMatchBatchInto] to
// reuse one. On a closed SST every answer is true.
func (s *SST) MayMatchBatch(keys [][]byte) []bool {
	res := make([]bool, len(keys))
	s.MayMatchBatchInto(res, keys)
	return res
}

// MayMatchBatchInto is [SST.MayMatchBatch] writing the answers into the
// caller's out (destination first, as in copy): out[i] answers keys[i] for
// every i < len(keys), and out[len(keys):] is left alone. It panics if out
// is shorter than keys. It does not allocate: the packing buffer (for keys
// that are not already back to back in one array) is reused from call to call (for batches whose keys total at most 1 MiB; bigger
// ones get a fresh buffer each time).
func (s *SST) MayMatchBatchInto(out []bool, keys [][]byte) {
	batchInto("SST.MayMatchBatchInto", out, keys, s != nil && s.ptr != nil,
		func(buf *C.uint8_t, bufLen C.size_t, offs *C.size_t, n C.size_t, res *C.bool) C.rocksfilter_status {
			return C.rocksfilter_sst_may_match_packed(s.ptr, buf, bufLen, offs, n, res, nil)
		})
	runtime.KeepAlive(s)
}

// MayMatchPackedInto is [Filter.MayMatchPackedInto] for the SST: key i is
// buf[offs[i]:offs[i+1]] (an engine's key arena, passed to the one C call
// as it is: no packing, no copy), out[i] answers it exactly as MayMatch
// would. It panics if out has fewer than len(offs)-1 entries; bad offsets
// are an error matching [ErrInvalidArgument], and on any error (or a closed
// SST) every answer is true.
func (s *SST) MayMatchPackedInto(out []bool, buf []byte, offs []uint64) error {
	err := packedInto("SST.MayMatchPackedInto", out, buf, offs, s != nil && s.ptr != nil,
		func(bp *C.uint8_t, bn C.size_t, op *C.size_t, n C.size_t, res *C.bool, msg **C.char) C.rocksfilter_status {
			return C.rocksfilter_sst_may_match_packed(s.ptr, bp, bn, op, n, res, msg)
		})
	runtime.KeepAlive(s)
	return err
}

// PrefixMayMatch reports whether the file can hold a key with this prefix,
// given exactly as the file's prefix extractor produces it. The error
// matches [ErrNotSupported] when the file has no prefix filter and
// [ErrInvalidArgument] when the prefix cannot come from the file's
// extractor (e.g. the wrong length for rocksdb.FixedPrefix.N); the answer
// is then true.
func (s *SST) PrefixMayMatch(prefix []byte) (bool, error) {
	if s == nil || s.ptr == nil {
		return true, closedError("SST.PrefixMayMatch")
	}
	p, n := keyArg(prefix)
	var r C.bool
	var msg *C.char
	st := C.rocksfilter_sst_prefix_may_match(s.ptr, p, n, &r, &msg)
	runtime.KeepAlive(s)
	if err := statusError("SST.PrefixMayMatch", st, msg); err != nil {
		return true, err
	}
	return bool(r), nil
}

// FullFilter returns the file's full filter as a Filter sharing the
// SST's bytes (no copy). It stays valid after the SST is closed; close
// it separately. The error matches [ErrNotFound] when the filter is
// partitioned or absent, and [ErrNotSupported] when it is of a kind this
// library cannot read.
func (s *SST) FullFilter() (*Filter, error) {
	if s == nil || s.ptr == nil {
		return nil, closedError("SST.FullFilter")
	}
	var out *C.rocksfilter_filter
	var msg *C.char
	st := C.rocksfilter_sst_full_filter(s.ptr, &out, &msg)
	runtime.KeepAlive(s)
	if err := statusError("SST.FullFilter", st, msg); err != nil {
		return nil, err
	}
	f := newFilter(out)
	if s.mem != nil {
		s.mem.acquire()
		f.mem = s.mem
	}
	return f, nil
}

// FilterType returns what filter the file has.
func (s *SST) FilterType() SSTFilterType {
	if s == nil || s.ptr == nil {
		return SSTFilterUnsupported
	}
	t := C.rocksfilter_sst_filter_type(s.ptr)
	runtime.KeepAlive(s)
	return SSTFilterType(t)
}

// Properties returns the file's format and table properties, copied into
// Go memory.
func (s *SST) Properties() SSTProperties {
	if s == nil || s.ptr == nil {
		return SSTProperties{FilterType: SSTFilterUnsupported}
	}
	var cp C.rocksfilter_sst_properties
	var msg *C.char
	st := C.rocksfilter_sst_get_properties_ex(s.ptr, &cp, &msg)
	if statusError("Properties", st, msg) != nil {
		runtime.KeepAlive(s)
		return SSTProperties{FilterType: SSTFilterUnsupported}
	}
	p := SSTProperties{
		FormatVersion:     int(cp.format_version),
		ChecksumType:      int(cp.checksum_type),
		FilterType:        SSTFilterType(cp.filter_type),
		NumPartitions:     int(cp.num_partitions),
		WholeKeyFiltering: bool(cp.whole_key_filtering),
		HasPrefixFilter:   bool(cp.has_prefix_filter),
		NumEntries:        uint64(cp.num_entries),
		NumFilterEntries:  uint64(cp.num_filter_entries),
		FilterSize:        uint64(cp.filter_size),
		CreationTime:      uint64(cp.creation_time),
		FileCreationTime:  uint64(cp.file_creation_time),
		FilterPolicy:      goString(cp.filter_policy),
		Comparator:        goString(cp.comparator),
		PrefixExtractor:   goString(cp.prefix_extractor),
		FilterBlockName:   goString(cp.filter_block_name),
	}
	// The strings are owned by the handle: copy them before it may go.
	runtime.KeepAlive(s)
	return p
}

// Property returns a copy of the raw bytes of the table property name,
// e.g. "rocksdb.num.entries" (a varint) or "rocksdb.comparator" (a
// string), and whether the file has it.
func (s *SST) Property(name string) ([]byte, bool) {
	if s == nil || s.ptr == nil || strings.IndexByte(name, 0) >= 0 {
		return nil, false
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var n C.size_t
	p := C.rocksfilter_sst_property(s.ptr, cname, &n)
	var out []byte
	if p != nil {
		out = cCopy(p, n)
	}
	runtime.KeepAlive(s)
	return out, p != nil
}

// Close frees the SST (and the filter bytes it read once no filter from
// FullFilter uses them, or the copy made by OpenSSTMemory once none
// uses it). It is safe to
// call more than once and always returns nil.
func (s *SST) Close() error {
	if s == nil || s.ptr == nil {
		return nil
	}
	C.rocksfilter_sst_free(s.ptr)
	s.ptr = nil
	if s.mem != nil {
		s.mem.release()
		s.mem = nil
	}
	runtime.SetFinalizer(s, nil)
	return nil
}

func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}
