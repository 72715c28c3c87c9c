package rocksfilter_test

// Files of the version matrix (sst_fixtures/matrix/), when
// ROCKSFILTER_MATRIX names its output (make test-all sets it): the block-based
// filter RocksDB 6.29 wrote, answered through this package exactly as
// RocksDB 6.29 answered for the same keys and prefixes; and every full,
// partitioned and block-based file RocksDB 6.29 wrote, answered by
// SST.MayMatchBatch exactly as by SST.MayMatch on every probe.

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
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
		t.Skip("ROCKSFILTER_MATRIX not set (make test-all sets it)")
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

// TestMatrixSSTBatchEqualsSingle reads every file of RocksDB 6.29's part
// of the matrix with a filter (full, partitioned, block-based; Bloom and
// Ribbon; whole-key and prefix-only; every index type) and checks that
// SST.MayMatchBatch answers every probe (keys in the file and absent
// ones) exactly as SST.MayMatch, in one batch and in batches of 4096, and
// never answers absent for a key in the file.
func TestMatrixSSTBatchEqualsSingle(t *testing.T) {
	dir := filepath.Dir(matrixFile(t, "rocksjava-6.29.5", "fv5_full_bloom10_crc32c"))
	files := map[string]int{}
	for _, m := range matrixFiltered(t, dir) {
		files[m.Filter]++
		p := filepath.Join(dir, m.Case)
		s, err := rocksfilter.OpenSST(p + ".sst")
		if err != nil {
			t.Fatalf("%s: %v", m.Case, err)
		}
		keys, inFile, _ := probes(t, p+".probes")
		got := s.MayMatchBatch(keys)
		out := make([]bool, 4096)
		rejected := 0
		for off := 0; off < len(keys); off += len(out) {
			end := min(off+len(out), len(keys))
			s.MayMatchBatchInto(out, keys[off:end])
			for i := off; i < end; i++ {
				single := s.MayMatch(keys[i])
				if got[i] != single || out[i-off] != single {
					t.Errorf("%s: probe %q: MayMatch %v, MayMatchBatch %v, in batches of 4096 %v",
						m.Case, keys[i], single, got[i], out[i-off])
				}
				if inFile[i] && !got[i] {
					t.Errorf("%s: key %q in the file answered absent by MayMatchBatch", m.Case, keys[i])
				}
				if !single {
					rejected++
				}
			}
		}
		t.Logf("%s (%s): %d probes, batch == single, %d rejected", m.Case, s.FilterType(), len(keys), rejected)
		s.Close()
	}
	if files["full"] == 0 || files["partitioned"] == 0 || files["block_based"] == 0 {
		t.Fatalf("manifest lists too few files: %v", files)
	}
}

// A matrixEntry is a row of a matrix directory's manifest.jsonl.
type matrixEntry struct {
	Case   string `json:"case"`   // the files' name: Case.sst, Case.probes, ...
	Filter string `json:"filter"` // "full", "partitioned", "block_based", ...
}

// matrixFiltered returns the rows of dir/manifest.jsonl whose file has a
// full, partitioned or block-based filter.
func matrixFiltered(t *testing.T, dir string) []matrixEntry {
	t.Helper()
	mf, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	var rows []matrixEntry
	sc := bufio.NewScanner(mf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m matrixEntry
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m.Filter == "full" || m.Filter == "partitioned" || m.Filter == "block_based" {
			rows = append(rows, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
