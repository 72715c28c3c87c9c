//go:build !norocksdb

package rocksfilter_test

// Interoperability with real RocksDB (librocksdb, e.g. Debian's
// librocksdb-dev 7.8.3): SSTs written by rocksdb_sstfilewriter_* through
// internal/rocksdbtest are read back with OpenSST/OpenSSTMemory and their
// filters compared byte for byte with this package's Builder. Build with
// -tags norocksdb to leave these tests (and librocksdb) out.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/rocksdbtest"
)

func writeSST(t *testing.T, name string, opts rocksdbtest.Options, keys [][]byte) string {
	t.Helper()
	path := filepath.Join(tempDir(t), name+".sst")
	if err := rocksdbtest.WriteSST(path, opts, keys); err != nil {
		t.Fatalf("WriteSST %s: %v", name, err)
	}
	return path
}

func openSST(t *testing.T, path string) *rocksfilter.SST {
	t.Helper()
	s, err := rocksfilter.OpenSST(path)
	if err != nil {
		t.Fatalf("OpenSST: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestInteropFullFilter(t *testing.T) {
	const n = 50000
	keys := makeKeys("key-", n)
	absent := makeKeys("absent-", numAbsent)
	cases := []struct {
		name   string
		opts   rocksdbtest.Options
		policy rocksfilter.Policy
		kind   rocksfilter.Kind
		fpName string
	}{
		{"bloom_full_fv5", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, FormatVersion: 5},
			rocksfilter.Bloom, rocksfilter.KindFastLocalBloom, "bloomfilter"},
		{"ribbon_hybrid_fv5", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, FormatVersion: 5},
			rocksfilter.Ribbon, rocksfilter.KindStandard128Ribbon, "ribbonfilter"},
		{"bloom_full_fv4", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, FormatVersion: 4},
			rocksfilter.LegacyBloom, rocksfilter.KindLegacyBloom, "bloomfilter"},
		{"bloom_full_default_fv_bpk7.5", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 7.5},
			rocksfilter.Bloom, rocksfilter.KindFastLocalBloom, "bloomfilter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeSST(t, c.name, c.opts, keys)
			s := openSST(t, path)
			props := s.Properties()
			t.Logf("properties: %+v", props)
			if s.FilterType() != rocksfilter.SSTFilterFull || props.FilterType != rocksfilter.SSTFilterFull ||
				props.NumPartitions != 1 || props.NumEntries != n || props.FilterPolicy != c.fpName ||
				!props.WholeKeyFiltering || props.HasPrefixFilter || props.Comparator != "leveldb.BytewiseComparator" {
				t.Errorf("unexpected properties %+v", props)
			}
			if want := c.opts.FormatVersion; want != 0 && props.FormatVersion != want {
				t.Errorf("format_version %d, want %d", props.FormatVersion, want)
			}
			if raw, ok := s.Property("rocksdb.comparator"); !ok || string(raw) != "leveldb.BytewiseComparator" {
				t.Errorf("Property(rocksdb.comparator) = %q, %v", raw, ok)
			}

			missed := 0
			for _, k := range keys {
				if !s.MayMatch(k) {
					missed++
				}
			}
			t.Logf("SST.MayMatch: %d of %d written keys missed", missed, n)
			if missed != 0 {
				t.Fatalf("%d false negatives", missed)
			}

			f, err := s.FullFilter()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Kind() != c.kind {
				t.Errorf("FullFilter kind %v, want %v", f.Kind(), c.kind)
			}
			ours := build(t, c.policy, c.opts.BitsPerKey, keys)
			theirs := f.Bytes()
			t.Logf("RocksDB filter %d bytes, ours %d bytes, identical %v", len(theirs), len(ours), bytes.Equal(ours, theirs))
			if !bytes.Equal(ours, theirs) {
				t.Errorf("Builder(%v, %v) block differs from RocksDB's (%d vs %d bytes)", c.policy, c.opts.BitsPerKey, len(ours), len(theirs))
			}
			if uint64(len(theirs)) != props.FilterSize {
				t.Errorf("filter %d bytes, properties say %d", len(theirs), props.FilterSize)
			}

			agree, fp := 0, 0
			batch := f.MayMatchBatch(absent)
			for i, k := range absent {
				sm := s.MayMatch(k)
				if sm == f.MayMatch(k) && sm == batch[i] {
					agree++
				}
				if sm {
					fp++
				}
			}
			t.Logf("SST.MayMatch agrees with Filter.MayMatch/MayMatchBatch on %d of %d absent keys", agree, numAbsent)
			if agree != numAbsent {
				t.Errorf("SST and Filter disagree on %d absent keys", numAbsent-agree)
			}
			fpBand(t, c.name, fp, numAbsent, f.EstimatedFPRate(n))

			// A filter from a file opened by path outlives the SST handle.
			s.Close()
			missed = 0
			for _, k := range keys {
				if !f.MayMatch(k) {
					missed++
				}
			}
			if missed != 0 || !bytes.Equal(f.Bytes(), theirs) {
				t.Errorf("after SST.Close: %d keys missed, bytes equal %v", missed, bytes.Equal(f.Bytes(), theirs))
			}

			// The same file from memory: C gets its own copy, shared with the
			// filter, which must outlive the SST handle.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := rocksfilter.OpenSSTMemory(data)
			if err != nil {
				t.Fatal(err)
			}
			for i := range data { // the SST must not read the caller's slice
				data[i] = 0
			}
			mf, err := ms.FullFilter()
			if err != nil {
				t.Fatal(err)
			}
			if ms.Properties() != props {
				t.Errorf("OpenSSTMemory properties differ: %+v", ms.Properties())
			}
			ms.Close()
			ms.Close()
			// mf still reads the C copy of the file after the SST is closed.
			if !bytes.Equal(mf.Bytes(), theirs) {
				t.Error("FullFilter of an OpenSSTMemory SST differs after the SST was closed")
			}
			diff := 0
			for i, k := range absent {
				if mf.MayMatch(k) != batch[i] {
					diff++
				}
			}
			if diff != 0 {
				t.Errorf("OpenSSTMemory filter differs on %d absent keys", diff)
			}
			mf.Close()
			mf.Close()
		})
	}
}

