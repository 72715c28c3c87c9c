//go:build go1.24 && !norocksdb

package rocksfilter_test

// The SST targets of BenchmarkBindings: files RocksDB 7.8.3 writes
// (internal/rocksdbtest) with 200,000 keys "key-%08d", full and partitioned
// filters, Bloom and Ribbon at 10 bits per key, written once before any
// timing into $ROCKSFILTER_BENCH_SST_DIR (kept, and reused when present:
// bench/bindings points the Java benchmarks at the same files) or a
// temporary directory (removed at exit). Probes: 1M keys, half present,
// half absent, in a deterministic shuffle.

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/cbench"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/rocksdbtest"
)

const sstBenchKeys = 200_000

var sstBench struct {
	once  sync.Once
	dir   string
	probe [][]byte
	err   error
}

// sstBenchFiles are the files and how RocksDB writes them.
var sstBenchFiles = []struct {
	name string
	opts rocksdbtest.Options
}{
	{"sst_full_bloom", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, FormatVersion: 5}},
	{"sst_full_ribbon", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, FormatVersion: 5}},
	{"sst_partitioned_bloom", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, FormatVersion: 5, Partitioned: true}},
	{"sst_partitioned_ribbon", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, FormatVersion: 5, Partitioned: true}},
}

func sstBenchSetup(b *testing.B) {
	sstBench.once.Do(func() {
		keys := makeKeys("key-", sstBenchKeys)
		dir := os.Getenv("ROCKSFILTER_BENCH_SST_DIR")
		if dir == "" {
			d, err := os.MkdirTemp("", "rocksfilter-bench-")
			if err != nil {
				sstBench.err = err
				return
			}
			dir = d
			atExit = append(atExit, func() { os.RemoveAll(d) })
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			sstBench.err = err
			return
		}
		sstBench.dir = dir
		for _, f := range sstBenchFiles {
			p := filepath.Join(dir, f.name+".sst")
			if _, err := os.Stat(p); err == nil {
				continue
			}
			if err := rocksdbtest.WriteSST(p+".tmp", f.opts, keys); err != nil {
				sstBench.err = err
				return
			}
			if err := os.Rename(p+".tmp", p); err != nil {
				sstBench.err = err
				return
			}
		}
		sstBench.probe = shuffledProbes(keys, makeKeys("abs-", sstBenchKeys), 1<<20)
	})
	if sstBench.err != nil {
		b.Fatal(sstBench.err)
	}
}

// shuffledProbes returns n probes, alternately present[x%len] and
// absent[x%len] for a xorshift32 sequence x (bench_test.go's), laid out
// contiguously in probe order.
func shuffledProbes(present, absent [][]byte, n int) [][]byte {
	probe := make([][]byte, n)
	arena := make([]byte, 0, n*12)
	x := uint32(2463534242)
	for i := range probe {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		k := absent[int(x)%len(absent)]
		if i%2 == 0 {
			k = present[int(x)%len(present)]
		}
		arena = append(arena, k...)
		probe[i] = arena[len(arena)-len(k):]
	}
	return probe
}

func benchSSTs(b *testing.B) {
	sstBenchSetup(b)
	for _, f := range sstBenchFiles {
		b.Run(f.name, func(b *testing.B) {
			p := filepath.Join(sstBench.dir, f.name+".sst")
			s, err := rocksfilter.OpenSST(p)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			cs, err := cbench.OpenSST(p)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			benchBindings(b, querier{single: s.MayMatch, into: s.MayMatchBatchInto, packed: s.MayMatchPackedInto, c: cs}, sstBench.probe)
		})
	}
}
