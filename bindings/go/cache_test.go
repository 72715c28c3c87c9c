package rocksfilter_test

// Cache and the opens with options without RocksDB: the cache's own
// methods, closed and nil caches, and the options the library refuses
// (cache_interop_test.go queries real files through caches).

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

func TestCacheMethods(t *testing.T) {
	c, err := rocksfilter.NewCache(16 << 10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Capacity() != 16<<10 || c.BytesHeld() != 0 {
		t.Errorf("new cache: capacity %d, %d bytes held; want %d, 0", c.Capacity(), c.BytesHeld(), 16<<10)
	}
	if st := c.Stats(); st != (rocksfilter.CacheStats{Capacity: 16 << 10}) {
		t.Errorf("new cache: Stats %+v, want only the capacity", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if c.Capacity() != 0 || c.BytesHeld() != 0 || c.Stats() != (rocksfilter.CacheStats{}) {
		t.Errorf("closed cache: capacity %d, %d bytes held, Stats %+v; want zeros", c.Capacity(), c.BytesHeld(), c.Stats())
	}
	var nilCache *rocksfilter.Cache
	if nilCache.Capacity() != 0 || nilCache.BytesHeld() != 0 || nilCache.Stats() != (rocksfilter.CacheStats{}) || nilCache.Close() != nil {
		t.Error("nil cache: want zeros and a nil Close")
	}

	zero, err := rocksfilter.NewCache(0)
	if err != nil {
		t.Fatalf("NewCache(0): %v", err)
	}
	zero.Close()
	_, err = rocksfilter.NewCache(-1)
	wantStatus(t, "NewCache(-1)", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
}

// TestSSTOptionsMisuse: options the library refuses come back as
// ErrInvalidArgument with its message, before anything is read; a closed
// cache as ErrClosed too. Every ReaderAt open releases its handle once,
// failed or not.
func TestSSTOptionsMisuse(t *testing.T) {
	path := filepath.Join(tempDir(t), "garbage.sst")
	garbage := bytes.Repeat([]byte{0xab}, 4096)
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	cache, err := rocksfilter.NewCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	closed, err := rocksfilter.NewCache(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()

	for _, c := range []struct {
		name     string
		opts     rocksfilter.SSTOptions
		path     bool   // OpenSSTWithOptions refuses it (else only OpenSSTReaderAtWithOptions)
		msg      string // in the library's message (both opens)
		readerAt string // in OpenSSTReaderAtWithOptions's message, when it differs
		isClosed bool
	}{
		{"full_filters_without_cache", rocksfilter.SSTOptions{CacheFullFilters: true}, true,
			"invalid argument: ROCKSFILTER_SST_CACHE_FULL_FILTERS needs a cache", "", false},
		{"mmap_with_cache", rocksfilter.SSTOptions{Mmap: true, Cache: cache}, true,
			"invalid argument: a cache and a memory-mapped file exclude each other", "ROCKSFILTER_SST_MMAP maps a file by path", false},
		{"mmap_readerat", rocksfilter.SSTOptions{Mmap: true}, false,
			"", "ROCKSFILTER_SST_MMAP maps a file by path", false},
		{"closed_cache", rocksfilter.SSTOptions{Cache: closed}, true,
			"invalid argument: SSTOptions.Cache is closed", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(op string, s *rocksfilter.SST, err error, msg string) {
				t.Helper()
				if s != nil {
					s.Close()
					t.Fatalf("%s opened", op)
				}
				wantStatus(t, op, err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
				if e := err.(*rocksfilter.Error); e.Op != op || !strings.Contains(e.Msg, msg) {
					t.Errorf("%s: Op %q, Msg %q; want %q and a message containing %q", op, e.Op, e.Msg, op, msg)
				}
				if errors.Is(err, rocksfilter.ErrClosed) != c.isClosed {
					t.Errorf("%s: errors.Is(err, ErrClosed) = %v", op, !c.isClosed)
				}
			}
			if c.path {
				s, err := rocksfilter.OpenSSTWithOptions(path, c.opts)
				check("OpenSSTWithOptions", s, err, c.msg)
			} else if s, err := rocksfilter.OpenSSTWithOptions(path, c.opts); s != nil || !errors.Is(err, rocksfilter.ErrCorruption) {
				t.Errorf("OpenSSTWithOptions of garbage: %v, want ErrCorruption", err)
			}
			msg := c.msg
			if c.readerAt != "" {
				msg = c.readerAt
			}
			r := &faultReader{data: garbage}
			made, released := rocksfilter.ReaderAtHandles()
			s, err := rocksfilter.OpenSSTReaderAtWithOptions(r, int64(len(garbage)), c.opts)
			check("OpenSSTReaderAtWithOptions", s, err, msg)
			if len(r.calls) != 0 {
				t.Errorf("ReadAt called %d times", len(r.calls))
			}
			want := int64(1) // made, and released by the refusing open
			if c.isClosed {
				want = 0 // refused before making one
			}
			checkHandles(t, "refused open", made, released, want, want)
		})
	}

	// The options are checked before the file: a missing one is refused
	// for the options, and opened with good options is an ErrIO error
	// wrapping the fs.PathError, as OpenSST's.
	missing := filepath.Join(tempDir(t), "missing.sst")
	_, err = rocksfilter.OpenSSTWithOptions(missing, rocksfilter.SSTOptions{CacheFullFilters: true})
	wantStatus(t, "missing file, bad options", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	_, err = rocksfilter.OpenSSTWithOptions(missing, rocksfilter.SSTOptions{Cache: cache})
	wantStatus(t, "missing file", err, rocksfilter.StatusIOError, rocksfilter.ErrIO)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v does not match fs.ErrNotExist", err)
	}
	_, err = rocksfilter.OpenSSTWithOptions("a\x00b", rocksfilter.SSTOptions{})
	wantStatus(t, "NUL in path", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)

	// A garbage file with a cache: refused as without one, and the
	// ReaderAt's handle released by the failed open.
	made, released := rocksfilter.ReaderAtHandles()
	_, err = rocksfilter.OpenSSTReaderAtWithOptions(&faultReader{data: garbage}, int64(len(garbage)), rocksfilter.SSTOptions{Cache: cache})
	wantStatus(t, "garbage with a cache", err, rocksfilter.StatusCorruption, rocksfilter.ErrCorruption)
	checkHandles(t, "garbage with a cache", made, released, 1, 1)
	// A ReadAt failing the open with a cache: the same ErrIO error as
	// without one, and the handle released.
	made, released = rocksfilter.ReaderAtHandles()
	for _, f := range readFaults {
		r := &faultReader{data: garbage, failAt: 1, fault: f.fault}
		s, err := rocksfilter.OpenSSTReaderAtWithOptions(r, int64(len(garbage)), rocksfilter.SSTOptions{Cache: cache})
		if s != nil || !errors.Is(err, rocksfilter.ErrIO) || !strings.Contains(err.Error(), f.text) {
			t.Errorf("%s with a cache: %v, want ErrIO saying %q", f.name, err, f.text)
		}
	}
	checkHandles(t, "opens failed by ReadAt", made, released, int64(len(readFaults)), int64(len(readFaults)))
}

// checkHandles checks that wantMade ReaderAt handles were made and
// wantReleased released since ReaderAtHandles returned made0, released0.
func checkHandles(t *testing.T, what string, made0, released0, wantMade, wantReleased int64) {
	t.Helper()
	made, released := rocksfilter.ReaderAtHandles()
	if made-made0 != wantMade || released-released0 != wantReleased {
		t.Errorf("%s: %d ReaderAt handles made, %d released; want %d and %d", what, made-made0, released-released0, wantMade, wantReleased)
	}
}
