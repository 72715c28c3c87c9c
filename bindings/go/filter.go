package rocksfilter

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Kind says what a loaded filter block holds (rocksfilter_kind). The
// constants are named after C's ROCKSFILTER_KIND_* values; String returns
// the name without the prefix, e.g. "FastLocalBloom".
type Kind int

const (
	// KindAlwaysFalse is a block of 5 bytes or fewer: no keys, every query
	// answers false.
	KindAlwaysFalse Kind = 0
	// KindAlwaysTrue is a reserved or future format: every query answers
	// true (RocksDB's rule). Closed filters report it too.
	KindAlwaysTrue        Kind = 1
	KindFastLocalBloom    Kind = 2 // written by the Bloom policy
	KindStandard128Ribbon Kind = 3 // written by the Ribbon policy
	KindLegacyBloom       Kind = 4 // written by the LegacyBloom policy
)

// The former names of the Kind constants, kept so that existing code
// builds.
const (
	// Deprecated: use KindAlwaysFalse.
	AlwaysFalse = KindAlwaysFalse
	// Deprecated: use KindAlwaysTrue.
	AlwaysTrue = KindAlwaysTrue
	// Deprecated: use KindFastLocalBloom.
	FastLocalBloom = KindFastLocalBloom
	// Deprecated: use KindStandard128Ribbon.
	Standard128Ribbon = KindStandard128Ribbon
	// Deprecated: use KindLegacyBloom (LegacyBloom is the Policy).
	LegacyBloomKind = KindLegacyBloom
)

