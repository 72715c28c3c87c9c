package rocksfilter

// How the native library is found: see link_static.go (default) and
// link_pkgconfig.go (-tags rocksfilter_pkgconfig).

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"unsafe"
)

// headerVersion is ROCKSFILTER_VERSION_STRING of the header this package
// was compiled against.
const headerVersion = C.ROCKSFILTER_VERSION_STRING

// The exported constants are plain numbers so that go doc shows them;
// each line below fails to compile if one drifts from rocksfilter.h.
var (
	_ [-(int(StatusOK) - int(C.ROCKSFILTER_OK)) * (int(StatusOK) - int(C.ROCKSFILTER_OK))]struct{}
	_ [-(int(StatusInvalidArgument) - int(C.ROCKSFILTER_INVALID_ARGUMENT)) * (int(StatusInvalidArgument) - int(C.ROCKSFILTER_INVALID_ARGUMENT))]struct{}
	_ [-(int(StatusCorruption) - int(C.ROCKSFILTER_CORRUPTION)) * (int(StatusCorruption) - int(C.ROCKSFILTER_CORRUPTION))]struct{}
	_ [-(int(StatusNotSupported) - int(C.ROCKSFILTER_NOT_SUPPORTED)) * (int(StatusNotSupported) - int(C.ROCKSFILTER_NOT_SUPPORTED))]struct{}
	_ [-(int(StatusIOError) - int(C.ROCKSFILTER_IO_ERROR)) * (int(StatusIOError) - int(C.ROCKSFILTER_IO_ERROR))]struct{}
	_ [-(int(StatusNotFound) - int(C.ROCKSFILTER_NOT_FOUND)) * (int(StatusNotFound) - int(C.ROCKSFILTER_NOT_FOUND))]struct{}
	_ [-(int(StatusInternal) - int(C.ROCKSFILTER_INTERNAL)) * (int(StatusInternal) - int(C.ROCKSFILTER_INTERNAL))]struct{}
	_ [-(int(Bloom) - int(C.ROCKSFILTER_POLICY_BLOOM)) * (int(Bloom) - int(C.ROCKSFILTER_POLICY_BLOOM))]struct{}
	_ [-(int(Ribbon) - int(C.ROCKSFILTER_POLICY_RIBBON)) * (int(Ribbon) - int(C.ROCKSFILTER_POLICY_RIBBON))]struct{}
	_ [-(int(LegacyBloom) - int(C.ROCKSFILTER_POLICY_LEGACY_BLOOM)) * (int(LegacyBloom) - int(C.ROCKSFILTER_POLICY_LEGACY_BLOOM))]struct{}
	_ [-(int(KindAlwaysFalse) - int(C.ROCKSFILTER_KIND_ALWAYS_FALSE)) * (int(KindAlwaysFalse) - int(C.ROCKSFILTER_KIND_ALWAYS_FALSE))]struct{}
	_ [-(int(KindAlwaysTrue) - int(C.ROCKSFILTER_KIND_ALWAYS_TRUE)) * (int(KindAlwaysTrue) - int(C.ROCKSFILTER_KIND_ALWAYS_TRUE))]struct{}
	_ [-(int(KindFastLocalBloom) - int(C.ROCKSFILTER_KIND_FAST_LOCAL_BLOOM)) * (int(KindFastLocalBloom) - int(C.ROCKSFILTER_KIND_FAST_LOCAL_BLOOM))]struct{}
	_ [-(int(KindStandard128Ribbon) - int(C.ROCKSFILTER_KIND_STANDARD128_RIBBON)) * (int(KindStandard128Ribbon) - int(C.ROCKSFILTER_KIND_STANDARD128_RIBBON))]struct{}
	_ [-(int(KindLegacyBloom) - int(C.ROCKSFILTER_KIND_LEGACY_BLOOM)) * (int(KindLegacyBloom) - int(C.ROCKSFILTER_KIND_LEGACY_BLOOM))]struct{}
	_ [-(int(SSTFilterNone) - int(C.ROCKSFILTER_SST_FILTER_NONE)) * (int(SSTFilterNone) - int(C.ROCKSFILTER_SST_FILTER_NONE))]struct{}
	_ [-(int(SSTFilterFull) - int(C.ROCKSFILTER_SST_FILTER_FULL)) * (int(SSTFilterFull) - int(C.ROCKSFILTER_SST_FILTER_FULL))]struct{}
	_ [-(int(SSTFilterPartitioned) - int(C.ROCKSFILTER_SST_FILTER_PARTITIONED)) * (int(SSTFilterPartitioned) - int(C.ROCKSFILTER_SST_FILTER_PARTITIONED))]struct{}
	_ [-(int(SSTFilterUnsupported) - int(C.ROCKSFILTER_SST_FILTER_UNSUPPORTED)) * (int(SSTFilterUnsupported) - int(C.ROCKSFILTER_SST_FILTER_UNSUPPORTED))]struct{}
	_ [-(int(SSTFilterBlockBased) - int(C.ROCKSFILTER_SST_FILTER_BLOCK_BASED)) * (int(SSTFilterBlockBased) - int(C.ROCKSFILTER_SST_FILTER_BLOCK_BASED))]struct{}
)

// keyArg returns the pointer and length to pass to C for key: NULL and 0
// for a nil or empty key. The pointer is only valid during the C call it
// is passed to (the C side does not keep it).
func keyArg(key []byte) (*C.uint8_t, C.size_t) {
	if len(key) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(&key[0])), C.size_t(len(key))
}

// Hash64 returns RocksDB's 64-bit filter hash of key (Hash64 /
// GetSliceHash64: the XXH3 preview frozen in RocksDB, not final XXH3). It
// is the value [Builder.AddHash] and [Filter.MayMatchHash] take. The empty
// key hashes to 0x5342c3010fe1dd04.
func Hash64(key []byte) uint64 {
	p, n := keyArg(key)
	return uint64(C.rocksfilter_hash64(p, n))
}

// Version returns the version of the linked C library ("MAJOR.MINOR.PATCH").
func Version() string {
	return C.GoString(C.rocksfilter_version())
}

// cCopy copies n bytes of C memory at p into a new Go slice.
func cCopy(p *C.uint8_t, n C.size_t) []byte {
	out := make([]byte, int(n))
	if n > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)))
	}
	return out
}
