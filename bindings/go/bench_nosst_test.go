//go:build go1.24 && norocksdb

package rocksfilter_test

import "testing"

// Without librocksdb (-tags norocksdb) there are no SST files to benchmark.
func benchSSTs(b *testing.B) {}
