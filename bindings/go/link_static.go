//go:build !rocksfilter_pkgconfig

package rocksfilter

// Default: link the static library built in this repository
// (cargo build --release in the repository root) and use its header.
// The extra system libraries are those `cargo rustc --release --lib --
// --print native-static-libs` lists for the Rust standard library.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/librocksfilter.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
*/
import "C"
