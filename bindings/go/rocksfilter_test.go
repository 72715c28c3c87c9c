package rocksfilter_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

const (
	numKeys    = 20000
	numAbsent  = 100000
	bitsPerKey = 10
)

func TestRoundTrip(t *testing.T) {
	keys := makeKeys("key-", numKeys)
	absent := makeKeys("absent-", numAbsent)
	for _, policy := range allPolicies {
		t.Run(policy.String(), func(t *testing.T) {
			b, err := rocksfilter.NewBuilder(policy, bitsPerKey)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			for _, k := range keys {
				b.Add(k)
			}
			if got := b.NumEntries(); got != numKeys {
				t.Errorf("NumEntries = %d, want %d", got, numKeys)
			}
			block, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if got := b.NumEntries(); got != 0 {
				t.Errorf("NumEntries after Finish = %d, want 0", got)
			}
			f := load(t, block)
			if f.Kind() != wantKind[policy] {
				t.Errorf("Kind = %v, want %v", f.Kind(), wantKind[policy])
			}
			info := f.Info()
			if info.Kind != f.Kind() || info.Bytes != len(block) {
				t.Errorf("Info = %+v; want Kind %v, Bytes %d", info, f.Kind(), len(block))
			}
			// The fields each kind fills (rocksfilter_filter_info_ex).
			switch policy {
			case rocksfilter.Bloom:
				if info.NumProbes == 0 || info.LineBytes != 64 || info.NumLines != 0 || info.NumBlocks != 0 {
					t.Errorf("FastLocalBloom Info = %+v", info)
				}
			case rocksfilter.LegacyBloom:
				if info.NumProbes == 0 || info.NumLines == 0 || info.LineBytes == 0 || info.NumBlocks != 0 {
					t.Errorf("LegacyBloom Info = %+v", info)
				}
			case rocksfilter.Ribbon:
				if info.NumBlocks == 0 || info.LowerNumColumns == 0 || info.NumProbes != 0 || info.LineBytes != 0 {
					t.Errorf("Standard128Ribbon Info = %+v", info)
				}
			}
			if !bytes.Equal(f.Bytes(), block) {
				t.Error("Bytes() differs from the loaded block")
			}
			t.Logf("%d keys: %d bytes (%.2f bits/key), info %+v", numKeys, len(block),
				float64(len(block)*8)/numKeys, info)

			missed := 0
			for _, k := range keys {
				if !f.MayMatch(k) {
					missed++
				}
			}
			if missed != 0 {
				t.Fatalf("%d of %d added keys do not match (false negatives)", missed, numKeys)
			}
			single := make([]bool, len(absent))
			fp := 0
			for i, k := range absent {
				single[i] = f.MayMatch(k)
				if single[i] {
					fp++
				}
			}
			fpBand(t, policy.String(), fp, numAbsent, f.EstimatedFPRate(numKeys))

			// Batch answers equal single answers, for absent and added keys.
			batch := f.MayMatchBatch(absent)
			diff := 0
			for i := range batch {
				if batch[i] != single[i] {
					diff++
				}
			}
			if diff != 0 {
				t.Errorf("MayMatchBatch differs from MayMatch on %d of %d absent keys", diff, numAbsent)
			}
			bk := f.MayMatchBatch(keys)
			for i, m := range bk {
				if !m {
					t.Fatalf("MayMatchBatch: added key %q does not match", keys[i])
				}
			}

			// MayMatchHash agrees with MayMatch (LegacyBloom: always true).
			diff = 0
			for i, k := range absent[:10000] {
				want := single[i] || policy == rocksfilter.LegacyBloom
				if f.MayMatchHash(rocksfilter.Hash64(k)) != want {
					diff++
				}
			}
			if diff != 0 {
				t.Errorf("MayMatchHash differs on %d of 10000 absent keys", diff)
			}

			// A borrowed filter answers the same.
			bf, err := rocksfilter.LoadBorrowed(block)
			if err != nil {
				t.Fatal(err)
			}
			defer bf.Close()
			diff = 0
			for i, k := range absent {
				if bf.MayMatch(k) != single[i] {
					diff++
				}
			}
			if diff != 0 || !bytes.Equal(bf.Bytes(), block) || bf.Info() != info {
				t.Errorf("LoadBorrowed filter differs: %d answers, bytes equal %v", diff, bytes.Equal(bf.Bytes(), block))
			}
		})
	}
}

