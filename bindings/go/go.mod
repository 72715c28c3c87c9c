module github.com/rocksfilter/rocksfilter/bindings/go

go 1.21
