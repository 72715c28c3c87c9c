//go:build go1.24

package rocksfilter_test

// The issue-15 benchmarks of the binding against the C library in the same
// process, per key: Go MayMatch, Go MayMatchBatchInto at 4096 keys into the
// caller's slice, and the C baseline (internal/cbench): the same calls made
// from a C loop over 8 batches per cgo call, so that the cgo call is
// amortised out of the C number. bench/bindings runs them with the Java
// ones and prints the table.
//
//	go test -run '^$' -bench 'Bindings' -benchtime 2s
//
// Sub-benchmark names are <target>/<impl>: targets filter_bloom and
// filter_ribbon (1M keys, as the other benchmarks), sst_* (bench_sst_test.go);
// impls go_single, go_batch (MayMatchBatchInto, 4096 keys), go_arena
// (MayMatchPackedInto: one buffer plus offsets, 4096 keys), c_single
// (rocksfilter_*_may_match in a C loop), c_batch (rocksfilter_*_may_match_batch,
// pointer arrays, 4096 keys) and c_packed (rocksfilter_*_may_match_packed,
// the call the Go batch makes, 4096 keys).

import (
	"testing"
	"time"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/cbench"
)

const (
	benchBatch = 4096
	// cLoopBatches batches per cgo call of the C baseline: 32768 keys, so
	// a cgo call (~80 ns) adds under 0.01 ns per key.
	cLoopBatches = 8
)

// querier is a Filter or an SST, as the Go side and the C side see it.
type querier struct {
	single func([]byte) bool
	into   func([]bool, [][]byte)
	packed func([]bool, []byte, []uint64) error
	c      interface {
		Run(mode cbench.Mode, k *cbench.Keys, batch, first, count int) int
	}
}

// benchBindings runs the five impls for one target over probe (whose
// length is a power of two).
func benchBindings(b *testing.B, q querier, probe [][]byte) {
	mask := len(probe) - 1
	if len(probe)&mask != 0 || len(probe) < benchBatch {
		b.Fatalf("probe length %d: not a power of two >= %d", len(probe), benchBatch)
	}
	ck := cbench.NewKeys(probe, benchBatch)
	defer ck.Free()
	b.Run("go_single", func(b *testing.B) {
		i := 0
		for b.Loop() {
			q.single(probe[i&mask])
			i++
		}
		reportPerKey(b, 1)
	})
	b.Run("go_batch", func(b *testing.B) {
		out := make([]bool, benchBatch)
		off := 0
		b.ReportAllocs()
		for b.Loop() {
			q.into(out, probe[off:off+benchBatch])
			off = (off + benchBatch) & mask
		}
		reportPerKey(b, benchBatch)
	})
	b.Run("go_arena", func(b *testing.B) {
		// MayMatchPackedInto over the probe keys as one key arena.
		arena, offs := arenaOf(probe, 0)
		out := make([]bool, benchBatch)
		off := 0
		b.ReportAllocs()
		for b.Loop() {
			if err := q.packed(out, arena, offs[off:off+benchBatch+1]); err != nil {
				b.Fatal(err)
			}
			off = (off + benchBatch) & mask
		}
		reportPerKey(b, benchBatch)
	})
	b.Run("paired", func(b *testing.B) { benchPaired(b, q, probe, ck) })
	for _, m := range []struct {
		name string
		mode cbench.Mode
	}{{"c_single", cbench.Single}, {"c_batch", cbench.Batch}, {"c_packed", cbench.Packed}} {
		b.Run(m.name, func(b *testing.B) {
			const count = cLoopBatches * benchBatch
			off := 0
			for b.Loop() {
				if q.c.Run(m.mode, ck, benchBatch, off, count) < 0 {
					b.Fatal("C batch failed")
				}
				off = (off + count) & mask
			}
			reportPerKey(b, count)
		})
	}
}