func TestInteropPartitioned(t *testing.T) {
	const n = 30000
	keys := makeKeys("key-", n)
	path := writeSST(t, "partitioned", rocksdbtest.Options{
		Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, Partitioned: true}, keys)
	s := openSST(t, path)
	props := s.Properties()
	t.Logf("properties: %+v", props)
	if s.FilterType() != rocksfilter.SSTFilterPartitioned || props.NumPartitions < 2 {
		t.Errorf("filter type %v, %d partitions; want partitioned, >= 2", s.FilterType(), props.NumPartitions)
	}
	f, err := s.FullFilter()
	if f != nil {
		t.Error("FullFilter of a partitioned filter returned a filter")
	}
	wantStatus(t, "FullFilter(partitioned)", err, rocksfilter.StatusNotFound, rocksfilter.ErrNotFound)
	missed := 0
	for _, k := range keys {
		if !s.MayMatch(k) {
			missed++
		}
	}
	fp := 0
	for _, k := range makeKeys("absent-", numAbsent) {
		if s.MayMatch(k) {
			fp++
		}
	}
	t.Logf("partitioned: %d of %d keys missed; %d of %d absent keys match", missed, n, fp, numAbsent)
	if missed != 0 {
		t.Errorf("%d false negatives", missed)
	}
	if fp == 0 || fp > numAbsent/20 {
		t.Errorf("partitioned filter FP count %d of %d: not a working ~1%% filter", fp, numAbsent)
	}
}

