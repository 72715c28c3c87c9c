// Command pebble-v1-writer writes the family-matrix SST files with
// github.com/cockroachdb/pebble v1 (see ../README in NOTES.md and
// ../../../matrix/README.md for the output contract), and asks Pebble's own
// reader which candidate keys its filter rejects.
//
// Usage: pebble-v1-writer OUTDIR   (writes OUTDIR/pebble-<version>/)
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"

	c "rocksfilter.example/family/pebble/common"
)

const modPath = "github.com/cockroachdb/pebble"

var splitComparer = func() *sstable.Comparer {
	cmp := *pebble.DefaultComparer
	cmp.Split = c.Split
	cmp.Name = c.SplitComparerName
	return &cmp
}()

var policy = bloom.FilterPolicy(10)

func pebbleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == modPath {
				v := d.Version
				if d.Replace != nil {
					v = d.Replace.Version
				}
				return strings.TrimPrefix(v, "v")
			}
		}
	}
	return "unknown"
}

func tableFormat(name string) (sstable.TableFormat, error) {
	switch name {
	case "LevelDB":
		return sstable.TableFormatLevelDB, nil
	case "RocksDBv2":
		return sstable.TableFormatRocksDBv2, nil
	case "Pebblev1":
		return sstable.TableFormatPebblev1, nil
	case "Pebblev2":
		return sstable.TableFormatPebblev2, nil
	case "Pebblev3":
		return sstable.TableFormatPebblev3, nil
	case "Pebblev4":
		return sstable.TableFormatPebblev4, nil
	}
	return 0, fmt.Errorf("pebble %s has no table format %s", pebbleVersion(), name)
}

func writerOptions(cs c.Case) (sstable.WriterOptions, error) {
	tf, err := tableFormat(cs.Format)
	if err != nil {
		return sstable.WriterOptions{}, err
	}
	o := sstable.WriterOptions{
		BlockSize:      4096,
		IndexBlockSize: 1 << 20, // one-level index unless asked
		Comparer:       pebble.DefaultComparer,
		FilterPolicy:   policy,
		FilterType:     sstable.TableFilter,
		TableFormat:    tf,
		Compression:    sstable.NoCompression,
		Checksum:       sstable.ChecksumTypeCRC32c,
		MergerName:     "nullptr",
	}
	if cs.TwoLevel {
		o.IndexBlockSize = 256
	}
	if cs.Split {
		o.Comparer = splitComparer
	}
	if cs.Snappy {
		o.Compression = sstable.SnappyCompression
	}
	return o, nil
}

func optionsString(cs c.Case, o sstable.WriterOptions) string {
	return fmt.Sprintf("TableFormat=%s;BlockSize=%d;IndexBlockSize=%d;Comparer=%s;FilterPolicy=bloom.FilterPolicy(10);FilterType=TableFilter;Compression=%s;Checksum=CRC32c",
		o.TableFormat, o.BlockSize, o.IndexBlockSize, o.Comparer.Name, o.Compression)
}

