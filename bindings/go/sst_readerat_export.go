package rocksfilter

// The read_at callback of OpenSSTReaderAt. A file with an //export may
// have only declarations in its preamble, so the C side of the open is in
// sst_readerat.go.

/*
#include <stddef.h>
#include <stdint.h>

// sst_readerat.go's declaration of the callback: _cgo_export.c sees it
// beside cgo's own prototype, so a Go signature that drifts from it fails
// to compile.
extern int rocksfilterGoReadAt(void *ctx, uint64_t offset, uint8_t *dst, size_t n);
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// rocksfilterGoReadAt is rocksfilter_source.read_at for OpenSSTReaderAt:
// ctx is the cgo.Handle of its *readerAtSource, dst the library's buffer
// (C memory) for n bytes at offset.
//
//export rocksfilterGoReadAt
func rocksfilterGoReadAt(ctx unsafe.Pointer, offset C.uint64_t, dst *C.uint8_t, n C.size_t) C.int {
	src := cgo.Handle(uintptr(ctx)).Value().(*readerAtSource)
	var p []byte
	if n > 0 {
		p = unsafe.Slice((*byte)(unsafe.Pointer(dst)), int(n))
	}
	return src.readAt(uint64(offset), p)
}
