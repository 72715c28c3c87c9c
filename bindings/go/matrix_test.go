package rocksfilter_test

// Files of the version matrix (sst_fixtures/matrix/), when
// ROCKSFILTER_MATRIX names its output (make test sets it): the block-based
// filter RocksDB 6.29 wrote, answered through this package exactly as
// RocksDB 6.29 answered for the same keys and prefixes.

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// probes reads "<hex> <in_file> ... <filter_rejected>" lines.
func probes(t *testing.T, path string) (keys [][]byte, inFile, rejected []bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		k, err := hex.DecodeString(fields[0])
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		inFile = append(inFile, fields[1] == "1")
		rejected = append(rejected, fields[len(fields)-1] == "1")
	}
	return keys, inFile, rejected
}

func matrixFile(t *testing.T, writer, name string) string {
	dir := os.Getenv("ROCKSFILTER_MATRIX")
	if dir == "" {
		t.Skip("ROCKSFILTER_MATRIX not set (make test sets it)")
	}
	p := filepath.Join(dir, writer, name)
	if _, err := os.Stat(p + ".sst"); err != nil {
		t.Fatalf("matrix file missing: %v", err)
	}
	return p
}

func TestMatrixBlockBasedFilterAnswersAsRocksDB6(t *testing.T) {
	for _, name := range []string{"bb_bloom10_wholekey", "bb_bloom10_two_level", "bb_bloom10_fixed4_wkf1"} {
		p := matrixFile(t, "rocksjava-6.29.5", name)
		s, err := rocksfilter.OpenSST(p + ".sst")
		if err != nil {
			t.Fatal(err)
		}
		if s.FilterType() != rocksfilter.SSTFilterBlockBased || s.FilterType().String() != "block_based" {
			t.Fatalf("%s: filter type %v", name, s.FilterType())
		}
		keys, inFile, rejected := probes(t, p+".probes")
		agree := 0
		for i, k := range keys {
			got := s.MayMatch(k)
			if inFile[i] && !got {
				t.Errorf("%s: key %q in the file answered absent", name, k)
			}
			if !inFile[i] && got == !rejected[i] {
				agree++
			} else if !inFile[i] {
				t.Errorf("%s: %q: RocksDB's filter rejected=%v, MayMatch=%v", name, k, rejected[i], got)
			}
		}
		if _, err := os.Stat(p + ".prefix_probes"); err == nil {
			ps, in, rej := probes(t, p+".prefix_probes")
			for i, pr := range ps {
				got, err := s.PrefixMayMatch(pr)
				if err != nil || (in[i] && !got) || got == rej[i] {
					t.Errorf("%s: prefix %q: RocksDB rejected=%v, PrefixMayMatch=%v, %v", name, pr, rej[i], got, err)
				}
			}
		}
		t.Logf("%s: %d probes, %d absent keys answered as RocksDB 6.29's filter", name, len(keys), agree)
		s.Close()
	}
}
