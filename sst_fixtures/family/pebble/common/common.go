// Package common holds what the Pebble family writers share: the key
// encodings, the deterministic key sets, the candidate keys, the footer
// parser and the manifest rows. Only the Pebble API calls differ between
// the v1 and v2 writers.
package common

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SplitComparerName is the name the Split comparer records in the file.
const SplitComparerName = "rocksfilter.family.SplitComparer"

// Split is the CockroachDB-like split: a key is `prefix 0x00 version(8, BE)
// len` where the last byte is the length of the suffix (version + itself,
// i.e. 9); the prefix includes the 0x00 sentinel and has no other 0x00, so
// that bytewise order of whole keys equals "prefix bytewise, then suffix
// bytewise" (no prefix is a proper prefix of another). A key whose last
// byte is not a valid suffix length (e.g. 0, a bare `prefix 0x00`) has no
// suffix: Split returns len(key).
func Split(k []byte) int {
	if len(k) == 0 {
		return 0
	}
	n := int(k[len(k)-1])
	if n == 0 || n > len(k) {
		return len(k)
	}
	return len(k) - n
}

// SplitMix64 is a deterministic PRNG.
type SplitMix64 struct{ S uint64 }

func (r *SplitMix64) Next() uint64 {
	r.S += 0x9e3779b97f4a7c15
	z := r.S
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
func (r *SplitMix64) Intn(n int) int { return int(r.Next() % uint64(n)) }

// BytewiseKey is the key of id under the bytewise comparer: varying
// lengths (every third id has a tail), so keys are not all the same size.
func BytewiseKey(id int) []byte {
	k := fmt.Sprintf("user%08x", id)
	if id%3 == 0 {
		k += "/t"
	}
	return []byte(k)
}

// SplitPrefix is the Split prefix of id (sentinel included).
func SplitPrefix(id int) []byte {
	return append([]byte(fmt.Sprintf("tbl/%08x", id)), 0)
}

// SplitKey is prefix(id) + version suffix.
func SplitKey(id int, version uint64) []byte {
	k := SplitPrefix(id)
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], version)
	k = append(k, v[:]...)
	return append(k, 9)
}

const baseVersion = 1700000000000000000

// Candidate is a key to ask about.
type Candidate struct {
	Key    []byte
	InFile bool
	// Kind of absent key: "absent" (bytewise), "absent_prefix", "same_prefix"
	// (a written prefix, another suffix), "bare_prefix" (a written prefix
	// alone); "" for a written key.
	Kind string
}

// KeySet is what one case writes, and what it asks about.
type KeySet struct {
	Keys       [][]byte // sorted, unique: the write order
	Candidates []Candidate
}

