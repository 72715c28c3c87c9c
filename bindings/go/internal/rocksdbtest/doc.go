// Package rocksdbtest writes real RocksDB SST files through RocksDB's C
// API (librocksdb, e.g. Debian's librocksdb-dev) for the interoperability
// tests of package rocksfilter. It is internal and test-only, so that
// package rocksfilter itself never links RocksDB.
//
// It needs librocksdb headers and library at build time. Build with
// -tags norocksdb to leave it empty (and skip the interop tests).
package rocksdbtest
