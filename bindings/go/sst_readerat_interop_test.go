//go:build !norocksdb

package rocksfilter_test

// OpenSSTReaderAt on real SST files: written by RocksDB 7.8.3
// (internal/rocksdbtest) and, when ROCKSFILTER_MATRIX names the version
// matrix, every file with a filter RocksDB 6.29 wrote (block-based
// filters among them). Opened over HTTP ranged GETs from a server on
// 127.0.0.1 and through ReaderAts that fail each read in turn; and the
// promise behind both: an SST owns what it queries, so a file changed
// after OpenSST changes no answer.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
	"github.com/rocksfilter/rocksfilter/bindings/go/internal/rocksdbtest"
)

// README (Opening files elsewhere) shows httpObject and openHTTP exactly as
// below, between the markers (TestREADMEObjectStorageExample checks it).

// README begin
// httpObject reads an object with HTTP ranged GETs, as S3, GCS and Azure
// Blob Storage serve them (sign the requests for a private bucket).
type httpObject struct {
	client *http.Client
	url    string
}

func (o httpObject) ReadAt(p []byte, off int64) (int, error) {
	req, err := http.NewRequest(http.MethodGet, o.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	resp, err := o.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return 0, fmt.Errorf("GET %s %s: %s", o.url, req.Header.Get("Range"), resp.Status)
	}
	return io.ReadFull(resp.Body, p)
}

// openHTTP opens the SST file at url: a HEAD for its size, then one or
// two ranged GETs.
func openHTTP(client *http.Client, url string) (*rocksfilter.SST, error) {
	resp, err := client.Head(url)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength < 0 {
		return nil, fmt.Errorf("HEAD %s: %s, length %d", url, resp.Status, resp.ContentLength)
	}
	return rocksfilter.OpenSSTReaderAt(httpObject{client, url}, resp.ContentLength)
}

// README end

// TestREADMEObjectStorageExample checks that README.md shows the code
// between the markers above, byte for byte, as a ```go block.
func TestREADMEObjectStorageExample(t *testing.T) {
	src, err := os.ReadFile("sst_readerat_interop_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok1 := strings.Cut(string(src), "\n// README begin\n")
	code, _, ok2 := strings.Cut(after, "\n// README end\n")
	if !ok1 || !ok2 {
		t.Fatal("no // README begin ... // README end markers")
	}
	code = strings.TrimRight(code, "\n") + "\n"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+code+"```\n") {
		t.Error("README.md does not show httpObject and openHTTP as sst_readerat_interop_test.go has them: copy the code between the markers into its ```go block")
	}
}

// sstServer serves files by name with http.ServeContent (which answers
// Range requests), refuses GETs without one range "bytes=FIRST-LAST", and
// counts requests and the bytes they ask for (before answering, so the
// counts are complete when the client has its answer).
type sstServer struct {
	files              map[string][]byte
	gets, heads, bytes atomic.Int64
	unranged           atomic.Int64
}

func (s *sstServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, ok := s.files[strings.TrimPrefix(r.URL.Path, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodHead:
		s.heads.Add(1)
	case http.MethodGet:
		s.gets.Add(1)
		var first, last int64
		if n, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &first, &last); n != 2 || err != nil ||
			first > last || last >= int64(len(data)) {
			s.unranged.Add(1)
			http.Error(w, "this server serves one range within the file only", http.StatusBadRequest)
			return
		}
		s.bytes.Add(last - first + 1)
	}
	http.ServeContent(w, r, r.URL.Path, time.Time{}, bytes.NewReader(data))
}

// An sstCase is a file to open and the probes to compare: keys (present
// and absent) and, for files with a prefix filter, prefixes.
type sstCase struct {
	name     string
	path     string
	probes   [][]byte
	prefixes [][]byte
}

