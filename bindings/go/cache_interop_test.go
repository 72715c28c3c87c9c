//go:build !norocksdb

package rocksfilter_test

// Caches on real SST files written by RocksDB 7.8.3 (internal/rocksdbtest),
// partitioned with a small metadata_block_size so that each file has
// hundreds of partitions and a 16 KiB cache holds a few dozen of them:
// answers through the cache (by path and through a ReaderAt) equal the
// answers without one, a ReaderAt or file that fails after the open makes
// queries answer "may match", queries from many goroutines keep the cache
// within its capacity, and every ReaderAt is released exactly once.

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/rocksdbtest"
)

const smallCache = 16 << 10 // bytes: a few dozen of the partitions below

// manyPartitionCases writes files with hundreds of filter partitions
// (100,000 keys, metadata_block_size 256: a partition per data block, of
// about 420 bytes), Bloom and Ribbon, and a small full filter.
func manyPartitionCases(t *testing.T) []sstCase {
	keys := makeKeys("key-", 100000)
	absent := makeKeys("absent-", 20000)
	probes := append(append([][]byte{nil}, keys...), absent...)
	bloom := rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, Partitioned: true, MetadataBlockSize: 256}
	ribbon := bloom
	ribbon.Filter = rocksdbtest.RibbonHybrid
	small := makeKeys("small-", 2000)
	return []sstCase{
		{"many_partitions_bloom", writeSST(t, "many_bloom", bloom, keys), probes, nil},
		{"many_partitions_ribbon", writeSST(t, "many_ribbon", ribbon, keys), probes, nil},
		{"full_bloom_small", writeSST(t, "full_small", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, small),
			append(small, absent[:2000]...), nil},
	}
}

