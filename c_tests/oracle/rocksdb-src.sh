#!/bin/sh
# Prints the absolute path of the RocksDB source tree shipped inside the crate
# rust-librocksdb-sys =0.49.0 (RocksDB 11.12), fetching it into the cargo
# registry if needed. The sources are never copied into this repository.
#
# Respects $CARGO_HOME (default ~/.cargo) and $CARGO (default cargo).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
cargo=${CARGO:-cargo}

find_src() {
    for d in "$cargo_home"/registry/src/*/rust-librocksdb-sys-0.49.0*/rocksdb; do
        if [ -f "$d/util/bloom_impl.h" ] && [ -f "$d/util/hash.cc" ]; then
            (cd "$d" && pwd)
            return 0
        fi
    done
    return 1
}

if ! find_src 2>/dev/null; then
    # fetch/Cargo.lock is committed so CI resolves exactly the same crates.
    locked=
    [ -f "$here/fetch/Cargo.lock" ] && locked=--locked
    if ! "$cargo" fetch --quiet $locked --manifest-path "$here/fetch/Cargo.toml" >&2; then
        echo "rocksdb-src.sh: cargo fetch of rust-librocksdb-sys =0.49.0 failed" >&2
        exit 1
    fi
    if ! find_src; then
        echo "rocksdb-src.sh: rust-librocksdb-sys-0.49.0*/rocksdb not found under $cargo_home/registry/src after cargo fetch" >&2
        exit 1
    fi
fi