// String returns the kind name, e.g. "FastLocalBloom".
func (k Kind) String() string {
	switch k {
	case KindAlwaysFalse:
		return "AlwaysFalse"
	case KindAlwaysTrue:
		return "AlwaysTrue"
	case KindFastLocalBloom:
		return "FastLocalBloom"
	case KindStandard128Ribbon:
		return "Standard128Ribbon"
	case KindLegacyBloom:
		return "LegacyBloom"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Info is the geometry of a loaded filter (rocksfilter_filter_info_ex).
type Info struct {
	Kind Kind
	// Bytes is the whole block length, 5-byte trailer included.
	Bytes int
	// NumProbes is the number of probes per key (Bloom kinds; else 0).
	NumProbes int
	// NumLines is the number of cache lines (LegacyBloom; else 0).
	NumLines int
	// LineBytes is the cache-line size the block was written with
	// (LegacyBloom; FastLocalBloom: 64; else 0).
	LineBytes int
	// NumBlocks is the number of 128-slot blocks (Ribbon; else 0).
	NumBlocks int
	// Seed is the hash seed (0..255) the Ribbon builder settled on.
	Seed int
	// LowerNumColumns is the number of solution columns per slot in Ribbon
	// blocks before UpperStartBlock; blocks from there on have one more.
	LowerNumColumns int
	// UpperStartBlock is the first Ribbon block with LowerNumColumns+1
	// columns.
	UpperStartBlock int
}

// A Filter is a loaded, immutable filter block. It may be queried from
// many goroutines at once; Close must not run concurrently with a query.
// Close it when done; a finalizer frees a leaked Filter, but Close frees
// it (and unpins or frees the memory behind it) at once.
//
// On a closed Filter, queries answer true, Kind returns KindAlwaysTrue,
// Info returns Info{Kind: KindAlwaysTrue}, EstimatedFPRate returns 1 and Bytes
// returns nil.
type Filter struct {
	ptr    *C.rocksfilter_filter
	pinner runtime.Pinner // LoadBorrowed: pins the caller's block
	mem    *cBuf          // filters of OpenSSTMemory files: the file copy
}

func newFilter(ptr *C.rocksfilter_filter) *Filter {
	f := &Filter{ptr: ptr}
	runtime.SetFinalizer(f, (*Filter).Close)
	return f
}

// Load loads a filter block, copying it into C memory: block may be
// modified or dropped right after. Blocks of 5 bytes or fewer (including
// an empty one) load as KindAlwaysFalse; reserved or unknown formats as
// KindAlwaysTrue; a block whose declared geometry does not fit its length is
// an error matching [ErrCorruption].
func Load(block []byte) (*Filter, error) {
	var out *C.rocksfilter_filter
	var msg *C.char
	p, n := keyArg(block)
	st := C.rocksfilter_filter_load(p, n, &out, &msg)
	if err := statusError("Load", st, msg); err != nil {
		return nil, err
	}
	return newFilter(out), nil
}

// LoadBorrowed is [Load] without the copy: the filter reads block in
// place. Because the C library keeps a pointer to block, LoadBorrowed pins
// block's backing array with a [runtime.Pinner] (as the cgo pointer rules
// require) until the Filter is closed or finalized. Until then the caller
// must not modify block, and its whole backing array stays allocated even
// if the caller drops every other reference to it. Memory not allocated
// by Go (e.g. from mmap) is accepted and left as is; it must stay mapped
// until Close.
func LoadBorrowed(block []byte) (*Filter, error) {
	f := &Filter{}
	p, n := keyArg(block)
	if p != nil {
		f.pinner.Pin(p)
	}
	var out *C.rocksfilter_filter
	var msg *C.char
	st := C.rocksfilter_filter_load_borrowed(p, n, &out, &msg)
	if err := statusError("LoadBorrowed", st, msg); err != nil {
		f.pinner.Unpin()
		return nil, err
	}
	f.ptr = out
	runtime.SetFinalizer(f, (*Filter).Close)
	return f, nil
}

// MayMatch reports whether key may have been added. false is definite;
// true may be a false positive.
func (f *Filter) MayMatch(key []byte) bool {
	if f == nil || f.ptr == nil {
		return true
	}
	p, n := keyArg(key)
	r := C.rocksfilter_filter_may_match(f.ptr, p, n)
	runtime.KeepAlive(f)
	return bool(r)
}

// MayMatchHash is MayMatch for a key given by its [Hash64]. On a
// LegacyBloom filter, built from a different 32-bit hash, it always
// answers true; use MayMatch there.
func (f *Filter) MayMatchHash(h uint64) bool {
	if f == nil || f.ptr == nil {
		return true
	}
	r := C.rocksfilter_filter_may_match_hash(f.ptr, C.uint64_t(h))
	runtime.KeepAlive(f)
	return bool(r)
}

// packBuf holds the scratch memory of a batch query.
type packBuf struct {
	buf  []byte
	offs []C.size_t
}

var packPool = sync.Pool{New: func() any { return new(packBuf) }}

// MayMatchBatch answers MayMatch for every key: result i answers keys[i].
// It passes the keys as one packed buffer (in place when they lie back to
// back in one backing array, else copied) and makes a single C call,
// which hashes and prefetches ahead of probing, so it costs much less per
// key than a loop of MayMatch calls. It allocates the result; use
// [Filter.MayMatchBatchInto] to reuse one.
func (f *Filter) MayMatchBatch(keys [][]byte) []bool {
	res := make([]bool, len(keys))
	f.MayMatchBatchInto(res, keys)
	return res
}

// MayMatchBatchInto is [Filter.MayMatchBatch] writing the answers into
// the caller's out (destination first, as in copy): out[i] answers keys[i]
// for every i < len(keys), and out[len(keys):] is left alone. It panics if
// out is shorter than keys. It does not allocate: the packing buffer (for
// keys that are not already back to back in one array) is reused from call
// to call (for batches whose keys total at most 1 MiB;
// bigger ones get a fresh buffer each time).
func (f *Filter) MayMatchBatchInto(out []bool, keys [][]byte) {
	batchInto("MayMatchBatchInto", out, keys, f != nil && f.ptr != nil,
		func(buf *C.uint8_t, bufLen C.size_t, offs *C.size_t, n C.size_t, res *C.bool) C.rocksfilter_status {
			return C.rocksfilter_filter_may_match_packed(f.ptr, buf, bufLen, offs, n, res, nil)
		})
	runtime.KeepAlive(f)
}

// batchInto is the body of the packed batch calls (Filter and SST
// MayMatchBatchInto): out[:len(keys)] gets call's answers, or true for
// every key when the handle is closed (open false) or the call fails, so
// no answer is a false negative. call makes the one C call on the packed
// keys; the caller keeps its handle alive across it.
func batchInto(method string, out []bool, keys [][]byte, open bool,
	call func(buf *C.uint8_t, bufLen C.size_t, offs *C.size_t, n C.size_t, res *C.bool) C.rocksfilter_status) {
	checkBatchOut(method, out, keys)
	if len(keys) == 0 {
		return
	}
	res := out[:len(keys)]
	if open {
		pb, bp, bn, offs := packKeys(keys)
		st := call(bp, bn, offs, C.size_t(len(keys)), (*C.bool)(unsafe.Pointer(&res[0])))
		pb.release()
		if st == C.ROCKSFILTER_OK {
			return
		}
		// Unreachable (offsets are well formed); never give a false negative.
	}
	for i := range res {
		res[i] = true
	}
}

// checkBatchOut panics if out cannot hold an answer per key (method names
// the caller).
func checkBatchOut(method string, out []bool, keys [][]byte) {
	if len(out) < len(keys) {
		panic("rocksfilter: " + method + ": len(out) = " + strconv.Itoa(len(out)) +
			" < len(keys) = " + strconv.Itoa(len(keys)))
	}
}

// packKeys lays keys out for the _packed C calls, which take no Go
// pointers to Go pointers: one buffer and its n+1 offsets (key i is
// buf[offs[i]:offs[i+1]]). Keys that already lie back to back in one
// backing array, in order (slices of one buffer, as keys decoded from a
// block or a message are), are passed in place: that array is the buffer,
// and nothing is copied. Other keys are copied into a pooled buffer. keys
// must not be empty. The caller passes the returned pointers to one C call,
// then calls pb.release().
func packKeys(keys [][]byte) (pb *packBuf, buf *C.uint8_t, bufLen C.size_t, offs *C.size_t) {
	pb = packPool.Get().(*packBuf)
	if cap(pb.offs) < len(keys)+1 {
		pb.offs = make([]C.size_t, len(keys)+1)
	}
	o := pb.offs[:len(keys)+1]
	if b, ok := inPlace(keys, o); ok {
		bp, bn := keyArg(b)
		return pb, bp, bn, &o[0]
	}
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	if cap(pb.buf) < total {
		pb.buf = make([]byte, total)
	}
	b := pb.buf[:total]
	pos := 0
	for i, k := range keys {
		o[i] = C.size_t(pos)
		pos += copy(b[pos:], k)
	}
	o[len(keys)] = C.size_t(pos)
	bp, bn := keyArg(b)
	return pb, bp, bn, &o[0]
}

// inPlace reports whether every non-empty key starts where the one before
// it ended, all within the backing array of the first non-empty key (its
// capacity bounds that array, so the check never looks past it); if so, it
// fills offs and returns that array's prefix holding the keys, which is
// passed to C as it is (a Go pointer to memory holding no Go pointers, as
// the cgo rules allow). Only addresses are compared: no pointer is made
// from an integer.
func inPlace(keys [][]byte, offs []C.size_t) ([]byte, bool) {
	first := -1
	for i, k := range keys {
		if len(k) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		for i := range offs {
			offs[i] = 0
		}
		return nil, true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(keys[first])))
	limit := uintptr(cap(keys[first]))
	pos := uintptr(0)
	for i, k := range keys {
		offs[i] = C.size_t(pos)
		if len(k) == 0 {
			continue
		}
		if uintptr(unsafe.Pointer(unsafe.SliceData(k))) != base+pos || uintptr(len(k)) > limit-pos {
			return nil, false
		}
		pos += uintptr(len(k))
	}
	offs[len(keys)] = C.size_t(pos)
	return keys[first][:pos], true
}

// release returns pb to the pool unless its buffer grew past 1 MiB.
func (pb *packBuf) release() {
	if cap(pb.buf) <= 1<<20 {
		packPool.Put(pb)
	}
}

// Kind returns what the block holds (KindAlwaysTrue on a closed Filter).
func (f *Filter) Kind() Kind {
	if f == nil || f.ptr == nil {
		return KindAlwaysTrue
	}
	k := C.rocksfilter_filter_kind(f.ptr)
	runtime.KeepAlive(f)
	return Kind(k)
}

// Info returns the filter's geometry (Info{Kind: KindAlwaysTrue} on a closed
// Filter).
func (f *Filter) Info() Info {
	if f == nil || f.ptr == nil {
		return Info{Kind: KindAlwaysTrue}
	}
	// The extensible form: fields past the struct_size the library reports
	// filling stay zero.
	var ci C.rocksfilter_filter_info_ex
	ci.struct_size = C.uint32_t(C.sizeof_rocksfilter_filter_info_ex)
	var msg *C.char
	st := C.rocksfilter_filter_get_info_ex(f.ptr, &ci, &msg)
	runtime.KeepAlive(f)
	if statusError("Info", st, msg) != nil {
		return Info{Kind: KindAlwaysTrue}
	}
	return Info{
		Kind:            Kind(ci.kind),
		Bytes:           int(ci.bytes),
		NumProbes:       int(ci.num_probes),
		NumLines:        int(ci.num_lines),
		LineBytes:       int(ci.line_bytes),
		NumBlocks:       int(ci.num_blocks),
		Seed:            int(ci.seed),
		LowerNumColumns: int(ci.lower_num_columns),
		UpperStartBlock: int(ci.upper_start_block),
	}
}

// EstimatedFPRate returns RocksDB's estimate of the false-positive rate of
// this filter if it holds numKeys keys: 0 for KindAlwaysFalse, 1 for KindAlwaysTrue
// or a closed Filter.
func (f *Filter) EstimatedFPRate(numKeys int) float64 {
	if f == nil || f.ptr == nil {
		return 1
	}
	if numKeys < 0 {
		numKeys = 0
	}
	r := C.rocksfilter_filter_estimated_fp_rate(f.ptr, C.size_t(numKeys))
	runtime.KeepAlive(f)
	return float64(r)
}

// Bytes returns a copy of the filter's block (trailer included), or nil
// on a closed Filter.
func (f *Filter) Bytes() []byte {
	if f == nil || f.ptr == nil {
		return nil
	}
	var p *C.uint8_t
	var n C.size_t
	var msg *C.char
	st := C.rocksfilter_filter_data_ex(f.ptr, &p, &n, &msg)
	var out []byte
	if statusError("Bytes", st, msg) == nil {
		out = cCopy(p, n)
	}
	runtime.KeepAlive(f)
	return out
}

// Close frees the filter and releases the memory behind it. It is safe
// to call more than once and always returns nil.
func (f *Filter) Close() error {
	if f == nil || f.ptr == nil {
		return nil
	}
	C.rocksfilter_filter_free(f.ptr)
	f.ptr = nil
	f.pinner.Unpin()
	if f.mem != nil {
		f.mem.release()
		f.mem = nil
	}
	runtime.SetFinalizer(f, nil)
	return nil
}

// cBuf is C memory shared by an SST opened from memory and the filters
// obtained from it; it is freed when the last of them is closed.
type cBuf struct {
	p    unsafe.Pointer
	n    int
	refs atomic.Int64
}

// newCBuf copies data into C memory with one reference.
func newCBuf(data []byte) *cBuf {
	c := &cBuf{n: len(data)}
	if len(data) > 0 {
		c.p = C.malloc(C.size_t(len(data)))
		if c.p == nil {
			panic("rocksfilter: out of C memory")
		}
		copy(unsafe.Slice((*byte)(c.p), len(data)), data)
	}
	c.refs.Store(1)
	return c
}

func (c *cBuf) acquire() { c.refs.Add(1) }

func (c *cBuf) release() {
	switch r := c.refs.Add(-1); {
	case r == 0:
		C.free(c.p)
		c.p = nil
	case r < 0:
		panic("rocksfilter: cBuf released too often")
	}
}

// MayMatchPackedInto answers MayMatch for keys that already live in one
// buffer, as an engine's key arena holds them: key i is
// buf[offs[i]:offs[i+1]], so offs has one entry more than there are keys
// (offs[0] need not be 0), and out[i] answers key i. buf and offs go to the
// one C call as they are: nothing is packed, copied or allocated, so this
// is the cheapest batch call when keys are in one buffer already (use
// [Filter.MayMatchBatchInto] for a [][]byte). It panics if out has fewer
// than len(offs)-1 entries. Offsets that decrease or pass len(buf) are an
// error matching [ErrInvalidArgument]; on any error (and on a closed
// filter, [ErrClosed]) every answer is true, never a false negative.
func (f *Filter) MayMatchPackedInto(out []bool, buf []byte, offs []uint64) error {
	err := packedInto("Filter.MayMatchPackedInto", out, buf, offs, f != nil && f.ptr != nil,
		func(bp *C.uint8_t, bn C.size_t, op *C.size_t, n C.size_t, res *C.bool, msg **C.char) C.rocksfilter_status {
			return C.rocksfilter_filter_may_match_packed(f.ptr, bp, bn, op, n, res, msg)
		})
	runtime.KeepAlive(f)
	return err
}

// packedInto is the body of the MayMatchPackedInto calls (Filter and SST):
// one C call on the caller's buffer and offsets (C's size_t is 64 bits on
// every platform this binding builds for, checked below; elsewhere the
// offsets are converted into a temporary slice).
func packedInto(method string, out []bool, buf []byte, offs []uint64, open bool,
	call func(bp *C.uint8_t, bn C.size_t, op *C.size_t, n C.size_t, res *C.bool, msg **C.char) C.rocksfilter_status) error {
	if len(offs) == 0 {
		return nil
	}
	n := len(offs) - 1
	if len(out) < n {
		panic("rocksfilter: " + method + ": len(out) = " + strconv.Itoa(len(out)) +
			" < len(offs)-1 = " + strconv.Itoa(n))
	}
	if n == 0 {
		return nil
	}
	res := out[:n]
	var err error
	if !open {
		err = closedError(method)
	} else {
		var op *C.size_t
		if unsafe.Sizeof(C.size_t(0)) == unsafe.Sizeof(uint64(0)) {
			// Same size and representation: the C call reads the uint64s
			// as size_t (a Go pointer to memory holding no Go pointers).
			op = (*C.size_t)(unsafe.Pointer(&offs[0]))
		} else {
			c := make([]C.size_t, len(offs))
			for i, o := range offs {
				c[i] = C.size_t(o)
			}
			op = &c[0]
		}
		bp, bn := keyArg(buf)
		rp := (*C.bool)(unsafe.Pointer(&res[0]))
		// No errptr on the first call (taking a message's address through
		// the func value would allocate on every call); a failure, which
		// changes nothing, is asked again for its message.
		if st := call(bp, bn, op, C.size_t(n), rp, nil); st == C.ROCKSFILTER_OK {
			return nil
		}
		var msg *C.char
		err = statusError(method, call(bp, bn, op, C.size_t(n), rp, &msg), msg)
		runtime.KeepAlive(offs)
		runtime.KeepAlive(buf)
	}
	for i := range res {
		res[i] = true
	}
	return err
}
