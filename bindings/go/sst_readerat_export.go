package rocksfilter

// The read_at and release callbacks of OpenSSTReaderAt and
// OpenSSTReaderAtWithOptions. A file with an //export may have only
// declarations in its preamble, so the C side of the open is in
// sst_readerat.go.

/*
#include <stddef.h>
#include <stdint.h>

// sst_readerat.go's declarations of the callbacks: _cgo_export.c sees them
// beside cgo's own prototypes, so a Go signature that drifts from them
// fails to compile.
extern int rocksfilterGoReadAt(uintptr_t handle, uint64_t offset, uint8_t *dst, size_t n);
extern void rocksfilterGoRelease(uintptr_t handle);
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// rocksfilterGoReadAt is rocksfilter_source.read_at (through go_read_at):
// handle is the cgo.Handle of its *readerAtSource, dst the library's
// buffer (C memory) for n bytes at offset. With a cache it runs on the
// goroutines querying the SST, concurrently.
//
//export rocksfilterGoReadAt
func rocksfilterGoReadAt(handle C.uintptr_t, offset C.uint64_t, dst *C.uint8_t, n C.size_t) C.int {
	src := cgo.Handle(handle).Value().(*readerAtSource)
	var p []byte
	if n > 0 {
		p = unsafe.Slice((*byte)(unsafe.Pointer(dst)), int(n))
	}
	return src.readAt(uint64(offset), p)
}

// rocksfilterGoRelease is rocksfilter_source.release (through go_release):
// the library calls it exactly once per open, when it no longer needs the
// reader, and it is the only place the handle is deleted. (A second call
// would panic in Delete, on a deleted handle, and crash the program rather
// than go unnoticed.)
//
//export rocksfilterGoRelease
func rocksfilterGoRelease(handle C.uintptr_t) {
	cgo.Handle(handle).Delete()
	readerAtHandles.released.Add(1)
}