// rocksdbCases writes the RocksDB 7.8.3 files: full filters (Bloom,
// Ribbon, legacy Bloom, one small enough to be read in one go, one with a
// prefix filter), partitioned ones, and one without a filter.
func rocksdbCases(t *testing.T) []sstCase {
	keys := makeKeys("key-", 50000)
	absent := makeKeys("absent-", 20000)
	probes := append(append([][]byte{nil}, keys...), absent...)
	var prefixKeys, prefixes [][]byte
	for g := 0; g < 400; g++ {
		prefixes = append(prefixes, fmt.Appendf(nil, "p%03d", g))
		if g%2 == 0 {
			for i := 0; i < 100; i++ {
				prefixKeys = append(prefixKeys, fmt.Appendf(nil, "p%03d:%06d", g, i))
			}
		}
	}
	prefixProbes := append(append([][]byte(nil), prefixKeys...), absent...)
	small := makeKeys("small-", 2000)
	bloom := rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}
	ribbon := rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10}
	legacy, partBloom, partRibbon := bloom, bloom, ribbon
	legacy.FormatVersion = 4
	partBloom.Partitioned, partRibbon.Partitioned = true, true
	prefixOnly := rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, Partitioned: true,
		PrefixLen: 4, NoWholeKeyFiltering: true}
	prefixFull := rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, PrefixLen: 4}
	return []sstCase{
		{"r78_full_bloom", writeSST(t, "full_bloom", bloom, keys), probes, nil},
		{"r78_full_ribbon", writeSST(t, "full_ribbon", ribbon, keys), probes, nil},
		{"r78_full_legacy_bloom_fv4", writeSST(t, "full_legacy", legacy, keys), probes, nil},
		{"r78_full_bloom_small", writeSST(t, "full_small", bloom, small), append(small, absent[:2000]...), nil},
		{"r78_full_bloom_prefix4", writeSST(t, "full_prefix", prefixFull, prefixKeys), prefixProbes, prefixes},
		{"r78_partitioned_bloom", writeSST(t, "part_bloom", partBloom, keys), probes, nil},
		{"r78_partitioned_ribbon", writeSST(t, "part_ribbon", partRibbon, keys), probes, nil},
		{"r78_partitioned_prefix4_only", writeSST(t, "part_prefix", prefixOnly, prefixKeys), prefixProbes, prefixes},
		{"r78_no_filter", writeSST(t, "none", rocksdbtest.Options{}, keys[:5000]), probes[:10000], nil},
	}
}

// matrixCases are the files of RocksDB 6.29's part of the version matrix
// with a filter, when ROCKSFILTER_MATRIX names it; none otherwise.
func matrixCases(t *testing.T) []sstCase {
	dir := os.Getenv("ROCKSFILTER_MATRIX")
	if dir == "" {
		t.Log("ROCKSFILTER_MATRIX not set (make test sets it): no files of RocksDB 6.29, so no block-based filters")
		return nil
	}
	dir = filepath.Join(dir, "rocksjava-6.29.5")
	var cases []sstCase
	for _, m := range matrixFiltered(t, dir) {
		p := filepath.Join(dir, m.Case)
		keys, _, _ := probes(t, p+".probes")
		var prefixes [][]byte
		if _, err := os.Stat(p + ".prefix_probes"); err == nil {
			prefixes, _, _ = probes(t, p+".prefix_probes")
		}
		cases = append(cases, sstCase{"rocksdb6.29_" + m.Case, p + ".sst", keys, prefixes})
	}
	return cases
}

// maxReads is the most reads an open may make for each filter type.
var maxReads = map[rocksfilter.SSTFilterType]uint64{
	rocksfilter.SSTFilterNone:        2,
	rocksfilter.SSTFilterFull:        2,
	rocksfilter.SSTFilterPartitioned: 2,
	rocksfilter.SSTFilterBlockBased:  3,
}

// sameAnswers checks that got answers every probe and prefix of c exactly
// as want, one key at a time and in one batch, and reports the same
// filter type and properties.
func sameAnswers(t *testing.T, c sstCase, got, want *rocksfilter.SST) {
	t.Helper()
	if got.FilterType() != want.FilterType() || got.Properties() != want.Properties() {
		t.Errorf("%s: filter type %v, properties %+v; OpenSST says %v, %+v", c.name,
			got.FilterType(), got.Properties(), want.FilterType(), want.Properties())
	}
	batch := got.MayMatchBatch(c.probes)
	diff, rejected := 0, 0
	for i, k := range c.probes {
		w := want.MayMatch(k)
		if got.MayMatch(k) != w || batch[i] != w {
			diff++
		}
		if !w {
			rejected++
		}
	}
	for _, p := range c.prefixes {
		g, gerr := got.PrefixMayMatch(p)
		w, werr := want.PrefixMayMatch(p)
		if g != w || (gerr == nil) != (werr == nil) {
			diff++
		}
		if !w {
			rejected++
		}
	}
	if diff != 0 {
		t.Errorf("%s: %d of %d probes and prefixes answered differently", c.name, diff, len(c.probes)+len(c.prefixes))
	}
	if want.FilterType() != rocksfilter.SSTFilterNone && rejected == 0 {
		t.Errorf("%s: no probe or prefix rejected: the comparison proves nothing", c.name)
	}
	if gf, err := got.FullFilter(); err == nil {
		wf, err := want.FullFilter()
		if err != nil || !bytes.Equal(gf.Bytes(), wf.Bytes()) {
			t.Errorf("%s: FullFilter differs from OpenSST's (%v)", c.name, err)
		}
		gf.Close()
		wf.Close()
	}
}

