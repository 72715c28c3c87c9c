package rocksfilter_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

var allPolicies = []rocksfilter.Policy{rocksfilter.Bloom, rocksfilter.Ribbon, rocksfilter.LegacyBloom}

// wantKind is the kind each policy writes for a few thousand keys or more
// (Ribbon falls back to Bloom for very small key sets, as RocksDB does).
var wantKind = map[rocksfilter.Policy]rocksfilter.Kind{
	rocksfilter.Bloom:       rocksfilter.KindFastLocalBloom,
	rocksfilter.Ribbon:      rocksfilter.KindStandard128Ribbon,
	rocksfilter.LegacyBloom: rocksfilter.KindLegacyBloom,
}

// tempDir is t.TempDir, except that on Windows a failure to remove the
// directory afterwards is logged rather than failed: under wine (make
// cross-test's Windows run) Go's os.RemoveAll gets "Invalid function" from
// the file system for files long closed. Elsewhere it fails the test.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", strings.ReplaceAll(t.Name(), "/", "_"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			if runtime.GOOS == "windows" {
				t.Logf("removing %s: %v", dir, err)
			} else {
				t.Errorf("removing %s: %v", dir, err)
			}
		}
	})
	return dir
}

// makeKeys returns n distinct keys "<prefix>%08d", strictly increasing.
func makeKeys(prefix string, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "%s%08d", prefix, i)
	}
	return keys
}

// build adds keys to a new builder for policy at bpk and returns the block.
func build(t testing.TB, policy rocksfilter.Policy, bpk float64, keys [][]byte) []byte {
	t.Helper()
	b, err := rocksfilter.NewBuilder(policy, bpk)
	if err != nil {
		t.Fatalf("NewBuilder(%v, %v): %v", policy, bpk, err)
	}
	defer b.Close()
	for _, k := range keys {
		b.Add(k)
	}
	block, err := b.Finish()
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return block
}

func load(t testing.TB, block []byte) *rocksfilter.Filter {
	t.Helper()
	f, err := rocksfilter.Load(block)
	if err != nil {
		t.Fatalf("Load(%d bytes): %v", len(block), err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// fpBand checks that fp false positives out of n probes are within a
// factor 2 of the expected rate est (and that at least one occurred when
// more than 50 are expected).
func fpBand(t *testing.T, what string, fp, n int, est float64) {
	t.Helper()
	rate := float64(fp) / float64(n)
	t.Logf("%s: %d false positives in %d absent keys: rate %.5f, estimated %.5f", what, fp, n, rate, est)
	if rate < est/2 || rate > est*2 {
		t.Errorf("%s: FP rate %.5f (%d/%d) outside [%.5f, %.5f] (estimate %.5f)",
			what, rate, fp, n, est/2, est*2, est)
	}
}
