//go:build unix

package rocksfilter_test

import (
	"syscall"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// TestLoadBorrowedMmap borrows memory that Go did not allocate: Pin leaves
// it alone and the filter reads it in place.
func TestLoadBorrowedMmap(t *testing.T) {
	keys := makeKeys("m", 5000)
	block := build(t, rocksfilter.Bloom, bitsPerKey, keys)
	mem, err := syscall.Mmap(-1, 0, len(block), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	copy(mem, block)
	f, err := rocksfilter.LoadBorrowed(mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !f.MayMatch(k) {
			t.Fatalf("key %q missed", k)
		}
	}
	f.Close() // before Munmap
}