// write writes the file; a panic or error is a refusal.
func write(path string, o sstable.WriterOptions, keys [][]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f, err := vfs.Default.Create(path)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), o)
	for i, k := range keys {
		v := []byte(fmt.Sprintf("value-%06d", i))
		if err := w.Set(k, v); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

type readBack struct {
	props    map[string]string
	format   string
	rejected []bool
}

// probe opens the file with Pebble's reader and asks, for each candidate,
// SeekPrefixGE(Split(key) prefix, key) as Pebble's Get path does; the
// filter rejected the key when the reader's filter "hits" counter went up.
func probe(path string, cmp *sstable.Comparer, cands []c.Candidate) (rb readBack, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f, err := vfs.Default.Open(path)
	if err != nil {
		return rb, err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		return rb, err
	}
	tracker := &sstable.FilterMetricsTracker{}
	r, err := sstable.NewReader(readable, sstable.ReaderOptions{
		Comparer: cmp,
		Filters:  map[string]sstable.FilterPolicy{policy.Name(): policy},
	}, tracker)
	if err != nil {
		return rb, err
	}
	defer r.Close()
	rb.props = c.ParseProps(r.Properties.String())
	tf, err := r.TableFormat()
	if err != nil {
		return rb, err
	}
	rb.format = tf.String()
	it, err := r.NewIter(nil, nil)
	if err != nil {
		return rb, err
	}
	defer it.Close()
	split := cmp.Split
	for _, cd := range cands {
		prefix := cd.Key
		if split != nil {
			prefix = cd.Key[:split(cd.Key)]
		}
		before := tracker.Load().Hits
		k, _ := it.SeekPrefixGE(prefix, cd.Key, 0)
		rej := tracker.Load().Hits > before
		if rej && k != nil {
			return rb, fmt.Errorf("filter rejected %x yet the iterator returned a key", cd.Key)
		}
		if cd.InFile {
			if rej {
				return rb, fmt.Errorf("SELF-CHECK: Pebble's filter rejects written key %x", cd.Key)
			}
			if k == nil || string(k.UserKey) != string(cd.Key) {
				return rb, fmt.Errorf("SELF-CHECK: SeekPrefixGE does not find written key %x", cd.Key)
			}
		}
		rb.rejected = append(rb.rejected, rej)
	}
	return rb, it.Error()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pebble-v1-writer OUTDIR")
		os.Exit(2)
	}
	version := pebbleVersion()
	writer := "pebble-" + version
	dir := filepath.Join(os.Args[1], writer)
	must(os.RemoveAll(dir))
	must(os.MkdirAll(filepath.Join(dir, "foreign"), 0o755))
	logf, err := os.Create(filepath.Join(dir, "writer.log"))
	must(err)
	defer logf.Close()
	logit := func(format string, a ...any) {
		fmt.Fprintf(logf, format+"\n", a...)
	}
	logit("%s: github.com/cockroachdb/pebble v%s", writer, version)
	man, err := c.CreateJsonl(filepath.Join(dir, "manifest.jsonl"))
	must(err)
	var sum c.Summary
	failed := false
	for _, cs := range c.Cases(6000) {
		o, err := writerOptions(cs)
		if err != nil {
			logit("REFUSED %s: %v", cs.Name, err)
			sum.Refused++
			continue
		}
		ks := c.MakeKeys(cs.Seed, cs.NumKeys, cs.Split)
		sst := filepath.Join(dir, cs.Name+".sst")
		if err := write(sst, o, ks.Keys); err != nil {
			logit("REFUSED %s (%s): %v", cs.Name, optionsString(cs, o), err)
			os.Remove(sst)
			sum.Refused++
			continue
		}
		rb, err := probe(sst, o.Comparer, ks.Candidates)
		if err != nil {
			logit("FAILED %s: %v", cs.Name, err)
			fmt.Fprintf(os.Stderr, "%s %s: %v\n", writer, cs.Name, err)
			failed = true
			continue
		}
		ft, err := c.ReadFooter(sst)
		must(err)
		row, err := c.MakeRow(cs, writer, version, rb.format, ft, rb.props, optionsString(cs, o))
		if errors.Is(err, c.ErrNotTwoLevel) {
			logit("REFUSED %s (%s): %v", cs.Name, optionsString(cs, o), err)
			os.Remove(sst)
			sum.Refused++
			continue
		}
		if err != nil {
			logit("FAILED %s: %v", cs.Name, err)
			fmt.Fprintf(os.Stderr, "%s %s: %v\n", writer, cs.Name, err)
			failed = true
			continue
		}
		must(c.WriteHexLines(filepath.Join(dir, cs.Name+".keys"), ks.Keys))
		must(c.WriteCandidates(filepath.Join(dir, cs.Name+".candidates"), filepath.Join(dir, cs.Name+".pebble_probes"), ks.Candidates, rb.rejected))
		must(man.Add(row))
		sum.Add(len(ks.Keys), ks.Candidates, rb.rejected)
		logit("wrote %s: %s, footer %s format_version %d, %d keys", cs.Name, rb.format, ft.MagicName, ft.FormatVersion, len(ks.Keys))
	}
	must(man.Close())

	// Pebble's own table formats: the library must refuse these.
	fj, err := c.CreateJsonl(filepath.Join(dir, "foreign.jsonl"))
	must(err)
	for _, f := range []string{"Pebblev1", "Pebblev2", "Pebblev3", "Pebblev4", "Pebblev5"} {
		cs := c.Case{Name: strings.ToLower(f), Format: f, NumKeys: 2000, Seed: 0xf0}
		o, err := writerOptions(cs)
		if err != nil {
			logit("REFUSED foreign %s: %v", f, err)
			continue
		}
		ks := c.MakeKeys(cs.Seed, cs.NumKeys, false)
		rel := filepath.Join("foreign", cs.Name+".sst")
		if err := write(filepath.Join(dir, rel), o, ks.Keys); err != nil {
			logit("REFUSED foreign %s: %v", f, err)
			continue
		}
		ft, err := c.ReadFooter(filepath.Join(dir, rel))
		must(err)
		must(fj.Add(c.ForeignRow{File: rel, Writer: writer, TableFormat: f, Magic: fmt.Sprintf("%#x", ft.Magic), FormatVersion: ft.FormatVersion}))
		logit("wrote foreign %s: %s magic %#x version %d", rel, o.TableFormat, ft.Magic, ft.FormatVersion)
	}
	must(fj.Close())
	fmt.Println(sum.Line(writer))
	if failed {
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pebble-v1-writer:", err)
		os.Exit(1)
	}
}
