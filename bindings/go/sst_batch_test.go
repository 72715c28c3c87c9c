//go:build !norocksdb

package rocksfilter_test

// SST.MayMatchBatch and SST.MayMatchBatchInto on real SSTs written by
// RocksDB 7.8.3 (internal/rocksdbtest): full and partitioned, Bloom and
// Ribbon, whole-key and prefix-only; every answer equals SST.MayMatch's.

import (
	"fmt"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/rocksdbtest"
)

func TestSSTMayMatchBatchEqualsSingle(t *testing.T) {
	const n = 50000
	keys := makeKeys("key-", n)
	absent := makeKeys("absent-", numAbsent)
	cases := []struct {
		name string
		opts rocksdbtest.Options
		typ  rocksfilter.SSTFilterType
	}{
		{"bloom_full", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, rocksfilter.SSTFilterFull},
		{"ribbon_full", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10}, rocksfilter.SSTFilterFull},
		{"bloom_partitioned", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, Partitioned: true},
			rocksfilter.SSTFilterPartitioned},
		{"ribbon_partitioned", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, Partitioned: true},
			rocksfilter.SSTFilterPartitioned},
		{"bloom_partitioned_prefix_only", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10,
			Partitioned: true, PrefixLen: 6, NoWholeKeyFiltering: true}, rocksfilter.SSTFilterPartitioned},
		{"legacy_bloom_full_fv4", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, FormatVersion: 4},
			rocksfilter.SSTFilterFull},
		{"no_filter", rocksdbtest.Options{Filter: rocksdbtest.NoFilter}, rocksfilter.SSTFilterNone},
	}
	// Present and absent keys interleaved, the empty key among them, so that
	// each batch spans many partitions in no particular order.
	probe := make([][]byte, 0, n+numAbsent+1)
	for i := 0; i < numAbsent; i++ {
		probe = append(probe, absent[i], keys[(i*7919)%n])
	}
	probe = append(probe, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeSST(t, c.name, c.opts, keys)
			s := openSST(t, path)
			if s.FilterType() != c.typ {
				t.Fatalf("filter type %v, want %v", s.FilterType(), c.typ)
			}
			want := make([]bool, len(probe))
			rejected := 0
			for i, k := range probe {
				want[i] = s.MayMatch(k)
				if !want[i] {
					rejected++
				}
			}
			got := s.MayMatchBatch(probe)
			for i := range probe {
				if got[i] != want[i] {
					t.Fatalf("MayMatchBatch[%d] (%q) = %v, MayMatch says %v", i, probe[i], got[i], want[i])
				}
			}
			if bk := s.MayMatchBatch(keys); len(bk) != n {
				t.Fatalf("MayMatchBatch(keys) has %d answers", len(bk))
			} else {
				for i, m := range bk {
					if !m {
						t.Fatalf("MayMatchBatch: key %q in the file answered absent", keys[i])
					}
				}
			}
			// Batches of every size up to 70 and a few large ones, at
			// different offsets, into a reused slice: the same answers.
			out := make([]bool, 4097)
			for _, size := range []int{1, 2, 3, 15, 16, 17, 63, 64, 65, 70, 1000, 4096} {
				for off := 0; off+size <= len(probe); off += size*3 + 1 {
					s.MayMatchBatchInto(out, probe[off:off+size])
					for i := 0; i < size; i++ {
						if out[i] != want[off+i] {
							t.Fatalf("batch of %d at %d: answer %d = %v, MayMatch says %v", size, off, i, out[i], want[off+i])
						}
					}
				}
			}
			allocs := testing.AllocsPerRun(50, func() { s.MayMatchBatchInto(out, probe[:4096]) })
			if allocs != 0 {
				t.Errorf("MayMatchBatchInto allocates %v times per call, want 0", allocs)
			}
			// The same probes as a key arena: one buffer and its offsets.
			arena, offs := arenaOf(probe, 3)
			packed := make([]bool, len(probe))
			if err := s.MayMatchPackedInto(packed, arena, offs); err != nil {
				t.Fatalf("MayMatchPackedInto: %v", err)
			}
			for i := range probe {
				if packed[i] != want[i] {
					t.Fatalf("MayMatchPackedInto[%d] (%q) = %v, MayMatch says %v", i, probe[i], packed[i], want[i])
				}
			}
			if a := testing.AllocsPerRun(50, func() { _ = s.MayMatchPackedInto(packed, arena, offs[:4097]) }); a != 0 {
				t.Errorf("MayMatchPackedInto allocates %v times per call, want 0", a)
			}
			t.Logf("%d probes: batch == single; %d rejected", len(probe), rejected)
			if c.typ != rocksfilter.SSTFilterNone && rejected < numAbsent/2 {
				t.Errorf("only %d of %d absent keys rejected", rejected, numAbsent)
			}
		})
	}
}

// TestSSTMayMatchBatchClosed: a closed SST (and a nil one) answers true
// for every key without allocating; an empty batch is a no-op; a short
// out panics.
func TestSSTMayMatchBatchClosed(t *testing.T) {
	keys := makeKeys("key-", 1000)
	path := writeSST(t, "closed", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, keys)
	s, err := rocksfilter.OpenSST(path)
	if err != nil {
		t.Fatal(err)
	}
	absent := makeKeys("absent-", 3)
	if got := s.MayMatchBatch(absent); got[0] && got[1] && got[2] {
		t.Fatalf("open SST: every absent key matched: %v", got)
	}
	s.Close()
	for _, h := range []*rocksfilter.SST{s, nil} {
		name := fmt.Sprintf("%p", h)
		if got := h.MayMatchBatch(absent); len(got) != 3 || !got[0] || !got[1] || !got[2] {
			t.Errorf("closed/nil SST %s: MayMatchBatch = %v, want all true", name, got)
		}
		out := make([]bool, 4)
		if allocs := testing.AllocsPerRun(10, func() { h.MayMatchBatchInto(out, absent) }); allocs != 0 {
			t.Errorf("closed/nil SST: %v allocations", allocs)
		}
		if !out[0] || !out[1] || !out[2] || out[3] {
			t.Errorf("closed/nil SST: MayMatchBatchInto = %v, want [true true true false]", out)
		}
		if got := h.MayMatchBatch(nil); len(got) != 0 {
			t.Errorf("MayMatchBatch(nil) = %v", got)
		}
		h.MayMatchBatchInto(nil, nil)
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("SST.MayMatchBatchInto with len(out) < len(keys) did not panic")
			} else {
				t.Logf("short out: %v", r)
			}
		}()
		s.MayMatchBatchInto(make([]bool, 1), absent)
	}()
}

// TestSSTMayMatchBatchEmptyKeys: nil and empty keys are the empty key, in
// a batch as in MayMatch.
func TestSSTMayMatchBatchEmptyKeys(t *testing.T) {
	keys := append([][]byte{{}}, makeKeys("key-", 2000)...) // the empty key is in the file
	path := writeSST(t, "empty_key", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, keys)
	s := openSST(t, path)
	got := s.MayMatchBatch([][]byte{nil, {}, []byte("key-00000001"), nil})
	if len(got) != 4 || !got[0] || !got[1] || !got[2] || !got[3] {
		t.Errorf("MayMatchBatch with empty keys = %v, want all true", got)
	}
	if !s.MayMatch(nil) {
		t.Error("MayMatch(nil) = false for a file holding the empty key")
	}
}
