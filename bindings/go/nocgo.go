//go:build !cgo

package rocksfilter

// This package calls the rocksfilter C library through cgo, so it cannot
// be built with cgo off (CGO_ENABLED=0, which is also the default when no
// C compiler is found or when cross-compiling). Rather than leave the
// package without its API and a list of "undefined" errors in the user's
// code, the line below fails with a name that says what to do.
var _ = rocksfilter_requires_cgo__set_CGO_ENABLED_1_and_install_a_C_compiler
