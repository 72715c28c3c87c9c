package rocksfilter_test

import (
	"os"
	"testing"
)

// atExit are run after every test and benchmark (e.g. removing the SST
// files the benchmarks wrote).
var atExit []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}