func BenchmarkBindings(b *testing.B) {
	benchSetup(b)
	for _, p := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon} {
		name := map[rocksfilter.Policy]string{rocksfilter.Bloom: "filter_bloom", rocksfilter.Ribbon: "filter_ribbon"}[p]
		b.Run(name, func(b *testing.B) {
			f := bench.filters[p]
			cf, err := cbench.LoadFilter(f.Bytes())
			if err != nil {
				b.Fatal(err)
			}
			defer cf.Close()
			benchBindings(b, querier{single: f.MayMatch, into: f.MayMatchBatchInto, packed: f.MayMatchPackedInto, c: cf}, bench.probe)
		})
	}
	benchSSTs(b)
}

// benchPaired measures the Go batch and the C batches on the same keys in
// the same iteration, alternating which goes first, so that the ratio is
// not skewed by load that changes between sub-benchmarks on a shared
// machine. Each iteration queries cLoopBatches batches of 4096 keys with
// each of: Go MayMatchBatchInto on the probe keys as they lie (one arena,
// contiguous), Go MayMatchBatchInto on the same keys each in its own
// allocation (scattered), Go MayMatchPackedInto on them as one arena with
// offsets (arena), C rocksfilter_*_may_match_packed and C
// rocksfilter_*_may_match_batch. Metrics: ns/key of each, and go/c_packed
// and go/c_batch ratios (summed over the run).
func benchPaired(b *testing.B, q querier, probe [][]byte, ck *cbench.Keys) {
	mask := len(probe) - 1
	scattered := make([][]byte, len(probe))
	for i, k := range probe {
		scattered[i] = append(make([]byte, 0, len(k)), k...)
	}
	arena, offs := arenaOf(probe, 0)
	out := make([]bool, benchBatch)
	const count = cLoopBatches * benchBatch
	var tGo, tScat, tArena, tPacked, tBatch time.Duration
	arenaRun := func(off int) time.Duration {
		t := time.Now()
		for j := 0; j < cLoopBatches; j++ {
			o := (off + j*benchBatch) & mask
			if err := q.packed(out, arena, offs[o:o+benchBatch+1]); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t)
	}
	goRun := func(keys [][]byte, off int) time.Duration {
		t := time.Now()
		for j := 0; j < cLoopBatches; j++ {
			o := (off + j*benchBatch) & mask
			q.into(out, keys[o:o+benchBatch])
		}
		return time.Since(t)
	}
	cRun := func(mode cbench.Mode, off int) time.Duration {
		t := time.Now()
		if q.c.Run(mode, ck, benchBatch, off, count) < 0 {
			b.Fatal("C batch failed")
		}
		return time.Since(t)
	}
	off, iter := 0, 0
	for b.Loop() {
		if iter%2 == 0 {
			tGo += goRun(probe, off)
			tScat += goRun(scattered, off)
			tArena += arenaRun(off)
			tPacked += cRun(cbench.Packed, off)
			tBatch += cRun(cbench.Batch, off)
		} else {
			tBatch += cRun(cbench.Batch, off)
			tPacked += cRun(cbench.Packed, off)
			tArena += arenaRun(off)
			tScat += goRun(scattered, off)
			tGo += goRun(probe, off)
		}
		off = (off + count) & mask
		iter++
	}
	keys := float64(b.N) * count
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(tGo.Nanoseconds())/keys, "go_ns/key")
	b.ReportMetric(float64(tScat.Nanoseconds())/keys, "go_scattered_ns/key")
	b.ReportMetric(float64(tArena.Nanoseconds())/keys, "go_arena_ns/key")
	b.ReportMetric(float64(tArena)/float64(tPacked), "go_arena/c_packed")
	b.ReportMetric(float64(tPacked.Nanoseconds())/keys, "c_packed_ns/key")
	b.ReportMetric(float64(tBatch.Nanoseconds())/keys, "c_batch_ns/key")
	b.ReportMetric(float64(tGo)/float64(tPacked), "go/c_packed")
	b.ReportMetric(float64(tGo)/float64(tBatch), "go/c_batch")
	b.ReportMetric(float64(tScat)/float64(tBatch), "go_scattered/c_batch")
}