// TestOpenSSTReaderAtHTTP serves each file from an HTTP server on
// 127.0.0.1, opens it with openHTTP (the README's example) and by path,
// and checks: one HEAD and at most two ranged GETs per open (three for
// block-based filters), as many as OpenStats' reads, asking for as many
// bytes as OpenStats' bytes read, the stats equal OpenSST's, and every answer
// is OpenSST's, asked after the server is gone.
func TestOpenSSTReaderAtHTTP(t *testing.T) {
	cases := append(rocksdbCases(t), matrixCases(t)...)
	srv := &sstServer{files: map[string][]byte{}}
	for _, c := range cases {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		srv.files[c.name] = data
	}
	hs := httptest.NewServer(srv) // 127.0.0.1, a port of its own
	defer hs.Close()
	client := hs.Client()

	type perKind struct{ files, minReq, maxReq, minBytes, maxBytes uint64 }
	kinds := map[rocksfilter.SSTFilterType]*perKind{}
	opened := make([]*rocksfilter.SST, len(cases))
	for i, c := range cases {
		gets, heads, served := srv.gets.Load(), srv.heads.Load(), srv.bytes.Load()
		s, err := openHTTP(client, hs.URL+"/"+c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		opened[i] = s
		defer s.Close()
		st := s.OpenStats()
		req := uint64(srv.gets.Load() - gets)
		byType := s.FilterType()
		t.Logf("HTTP range reads: %s (%s filter, %d bytes): %d requests, %d bytes read, %d bytes held",
			c.name, byType, len(srv.files[c.name]), req, st.BytesRead, st.BytesHeld)
		if h := srv.heads.Load() - heads; h != 1 {
			t.Errorf("%s: %d HEAD requests, want 1", c.name, h)
		}
		if req != st.Reads || uint64(srv.bytes.Load()-served) != st.BytesRead {
			t.Errorf("%s: %d GETs asking for %d bytes, but OpenStats says %d reads of %d bytes",
				c.name, req, srv.bytes.Load()-served, st.Reads, st.BytesRead)
		}
		limit, ok := maxReads[byType]
		if !ok || req < 1 || req > limit {
			t.Errorf("%s: %d requests for a %s filter, want 1 to %d", c.name, req, byType, limit)
		}
		if st.BytesRead > uint64(len(srv.files[c.name])) {
			t.Errorf("%s: %d bytes read of a %d-byte file", c.name, st.BytesRead, len(srv.files[c.name]))
		}
		k := kinds[byType]
		if k == nil {
			k = &perKind{minReq: req, maxReq: req, minBytes: st.BytesRead, maxBytes: st.BytesRead}
			kinds[byType] = k
		}
		k.files++
		k.minReq, k.maxReq = min(k.minReq, req), max(k.maxReq, req)
		k.minBytes, k.maxBytes = min(k.minBytes, st.BytesRead), max(k.maxBytes, st.BytesRead)

		ps := openSST(t, c.path)
		if ps.OpenStats() != st {
			t.Errorf("%s: OpenStats %+v over HTTP, %+v by path", c.name, st, ps.OpenStats())
		}
	}
	if n := srv.unranged.Load(); n != 0 {
		t.Errorf("%d GETs without one range within the file", n)
	}
	// The SSTs own what they query: the server is not needed any more.
	gets := srv.gets.Load()
	hs.Close()
	for i, c := range cases {
		sameAnswers(t, c, opened[i], openSST(t, c.path))
	}
	if n := srv.gets.Load() - gets; n != 0 {
		t.Errorf("%d GETs after the opens", n)
	}
	var types []rocksfilter.SSTFilterType
	for typ := range kinds {
		types = append(types, typ)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	for _, typ := range types {
		k := kinds[typ]
		t.Logf("HTTP range reads per open: %s filter: %d files, %d-%d requests, %d-%d bytes (plus 1 HEAD for the size)",
			typ, k.files, k.minReq, k.maxReq, k.minBytes, k.maxBytes)
	}
	for _, typ := range []rocksfilter.SSTFilterType{rocksfilter.SSTFilterFull, rocksfilter.SSTFilterPartitioned} {
		if kinds[typ] == nil {
			t.Errorf("no %s filter among the files", typ)
		}
	}
}

// TestOpenSSTReaderAtFaults fails each read of a clean open in turn, in
// every way of readFaults: each open fails cleanly with ErrIO, asks for
// nothing after the failed read, and says what ReadAt returned. A ReaderAt
// that returns io.EOF with a full read at the end of the file opens.
func TestOpenSSTReaderAtFaults(t *testing.T) {
	keys := makeKeys("key-", 50000)
	for _, c := range []struct {
		name  string
		opts  rocksdbtest.Options
		keys  [][]byte
		reads int // a clean open's reads
	}{
		{"full_small", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, keys[:2000], 1},
		{"full", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, keys, 2}, // a filter beyond the last 64 KiB
		{"partitioned", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10, Partitioned: true}, keys, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(writeSST(t, c.name, c.opts, c.keys))
			if err != nil {
				t.Fatal(err)
			}
			clean := &faultReader{data: data}
			s, err := rocksfilter.OpenSSTReaderAt(clean, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if len(clean.calls) != c.reads || s.OpenStats().Reads != uint64(c.reads) {
				t.Fatalf("clean open: ReadAt calls %v, OpenStats %+v; want %d reads", clean.calls, s.OpenStats(), c.reads)
			}
			want := s.MayMatchBatch(keys)

			eof := &eofAtEnd{data: data}
			es, err := rocksfilter.OpenSSTReaderAt(eof, int64(len(data)))
			if err != nil {
				t.Fatalf("io.EOF with every byte at the end of the file: %v", err)
			}
			if eof.eofs == 0 {
				t.Error("no read reached the end of the file")
			}
			got := es.MayMatchBatch(keys)
			es.Close()
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("io.EOF at the end: key %q answered %v, want %v", keys[i], got[i], want[i])
				}
			}

			for _, f := range readFaults {
				for n := 1; n <= c.reads; n++ {
					r := &faultReader{data: data, failAt: n, fault: f.fault}
					s, err := rocksfilter.OpenSSTReaderAt(r, int64(len(data)))
					checkFailedOpen(t, s, err, r, f)
					if n == c.reads {
						t.Logf("%s at call %d of %d: %v", f.name, n, c.reads, err)
					}
				}
			}
			// A handle opened after all that answers as the first.
			again, err := rocksfilter.OpenSSTReaderAt(&faultReader{data: data}, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			got = again.MayMatchBatch(keys)
			again.Close()
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("after the failed opens: key %q answered %v, want %v", keys[i], got[i], want[i])
				}
			}
		})
	}
}