// MakeKeys builds the key set of a case: n keys, drawn from an id space
// four times as large, so absent ids lie between present ones.
func MakeKeys(seed uint64, n int, split bool) KeySet {
	rng := &SplitMix64{S: seed}
	var ks KeySet
	space := 4 * n
	if !split {
		present := map[int]bool{}
		for len(present) < n {
			present[rng.Intn(space)] = true
		}
		for id := range present {
			ks.Keys = append(ks.Keys, BytewiseKey(id))
		}
		sortKeys(ks.Keys)
		var absent [][]byte
		for id := 0; id < space; id++ {
			if !present[id] {
				absent = append(absent, BytewiseKey(id))
			}
		}
		ks.Candidates = append(sampleCandidates(rng, ks.Keys, 2000, ""),
			sampleCandidates(rng, inside(absent, ks.Keys), 2500, "absent")...)
		return ks
	}
	// Split: n keys over about n/2 prefixes, 1..3 versions each.
	present := map[int][]uint64{}
	count := 0
	for count < n {
		id := rng.Intn(space / 2)
		if _, ok := present[id]; ok {
			continue
		}
		nv := 1 + rng.Intn(3)
		if count+nv > n {
			nv = n - count
		}
		seen := map[uint64]bool{}
		for len(present[id]) < nv {
			v := baseVersion + uint64(rng.Intn(1000))*1000
			if !seen[v] {
				seen[v] = true
				present[id] = append(present[id], v)
			}
		}
		count += nv
	}
	written := map[string]bool{}
	for id, vs := range present {
		for _, v := range vs {
			k := SplitKey(id, v)
			ks.Keys = append(ks.Keys, k)
			written[string(k)] = true
		}
	}
	sortKeys(ks.Keys)
	// Absent keys: (a) a present prefix with a version not written,
	// (b) an absent prefix with some version, (c) a present prefix bare
	// (no suffix, Split = whole key; the filter holds that very prefix).
	var sameP, absentP, bare [][]byte
	ids := make([]int, 0, len(present))
	for id := range present {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		for {
			k := SplitKey(id, baseVersion+uint64(rng.Intn(1000))*1000+uint64(1+rng.Intn(999)))
			if !written[string(k)] {
				sameP = append(sameP, k)
				break
			}
		}
		bare = append(bare, SplitPrefix(id))
	}
	for id := 0; id < space/2; id++ {
		if _, ok := present[id]; !ok {
			absentP = append(absentP, SplitKey(id, baseVersion+uint64(rng.Intn(1000))*1000))
		}
	}
	ks.Candidates = sampleCandidates(rng, ks.Keys, 2000, "")
	ks.Candidates = append(ks.Candidates, sampleCandidates(rng, inside(sameP, ks.Keys), 800, "same_prefix")...)
	ks.Candidates = append(ks.Candidates, sampleCandidates(rng, inside(absentP, ks.Keys), 2000, "absent_prefix")...)
	ks.Candidates = append(ks.Candidates, sampleCandidates(rng, inside(bare, ks.Keys), 200, "bare_prefix")...)
	return ks
}

func sortKeys(k [][]byte) {
	sort.Slice(k, func(i, j int) bool { return bytes.Compare(k[i], k[j]) < 0 })
}

// inside keeps the keys strictly between the smallest and largest written.
func inside(c [][]byte, written [][]byte) [][]byte {
	lo, hi := written[0], written[len(written)-1]
	var out [][]byte
	for _, k := range c {
		if bytes.Compare(k, lo) > 0 && bytes.Compare(k, hi) < 0 {
			out = append(out, k)
		}
	}
	return out
}

// sampleCandidates picks at most max keys (all if fewer), keeping order.
func sampleCandidates(rng *SplitMix64, keys [][]byte, max int, kind string) []Candidate {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	if len(keys) > max {
		for i := 0; i < max; i++ { // partial Fisher-Yates
			j := i + rng.Intn(len(idx)-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		idx = idx[:max]
		sort.Ints(idx)
	}
	out := make([]Candidate, 0, len(idx))
	for _, i := range idx {
		out = append(out, Candidate{Key: keys[i], InFile: kind == "", Kind: kind})
	}
	return out
}

// Footer is what the file's last bytes say.
type Footer struct {
	Magic         uint64
	MagicName     string // "leveldb", "rocksdb", "pebble"
	FormatVersion uint32 // 0 for the legacy (LevelDB) footer
	FooterLen     int
}

const (
	LevelDBMagic = 0xdb4775248b80fb57
	RocksDBMagic = 0x88e241b785f4cff7
	PebbleMagic  = 0xb3aa9ff0b3aa9ff0 // bytes f0 9f aa b3 f0 9f aa b3 ("🪳🪳"), read little-endian
)

// ReadFooter parses the footer's magic and version.
func ReadFooter(path string) (Footer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Footer{}, err
	}
	if len(b) < 48 {
		return Footer{}, fmt.Errorf("%s: too short", path)
	}
	m := binary.LittleEndian.Uint64(b[len(b)-8:])
	f := Footer{Magic: m}
	switch m {
	case LevelDBMagic:
		f.MagicName, f.FooterLen = "leveldb", 48
	case RocksDBMagic, PebbleMagic:
		f.MagicName = "rocksdb"
		if m == PebbleMagic {
			f.MagicName = "pebble"
		}
		// The version sits just before the magic in every such footer.
		f.FormatVersion = binary.LittleEndian.Uint32(b[len(b)-12:])
		f.FooterLen = 53 // RocksDB / Pebblev1-v5
		if m == PebbleMagic && f.FormatVersion == 6 {
			f.FooterLen = 57 // + footer checksum
		} else if m == PebbleMagic && f.FormatVersion >= 7 {
			f.FooterLen = 61 // + footer checksum + attributes
		}
	default:
		return f, fmt.Errorf("%s: unknown magic %#x", path, m)
	}
	return f, nil
}

// ParseProps turns Properties.String() ("name: value" lines) into a map.
func ParseProps(s string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, ": "); i > 0 {
			m[line[:i]] = line[i+2:]
		}
	}
	return m
}

