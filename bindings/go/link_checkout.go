//go:build !rocksfilter_pkgconfig

package rocksfilter

// Default in a checkout of the repository: link the static library that
// `cargo build --release` leaves in the repository's target/release, and
// use the repository's header. The extra system libraries are those
// `cargo rustc --release --lib -- --print native-static-libs` lists for the
// Rust standard library.
//
// This is the one file that `make go-module` (make-module.sh) replaces:
// the generated, self-contained module has link_bundled.go instead, which
// points at the header and library copied into the module. Keep the
// LDFLAGS line below in this form: make-module.sh takes the system
// libraries from it.
//
// The -isystem directory holds no headers; only the check below looks in
// it: without the library, the build stops with a message saying how to
// make it instead of the linker's "cannot find ...librocksfilter.a" (a
// package already in Go's build cache skips the check).

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -isystem ${SRCDIR}/../../target/release
#cgo LDFLAGS: ${SRCDIR}/../../target/release/librocksfilter.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#if defined(__has_include)
#if !__has_include(<librocksfilter.a>)
#error "rocksfilter: target/release/librocksfilter.a is missing in this checkout: run 'cargo build --release' in the repository root, or use the generated module (bindings/go/README.md, 'How the native library is found')"
#endif
#endif
*/
import "C"
