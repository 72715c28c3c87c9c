//go:build go1.24

package rocksfilter

import (
	"fmt"
	"testing"
)

// BenchmarkPackKeys is the Go side of a 4096-key batch without the C call:
// laying the keys out for the _packed call (packKeys), for keys that lie
// back to back in one buffer (checked and passed in place) and for keys
// that are each their own allocation (copied). ns/key is what the binding
// adds per key before C runs (bench/bindings prints it).
func BenchmarkPackKeys(b *testing.B) {
	const n = 4096
	arena := []byte{}
	for i := 0; i < n; i++ {
		arena = fmt.Appendf(arena, "key-%08d", i*7) // 12 bytes, as the probes of BenchmarkBindings
	}
	inPlaceKeys := make([][]byte, n)
	scattered := make([][]byte, n)
	for i := range inPlaceKeys {
		inPlaceKeys[i] = arena[i*12 : i*12+12]
		scattered[i] = append([]byte(nil), inPlaceKeys[i]...)
	}
	for _, c := range []struct {
		name string
		keys [][]byte
	}{{"in_place", inPlaceKeys}, {"copied", scattered}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				pb, _, _, _ := packKeys(c.keys)
				pb.release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/key")
		})
	}
}
