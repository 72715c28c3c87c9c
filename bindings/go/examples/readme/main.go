package main

import (
	"fmt"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

func main() {
	b, err := rocksfilter.NewBuilder(rocksfilter.Ribbon, 10) // NewRibbonFilterPolicy(10, -1)
	if err != nil {
		panic(err)
	}
	defer b.Close()
	for i := 0; i < 10000; i++ {
		b.Add(fmt.Appendf(nil, "key%d", i))
	}
	block, err := b.Finish() // the block RocksDB would write for these keys
	if err != nil {
		panic(err)
	}
	f, err := rocksfilter.Load(block)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Println(f.Kind(), len(block), f.MayMatch([]byte("key42")), f.MayMatch([]byte("nope")))
	// Output: Standard128Ribbon 8805 true false
}