// eofAtEnd reads data and returns io.EOF with the last bytes of the file,
// as io.ReaderAt allows.
type eofAtEnd struct {
	data []byte
	eofs int
}

func (r *eofAtEnd) ReadAt(p []byte, off int64) (int, error) {
	n, err := bytes.NewReader(r.data).ReadAt(p, off)
	if err == nil && off+int64(n) == int64(len(r.data)) {
		r.eofs++
		err = io.EOF
	}
	return n, err
}

// TestOpenSSTReaderAtConcurrent opens one file from many goroutines at
// once, each through its own ReaderAt (the callbacks of concurrent opens
// must not mix up their readers), and checks every handle's answers.
func TestOpenSSTReaderAtConcurrent(t *testing.T) {
	keys := makeKeys("key-", 20000)
	absent := makeKeys("absent-", 5000)
	probe := append(append([][]byte(nil), keys...), absent...)
	files := [][]byte{}
	for _, opts := range []rocksdbtest.Options{
		{Filter: rocksdbtest.BloomFull, BitsPerKey: 10},
		{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, Partitioned: true},
	} {
		data, err := os.ReadFile(writeSST(t, fmt.Sprint(len(files)), opts, keys))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	want := make([][]bool, len(files))
	for i, data := range files {
		s, err := rocksfilter.OpenSSTMemory(data)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = s.MayMatchBatch(probe)
		s.Close()
	}
	const goroutines, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for round := 0; round < rounds; round++ {
				i := (g + round) % len(files)
				s, err := rocksfilter.OpenSSTReaderAt(bytes.NewReader(files[i]), int64(len(files[i])))
				if err != nil {
					errs <- err
					return
				}
				got := s.MayMatchBatch(probe)
				s.Close()
				for j := range got {
					if got[j] != want[i][j] {
						errs <- fmt.Errorf("goroutine %d, file %d: probe %q answered %v, want %v", g, i, probe[j], got[j], want[i][j])
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestOpenSSTFileChangedAfterOpen: OpenSST reads what it queries into
// memory the SST owns and closes the file, so truncating, rewriting and
// deleting the file afterwards changes no answer (with a mapping, as
// before 0.2, a query after the truncation would raise SIGBUS).
func TestOpenSSTFileChangedAfterOpen(t *testing.T) {
	keys := makeKeys("key-", 50000)
	absent := makeKeys("absent-", 20000)
	probe := append(append([][]byte(nil), keys...), absent...)
	for _, c := range []struct {
		name string
		opts rocksdbtest.Options
	}{
		{"full", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}},
		{"partitioned", rocksdbtest.Options{Filter: rocksdbtest.RibbonHybrid, BitsPerKey: 10, Partitioned: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeSST(t, c.name, c.opts, keys)
			s := openSST(t, path)
			want := s.MayMatchBatch(probe)
			props := s.Properties()
			st := s.OpenStats()
			if st.Reads == 0 || st.BytesRead == 0 || st.BytesHeld == 0 {
				t.Errorf("OpenStats %+v: an open by path reads the file and holds its filter", st)
			}
			var filter []byte
			if f, err := s.FullFilter(); err == nil {
				filter = f.Bytes()
				defer f.Close()
				if s.OpenStats().BytesHeld < uint64(len(filter)) {
					t.Errorf("OpenStats %+v holds fewer bytes than the %d-byte filter", s.OpenStats(), len(filter))
				}
			}
			check := func(what string) {
				t.Helper()
				got := s.MayMatchBatch(probe)
				rejected := 0
				for i := range probe {
					if got[i] != want[i] || s.MayMatch(probe[i]) != want[i] {
						t.Fatalf("after %s: probe %q answered %v, want %v", what, probe[i], got[i], want[i])
					}
					if !got[i] {
						rejected++
					}
				}
				if s.Properties() != props {
					t.Errorf("after %s: properties changed", what)
				}
				if f, err := s.FullFilter(); err == nil {
					if !bytes.Equal(f.Bytes(), filter) {
						t.Errorf("after %s: FullFilter bytes changed", what)
					}
					f.Close()
				}
				t.Logf("after %s: %d probes answered as before (%d rejected)", what, len(probe), rejected)
			}
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			check("truncating the file to 0 bytes")
			if err := os.WriteFile(path, bytes.Repeat([]byte{0xff}, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			check("rewriting it with 1 MiB of 0xff")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			check("deleting it")
		})
	}
}

// TestOpenStatsOfEachOpen: OpenSSTMemory makes no read; OpenSST two for
// a full filter beyond the file's last 64 KiB, and holds the filter; a
// closed SST reports zeros.
func TestOpenStatsOfEachOpen(t *testing.T) {
	path := writeSST(t, "stats", rocksdbtest.Options{Filter: rocksdbtest.BloomFull, BitsPerKey: 10}, makeKeys("key-", 50000))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rocksfilter.OpenSSTMemory(data)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.OpenStats(); st.Reads != 0 || st.BytesRead != 0 {
		t.Errorf("OpenSSTMemory: OpenStats %+v, want no reads", st)
	} else {
		t.Logf("OpenSSTMemory of a %d-byte file: %+v", len(data), st)
	}
	m.Close()
	p := openSST(t, path)
	st := p.OpenStats()
	t.Logf("OpenSST of a %d-byte file: %+v", len(data), st)
	if st.Reads != 2 || st.BytesRead >= uint64(len(data)) || st.BytesHeld < p.Properties().FilterSize {
		t.Errorf("OpenSST: OpenStats %+v for a %d-byte file with a %d-byte filter: want 2 reads of part of it, holding the filter",
			st, len(data), p.Properties().FilterSize)
	}
	p.Close()
	if st := p.OpenStats(); st != (rocksfilter.SSTOpenStats{}) {
		t.Errorf("closed SST: OpenStats %+v, want zeros", st)
	}
	var nilSST *rocksfilter.SST
	if st := nilSST.OpenStats(); st != (rocksfilter.SSTOpenStats{}) {
		t.Errorf("nil SST: OpenStats %+v, want zeros", st)
	}
}
