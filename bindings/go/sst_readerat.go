package rocksfilter

/*
#include <stdint.h>
#include "rocksfilter.h"

// The //exports of sst_readerat_export.go, declared by hand: _cgo_export.h
// does not exist yet when cgo reads this preamble. They take the
// runtime/cgo.Handle of the reader as an integer: it never becomes an
// unsafe.Pointer in Go (which the garbage collector could mistake for a
// pointer); the functions below convert it to and from the library's void *.
extern int rocksfilterGoReadAt(uintptr_t handle, uint64_t offset, uint8_t *dst, size_t n);
extern void rocksfilterGoRelease(uintptr_t handle);

static int go_read_at(void *ctx, uint64_t offset, uint8_t *dst, size_t n) {
	return rocksfilterGoReadAt((uintptr_t)ctx, offset, dst, n);
}

static void go_release(void *ctx) {
	rocksfilterGoRelease((uintptr_t)ctx);
}

// rocksfilter_sst_open_source_ex through go_read_at, with ctx the
// runtime/cgo.Handle of the reader and go_release to delete it. The
// source lives on the C stack (the library copies its fields), so no Go
// memory is handed to the library.
static rocksfilter_status go_open_reader_at(uint64_t size, uintptr_t handle,
                                            const struct rocksfilter_sst_options *opts,
                                            struct rocksfilter_sst **out, char **errptr) {
	struct rocksfilter_source src = {0};
	src.struct_size = sizeof src;
	src.size = size;
	src.ctx = (void *)handle;
	src.read_at = go_read_at;
	src.release = go_release;
	return rocksfilter_sst_open_source_ex(&src, opts, out, errptr);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
)

// OpenSSTReaderAt opens the SST file of size bytes that r reads: an
// object in a store read by ranged GETs, a file of an engine's own file
// layer, an encrypted or remote file. It reads only during the call, on
// the calling goroutine, one ReadAt at a time, and few ranges: the last
// 64 KiB of the file (all of it when smaller: footer, metaindex and
// properties), then at most one more for a full or partitioned filter
// (its block, or every partition and their index), or for the block-based
// filter of RocksDB < 7.0 one from the filter to the end of the table's
// index. Files RocksDB writes thus take one or two ReadAt calls (at most
// three for block-based filters); [SST.OpenStats] says how many it made.
// The SST owns what it queries and never calls r again: r may be closed
// right after the call, and the SST (and filters from its FullFilter)
// work without it. It verifies the footer and every block it reads, as
// [OpenSST] does, and answers exactly as OpenSST would for the same bytes.
// To keep r and read filter partitions on demand into a [Cache], use
// [OpenSSTReaderAtWithOptions].
//
// Each ReadAt must fill all of p: n < len(p) is an error whatever err
// says (io.EOF with n == len(p), at the end of the file, is fine), and so
// is any other non-nil err. p is C memory valid only during the call: as
// io.ReaderAt requires, ReadAt must not retain it. A panic in ReadAt is
// recovered (it must not cross into C) and fails the open like an error;
// runtime.Goexit (t.FailNow) in ReadAt is not allowed.
//
// Errors match [ErrIO], [ErrCorruption] or [ErrNotSupported] as OpenSST's
// do, and [ErrInvalidArgument] for a nil r or a negative size. When a
// ReadAt fails, the [ErrIO] error says what it was asked for and what it
// returned (its error, a short count, or the panic), and wraps that cause:
// errors.Is(err, cause) holds for the ReaderAt's error (or a panic's
// value, when it is an error), and errors.Is(err, [io.ErrUnexpectedEOF])
// for a short read. An ErrIO error without such a cause means the same
// range read twice gave different bytes.
func OpenSSTReaderAt(r io.ReaderAt, size int64) (*SST, error) {
	return openReaderAt("OpenSSTReaderAt", r, size, SSTOptions{})
}

// OpenSSTReaderAtWithOptions is [OpenSSTReaderAt] with options
// (rocksfilter_sst_open_source_ex): SkipChecksums, and a [Cache] with
// CacheFullFilters ([SSTOptions]; Mmap is an error matching
// [ErrInvalidArgument], as are the other misuses OpenSSTWithOptions
// refuses). Without a Cache it is OpenSSTReaderAt.
//
// With a Cache, the SST keeps r for as long as it lives and calls r's
// ReadAt whenever a query needs a filter block the cache does not hold:
// from the goroutine making the query, so from many goroutines at once
// when the SST is queried concurrently. io.ReaderAt's contract already
// allows that (clients may execute parallel ReadAt calls on the same
// source); a ReaderAt that cannot serve them must serialise them itself.
// r must stay usable until the SST is closed: the SST does not close it,
// and drops its reference to it when Close (or the finalizer of a leaked
// SST) frees the handle. The rules for each ReadAt are OpenSSTReaderAt's;
// a ReadAt that fails, returns too few bytes or panics during a query
// makes that query answer "may match" (nothing is cached, and the failure
// is counted in [CacheStats].ReadErrors).
func OpenSSTReaderAtWithOptions(r io.ReaderAt, size int64, opts SSTOptions) (*SST, error) {
	return openReaderAt("OpenSSTReaderAtWithOptions", r, size, opts)
}

func openReaderAt(op string, r io.ReaderAt, size int64, opts SSTOptions) (*SST, error) {
	if r == nil {
		return nil, &Error{Status: StatusInvalidArgument, Op: op, Msg: "invalid argument: r is nil"}
	}
	if size < 0 {
		return nil, &Error{Status: StatusInvalidArgument, Op: op, Msg: fmt.Sprintf("invalid argument: size %d is negative", size)}
	}
	copts, err := opts.toC(op)
	if err != nil {
		return nil, err
	}
	src := &readerAtSource{r: r}
	// The handle keeps src (and r) reachable from Go's side for as long as
	// the library may call back with it. From here on it is the library's:
	// it calls release, which alone deletes the handle, exactly once:
	// before rocksfilter_sst_open_source_ex returns when the SST keeps no
	// source (no cache, or a failed open), else when the SST is freed.
	h := cgo.NewHandle(src)
	readerAtHandles.made.Add(1)
	var out *C.rocksfilter_sst
	var msg *C.char
	st := C.go_open_reader_at(C.uint64_t(size), C.uintptr_t(h), &copts, &out, &msg)
	runtime.KeepAlive(opts.Cache)
	if err := statusError(op, st, msg); err != nil {
		if cause := src.openErr(); cause != nil {
			// The library's message names the offset, the length and the
			// code; cause says what ReadAt returned.
			e := err.(*Error)
			e.Msg += ": " + cause.Error()
			e.wrapped = cause
		}
		return nil, err
	}
	return newSST(out, nil), nil
}

// readerAtHandles counts the cgo.Handles of readerAtSources made and
// released (the tests check that every one is released exactly once).
var readerAtHandles struct{ made, released atomic.Int64 }

// readerAtSource is what the cgo.Handle in rocksfilter_source.ctx refers
// to, from the open until the library releases it.
type readerAtSource struct {
	r   io.ReaderAt
	mu  sync.Mutex
	err error // why the last failed ReadAt failed (an open stops at its first)
}

// openErr returns why the read that failed the open failed, or nil.
func (s *readerAtSource) openErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// fail records why a read failed and returns rc. Reads of a cached SST
// run on many goroutines at once, hence the lock; only an open reads err.
func (s *readerAtSource) fail(rc C.int, err error) C.int {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	return rc
}

// read_at's non-zero results; the library's message quotes the code, and
// openReaderAt appends readerAtSource.err.
const (
	readAtError    = 1 // ReadAt returned an error
	readAtShort    = 2 // ReadAt returned fewer bytes than asked (or a count out of range)
	readAtPanicked = 3 // ReadAt panicked
)

// readAt fills p with the bytes at off through s.r, and returns 0 or one of
// the readAt* codes after recording why in s.err. It may run on many
// goroutines at once.
func (s *readerAtSource) readAt(off uint64, p []byte) (rc C.int) {
	what := func() string { return fmt.Sprintf("ReadAt of %d bytes at offset %d", len(p), off) }
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				rc = s.fail(readAtPanicked, fmt.Errorf("%s panicked: %w", what(), e))
			} else {
				rc = s.fail(readAtPanicked, fmt.Errorf("%s panicked: %v", what(), v))
			}
		}
	}()
	if off > uint64(1<<63-1) { // never asked: the library stays below size, an int64
		return s.fail(readAtError, fmt.Errorf("%s: offset beyond int64", what()))
	}
	n, err := s.r.ReadAt(p, int64(off))
	switch {
	case n < 0 || n > len(p):
		return s.fail(readAtShort, fmt.Errorf("%s returned n = %d (error: %v)", what(), n, err))
	case n < len(p) && (err == nil || errors.Is(err, io.EOF)):
		return s.fail(readAtShort, fmt.Errorf("%s returned %d bytes and %v: %w", what(), n, errString(err), io.ErrUnexpectedEOF))
	case err != nil && !errors.Is(err, io.EOF):
		return s.fail(readAtError, fmt.Errorf("%s returned %d bytes and error: %w", what(), n, err))
	}
	return 0
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// SSTOpenStats says what opening a file read and what its SST keeps for
// its queries (rocksfilter_sst_open_stats).
type SSTOpenStats struct {
	// Reads is the number of reads the open made: pread calls for
	// [OpenSST], ReadAt calls for [OpenSSTReaderAt], 0 for
	// [OpenSSTMemory].
	Reads uint64
	// BytesRead is the number of bytes those reads returned.
	BytesRead uint64
	// BytesHeld is the number of bytes the C library owns for the SST's
	// queries: its filter blocks, and the partition index of a
	// partitioned filter, alignment included. The SST's other memory is
	// small and fixed, plus the separators of a partitioned or
	// block-based filter's index, plus for OpenSSTMemory the copy of the
	// whole file it made.
	BytesHeld uint64
}

// OpenStats returns what opening the file read and what the SST keeps.
// A closed SST returns the zero value.
func (s *SST) OpenStats() SSTOpenStats {
	if s == nil || s.ptr == nil {
		return SSTOpenStats{}
	}
	var cs C.rocksfilter_sst_open_stats
	cs.struct_size = C.uint32_t(C.sizeof_rocksfilter_sst_open_stats)
	var msg *C.char
	st := C.rocksfilter_sst_get_open_stats(s.ptr, &cs, &msg)
	runtime.KeepAlive(s)
	if statusError("SST.OpenStats", st, msg) != nil {
		return SSTOpenStats{}
	}
	return SSTOpenStats{Reads: uint64(cs.reads), BytesRead: uint64(cs.bytes_read), BytesHeld: uint64(cs.bytes_held)}
}