func TestAddHashEqualsAdd(t *testing.T) {
	keys := makeKeys("k", 5000)
	for _, policy := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon} {
		want := build(t, policy, bitsPerKey, keys)
		b, err := rocksfilter.NewBuilder(policy, bitsPerKey)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			b.AddHash(rocksfilter.Hash64(k))
		}
		got, err := b.Finish()
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: AddHash(Hash64(k)) block (%d bytes) differs from Add(k) block (%d bytes)", policy, len(got), len(want))
		}
	}
}

func TestHash64(t *testing.T) {
	const empty = 0x5342c3010fe1dd04
	if h := rocksfilter.Hash64(nil); h != empty {
		t.Errorf("Hash64(nil) = %#x, want %#x", h, empty)
	}
	if h := rocksfilter.Hash64([]byte{}); h != empty {
		t.Errorf("Hash64([]byte{}) = %#x, want %#x", h, empty)
	}
	if rocksfilter.Hash64([]byte("a")) == rocksfilter.Hash64([]byte("b")) {
		t.Error("Hash64(a) == Hash64(b)")
	}
}

func TestDuplicatesAndAlt(t *testing.T) {
	b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, bitsPerKey)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Add([]byte("a"))
	b.Add([]byte("a"))
	b.Add([]byte("b"))
	if n := b.NumEntries(); n != 2 {
		t.Errorf("adjacent duplicate: NumEntries = %d, want 2", n)
	}
	b.AddKeyAndAlt([]byte("c1"), []byte("c"))
	b.AddKeyAndAlt([]byte("c2"), []byte("c"))
	if n := b.NumEntries(); n != 5 { // a b c1 c c2
		t.Errorf("AddKeyAndAlt: NumEntries = %d, want 5", n)
	}
	block, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f := load(t, block)
	for _, k := range []string{"a", "b", "c", "c1", "c2"} {
		if !f.MayMatch([]byte(k)) {
			t.Errorf("%q does not match", k)
		}
	}
}

func TestEmptyKeys(t *testing.T) {
	for _, policy := range allPolicies {
		keys := append([][]byte{nil}, makeKeys("x", 3000)...)
		block := build(t, policy, bitsPerKey, keys)
		f := load(t, block)
		if !f.MayMatch(nil) || !f.MayMatch([]byte{}) {
			t.Errorf("%v: the empty key does not match", policy)
		}
		// Batches with empty keys, and a batch of only empty keys (an empty
		// packed buffer).
		got := f.MayMatchBatch([][]byte{nil, []byte("x00000001"), {}, nil})
		for i, m := range got {
			if !m {
				t.Errorf("%v: batch answer %d = false, want true", policy, i)
			}
		}
		if got := f.MayMatchBatch([][]byte{nil, {}}); len(got) != 2 || !got[0] || !got[1] {
			t.Errorf("%v: all-empty batch = %v", policy, got)
		}
		if got := f.MayMatchBatch(nil); len(got) != 0 {
			t.Errorf("%v: MayMatchBatch(nil) = %v", policy, got)
		}
	}
}

func TestEmptyFilter(t *testing.T) {
	for _, policy := range allPolicies {
		block := build(t, policy, bitsPerKey, nil)
		if block == nil || len(block) != 0 {
			t.Fatalf("%v: empty Finish = %v, want empty non-nil", policy, block)
		}
		for _, loadFn := range []func([]byte) (*rocksfilter.Filter, error){rocksfilter.Load, rocksfilter.LoadBorrowed} {
			f, err := loadFn(block)
			if err != nil {
				t.Fatal(err)
			}
			if f.Kind() != rocksfilter.KindAlwaysFalse || f.MayMatch([]byte("a")) || f.MayMatch(nil) ||
				f.EstimatedFPRate(10) != 0 || len(f.Bytes()) != 0 {
				t.Errorf("%v: empty filter: kind %v, match %v, fp %v", policy, f.Kind(), f.MayMatch([]byte("a")), f.EstimatedFPRate(10))
			}
			if got := f.MayMatchBatch([][]byte{[]byte("a"), nil}); got[0] || got[1] {
				t.Errorf("%v: empty filter batch = %v", policy, got)
			}
			f.Close()
		}
	}
}

