//go:build go1.24

// The benchmarks use testing.B.Loop (Go 1.24); the module itself needs
// only Go 1.21 (go.mod), so older toolchains build it without them.

package rocksfilter_test

import (
	"fmt"
	"sync"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// Benchmarks of the cgo boundary at 1M keys. Each reports ns/key next to
// ns/op; for batches ns/op is per batch.
//
//	go test -run '^$' -bench . -benchtime 2s

const benchKeys = 1 << 20

var bench struct {
	once    sync.Once
	keys    [][]byte // present keys "key-%08d"
	probe   [][]byte // half present, half absent, shuffled deterministically
	filters map[rocksfilter.Policy]*rocksfilter.Filter
}

func benchSetup(b *testing.B) {
	bench.once.Do(func() {
		bench.keys = makeKeys("key-", benchKeys)
		absent := makeKeys("abs-", benchKeys)
		// The probe keys live contiguously in probe order, so reading them
		// is sequential: the benchmarks measure the call and the filter
		// probe, not cache misses on scattered key bytes.
		bench.probe = make([][]byte, benchKeys)
		arena := make([]byte, 0, benchKeys*12)
		x := uint32(2463534242)
		for i := range bench.probe {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			k := absent[x%benchKeys]
			if i%2 == 0 {
				k = bench.keys[x%benchKeys]
			}
			arena = append(arena, k...)
			bench.probe[i] = arena[len(arena)-len(k):]
		}
		bench.filters = map[rocksfilter.Policy]*rocksfilter.Filter{}
		for _, p := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon} {
			f, err := rocksfilter.Load(build(b, p, 10, bench.keys))
			if err != nil {
				panic(err)
			}
			bench.filters[p] = f
		}
	})
}

func reportPerKey(b *testing.B, keysPerOp int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(keysPerOp), "ns/key")
}

// BenchmarkCgoBaseline is the bare cost of one cgo call (Filter.Kind).
func BenchmarkCgoBaseline(b *testing.B) {
	benchSetup(b)
	f := bench.filters[rocksfilter.Bloom]
	for b.Loop() {
		_ = f.Kind()
	}
	reportPerKey(b, 1)
}

func BenchmarkMayMatch(b *testing.B) {
	benchSetup(b)
	for _, p := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon} {
		b.Run(p.String(), func(b *testing.B) {
			f := bench.filters[p]
			i := 0
			for b.Loop() {
				f.MayMatch(bench.probe[i&(benchKeys-1)])
				i++
			}
			reportPerKey(b, 1)
		})
	}
}

func BenchmarkMayMatchHash(b *testing.B) {
	benchSetup(b)
	f := bench.filters[rocksfilter.Bloom]
	i := 0
	for b.Loop() {
		f.MayMatchHash(uint64(i) * 0x9e3779b97f4a7c15)
		i++
	}
	reportPerKey(b, 1)
}

func BenchmarkMayMatchBatch(b *testing.B) {
	benchSetup(b)
	for _, p := range []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon} {
		for _, size := range []int{1, 16, 256, 4096} {
			b.Run(fmt.Sprintf("%v/batch=%d", p, size), func(b *testing.B) {
				f := bench.filters[p]
				off := 0
				for b.Loop() {
					if off+size > benchKeys {
						off = 0
					}
					f.MayMatchBatch(bench.probe[off : off+size])
					off += size
				}
				reportPerKey(b, size)
			})
		}
	}
}

// BenchmarkMayMatchBatchInto is BenchmarkMayMatchBatch at 256 keys with
// one reused result slice: no allocation per batch.
func BenchmarkMayMatchBatchInto(b *testing.B) {
	benchSetup(b)
	const size = 256
	f := bench.filters[rocksfilter.Bloom]
	out := make([]bool, size)
	off := 0
	b.ReportAllocs()
	for b.Loop() {
		if off+size > benchKeys {
			off = 0
		}
		f.MayMatchBatchInto(out, bench.probe[off:off+size])
		off += size
	}
	reportPerKey(b, size)
}

func BenchmarkHash64(b *testing.B) {
	benchSetup(b)
	i := 0
	for b.Loop() {
		rocksfilter.Hash64(bench.probe[i&(benchKeys-1)])
		i++
	}
	reportPerKey(b, 1)
}

// BenchmarkBuilderAdd is the cost of one Builder.Add into a builder
// holding up to 1M keys (Finish, run with the timer stopped whenever 1M
// keys have been added, is excluded; see BenchmarkBuilderFinish).
func BenchmarkBuilderAdd(b *testing.B) {
	benchSetup(b)
	for _, p := range allPolicies {
		b.Run(p.String(), func(b *testing.B) {
			bl, err := rocksfilter.NewBuilder(p, 10)
			if err != nil {
				b.Fatal(err)
			}
			defer bl.Close()
			i := 0
			for b.Loop() {
				bl.Add(bench.keys[i])
				if i++; i == benchKeys {
					b.StopTimer()
					if _, err := bl.Finish(); err != nil {
						b.Fatal(err)
					}
					i = 0
					b.StartTimer()
				}
			}
			reportPerKey(b, 1)
		})
	}
}

// BenchmarkBuilderFinish is the cost of Finish for 1M keys (added with the
// timer stopped), including the copy of the block into Go memory; ns/key
// is ns/op divided by 1M. It skips itself for fixed -benchtime counts above
// 20 (use -benchtime 1x to smoke-test it).
func BenchmarkBuilderFinish(b *testing.B) {
	benchSetup(b)
	hashes := make([]uint64, benchKeys)
	for i, k := range bench.keys {
		hashes[i] = rocksfilter.Hash64(k)
	}
	for _, p := range allPolicies {
		b.Run(p.String(), func(b *testing.B) {
			if b.N > 20 {
				b.Skipf("b.N = %d: too many 1M-key filters", b.N)
			}
			bl, err := rocksfilter.NewBuilder(p, 10)
			if err != nil {
				b.Fatal(err)
			}
			defer bl.Close()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for j, k := range bench.keys {
					if p == rocksfilter.LegacyBloom {
						bl.Add(k)
					} else {
						bl.AddHash(hashes[j])
					}
				}
				b.StartTimer()
				if _, err := bl.Finish(); err != nil {
					b.Fatal(err)
				}
			}
			reportPerKey(b, benchKeys)
		})
	}
}