// shuffled returns a copy of keys in a random (seeded) order.
func shuffled(keys [][]byte, seed int64) [][]byte {
	out := append([][]byte(nil), keys...)
	rand.New(rand.NewSource(seed)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// packKeys lays keys out as MayMatchPackedInto takes them.
func packKeys(keys [][]byte) ([]byte, []uint64) {
	var buf []byte
	offs := make([]uint64, 0, len(keys)+1)
	offs = append(offs, 0)
	for _, k := range keys {
		buf = append(buf, k...)
		offs = append(offs, uint64(len(buf)))
	}
	return buf, offs
}

// sameAnswersShuffled checks that got answers keys (in a random order, so
// that a small cache misses) as want: one at a time, in batches of 256,
// and packed in one call.
func sameAnswersShuffled(t *testing.T, what string, keys [][]byte, got, want *rocksfilter.SST) {
	t.Helper()
	keys = shuffled(keys, int64(len(keys)))
	w := want.MayMatchBatch(keys)
	diff := map[string]int{}
	for i, k := range keys {
		if got.MayMatch(k) != w[i] {
			diff["single"]++
		}
	}
	out := make([]bool, len(keys))
	for i := 0; i < len(keys); i += 256 {
		end := min(i+256, len(keys))
		got.MayMatchBatchInto(out[i:end], keys[i:end])
	}
	for i := range keys {
		if out[i] != w[i] {
			diff["batch"]++
		}
	}
	buf, offs := packKeys(keys)
	if err := got.MayMatchPackedInto(out, buf, offs); err != nil {
		t.Errorf("%s: MayMatchPackedInto: %v", what, err)
	}
	for i := range keys {
		if out[i] != w[i] {
			diff["packed"]++
		}
	}
	if len(diff) != 0 {
		t.Errorf("%s: answers differ from the SST without a cache (of %d keys): %v", what, len(keys), diff)
	}
}

// opener opens a file with options: by path or through a ReaderAt.
type opener struct {
	name string
	open func(path string, opts rocksfilter.SSTOptions) (*rocksfilter.SST, error)
}

var openers = []opener{
	{"path", rocksfilter.OpenSSTWithOptions},
	{"readerat", func(path string, opts rocksfilter.SSTOptions) (*rocksfilter.SST, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return rocksfilter.OpenSSTReaderAtWithOptions(bytes.NewReader(data), int64(len(data)), opts)
	}},
}

// TestCacheSameAnswers opens every file through a small cache, by path
// and through a ReaderAt, and checks every answer (single, batch, packed;
// prefixes, properties, FullFilter) against the same file opened without
// a cache, and that the cache stayed within its capacity while it read,
// evicted and hit. The cache holds 16 KiB, a few dozen partitions; with
// CacheFullFilters 128 KiB, one full filter of these files (about 62 KiB):
// a filter larger than the cache would be read again by every query.
func TestCacheSameAnswers(t *testing.T) {
	cases := append(manyPartitionCases(t), rocksdbCases(t)...)
	for _, o := range openers {
		for _, fullFilters := range []bool{false, true} {
			name, capacity := o.name, smallCache
			if fullFilters {
				name, capacity = name+"_cache_full_filters", 128<<10
			}
			t.Run(name, func(t *testing.T) {
				cache, err := rocksfilter.NewCache(capacity)
				if err != nil {
					t.Fatal(err)
				}
				defer cache.Close()
				opts := rocksfilter.SSTOptions{Cache: cache, CacheFullFilters: fullFilters}
				for _, c := range cases {
					want := openSST(t, c.path)
					s, err := o.open(c.path, opts)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					before := cache.Stats()
					sameAnswers(t, c, s, want)
					sameAnswersShuffled(t, c.name, c.probes, s, want)
					st := cache.Stats()
					props := want.Properties()
					if strings.HasPrefix(c.name, "many_partitions") {
						if props.NumPartitions < 300 {
							t.Errorf("%s: %d partitions, want hundreds", c.name, props.NumPartitions)
						}
						if st.Misses == before.Misses || st.Evictions == before.Evictions || st.Hits == before.Hits {
							t.Errorf("%s: cache stats %+v before, %+v after: want misses, evictions and hits", c.name, before, st)
						}
						held, full := s.OpenStats().BytesHeld, want.OpenStats().BytesHeld
						t.Logf("%s: %d partitions, %d filter bytes held by the SST with the cache, %d without",
							c.name, props.NumPartitions, held, full)
						if held*4 > full {
							t.Errorf("%s: the SST holds %d bytes with a cache, %d without it", c.name, held, full)
						}
					}
					if props.FilterType == rocksfilter.SSTFilterFull {
						// With CacheFullFilters the filter is the cache's,
						// read on first use; without, the SST's, read at open.
						held, full := s.OpenStats().BytesHeld, want.OpenStats().BytesHeld
						if fullFilters != (held < full) || fullFilters != (st.Reads > before.Reads) {
							t.Errorf("%s: the SST holds %d bytes (%d without a cache), the cache read %d blocks; CacheFullFilters %v",
								c.name, held, full, st.Reads-before.Reads, fullFilters)
						}
					}
					if st.BytesHeld > st.Capacity || st.ReadErrors != 0 || st.Uncached != 0 {
						t.Errorf("%s: cache stats %+v: over capacity, read errors or blocks not cached", c.name, st)
					}
					s.Close()
				}
				st := cache.Stats()
				t.Logf("cache stats after %d files: %+v", len(cases), st)
				if st.Capacity != uint64(capacity) || st.Reads == 0 || st.BytesRead == 0 {
					t.Errorf("cache stats %+v", st)
				}
			})
		}
	}
}

// toggleReader reads data until fail is set, then fails every ReadAt
// (with an error, or a panic when panics is set), and counts its calls.
type toggleReader struct {
	data          []byte
	fail, panics  atomic.Bool
	calls, failed atomic.Int64
}

func (r *toggleReader) ReadAt(p []byte, off int64) (int, error) {
	r.calls.Add(1)
	if r.fail.Load() {
		r.failed.Add(1)
		if r.panics.Load() {
			panic(errInjected)
		}
		return 0, errInjected
	}
	return bytes.NewReader(r.data).ReadAt(p, off)
}

// TestCacheReaderAtFailsAfterOpen: a ReaderAt that starts failing (an
// error, then a panic) after a cached open makes every written key answer
// true, single, batch and packed, also from many goroutines at once, and
// the cache counts read errors; once it reads again, the answers are those
// of the file without a cache.
func TestCacheReaderAtFailsAfterOpen(t *testing.T) {
	c := manyPartitionCases(t)[0]
	keys := c.probes[1:100001]
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	want := openSST(t, c.path)
	for _, panics := range []bool{false, true} {
		t.Run(fmt.Sprintf("panics=%v", panics), func(t *testing.T) {
			cache, err := rocksfilter.NewCache(smallCache)
			if err != nil {
				t.Fatal(err)
			}
			defer cache.Close()
			r := &toggleReader{data: data}
			s, err := rocksfilter.OpenSSTReaderAtWithOptions(r, int64(len(data)), rocksfilter.SSTOptions{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r.panics.Store(panics)
			r.fail.Store(true)
			order := shuffled(keys, 1)
			missed := 0
			for _, k := range order {
				if !s.MayMatch(k) {
					missed++
				}
			}
			for i, a := range s.MayMatchBatch(order) {
				if !a {
					missed++
					t.Errorf("batch: key %q answered false", order[i])
					break
				}
			}
			out := make([]bool, len(order))
			buf, offs := packKeys(order)
			if err := s.MayMatchPackedInto(out, buf, offs); err != nil {
				t.Fatal(err)
			}
			for _, a := range out {
				if !a {
					missed++
				}
			}
			// The same from many goroutines at once: the ReadAt calls fail
			// (and panic) on all of them.
			var wg sync.WaitGroup
			var concurrentMissed atomic.Int64
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for _, a := range s.MayMatchBatch(shuffled(keys[g*1000:(g+1)*1000], int64(g))) {
						if !a {
							concurrentMissed.Add(1)
						}
					}
				}(g)
			}
			wg.Wait()
			missed += int(concurrentMissed.Load())
			st := cache.Stats()
			t.Logf("failing ReaderAt: %d ReadAt calls failed; cache stats %+v", r.failed.Load(), st)
			if missed != 0 {
				t.Errorf("%d written keys answered false while every read failed", missed)
			}
			if st.ReadErrors == 0 || r.failed.Load() == 0 || st.ReadErrors != uint64(r.failed.Load()) {
				t.Errorf("ReadErrors %d, %d failed ReadAt calls: want as many, and some", st.ReadErrors, r.failed.Load())
			}
			r.fail.Store(false)
			sameAnswersShuffled(t, "after the ReaderAt recovered", c.probes, s, want)
		})
	}
}

// TestCachePathRemoved: an SST opened by path with a cache opens the file
// again when a query first misses (and keeps it open in the cache); when
// the file is gone by then, such queries answer true and count read
// errors.
func TestCachePathRemoved(t *testing.T) {
	c := manyPartitionCases(t)[1]
	keys := c.probes[1:100001]
	cache, err := rocksfilter.NewCacheWithOpenFiles(smallCache, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	s, err := rocksfilter.OpenSSTWithOptions(c.path, rocksfilter.SSTOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.Remove(c.path); err != nil {
		t.Fatal(err)
	}
	for _, a := range s.MayMatchBatch(shuffled(keys, 2)) {
		if !a {
			t.Fatal("a written key answered false with the file gone")
		}
	}
	if st := cache.Stats(); st.ReadErrors == 0 {
		t.Errorf("cache stats %+v: no read errors with the file gone", st)
	} else {
		t.Logf("file gone: cache stats %+v", st)
	}
}

// TestCacheConcurrent queries handles sharing one 16 KiB cache (two
// files, each by path and through a ReaderAt) from many goroutines at
// once, single, batch and packed, checking every answer, while another
// goroutine checks that the cache never holds more than its capacity.
// (The race detector passes it, but sees little: it takes every cgo call
// and callback for a synchronisation, so it cannot see two ReaderAt
// callbacks race.)
func TestCacheConcurrent(t *testing.T) {
	cases := manyPartitionCases(t)[:2]
	cache, err := rocksfilter.NewCache(smallCache)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	type handle struct {
		s    *rocksfilter.SST
		want map[string]bool
	}
	var handles []handle
	for _, c := range cases {
		ref := openSST(t, c.path)
		want := map[string]bool{}
		for i, a := range ref.MayMatchBatch(c.probes) {
			want[string(c.probes[i])] = a
		}
		for _, o := range openers {
			s, err := o.open(c.path, rocksfilter.SSTOptions{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			handles = append(handles, handle{s, want})
		}
	}
	probes := cases[0].probes // the keys of both files (cases differ by filter only)

	stop := make(chan struct{})
	var samples, over atomic.Int64
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if cache.BytesHeld() > cache.Capacity() {
				over.Add(1)
			}
			if st := cache.Stats(); st.BytesHeld > st.Capacity {
				over.Add(1)
			}
			samples.Add(1)
			runtime.Gosched()
		}
	}()

	const goroutines, rounds = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(int64(g)))
			out := make([]bool, 512)
			for round := 0; round < rounds; round++ {
				h := handles[rnd.Intn(len(handles))]
				start := rnd.Intn(len(probes) - 512)
				keys := shuffled(probes[start:start+512], int64(g*1000+round))
				check := func(how string, got []bool) bool {
					for i, k := range keys {
						if got[i] != h.want[string(k)] {
							errs <- fmt.Errorf("goroutine %d, %s: key %q answered %v, want %v", g, how, k, got[i], !got[i])
							return false
						}
					}
					return true
				}
				switch round % 3 {
				case 0:
					for i, k := range keys {
						out[i] = h.s.MayMatch(k)
					}
					if !check("single", out) {
						return
					}
				case 1:
					h.s.MayMatchBatchInto(out, keys)
					if !check("batch", out) {
						return
					}
				case 2:
					buf, offs := packKeys(keys)
					if err := h.s.MayMatchPackedInto(out, buf, offs); err != nil {
						errs <- err
						return
					}
					if !check("packed", out) {
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := cache.Stats()
	t.Logf("%d goroutines x %d rounds of 512 keys on %d handles: %d samples of the cache's size, cache stats %+v",
		goroutines, rounds, len(handles), samples.Load(), st)
	if n := over.Load(); n != 0 {
		t.Errorf("the cache held more than its capacity in %d of %d samples", n, samples.Load())
	}
	if st.Hits == 0 || st.Misses == 0 || st.Evictions == 0 || st.ReadErrors != 0 {
		t.Errorf("cache stats %+v: want hits, misses, evictions and no read errors", st)
	}
}

// TestCacheClosedBeforeHandles: closing the cache first is harmless; the
// handles keep it and answer as before, and close afterwards.
func TestCacheClosedBeforeHandles(t *testing.T) {
	c := manyPartitionCases(t)[0]
	want := openSST(t, c.path)
	cache, err := rocksfilter.NewCache(smallCache)
	if err != nil {
		t.Fatal(err)
	}
	var handles []*rocksfilter.SST
	for _, o := range openers {
		s, err := o.open(c.path, rocksfilter.SSTOptions{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, s)
	}
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	cache.Close()
	if cache.BytesHeld() != 0 || cache.Stats() != (rocksfilter.CacheStats{}) {
		t.Error("closed cache: want zero BytesHeld and Stats")
	}
	if _, err := rocksfilter.OpenSSTWithOptions(c.path, rocksfilter.SSTOptions{Cache: cache}); err == nil {
		t.Error("an open with the closed cache succeeded")
	}
	for i, s := range handles {
		sameAnswersShuffled(t, openers[i].name+" after the cache's Close", c.probes, s, want)
		s.Close()
		s.Close()
	}
}

// TestCacheReaderAtRelease: the ReaderAt's handle is released exactly
// once: by an open without a cache before it returns, by a cached SST's
// Close (not before, however many queries), by the finalizer of a leaked
// cached SST. Until then the handle alone keeps the ReaderAt alive
// through garbage collections; after it, nothing does.
func TestCacheReaderAtRelease(t *testing.T) {
	c := manyPartitionCases(t)[0]
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	want := openSST(t, c.path)
	cache, err := rocksfilter.NewCache(smallCache)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()

	made, released := rocksfilter.ReaderAtHandles()
	s, err := rocksfilter.OpenSSTReaderAt(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	checkHandles(t, "after an open without a cache", made, released, 1, 1)
	s.Close()
	checkHandles(t, "after its Close", made, released, 1, 1)

	// A cached SST whose ReaderAt is reachable only through the handle.
	made, released = rocksfilter.ReaderAtHandles()
	var collected atomic.Bool
	var reads *atomic.Int64
	s, reads = openUnreferenced(t, data, cache, &collected)
	checkHandles(t, "after a cached open", made, released, 1, 0)
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	before := reads.Load()
	sameAnswersShuffled(t, "after garbage collections", c.probes, s, want)
	if collected.Load() || reads.Load() == before {
		t.Errorf("ReaderAt collected: %v; %d reads by the queries: want it alive and read", collected.Load(), reads.Load()-before)
	}
	checkHandles(t, "after the queries", made, released, 1, 0)
	s.Close()
	checkHandles(t, "after Close", made, released, 1, 1)
	s.Close()
	checkHandles(t, "after a second Close", made, released, 1, 1)
	waitFor(t, "the ReaderAt to be collected after Close", collected.Load)

	// A cached SST dropped without Close: its finalizer frees it, which
	// releases the ReaderAt.
	made, released = rocksfilter.ReaderAtHandles()
	collected.Store(false)
	s, _ = openUnreferenced(t, data, cache, &collected)
	if !s.MayMatch(c.probes[1]) {
		t.Fatal("a written key answered false")
	}
	s = nil
	waitFor(t, "the leaked SST's finalizer to release its ReaderAt", func() bool {
		_, r := rocksfilter.ReaderAtHandles()
		return r-released == 1
	})
	checkHandles(t, "after the finalizer", made, released, 1, 1)
	waitFor(t, "the ReaderAt of the leaked SST to be collected", collected.Load)
}

// countingReader reads data and counts its ReadAt calls.
type countingReader struct {
	data  []byte
	reads *atomic.Int64
}

func (r *countingReader) ReadAt(p []byte, off int64) (int, error) {
	r.reads.Add(1)
	return bytes.NewReader(r.data).ReadAt(p, off)
}

// openUnreferenced opens data through a new countingReader with cache,
// keeping no reference to the reader: collected is set when the garbage
// collector frees it. It returns the SST and the reader's read counter.
func openUnreferenced(t *testing.T, data []byte, cache *rocksfilter.Cache, collected *atomic.Bool) (*rocksfilter.SST, *atomic.Int64) {
	t.Helper()
	reads := new(atomic.Int64)
	r := &countingReader{data: data, reads: reads}
	runtime.SetFinalizer(r, func(*countingReader) { collected.Store(true) })
	s, err := rocksfilter.OpenSSTReaderAtWithOptions(r, int64(len(data)), rocksfilter.SSTOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	return s, reads
}

// waitFor runs garbage collections until cond holds, for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// README (Filter memory within a budget) shows openWithinBudget exactly as
// below, between the markers (TestREADMECacheExample checks it), and
// ExampleCache runs it.

// README cache begin
// openWithinBudget opens SST files whose filters share one budget of
// memory: each SST keeps only its partitioned filter's top-level index,
// and partitions (and, with CacheFullFilters, whole full filters) are read
// into the cache when a query first needs them, evicting others.
func openWithinBudget(paths []string, budget int) (*rocksfilter.Cache, []*rocksfilter.SST, error) {
	cache, err := rocksfilter.NewCache(budget)
	if err != nil {
		return nil, nil, err
	}
	var ssts []*rocksfilter.SST
	for _, p := range paths {
		s, err := rocksfilter.OpenSSTWithOptions(p, rocksfilter.SSTOptions{Cache: cache, CacheFullFilters: true})
		if err != nil {
			for _, s := range ssts {
				s.Close()
			}
			cache.Close()
			return nil, nil, err
		}
		ssts = append(ssts, s)
	}
	return cache, ssts, nil
}

// README cache end

// TestREADMECacheExample checks that README.md shows the code between the
// markers above, byte for byte, as a ```go block.
func TestREADMECacheExample(t *testing.T) {
	src, err := os.ReadFile("cache_interop_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok1 := strings.Cut(string(src), "\n// README cache begin\n")
	code, _, ok2 := strings.Cut(after, "\n// README cache end\n")
	if !ok1 || !ok2 {
		t.Fatal("no // README cache begin ... // README cache end markers")
	}
	code = strings.TrimRight(code, "\n") + "\n"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+code+"```\n") {
		t.Error("README.md does not show openWithinBudget as cache_interop_test.go has it: copy the code between the markers into its ```go block")
	}
}

// ExampleCache opens three files written by RocksDB (partitioned filters
// of 100,000 keys, about 140 KiB each) within a 64 KiB budget, and queries
// them.
func ExampleCache() {
	dir, err := os.MkdirTemp("", "rocksfilter-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	var paths []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%d.sst", i))
		opts := rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, Partitioned: true, MetadataBlockSize: 256}
		if err := rocksdbtest.WriteSST(p, opts, makeKeys(fmt.Sprintf("file%d-", i), 100000)); err != nil {
			panic(err)
		}
		paths = append(paths, p)
	}

	cache, ssts, err := openWithinBudget(paths, 64<<10)
	if err != nil {
		panic(err)
	}
	defer cache.Close()
	for _, s := range ssts {
		defer s.Close()
	}
	found := 0
	for i := 0; i < 100000; i += 7 {
		for f, s := range ssts {
			if s.MayMatch(fmt.Appendf(nil, "file%d-%08d", f, i)) {
				found++
			}
		}
	}
	st := cache.Stats()
	fmt.Println(found, ssts[0].MayMatch([]byte("file1-00000042")), ssts[0].Properties().NumPartitions > 300)
	fmt.Println(st.BytesHeld <= 64<<10, st.Misses > 0, st.Evictions > 0, st.ReadErrors)
	// Output:
	// 42858 false true
	// true true true 0
}
