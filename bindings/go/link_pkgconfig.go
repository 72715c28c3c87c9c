//go:build rocksfilter_pkgconfig

package rocksfilter

// With -tags rocksfilter_pkgconfig: use an installed library and header
// (make install in the repository root), found through
// `pkg-config --cflags --libs rocksfilter` (set PKG_CONFIG_PATH for a
// non-standard prefix). This links the shared library.

/*
#cgo pkg-config: rocksfilter
*/
import "C"
