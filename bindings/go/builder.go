package rocksfilter

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"runtime"
	"strconv"
	"unsafe"
)

// Policy selects the filter a [Builder] writes, named after RocksDB's
// filter policies.
type Policy int

const (
	// Bloom is NewBloomFilterPolicy(bitsPerKey) at format_version >= 5:
	// a FastLocalBloom filter.
	Bloom Policy = 1
	// Ribbon is NewRibbonFilterPolicy(bitsPerKey, -1): Standard128Ribbon
	// at Bloom's false-positive rate for bitsPerKey, with RocksDB's Bloom
	// fallbacks.
	Ribbon Policy = 2
	// LegacyBloom is NewBloomFilterPolicy(bitsPerKey) at format_version < 5.
	// It hashes keys with a 32-bit hash, so [Builder.AddHash] cannot be used.
	LegacyBloom Policy = 3
)

// String returns the policy name, e.g. "Ribbon".
func (p Policy) String() string {
	switch p {
	case Bloom:
		return "Bloom"
	case Ribbon:
		return "Ribbon"
	case LegacyBloom:
		return "LegacyBloom"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// A Builder collects keys and writes a filter block for them, byte for
// byte as RocksDB would. A Builder must not be used from several
// goroutines at once. Close it when done; a finalizer frees a leaked
// Builder, but Close frees it at once.
//
// After Close, Add* calls are ignored, NumEntries returns 0 and Finish
// returns an error matching [ErrClosed].
type Builder struct {
	ptr *C.rocksfilter_builder
}

// NewBuilder returns a Builder for policy at bitsPerKey. bitsPerKey is
// sanitised as RocksDB does: below 0.5 (where RocksDB writes no filter)
// or NaN is an error matching [ErrInvalidArgument]; below 1 becomes 1; 100
// and above becomes 100; the value is rounded to thousandths of a bit. An
// unknown policy is an error matching [ErrInvalidArgument].
func NewBuilder(policy Policy, bitsPerKey float64) (*Builder, error) {
	var out *C.rocksfilter_builder
	var msg *C.char
	st := C.rocksfilter_builder_new(C.rocksfilter_policy(policy), C.double(bitsPerKey), &out, &msg)
	return newBuilder("NewBuilder", st, out, msg)
}

// BuilderOptions sizes the blocks of a Builder made by
// [NewBuilderWithOptions] beyond RocksDB's bits/key. The zero value of
// each field after Policy means "not set". With only Policy and BitsPerKey
// set, the Builder is the one [NewBuilder] makes: RocksDB's blocks.
type BuilderOptions struct {
	// Policy is the filter to write.
	Policy Policy
	// BitsPerKey is RocksDB's bits/key, sanitised as [NewBuilder] does.
	// Used only when neither FPRate nor MaxBytes is set.
	BitsPerKey float64
	// FPRate, when not 0, is a target false-positive rate strictly
	// between 0 and 1: for Bloom the smallest block whose RocksDB
	// estimate meets it, for Ribbon RocksDB's column split for that rate.
	// Not for LegacyBloom.
	FPRate float64
	// MaxBytes, when not 0, is a byte budget (the 5-byte trailer
	// included, at least 69): the most accurate block that fits. Not for
	// LegacyBloom, and not together with FPRate.
	MaxBytes uint64
	// RibbonFailureOneIn (Ribbon only) sizes the slots for a 1-in-N chance
	// that a seed fails to solve: 2, 20 or 1000, RocksDB's banding tables;
	// 0 means 20, RocksDB's own.
	RibbonFailureOneIn uint32
}

// NewBuilderWithOptions returns a Builder sized by o. Invalid options
// (both FPRate and MaxBytes, FPRate outside (0, 1), MaxBytes below 69, a
// target for LegacyBloom, a RibbonFailureOneIn without a RocksDB table, a
// bad BitsPerKey when it is used) give an error matching
// [ErrInvalidArgument].
func NewBuilderWithOptions(o BuilderOptions) (*Builder, error) {
	var c C.rocksfilter_builder_options
	c.struct_size = C.uint32_t(unsafe.Sizeof(c))
	c.policy = C.uint32_t(o.Policy)
	c.bits_per_key = C.double(o.BitsPerKey)
	c.fp_rate = C.double(o.FPRate)
	c.max_bytes = C.uint64_t(o.MaxBytes)
	c.ribbon_failure_one_in = C.uint32_t(o.RibbonFailureOneIn)
	var out *C.rocksfilter_builder
	var msg *C.char
	st := C.rocksfilter_builder_new_with_options(&c, &out, &msg)
	return newBuilder("NewBuilderWithOptions", st, out, msg)
}

// newBuilder wraps what a rocksfilter_builder_new* call returned.
func newBuilder(op string, st C.rocksfilter_status, out *C.rocksfilter_builder, msg *C.char) (*Builder, error) {
	if err := statusError(op, st, msg); err != nil {
		return nil, err
	}
	b := &Builder{ptr: out}
	runtime.SetFinalizer(b, (*Builder).Close)
	return b, nil
}

// Add adds a key. The bytes are hashed at once and not retained. An
// adjacent duplicate key collapses into one entry, as in RocksDB.
func (b *Builder) Add(key []byte) {
	if b == nil || b.ptr == nil {
		return
	}
	p, n := keyArg(key)
	C.rocksfilter_builder_add_key(b.ptr, p, n)
	runtime.KeepAlive(b)
}

// AddKeyAndAlt adds a key and an alternate form of it (typically its
// prefix, for prefix filtering) with RocksDB's AddKeyAndAlt
// de-duplication: an alt equal to the previous alt, to the key or to the
// previous key is not added again; a key equal to the previous key or the
// previous alt is not added again.
func (b *Builder) AddKeyAndAlt(key, alt []byte) {
	if b == nil || b.ptr == nil {
		return
	}
	kp, kn := keyArg(key)
	ap, an := keyArg(alt)
	C.rocksfilter_builder_add_key_and_alt(b.ptr, kp, kn, ap, an)
	runtime.KeepAlive(b)
}

// AddHash adds a key by its [Hash64], exactly as Add(key) would (including
// collapsing an adjacent duplicate). LegacyBloom builders hash keys with a
// different 32-bit hash: there the call is recorded and the next Finish
// returns an error matching [ErrInvalidArgument].
func (b *Builder) AddHash(h uint64) {
	if b == nil || b.ptr == nil {
		return
	}
	C.rocksfilter_builder_add_hash(b.ptr, C.uint64_t(h))
	runtime.KeepAlive(b)
}

// NumEntries returns the number of entries added since the last Finish,
// after collapsing duplicates (RocksDB's EstimateEntriesAdded). It
// returns 0 on a closed Builder.
func (b *Builder) NumEntries() int {
	if b == nil || b.ptr == nil {
		return 0
	}
	n := C.rocksfilter_builder_num_entries(b.ptr)
	runtime.KeepAlive(b)
	return int(n)
}

// Finish returns the filter block for the added keys and empties the
// Builder so it can be reused (it is emptied on error too). With no keys
// added the block is empty (len 0, not nil): RocksDB's always-false
// filter. The block is Go memory owned by the caller.
func (b *Builder) Finish() ([]byte, error) {
	if b == nil || b.ptr == nil {
		return nil, closedError("Builder.Finish")
	}
	var data *C.uint8_t
	var n C.size_t
	var msg *C.char
	st := C.rocksfilter_builder_finish(b.ptr, &data, &n, &msg)
	runtime.KeepAlive(b)
	if err := statusError("Builder.Finish", st, msg); err != nil {
		return nil, err
	}
	if data == nil {
		return []byte{}, nil
	}
	out := cCopy(data, n)
	C.rocksfilter_bytes_free(data, n)
	return out, nil
}

// Close frees the Builder. It is safe to call more than once and always
// returns nil.
func (b *Builder) Close() error {
	if b == nil || b.ptr == nil {
		return nil
	}
	C.rocksfilter_builder_free(b.ptr)
	b.ptr = nil
	runtime.SetFinalizer(b, nil)
	return nil
}