func TestBuilderReuse(t *testing.T) {
	b, err := rocksfilter.NewBuilder(rocksfilter.Ribbon, bitsPerKey)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	keys := makeKeys("r", 4000)
	var blocks [2][]byte
	for i := range blocks {
		for _, k := range keys {
			b.Add(k)
		}
		if blocks[i], err = b.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(blocks[0], blocks[1]) {
		t.Error("second Finish of the same keys differs from the first")
	}
}

func wantStatus(t *testing.T, what string, err error, status rocksfilter.Status, sentinel error) {
	t.Helper()
	var e *rocksfilter.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want *rocksfilter.Error", what, err, err)
	}
	if e.Status != status || !errors.Is(err, sentinel) {
		t.Errorf("%s: status %v, want %v (errors.Is %v)", what, e.Status, status, errors.Is(err, sentinel))
	}
	for _, other := range []error{rocksfilter.ErrInvalidArgument, rocksfilter.ErrCorruption, rocksfilter.ErrNotSupported,
		rocksfilter.ErrIO, rocksfilter.ErrNotFound, rocksfilter.ErrInternal} {
		if other != sentinel && errors.Is(err, other) {
			t.Errorf("%s: errors.Is(err, %v) is true", what, other)
		}
	}
	t.Logf("%s: %v", what, err)
}

