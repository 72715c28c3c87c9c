package rocksfilter

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"fmt"
	"runtime"
)

// A Cache holds filter blocks of SST files within a byte budget
// (rocksfilter_cache), shared by the SSTs opened with it
// ([SSTOptions].Cache). Such an SST keeps only a partitioned filter's
// top-level index and reads each partition into the cache when a query
// first needs it (with [SSTOptions].CacheFullFilters, whole full filters
// too); the cache evicts by recency to stay within its capacity, so the
// filter memory of any number of files stays within the budget.
//
// A Cache may be used from many goroutines at once; Close must not run
// concurrently with another method on it or with an open that uses it.
// Closing it frees only the caller's reference: SSTs opened with it keep
// the cache alive until they are closed too, so closing it first is
// harmless (its counters can then no longer be read). A finalizer frees
// a leaked Cache, but Close it when done.
//
// On a closed Cache, Capacity and BytesHeld return 0 and Stats the zero
// value; opening an SST with it returns an error matching [ErrClosed].
type Cache struct {
	ptr      *C.rocksfilter_cache
	capacity int
}

// NewCache returns a cache that holds at most capacityBytes of filter
// blocks and their entries (128 bytes each), in memory the C library maps
// for the cache (rocksfilter_cache_new says how much). It is split into shards
// of at least 8 MiB (at most 16); a block larger than a shard's share is
// read by each query that needs it and never cached (counted in
// [CacheStats].Uncached). A negative capacity is an error matching
// [ErrInvalidArgument].
//
// SSTs opened by path keep their file open between queries, at most 128
// files for all of the cache's SSTs, the least recently used closed first
// ([NewCacheWithOpenFiles] sets the number).
func NewCache(capacityBytes int) (*Cache, error) {
	return newCache("NewCache", capacityBytes, -1)
}

// NewCacheWithOpenFiles is [NewCache] with at most maxOpenFiles files
// kept open for the SSTs opened by path (RocksDB's max_open_files); 0
// keeps none, so every query that misses opens its file (an open and an
// fstat more per miss). A file kept open answers as opened even after it
// is deleted or renamed over; one reopened must be the file opened
// (device, inode, length), or its queries answer true and count read
// errors.
func NewCacheWithOpenFiles(capacityBytes, maxOpenFiles int) (*Cache, error) {
	if maxOpenFiles < 0 {
		return nil, &Error{Status: StatusInvalidArgument, Op: "NewCacheWithOpenFiles",
			Msg: fmt.Sprintf("invalid argument: maxOpenFiles %d is negative", maxOpenFiles)}
	}
	return newCache("NewCacheWithOpenFiles", capacityBytes, maxOpenFiles)
}

func newCache(op string, capacityBytes, maxOpenFiles int) (*Cache, error) {
	if capacityBytes < 0 {
		return nil, &Error{Status: StatusInvalidArgument, Op: op,
			Msg: fmt.Sprintf("invalid argument: capacity %d is negative", capacityBytes)}
	}
	var p *C.rocksfilter_cache
	if maxOpenFiles < 0 {
		p = C.rocksfilter_cache_new(C.size_t(capacityBytes))
	} else {
		p = C.rocksfilter_cache_new_with_open_files(C.size_t(capacityBytes), C.size_t(maxOpenFiles))
	}
	if p == nil {
		return nil, &Error{Status: StatusInternal, Op: op, Msg: "internal error: rocksfilter_cache_new returned NULL"}
	}
	c := &Cache{ptr: p, capacity: capacityBytes}
	runtime.SetFinalizer(c, (*Cache).Close)
	return c, nil
}

// Capacity returns the capacity in bytes given to [NewCache].
func (c *Cache) Capacity() int {
	if c == nil || c.ptr == nil {
		return 0
	}
	return c.capacity
}

// BytesHeld returns the bytes the cache holds now (blocks and entries),
// at most its capacity.
func (c *Cache) BytesHeld() int {
	if c == nil || c.ptr == nil {
		return 0
	}
	n := C.rocksfilter_cache_bytes_held(c.ptr)
	runtime.KeepAlive(c)
	return int(n)
}

// CacheStats are a cache's occupancy and counters
// (rocksfilter_cache_stats). Counters count since the cache was made.
type CacheStats struct {
	Capacity  uint64 // the capacity in bytes
	BytesHeld uint64 // bytes held now (at most Capacity)
	Entries   uint64 // blocks held now
	// Hits and Misses are block lookups that found the block or did not
	// (and read it, or found it unreadable): one per partition a single
	// query consults, one per partition per batch.
	Hits   uint64
	Misses uint64
	// Reads and BytesRead are the reads of files (or ReaderAts) for
	// blocks, and the bytes they returned.
	Reads     uint64
	BytesRead uint64
	// ReadErrors counts reads that failed (the ReaderAt's error, short
	// read or panic; a file replaced, truncated or deleted): the query
	// answered "may match" and nothing was cached.
	ReadErrors uint64
	// BadBlocks counts blocks whose bytes are no filter RocksDB would use
	// (bad checksum or geometry): cached as "may match".
	BadBlocks uint64
	// Evictions counts blocks evicted to make room.
	Evictions uint64
	// Uncached counts blocks read but not cached (larger than a shard's
	// share, or every block of the shard in use).
	Uncached uint64
	// OpenFiles is the number of files kept open now for SSTs opened by
	// path.
	OpenFiles uint64
}

// Stats returns the cache's occupancy and counters.
func (c *Cache) Stats() CacheStats {
	if c == nil || c.ptr == nil {
		return CacheStats{}
	}
	var cs C.rocksfilter_cache_stats
	cs.struct_size = C.uint32_t(C.sizeof_rocksfilter_cache_stats)
	var msg *C.char
	st := C.rocksfilter_cache_get_stats(c.ptr, &cs, &msg)
	runtime.KeepAlive(c)
	if statusError("Cache.Stats", st, msg) != nil {
		return CacheStats{}
	}
	return CacheStats{
		Capacity:   uint64(cs.capacity),
		BytesHeld:  uint64(cs.bytes_held),
		Entries:    uint64(cs.entries),
		Hits:       uint64(cs.hits),
		Misses:     uint64(cs.misses),
		Reads:      uint64(cs.reads),
		BytesRead:  uint64(cs.bytes_read),
		ReadErrors: uint64(cs.read_errors),
		BadBlocks:  uint64(cs.bad_blocks),
		Evictions:  uint64(cs.evictions),
		Uncached:   uint64(cs.uncached),
		OpenFiles:  uint64(cs.open_files),
	}
}

// Close frees the caller's reference to the cache; SSTs opened with it
// keep theirs until they are closed. It is safe to call more than once
// and always returns nil.
func (c *Cache) Close() error {
	if c == nil || c.ptr == nil {
		return nil
	}
	C.rocksfilter_cache_free(c.ptr)
	c.ptr = nil
	runtime.SetFinalizer(c, nil)
	return nil
}
