package rocksfilter_test

import (
	"errors"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// arenaOf lays keys out as an engine's key arena: skip bytes of padding,
// then the keys back to back; key i is arena[offs[i]:offs[i+1]].
func arenaOf(keys [][]byte, skip int) ([]byte, []uint64) {
	arena := make([]byte, skip)
	offs := make([]uint64, 0, len(keys)+1)
	for _, k := range keys {
		offs = append(offs, uint64(len(arena)))
		arena = append(arena, k...)
	}
	return arena, append(offs, uint64(len(arena)))
}

// TestMayMatchPackedInto: keys given as one buffer plus offsets (offs[0]
// not 0, empty keys among them) answer as MayMatch does; bad offsets and a
// closed filter are errors that answer true for every key; an empty or
// one-entry offs is a no-op; a short out panics.
func TestMayMatchPackedInto(t *testing.T) {
	keys := makeKeys("key-", 3000)
	f := load(t, build(t, rocksfilter.Bloom, bitsPerKey, keys))
	probe := append(makeKeys("key-", 500), makeKeys("absent-", 500)...)
	probe = append(probe, nil, []byte{})
	arena, offs := arenaOf(probe, 5)
	out := make([]bool, len(probe))
	if err := f.MayMatchPackedInto(out, arena, offs); err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for i, k := range probe {
		if want := f.MayMatch(k); out[i] != want {
			t.Fatalf("key %d (%q): packed %v, MayMatch %v", i, k, out[i], want)
		}
		if !out[i] {
			rejected++
		}
	}
	if rejected < 400 {
		t.Fatalf("only %d of 500 absent keys rejected", rejected)
	}
	// Offsets past the buffer, or decreasing: an error, every answer true.
	for name, bad := range map[string][]uint64{
		"past the end": {0, uint64(len(arena)) + 1},
		"decreasing":   {10, 4, 20},
	} {
		res := make([]bool, len(bad)-1)
		err := f.MayMatchPackedInto(res, arena, bad)
		if !errors.Is(err, rocksfilter.ErrInvalidArgument) {
			t.Fatalf("%s: error %v, want ErrInvalidArgument", name, err)
		}
		for i, r := range res {
			if !r {
				t.Fatalf("%s: answer %d false after an error", name, i)
			}
		}
	}
	if err := f.MayMatchPackedInto(nil, arena, nil); err != nil {
		t.Fatalf("no offsets: %v", err)
	}
	if err := f.MayMatchPackedInto(nil, arena, offs[:1]); err != nil {
		t.Fatalf("one offset (no keys): %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("a short out did not panic")
			}
		}()
		_ = f.MayMatchPackedInto(out[:3], arena, offs[:5])
	}()
	f.Close()
	res := make([]bool, 4)
	if err := f.MayMatchPackedInto(res, arena, offs[:5]); !errors.Is(err, rocksfilter.ErrClosed) {
		t.Fatalf("closed: error %v, want ErrClosed", err)
	}
	for i, r := range res {
		if !r {
			t.Fatalf("closed: answer %d false", i)
		}
	}
}
