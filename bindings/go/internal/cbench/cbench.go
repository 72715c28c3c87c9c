// Package cbench is the C baseline of the binding's benchmarks: the same
// queries the Go benchmarks make through package rocksfilter, made from a
// loop in C over many batches per cgo call, so that the cgo call's cost is
// amortised out of the C number. It is internal and test-support only.
//
// It declares the few C functions it calls itself rather than including
// rocksfilter.h, and gets the library from package rocksfilter's link
// flags (it imports it), so it builds wherever that package builds.
package cbench

/*
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct rocksfilter_filter rocksfilter_filter;
typedef struct rocksfilter_sst rocksfilter_sst;
int rocksfilter_filter_load(const uint8_t *data, size_t len, rocksfilter_filter **out, char **errptr);
void rocksfilter_filter_free(rocksfilter_filter *f);
bool rocksfilter_filter_may_match(const rocksfilter_filter *f, const uint8_t *key, size_t len);
void rocksfilter_filter_may_match_batch(const rocksfilter_filter *f, const uint8_t *const *keys,
                                        const size_t *lens, size_t n, bool *results);
int rocksfilter_filter_may_match_packed(const rocksfilter_filter *f, const uint8_t *buf, size_t buf_len,
                                        const size_t *offsets, size_t n, bool *results, char **errptr);
int rocksfilter_sst_open(const char *path, rocksfilter_sst **out, char **errptr);
void rocksfilter_sst_free(rocksfilter_sst *s);
bool rocksfilter_sst_may_match(const rocksfilter_sst *s, const uint8_t *key, size_t len);
void rocksfilter_sst_may_match_batch(const rocksfilter_sst *s, const uint8_t *const *keys,
                                     const size_t *lens, size_t n, bool *results);
int rocksfilter_sst_may_match_packed(const rocksfilter_sst *s, const uint8_t *buf, size_t buf_len,
                                     const size_t *offsets, size_t n, bool *results, char **errptr);
void rocksfilter_string_free(char *s);

// The probe keys in C memory: key i is buf[offs[i] .. offs[i+1]], also as
// ptrs[i] / lens[i].
typedef struct {
  uint8_t *buf;
  size_t *offs;
  const uint8_t **ptrs;
  size_t *lens;
  size_t n;
  bool *results;
} cbench_keys;

enum { CBENCH_SINGLE = 0, CBENCH_BATCH = 1, CBENCH_PACKED = 2 };

// Queries count keys starting at key first (wrapping around), batch keys
// per call, with the filter (f) or the SST (s); returns how many may match.
static size_t cbench_run(const rocksfilter_filter *f, const rocksfilter_sst *s, const cbench_keys *k,
                         int mode, size_t batch, size_t first, size_t count) {
  size_t matched = 0, done = 0, i = first % k->n;
  while (done < count) {
    size_t m = batch;
    if (m > count - done) m = count - done;
    if (m > k->n - i) m = k->n - i;
    switch (mode) {
      case CBENCH_SINGLE:
        for (size_t j = 0; j < m; j++)
          matched += f ? rocksfilter_filter_may_match(f, k->ptrs[i + j], k->lens[i + j])
                       : rocksfilter_sst_may_match(s, k->ptrs[i + j], k->lens[i + j]);
        break;
      case CBENCH_BATCH:
        if (f) rocksfilter_filter_may_match_batch(f, k->ptrs + i, k->lens + i, m, k->results);
        else rocksfilter_sst_may_match_batch(s, k->ptrs + i, k->lens + i, m, k->results);
        for (size_t j = 0; j < m; j++) matched += k->results[j];
        break;
      default: {
        // Key j of the call is buf[offs[i+j] .. offs[i+j+1]]: the offsets
        // are absolute, so the whole buffer is passed.
        int st = f ? rocksfilter_filter_may_match_packed(f, k->buf, k->offs[k->n], k->offs + i, m, k->results, NULL)
                   : rocksfilter_sst_may_match_packed(s, k->buf, k->offs[k->n], k->offs + i, m, k->results, NULL);
        if (st != 0) return (size_t)-1;
        for (size_t j = 0; j < m; j++) matched += k->results[j];
      }
    }
    done += m;
    i += m;
    if (i == k->n) i = 0;
  }
  return matched;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	// For its link flags: the library this package calls.
	_ "github.com/rocksfilter/rocksfilter/bindings/go"
)

// Mode is how the C loop queries.
type Mode int

const (
	Single Mode = C.CBENCH_SINGLE // one rocksfilter_*_may_match call per key
	Batch  Mode = C.CBENCH_BATCH  // rocksfilter_*_may_match_batch (pointer and length arrays)
	Packed Mode = C.CBENCH_PACKED // rocksfilter_*_may_match_packed (one buffer plus offsets)
)

// Keys are probe keys copied into C memory, laid out contiguously in
// order (as the Go benchmarks lay theirs out).
type Keys struct {
	k C.cbench_keys
}

// NewKeys copies keys into C memory. Batches are at most maxBatch keys.
func NewKeys(keys [][]byte, maxBatch int) *Keys {
	n := len(keys)
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	ck := &Keys{}
	ck.k.n = C.size_t(n)
	ck.k.buf = (*C.uint8_t)(C.malloc(C.size_t(total + 1)))
	ck.k.offs = (*C.size_t)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(C.size_t(0)))))
	ck.k.ptrs = (**C.uint8_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	ck.k.lens = (*C.size_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.size_t(0)))))
	ck.k.results = (*C.bool)(C.malloc(C.size_t(maxBatch)))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(ck.k.buf)), total+1)
	offs := unsafe.Slice(ck.k.offs, n+1)
	ptrs := unsafe.Slice(ck.k.ptrs, n)
	lens := unsafe.Slice(ck.k.lens, n)
	pos := 0
	for i, k := range keys {
		offs[i] = C.size_t(pos)
		ptrs[i] = (*C.uint8_t)(unsafe.Add(unsafe.Pointer(ck.k.buf), pos))
		lens[i] = C.size_t(len(k))
		pos += copy(buf[pos:], k)
	}
	offs[n] = C.size_t(pos)
	return ck
}

// Len is the number of keys.
func (k *Keys) Len() int { return int(k.k.n) }

// Free releases the C memory.
func (k *Keys) Free() {
	C.free(unsafe.Pointer(k.k.buf))
	C.free(unsafe.Pointer(k.k.offs))
	C.free(unsafe.Pointer(k.k.ptrs))
	C.free(unsafe.Pointer(k.k.lens))
	C.free(unsafe.Pointer(k.k.results))
	k.k = C.cbench_keys{}
}

func takeErr(what string, msg *C.char) error {
	if msg == nil {
		return errors.New(what + " failed")
	}
	defer C.rocksfilter_string_free(msg)
	return errors.New(what + ": " + C.GoString(msg))
}

// Filter is a filter block loaded by C (its own handle, from the same
// bytes as the Go benchmark's).
type Filter struct{ p *C.rocksfilter_filter }

// LoadFilter loads block (copied) with rocksfilter_filter_load.
func LoadFilter(block []byte) (*Filter, error) {
	var out *C.rocksfilter_filter
	var msg *C.char
	var p *C.uint8_t
	if len(block) > 0 {
		p = (*C.uint8_t)(unsafe.Pointer(&block[0]))
	}
	if C.rocksfilter_filter_load(p, C.size_t(len(block)), &out, &msg) != 0 {
		return nil, takeErr("rocksfilter_filter_load", msg)
	}
	return &Filter{out}, nil
}

// Run queries count keys from key first on (wrapping), batch per call,
// in one C loop; it returns how many may match.
func (f *Filter) Run(mode Mode, k *Keys, batch, first, count int) int {
	return int(C.cbench_run(f.p, nil, &k.k, C.int(mode), C.size_t(batch), C.size_t(first), C.size_t(count)))
}

// Close frees the handle.
func (f *Filter) Close() { C.rocksfilter_filter_free(f.p); f.p = nil }

// SST is an SST file opened by C (rocksfilter_sst_open).
type SST struct{ p *C.rocksfilter_sst }

// OpenSST opens path with rocksfilter_sst_open.
func OpenSST(path string) (*SST, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var out *C.rocksfilter_sst
	var msg *C.char
	if C.rocksfilter_sst_open(cpath, &out, &msg) != 0 {
		return nil, takeErr("rocksfilter_sst_open", msg)
	}
	return &SST{out}, nil
}

// Run is [Filter.Run] on the SST.
func (s *SST) Run(mode Mode, k *Keys, batch, first, count int) int {
	return int(C.cbench_run(nil, s.p, &k.k, C.int(mode), C.size_t(batch), C.size_t(first), C.size_t(count)))
}

// Close frees the handle.
func (s *SST) Close() { C.rocksfilter_sst_free(s.p); s.p = nil }