// WriteHexLines writes one lowercase hex key per line.
func WriteHexLines(path string, keys [][]byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, k := range keys {
		fmt.Fprintln(w, hex.EncodeToString(k))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// WriteCandidates writes `<hex> <in_file>` lines, and the Pebble verdicts
// `<hex> <in_file> <rejected>` alongside.
func WriteCandidates(candPath, probePath string, c []Candidate, rejected []bool) error {
	cf, err := os.Create(candPath)
	if err != nil {
		return err
	}
	pf, err := os.Create(probePath)
	if err != nil {
		return err
	}
	cw, pw := bufio.NewWriter(cf), bufio.NewWriter(pf)
	for i, x := range c {
		h := hex.EncodeToString(x.Key)
		fmt.Fprintf(cw, "%s %d\n", h, b2i(x.InFile))
		fmt.Fprintf(pw, "%s %d %d\n", h, b2i(x.InFile), b2i(rejected[i]))
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	if err := pw.Flush(); err != nil {
		return err
	}
	if err := cf.Close(); err != nil {
		return err
	}
	return pf.Close()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Jsonl appends JSON rows to a file.
type Jsonl struct {
	f *os.File
}

func CreateJsonl(path string) (*Jsonl, error) {
	f, err := os.Create(path)
	return &Jsonl{f}, err
}

func (j *Jsonl) Add(row any) error {
	b, err := json.Marshal(row)
	if err != nil {
		return err
	}
	_, err = j.f.Write(append(b, '\n'))
	return err
}

func (j *Jsonl) Close() error { return j.f.Close() }

// Case is one file to write.
type Case struct {
	Name     string
	Format   string // "LevelDB", "RocksDBv2", or a Pebble format for foreign files
	TwoLevel bool
	Split    bool
	Snappy   bool
	NumKeys  int
	Seed     uint64
}

// Cases lists the family cases: format x index x comparer x compression.
func Cases(numKeys int) []Case {
	var out []Case
	seed := uint64(0x5eed)
	for _, f := range []string{"LevelDB", "RocksDBv2"} {
		for _, two := range []bool{false, true} {
			for _, sp := range []bool{false, true} {
				for _, sn := range []bool{false, true} {
					name := strings.ToLower(f)
					if two {
						name += "_twolevel"
					} else {
						name += "_binary"
					}
					if sp {
						name += "_split"
					} else {
						name += "_bytewise"
					}
					if sn {
						name += "_snappy"
					} else {
						name += "_none"
					}
					seed++
					out = append(out, Case{Name: name, Format: f, TwoLevel: two, Split: sp, Snappy: sn, NumKeys: numKeys, Seed: seed})
				}
			}
		}
	}
	return out
}

// Row is one manifest.jsonl row.
type Row struct {
	File                     string            `json:"file"`
	Keys                     string            `json:"keys"`
	Probes                   *string           `json:"probes"`
	PrefixProbes             *string           `json:"prefix_probes"`
	Candidates               string            `json:"candidates"`
	WriterFilterProbes       string            `json:"writer_filter_probes"`
	Writer                   string            `json:"writer"`
	RocksDBVersion           *string           `json:"rocksdb_version"`
	PebbleVersion            string            `json:"pebble_version"`
	Case                     string            `json:"case"`
	TableFormat              string            `json:"table_format"`
	FormatVersion            uint32            `json:"format_version"`
	Magic                    string            `json:"magic"`
	Checksum                 string            `json:"checksum"`
	Filter                   string            `json:"filter"`
	Policy                   string            `json:"policy"`
	FilterPolicyName         string            `json:"filter_policy_name"`
	BitsPerKey               float64           `json:"bits_per_key"`
	PrefixExtractor          *string           `json:"prefix_extractor"`
	WholeKeyFiltering        bool              `json:"whole_key_filtering"`
	OptimizeFiltersForMemory bool              `json:"optimize_filters_for_memory"`
	IndexType                string            `json:"index_type"`
	IndexPartitions          int               `json:"index_partitions"`
	TimestampSize            int               `json:"timestamp_size"`
	Comparator               string            `json:"comparator"`
	Split                    bool              `json:"split"`
	FilterKeys               string            `json:"filter_keys"`
	Compression              string            `json:"compression"`
	NumKeys                  int               `json:"num_keys"`
	RecordedProps            map[string]string `json:"recorded_filter_props"`
	Options                  string            `json:"options"`
}

// FilterProps picks the filter-related properties the file records.
func FilterProps(p map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"rocksdb.filter.policy", "rocksdb.prefix.extractor.name",
		"rocksdb.block.based.table.whole.key.filtering", "rocksdb.block.based.table.prefix.filtering",
		"rocksdb.comparator", "rocksdb.block.based.table.index.type", "rocksdb.index.partitions",
		"rocksdb.compression"} {
		if v, ok := p[k]; ok {
			out[k] = v
		}
	}
	return out
}

// Summary accumulates the per-version summary line.
type Summary struct {
	Files, Keys, Refused, AbsentCands, AbsentRejected int
	// Absent candidates by kind: how many, how many Pebble's filter rejected.
	ByKind map[string][2]int
}

// Add counts a written file's candidates and Pebble's verdicts.
func (s *Summary) Add(numKeys int, cands []Candidate, rejected []bool) {
	if s.ByKind == nil {
		s.ByKind = map[string][2]int{}
	}
	s.Files++
	s.Keys += numKeys
	for i, cd := range cands {
		if cd.InFile {
			continue
		}
		k := s.ByKind[cd.Kind]
		k[0]++
		s.AbsentCands++
		if rejected[i] {
			k[1]++
			s.AbsentRejected++
		}
		s.ByKind[cd.Kind] = k
	}
}

func (s Summary) Line(writer string) string {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	line := fmt.Sprintf("%s: %d files, %d keys, %d refused, Pebble's filter rejected %d of %d absent candidates (%.1f%%)",
		writer, s.Files, s.Keys, s.Refused, s.AbsentRejected, s.AbsentCands, pct(s.AbsentRejected, s.AbsentCands))
	var parts []string
	for _, k := range []struct{ kind, what string }{
		{"absent", "bytewise files"},
		{"absent_prefix", "Split files, absent prefix"},
		{"same_prefix", "Split files, written prefix + other suffix"},
		{"bare_prefix", "Split files, written prefix alone"},
	} {
		if n := s.ByKind[k.kind]; n[0] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d (%.1f%%)", k.what, n[1], n[0], pct(n[1], n[0])))
		}
	}
	if len(parts) > 0 {
		line += " [" + strings.Join(parts, "; ") + "]"
	}
	return line
}

// Rel is path relative to dir.
func Rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return r
}

// ForeignRow is one foreign.jsonl row (a file in a Pebble-only format).
type ForeignRow struct {
	File          string `json:"file"`
	Writer        string `json:"writer"`
	TableFormat   string `json:"table_format"`
	Magic         string `json:"magic"`
	FormatVersion uint32 `json:"format_version"`
}

func strp(s string) *string { return &s }

// ErrNotTwoLevel: a two-level index was asked for and the writer wrote a
// one-level one without saying so (Pebble does for TableFormatLevelDB).
var ErrNotTwoLevel = errors.New("two-level index asked (IndexBlockSize 256), the file has a one-level index: the writer silently ignores it for this table format")

// MakeRow builds the manifest row from what the file records, and checks
// it is what the case asked for.
func MakeRow(cs Case, writer, version, tableFormat string, ft Footer, props map[string]string, options string) (Row, error) {
	fp := FilterProps(props)
	r := Row{
		File:               cs.Name + ".sst",
		Keys:               cs.Name + ".keys",
		Candidates:         cs.Name + ".candidates",
		WriterFilterProbes: cs.Name + ".pebble_probes",
		Writer:             writer,
		PebbleVersion:      version,
		Case:               cs.Name,
		TableFormat:        tableFormat,
		FormatVersion:      ft.FormatVersion,
		Magic:              fmt.Sprintf("%#x", ft.Magic),
		Checksum:           "crc32c",
		Filter:             "full",
		Policy:             "bloom",
		FilterPolicyName:   props["rocksdb.filter.policy"],
		BitsPerKey:         10,
		WholeKeyFiltering:  !cs.Split,
		IndexType:          "binary",
		Comparator:         props["rocksdb.comparator"],
		Split:              cs.Split,
		FilterKeys:         "whole_key",
		Compression:        "none",
		NumKeys:            cs.NumKeys,
		RecordedProps:      fp,
		Options:            options,
	}
	if cs.Split {
		r.FilterKeys = "split_prefix"
	}
	if pe, ok := props["rocksdb.prefix.extractor.name"]; ok && pe != "nullptr" && pe != "" {
		r.PrefixExtractor = strp(pe)
	}
	if props["rocksdb.block.based.table.index.type"] == "2" {
		r.IndexType = "two_level"
		fmt.Sscan(props["rocksdb.index.partitions"], &r.IndexPartitions)
	}
	switch props["rocksdb.compression"] {
	case "NoCompression":
	case "Snappy":
		r.Compression = "snappy"
	default:
		r.Compression = props["rocksdb.compression"]
	}
	wantMagic := map[string]string{"LevelDB": "leveldb", "RocksDBv2": "rocksdb"}[cs.Format]
	wantFV := map[string]uint32{"LevelDB": 0, "RocksDBv2": 2}[cs.Format]
	wantCmp := "leveldb.BytewiseComparator"
	if cs.Split {
		wantCmp = SplitComparerName
	}
	switch {
	case ft.MagicName != wantMagic || ft.FormatVersion != wantFV:
		return r, fmt.Errorf("footer is %s/%d, want %s/%d", ft.MagicName, ft.FormatVersion, wantMagic, wantFV)
	case r.FilterPolicyName != "rocksdb.BuiltinBloomFilter":
		return r, fmt.Errorf("filter policy recorded as %q", r.FilterPolicyName)
	case r.Comparator != wantCmp:
		return r, fmt.Errorf("comparator recorded as %q, want %q", r.Comparator, wantCmp)
	case cs.TwoLevel && r.IndexType != "two_level":
		return r, ErrNotTwoLevel
	case !cs.TwoLevel && r.IndexType != "binary":
		return r, fmt.Errorf("index type %q, one-level asked", r.IndexType)
	case (r.Compression == "snappy") != cs.Snappy:
		return r, fmt.Errorf("compression %q, snappy asked: %v", r.Compression, cs.Snappy)
	}
	return r, nil
}
