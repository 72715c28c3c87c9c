//go:build !norocksdb

package rocksdbtest

/*
#cgo LDFLAGS: -lrocksdb
#include <stdlib.h>
#include <rocksdb/c.h>
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Filter is the filter policy an SST is written with.
type Filter int

const (
	NoFilter Filter = iota
	// BloomFull is rocksdb_filterpolicy_create_bloom_full(bpk): FastLocalBloom
	// at format_version >= 5, legacy Bloom below.
	BloomFull
	// RibbonHybrid is rocksdb_filterpolicy_create_ribbon_hybrid(bpk, -1):
	// always Ribbon (subject to RocksDB's own Bloom fallbacks).
	RibbonHybrid
)

// Options describe the table written by WriteSST.
type Options struct {
	Filter     Filter
	BitsPerKey float64
	// FormatVersion of the block-based table; 0 keeps RocksDB's default
	// (5 in RocksDB 7.8).
	FormatVersion int
	// Partitioned writes a partitioned filter (two-level index).
	Partitioned bool
	// MetadataBlockSize > 0 sets metadata_block_size, the target size of
	// index partitions, which filter partitions follow (RocksDB's default
	// is 4096): small values give many partitions.
	MetadataBlockSize int
	// PrefixLen > 0 sets rocksdb_slicetransform_create_fixed_prefix(PrefixLen).
	PrefixLen int
	// NoWholeKeyFiltering turns whole-key filtering off.
	NoWholeKeyFiltering bool
}

func takeErr(err *C.char) error {
	if err == nil {
		return nil
	}
	defer C.rocksdb_free(unsafe.Pointer(err))
	return errors.New("rocksdb: " + C.GoString(err))
}

// WriteSST writes keys (which must be strictly increasing bytewise) with
// a one-byte value each into a new SST file at path with
// rocksdb_sstfilewriter_*.
func WriteSST(path string, opts Options, keys [][]byte) error {
	o := C.rocksdb_options_create()
	defer C.rocksdb_options_destroy(o)
	t := C.rocksdb_block_based_options_create()
	if opts.FormatVersion != 0 {
		C.rocksdb_block_based_options_set_format_version(t, C.int(opts.FormatVersion))
	}
	switch opts.Filter {
	case BloomFull:
		C.rocksdb_block_based_options_set_filter_policy(t,
			C.rocksdb_filterpolicy_create_bloom_full(C.double(opts.BitsPerKey)))
	case RibbonHybrid:
		C.rocksdb_block_based_options_set_filter_policy(t,
			C.rocksdb_filterpolicy_create_ribbon_hybrid(C.double(opts.BitsPerKey), -1))
	}
	if opts.Partitioned {
		C.rocksdb_block_based_options_set_partition_filters(t, 1)
		C.rocksdb_block_based_options_set_index_type(t,
			C.rocksdb_block_based_table_index_type_two_level_index_search)
	}
	if opts.MetadataBlockSize > 0 {
		C.rocksdb_block_based_options_set_metadata_block_size(t, C.uint64_t(opts.MetadataBlockSize))
	}
	if opts.NoWholeKeyFiltering {
		C.rocksdb_block_based_options_set_whole_key_filtering(t, 0)
	}
	C.rocksdb_options_set_block_based_table_factory(o, t)
	C.rocksdb_block_based_options_destroy(t)
	if opts.PrefixLen > 0 {
		C.rocksdb_options_set_prefix_extractor(o,
			C.rocksdb_slicetransform_create_fixed_prefix(C.size_t(opts.PrefixLen)))
	}
	C.rocksdb_options_set_compression(o, C.rocksdb_no_compression)

	env := C.rocksdb_envoptions_create()
	defer C.rocksdb_envoptions_destroy(env)
	w := C.rocksdb_sstfilewriter_create(env, o)
	defer C.rocksdb_sstfilewriter_destroy(w)

	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	C.rocksdb_sstfilewriter_open(w, cpath, &cerr)
	if err := takeErr(cerr); err != nil {
		return err
	}
	val := []byte{'v'}
	for _, k := range keys {
		var kp *C.char
		if len(k) > 0 {
			kp = (*C.char)(unsafe.Pointer(&k[0]))
		}
		C.rocksdb_sstfilewriter_put(w, kp, C.size_t(len(k)),
			(*C.char)(unsafe.Pointer(&val[0])), 1, &cerr)
		if err := takeErr(cerr); err != nil {
			return err
		}
	}
	C.rocksdb_sstfilewriter_finish(w, &cerr)
	return takeErr(cerr)
}