func TestNewBuilderErrors(t *testing.T) {
	for _, bpk := range []float64{0.3, math.NaN(), -1, 0} {
		b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, bpk)
		if b != nil {
			t.Errorf("NewBuilder(%v) returned a builder", bpk)
		}
		wantStatus(t, fmt.Sprintf("bits/key %v", bpk), err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
		if e := err.(*rocksfilter.Error); e.Msg == "" {
			t.Errorf("bits/key %v: empty message", bpk)
		}
	}
	_, err := rocksfilter.NewBuilder(rocksfilter.Policy(42), 10)
	wantStatus(t, "policy 42", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	// Accepted edge values.
	for _, bpk := range []float64{0.5, 1, 100, math.Inf(1)} {
		b, err := rocksfilter.NewBuilder(rocksfilter.Ribbon, bpk)
		if err != nil {
			t.Errorf("NewBuilder(Ribbon, %v): %v", bpk, err)
		}
		b.Close()
	}
}

// Blocks whose geometry no longer fits their length load as RocksDB's
// reader reads them: a legacy Bloom whose line count has no solution is
// always-true, a Ribbon with a partial segment uses its whole segments.
// Either way every key that was added still may match.
func TestDegenerateBlocks(t *testing.T) {
	keys := makeKeys("c", 2000)
	for _, policy := range []rocksfilter.Policy{rocksfilter.Ribbon, rocksfilter.LegacyBloom} {
		block := build(t, policy, bitsPerKey, keys)
		for _, loadFn := range []func([]byte) (*rocksfilter.Filter, error){rocksfilter.Load, rocksfilter.LoadBorrowed} {
			f, err := loadFn(block[1:]) // one byte short of the built geometry
			if err != nil {
				t.Fatalf("%v: %v", policy, err)
			}
			want := rocksfilter.KindAlwaysTrue
			if policy == rocksfilter.Ribbon {
				want = rocksfilter.KindStandard128Ribbon
			}
			if f.Kind() != want {
				t.Errorf("%v: a block one byte short loaded as %v, want %v", policy, f.Kind(), want)
			}
			if want == rocksfilter.KindAlwaysTrue {
				for _, k := range keys[:100] {
					if !f.MayMatch(k) {
						t.Fatalf("%v: always-true block answered absent", policy)
					}
				}
			}
			f.Close()
		}
	}
}

func TestLegacyAddHash(t *testing.T) {
	b, err := rocksfilter.NewBuilder(rocksfilter.LegacyBloom, bitsPerKey)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Add([]byte("a"))
	b.AddHash(rocksfilter.Hash64([]byte("b")))
	block, err := b.Finish()
	if block != nil {
		t.Errorf("Finish returned %d bytes", len(block))
	}
	wantStatus(t, "legacy AddHash", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	// The builder was emptied and works again.
	b.Add([]byte("a"))
	if block, err = b.Finish(); err != nil || len(block) == 0 {
		t.Errorf("Finish after error: %d bytes, %v", len(block), err)
	}
	f := load(t, block)
	if !f.MayMatch([]byte("a")) || f.MayMatchHash(rocksfilter.Hash64([]byte("zzz"))) != true {
		t.Error("legacy filter: a must match; MayMatchHash must answer true")
	}
}

func TestClosedHandles(t *testing.T) {
	b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, bitsPerKey)
	if err != nil {
		t.Fatal(err)
	}
	b.Add([]byte("a"))
	if b.Close() != nil || b.Close() != nil {
		t.Error("Builder.Close returned an error")
	}
	b.Add([]byte("a"))
	b.AddKeyAndAlt([]byte("a"), []byte("b"))
	b.AddHash(1)
	if b.NumEntries() != 0 {
		t.Error("closed Builder: NumEntries != 0")
	}
	_, err = b.Finish()
	if !errors.Is(err, rocksfilter.ErrClosed) || !errors.Is(err, rocksfilter.ErrInvalidArgument) {
		t.Errorf("closed Builder.Finish: %v", err)
	}

	block := build(t, rocksfilter.Bloom, bitsPerKey, makeKeys("k", 100))
	for _, loadFn := range []func([]byte) (*rocksfilter.Filter, error){rocksfilter.Load, rocksfilter.LoadBorrowed} {
		f, err := loadFn(block)
		if err != nil {
			t.Fatal(err)
		}
		if f.MayMatch([]byte("absent")) {
			t.Log("(absent key is a false positive)")
		}
		if f.Close() != nil || f.Close() != nil {
			t.Error("Filter.Close returned an error")
		}
		checkClosedFilter(t, f)
	}
	checkClosedFilter(t, nil)
	checkClosedFilter(t, new(rocksfilter.Filter))

	var s *rocksfilter.SST
	for _, s := range []*rocksfilter.SST{s, new(rocksfilter.SST)} {
		if !s.MayMatch([]byte("x")) || s.FilterType() != rocksfilter.SSTFilterUnsupported || s.Close() != nil {
			t.Error("closed SST: wrong answers")
		}
		if ok, err := s.PrefixMayMatch([]byte("x")); !ok || !errors.Is(err, rocksfilter.ErrClosed) {
			t.Errorf("closed SST.PrefixMayMatch = %v, %v", ok, err)
		}
		if f, err := s.FullFilter(); f != nil || !errors.Is(err, rocksfilter.ErrClosed) {
			t.Errorf("closed SST.FullFilter = %v, %v", f, err)
		}
		if p := s.Properties(); p.FilterType != rocksfilter.SSTFilterUnsupported || p.NumEntries != 0 {
			t.Errorf("closed SST.Properties = %+v", p)
		}
		if _, ok := s.Property("rocksdb.num.entries"); ok {
			t.Error("closed SST.Property found something")
		}
	}
}

func checkClosedFilter(t *testing.T, f *rocksfilter.Filter) {
	t.Helper()
	if !f.MayMatch([]byte("absent")) || !f.MayMatchHash(1) || f.Kind() != rocksfilter.KindAlwaysTrue ||
		f.Info() != (rocksfilter.Info{Kind: rocksfilter.KindAlwaysTrue}) || f.EstimatedFPRate(10) != 1 || f.Bytes() != nil {
		t.Error("closed Filter: wrong answers")
	}
	if got := f.MayMatchBatch([][]byte{[]byte("a"), nil}); !got[0] || !got[1] {
		t.Errorf("closed Filter batch = %v", got)
	}
	if f.Close() != nil {
		t.Error("closed Filter: Close returned an error")
	}
}

// TestFinalizers drops handles without Close and forces collections: the
// finalizers must free them, and in particular unpin LoadBorrowed's pinned
// block before the runtime.Pinner is collected (a leaked pin panics).
func TestFinalizers(t *testing.T) {
	block := build(t, rocksfilter.Ribbon, bitsPerKey, makeKeys("f", 5000))
	for i := 0; i < 200; i++ {
		b, _ := rocksfilter.NewBuilder(rocksfilter.Bloom, 10)
		b.Add([]byte("x"))
		f1, err := rocksfilter.Load(block)
		if err != nil {
			t.Fatal(err)
		}
		own := append([]byte(nil), block...)
		f2, err := rocksfilter.LoadBorrowed(own)
		if err != nil {
			t.Fatal(err)
		}
		if !f1.MayMatch([]byte("f00000001")) || !f2.MayMatch([]byte("f00000001")) {
			t.Fatal("false negative")
		}
	}
	for i := 0; i < 5; i++ {
		runtime.GC()
	}
}

func TestConcurrentQueries(t *testing.T) {
	keys := makeKeys("key-", 10000)
	absent := makeKeys("absent-", 20000)
	f := load(t, build(t, rocksfilter.Ribbon, bitsPerKey, keys))
	want := f.MayMatchBatch(absent)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i, k := range absent {
				if (i+g)%2 == 0 && f.MayMatch(k) != want[i] {
					errs <- "MayMatch differs under concurrency"
					return
				}
			}
			got := f.MayMatchBatch(absent)
			for i := range got {
				if got[i] != want[i] {
					errs <- "MayMatchBatch differs under concurrency"
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestStrings(t *testing.T) {
	for k, want := range map[rocksfilter.Kind]string{
		rocksfilter.KindAlwaysFalse: "AlwaysFalse", rocksfilter.KindAlwaysTrue: "AlwaysTrue",
		rocksfilter.KindFastLocalBloom: "FastLocalBloom", rocksfilter.KindStandard128Ribbon: "Standard128Ribbon",
		rocksfilter.KindLegacyBloom: "LegacyBloom", rocksfilter.Kind(9): "Kind(9)",
	} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
	}
	if rocksfilter.StatusNotFound.String() != "not found" || rocksfilter.SSTFilterPartitioned.String() != "partitioned" {
		t.Error("Status/SSTFilterType String")
	}
	if !errors.Is(&rocksfilter.Error{Status: rocksfilter.StatusNotFound, Msg: "x"}, rocksfilter.ErrNotFound) {
		t.Error("errors.Is(*Error{NotFound}, ErrNotFound) = false")
	}
}

func TestSSTOpenErrors(t *testing.T) {
	_, err := rocksfilter.OpenSST(tempDir(t) + "/missing.sst")
	wantStatus(t, "missing file", err, rocksfilter.StatusIOError, rocksfilter.ErrIO)
	_, err = rocksfilter.OpenSST("bad\x00path")
	wantStatus(t, "NUL in path", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	garbage := bytes.Repeat([]byte{0xab}, 4096)
	_, err = rocksfilter.OpenSSTMemory(garbage)
	wantStatus(t, "garbage file", err, rocksfilter.StatusCorruption, rocksfilter.ErrCorruption)
	_, err = rocksfilter.OpenSSTMemory(nil)
	if err == nil {
		t.Error("OpenSSTMemory(nil) succeeded")
	}
	t.Logf("empty file: %v", err)
}

// TestMayMatchBatchInto checks that the answers written into the caller's
// slice equal MayMatchBatch's, that the rest of the slice is untouched,
// and that a call allocates nothing.
func TestMayMatchBatchInto(t *testing.T) {
	keys := makeKeys("key-", 5000)
	probe := append(makeKeys("key-", 100), makeKeys("absent-", 156)...)
	probe[3] = nil // the empty key, among others
	for _, policy := range allPolicies {
		f := load(t, build(t, policy, bitsPerKey, keys))
		want := f.MayMatchBatch(probe)
		out := make([]bool, len(probe)+10)
		for i := range out[len(probe):] {
			out[len(probe)+i] = i%2 == 0
		}
		allocs := testing.AllocsPerRun(100, func() { f.MayMatchBatchInto(out, probe) })
		if allocs != 0 {
			t.Errorf("%v: MayMatchBatchInto allocates %v times per call, want 0", policy, allocs)
		}
		fp := 0
		for i := range probe {
			if out[i] != want[i] {
				t.Fatalf("%v: MayMatchBatchInto[%d] = %v, MayMatchBatch says %v", policy, i, out[i], want[i])
			}
			if i < 100 && i != 3 && !out[i] {
				t.Fatalf("%v: added key %q does not match", policy, probe[i])
			}
			if i >= 100 && out[i] {
				fp++
			}
		}
		if fp > 20 {
			t.Errorf("%v: %d of 156 absent keys match", policy, fp)
		}
		for i, m := range out[len(probe):] {
			if m != (i%2 == 0) {
				t.Fatalf("%v: out[%d] beyond len(keys) was overwritten", policy, len(probe)+i)
			}
		}
	}

	// A closed filter answers true for every key, also without allocating.
	var closed *rocksfilter.Filter
	out := make([]bool, 3)
	if allocs := testing.AllocsPerRun(10, func() { closed.MayMatchBatchInto(out, probe[:3]) }); allocs != 0 {
		t.Errorf("closed filter: %v allocations", allocs)
	}
	if !out[0] || !out[1] || !out[2] {
		t.Errorf("closed filter: MayMatchBatchInto = %v, want all true", out)
	}
	closed.MayMatchBatchInto(nil, nil) // nothing to do, no panic

	defer func() {
		if r := recover(); r == nil {
			t.Error("MayMatchBatchInto with len(out) < len(keys) did not panic")
		} else {
			t.Logf("short out: %v", r)
		}
	}()
	closed.MayMatchBatchInto(make([]bool, 1), probe[:2])
}

// TestOpenSSTNotExist checks that a file that cannot be opened gives an
// *Error (ErrIO) that also wraps the *fs.PathError saying why, and
// that other I/O failures do not claim the file is missing.
func TestOpenSSTNotExist(t *testing.T) {
	dir := tempDir(t)
	for _, path := range []string{
		filepath.Join(dir, "missing.sst"),
		filepath.Join(dir, "no-such-dir", "missing.sst"),
	} {
		s, err := rocksfilter.OpenSST(path)
		if s != nil {
			t.Fatalf("OpenSST(%s) returned a handle", path)
		}
		wantStatus(t, path, err, rocksfilter.StatusIOError, rocksfilter.ErrIO)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenSST(%s): errors.Is(err, fs.ErrNotExist) = false for %v", path, err)
		}
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, rocksfilter.ErrClosed) {
			t.Errorf("OpenSST(%s): %v matches fs.ErrPermission or ErrClosed", path, err)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != path {
			t.Errorf("OpenSST(%s): no *fs.PathError for the path in %v", path, err)
		}
		var e *rocksfilter.Error
		if !errors.As(err, &e) || e.Op != "OpenSST" || e.Msg == "" {
			t.Errorf("OpenSST(%s): %#v, want an *Error with Op and Msg", path, err)
		}
	}

	// A directory can be stat'ed and opened but is no SST: an I/O error
	// that is not "does not exist". The same for an unreadable file when
	// not running as root.
	_, err := rocksfilter.OpenSST(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenSST(directory) = %v, want an error not matching fs.ErrNotExist", err)
	}
	t.Logf("directory: %v", err)
	locked := filepath.Join(dir, "locked.sst")
	if err := os.WriteFile(locked, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(locked); err == nil {
		f.Close()
		t.Log("running with permission to read a mode-000 file (root): permission case skipped")
	} else {
		_, err := rocksfilter.OpenSST(locked)
		wantStatus(t, "unreadable file", err, rocksfilter.StatusIOError, rocksfilter.ErrIO)
		if !errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenSST(mode 000 file) = %v, want it to match fs.ErrPermission only", err)
		}
	}
}

// TestLoadBorrowedKeepsBlockAlive drops every Go reference to a borrowed
// block but the Filter's pin, churns the heap through several collections
// and checks the filter still reads the original bytes.
func TestLoadBorrowedKeepsBlockAlive(t *testing.T) {
	keys := makeKeys("b", 20000)
	want := build(t, rocksfilter.Ribbon, bitsPerKey, keys)
	f, err := rocksfilter.LoadBorrowed(append([]byte(nil), want...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sink [][]byte
	for i := 0; i < 5; i++ {
		runtime.GC()
		for j := 0; j < 1000; j++ {
			sink = append(sink, bytes.Repeat([]byte{0x5a}, len(want)))
		}
		sink = sink[:0]
	}
	if !bytes.Equal(f.Bytes(), want) {
		t.Fatal("borrowed block changed after GC")
	}
	for _, k := range keys {
		if !f.MayMatch(k) {
			t.Fatalf("borrowed filter lost key %q", k)
		}
	}
}

// TestDeprecatedNames checks that the former names still build and are the
// same constants and sentinel as the current ones.
func TestDeprecatedNames(t *testing.T) {
	kinds := []struct {
		old, cur rocksfilter.Kind
		name     string
	}{
		{rocksfilter.AlwaysFalse, rocksfilter.KindAlwaysFalse, "AlwaysFalse"},
		{rocksfilter.AlwaysTrue, rocksfilter.KindAlwaysTrue, "AlwaysTrue"},
		{rocksfilter.FastLocalBloom, rocksfilter.KindFastLocalBloom, "FastLocalBloom"},
		{rocksfilter.Standard128Ribbon, rocksfilter.KindStandard128Ribbon, "Standard128Ribbon"},
		{rocksfilter.LegacyBloomKind, rocksfilter.KindLegacyBloom, "LegacyBloom"},
	}
	for _, k := range kinds {
		if k.old != k.cur || k.cur.String() != k.name {
			t.Errorf("%s: old %d, new %d, String %q", k.name, int(k.old), int(k.cur), k.cur.String())
		}
	}
	if rocksfilter.ErrIOError != rocksfilter.ErrIO {
		t.Error("ErrIOError is not ErrIO")
	}
	_, err := rocksfilter.OpenSST(filepath.Join(tempDir(t), "missing.sst"))
	if !errors.Is(err, rocksfilter.ErrIOError) || !errors.Is(err, rocksfilter.ErrIO) {
		t.Errorf("OpenSST of a missing file: %v matches ErrIO %v, ErrIOError %v", err,
			errors.Is(err, rocksfilter.ErrIO), errors.Is(err, rocksfilter.ErrIOError))
	}
}

// Options with only a policy and bits/key give NewBuilder's bytes; a target
// FP rate, a byte budget and 1-in-1000 banding give blocks that meet them;
// invalid combinations are ErrInvalidArgument.
func TestNewBuilderWithOptions(t *testing.T) {
	build := func(b *rocksfilter.Builder, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for i := 0; i < 20000; i++ {
			b.Add(fmt.Appendf(nil, "key%d", i))
		}
		block, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return block
	}
	for _, p := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon, rocksfilter.LegacyBloom} {
		want := build(rocksfilter.NewBuilder(p, 7.5))
		got := build(rocksfilter.NewBuilderWithOptions(rocksfilter.BuilderOptions{Policy: p, BitsPerKey: 7.5}))
		if !bytes.Equal(got, want) {
			t.Errorf("%v: options with bits/key only differ from NewBuilder", p)
		}
	}
	for _, o := range []rocksfilter.BuilderOptions{
		{Policy: rocksfilter.Bloom, FPRate: 0.01},
		{Policy: rocksfilter.Ribbon, FPRate: 0.01, RibbonFailureOneIn: 1000},
		{Policy: rocksfilter.Ribbon, MaxBytes: 16384},
	} {
		block := build(rocksfilter.NewBuilderWithOptions(o))
		f, err := rocksfilter.Load(block)
		if err != nil {
			t.Fatal(err)
		}
		est := f.EstimatedFPRate(20000)
		if o.FPRate != 0 && est > o.FPRate*1.001 {
			t.Errorf("%+v: estimate %v", o, est)
		}
		if o.MaxBytes != 0 && (uint64(len(block)) > o.MaxBytes || uint64(len(block))+64 <= o.MaxBytes) {
			t.Errorf("%+v: %d bytes", o, len(block))
		}
		f.Close()
	}
	for _, o := range []rocksfilter.BuilderOptions{
		{Policy: rocksfilter.Bloom, FPRate: 0.01, MaxBytes: 4096},
		{Policy: rocksfilter.Bloom, FPRate: 1},
		{Policy: rocksfilter.Bloom, MaxBytes: 10},
		{Policy: rocksfilter.LegacyBloom, FPRate: 0.01},
		{Policy: rocksfilter.Ribbon, BitsPerKey: 10, RibbonFailureOneIn: 100},
		{Policy: rocksfilter.Bloom},
	} {
		b, err := rocksfilter.NewBuilderWithOptions(o)
		if b != nil {
			t.Errorf("%+v: returned a builder", o)
		}
		wantStatus(t, fmt.Sprintf("%+v", o), err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	}
}
