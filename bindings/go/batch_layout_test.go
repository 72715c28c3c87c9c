package rocksfilter_test

import (
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// TestMayMatchBatchKeyLayouts: keys that lie back to back in one buffer
// (passed to C in place), keys that are each their own allocation (copied),
// and mixtures (empty keys between adjacent ones, capacity cut at the first
// key, keys out of order, one key twice) all give the single-query answers.
func TestMayMatchBatchKeyLayouts(t *testing.T) {
	keys := makeKeys("key-", 3000)
	f := load(t, build(t, rocksfilter.Bloom, bitsPerKey, keys))
	probe := append(makeKeys("key-", 500), makeKeys("absent-", 500)...)
	arena := []byte{}
	for _, k := range probe {
		arena = append(arena, k...)
	}
	slices := func(capFirst bool) [][]byte {
		out := make([][]byte, len(probe))
		pos := 0
		for i, k := range probe {
			out[i] = arena[pos : pos+len(k)]
			if capFirst && i == 0 {
				out[i] = arena[pos : pos+len(k) : pos+len(k)]
			}
			pos += len(k)
		}
		return out
	}
	contiguous := slices(false)
	withEmpty := append([][]byte{nil, {}}, contiguous[:10]...)
	withEmpty = append(withEmpty, arena[:0], nil)
	withEmpty = append(withEmpty, contiguous[10:]...)
	swapped := append([][]byte{}, contiguous...)
	swapped[5], swapped[6] = swapped[6], swapped[5]
	twice := append([][]byte{}, contiguous...)
	twice[7] = twice[6]
	for name, ks := range map[string][][]byte{
		"contiguous": contiguous, "cap cut at the first key": slices(true), "empty keys between": withEmpty,
		"out of order": swapped, "a key twice": twice, "scattered": probe, "all empty": {nil, {}, arena[:0]},
	} {
		out := make([]bool, len(ks))
		f.MayMatchBatchInto(out, ks)
		for i, k := range ks {
			if want := f.MayMatch(k); out[i] != want {
				t.Fatalf("%s: key %d (%q): batch %v, MayMatch %v", name, i, k, out[i], want)
			}
		}
	}
}
