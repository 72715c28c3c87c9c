package rocksfilter_test

import (
	"fmt"
	"log"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

func Example() {
	b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, 10)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	for _, k := range []string{"apple", "banana", "cherry"} {
		b.Add([]byte(k))
	}
	block, err := b.Finish()
	if err != nil {
		log.Fatal(err)
	}
	f, err := rocksfilter.Load(block)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println(f.Kind(), f.MayMatch([]byte("banana")))
	// Output: FastLocalBloom true
}
