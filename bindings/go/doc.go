// Package rocksfilter builds, loads and queries RocksDB filter blocks
// (FastLocalBloom, Standard128Ribbon and the legacy Bloom filter) byte for
// byte as RocksDB writes them, and reads the filters of RocksDB SST files,
// through the rocksfilter C library (include/rocksfilter.h) via cgo.
//
// # Handles and memory
//
// [Builder], [Filter], [SST] and [Cache] wrap C handles. Call Close when done with
// one: it frees the C memory at once and is safe to call more than once. A
// finalizer frees a handle that becomes unreachable without Close, but only
// as a safety net: the garbage collector does not see the C memory behind a
// handle, so leaked handles can pile up long before it runs.
//
// The C library never keeps a pointer to Go memory. [Load] copies the block
// into C memory; [LoadBorrowed] pins the caller's slice with a
// [runtime.Pinner] until Close; [OpenSSTMemory] copies the file into C
// memory owned by the [SST] (and shared with filters from [SST.FullFilter]).
// [OpenSST] and [OpenSSTReaderAt] read the blocks an SST queries into C
// memory the library owns; OpenSSTReaderAt hands ReadAt slices of that
// memory and passes C a [runtime/cgo.Handle], not a pointer, for the
// [io.ReaderAt]. SSTs opened with a [Cache] ([OpenSSTWithOptions],
// [OpenSSTReaderAtWithOptions]) keep partitions (and optionally full
// filters) in the cache, within its byte budget, instead.
//
// # Closed handles
//
// Methods on a closed (or zero) handle never panic and never give a false
// negative: queries answer true ("may match"), methods that return an error
// return one that matches [ErrClosed] (and [ErrInvalidArgument]), and other
// accessors return zero values, documented on each method.
//
// # Concurrency
//
// A [Filter] and an [SST] may be queried from many goroutines at once. A
// [Builder] must be used by one goroutine at a time. Close must not run
// concurrently with any other method on the same handle (as in the C API,
// where a handle may not be freed while a query runs on it).
//
// # Keys
//
// Keys are byte slices and are only read during the call; nil and empty
// keys are valid (the empty key).
package rocksfilter