func TestInteropNoFilter(t *testing.T) {
	s := openSST(t, writeSST(t, "nofilter", rocksdbtest.Options{}, makeKeys("k", 100)))
	if s.FilterType() != rocksfilter.SSTFilterNone || !s.MayMatch([]byte("absent")) {
		t.Errorf("no filter: type %v, MayMatch(absent) %v", s.FilterType(), s.MayMatch([]byte("absent")))
	}
	_, err := s.FullFilter()
	wantStatus(t, "FullFilter(no filter)", err, rocksfilter.StatusNotFound, rocksfilter.ErrNotFound)
	_, err = s.PrefixMayMatch([]byte("k000"))
	wantStatus(t, "PrefixMayMatch(no filter)", err, rocksfilter.StatusNotSupported, rocksfilter.ErrNotSupported)
}

func TestInteropPrefix(t *testing.T) {
	// Keys "pNNN:NNNNNN" in 100 prefix groups "p000".."p198" (even numbers).
	var keys [][]byte
	for g := 0; g < 200; g += 2 {
		for i := 0; i < 100; i++ {
			keys = append(keys, fmt.Appendf(nil, "p%03d:%06d", g, i))
		}
	}
	for _, wkf := range []bool{true, false} {
		t.Run(fmt.Sprintf("whole_key_filtering=%v", wkf), func(t *testing.T) {
			s := openSST(t, writeSST(t, "prefix", rocksdbtest.Options{
				Filter: rocksdbtest.BloomFull, BitsPerKey: 10, PrefixLen: 4, NoWholeKeyFiltering: !wkf}, keys))
			props := s.Properties()
			t.Logf("properties: %+v", props)
			if !props.HasPrefixFilter || props.PrefixExtractor != "rocksdb.FixedPrefix.4" || props.WholeKeyFiltering != wkf {
				t.Errorf("unexpected properties %+v", props)
			}
			present, absentHits := 0, 0
			for g := 0; g < 200; g++ {
				ok, err := s.PrefixMayMatch(fmt.Appendf(nil, "p%03d", g))
				if err != nil {
					t.Fatal(err)
				}
				if g%2 == 0 && ok {
					present++
				}
				if g%2 == 1 && ok {
					absentHits++
				}
			}
			t.Logf("PrefixMayMatch: %d of 100 present prefixes match, %d of 100 absent prefixes match", present, absentHits)
			if present != 100 || absentHits > 10 {
				t.Errorf("PrefixMayMatch: %d/100 present, %d/100 absent match", present, absentHits)
			}
			_, err := s.PrefixMayMatch([]byte("p0"))
			wantStatus(t, "PrefixMayMatch(wrong length)", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
			missed := 0
			for _, k := range keys {
				if !s.MayMatch(k) {
					missed++
				}
			}
			if missed != 0 {
				t.Errorf("%d of %d written keys missed", missed, len(keys))
			}

			// Our builder with RocksDB's key/prefix feed gives the same block.
			f, err := s.FullFilter()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			for i, k := range keys {
				if wkf {
					b.AddKeyAndAlt(k, k[:4])
					continue
				}
				if i == 1 {
					// RocksDB 7.8 FullFilterBlockBuilder::Add quirk: without
					// whole-key filtering last_prefix_recorded_ stays false,
					// so the second key first adds last_prefix_str_, which
					// is still empty: the empty key enters the filter once.
					b.Add(nil)
				}
				b.Add(k[:4])
			}
			if !wkf && (props.NumFilterEntries != 102 || !f.MayMatch(nil)) {
				t.Errorf("RocksDB 7.8 prefix-only quirk not reproduced: %d filter entries (want 100 prefixes + \"\" + p000 again), empty key matches %v",
					props.NumFilterEntries, f.MayMatch(nil))
			}
			if got := uint64(b.NumEntries()); got != props.NumFilterEntries {
				t.Errorf("builder holds %d entries, RocksDB recorded %d", got, props.NumFilterEntries)
			}
			ours, err := b.Finish()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("prefix filter: RocksDB %d bytes, ours %d bytes, identical %v", len(f.Bytes()), len(ours), bytes.Equal(ours, f.Bytes()))
			if !bytes.Equal(ours, f.Bytes()) {
				t.Error("prefix filter block differs from RocksDB's")
			}
		})
	}
}
