#!/bin/sh
# Builds and runs the RocksDB compatibility test.
#
#   c_tests/run-compat.sh [bloom|legacy|ribbon|all ...] [-v] [-k]   (default: all)
#
# Needs gcc/g++/make, librocksdb-dev (RocksDB 7.8.3) and cargo. The RocksDB
# 11.12 sources for the oracle are fetched by cargo (oracle/rocksdb-src.sh).
# If the static library is missing it is built with `cargo build --release`.
# Environment: TARGET_DIR (default <repo>/target/release), MAKE (default make).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
target_dir=${TARGET_DIR:-$root/target/release}
make=${MAKE:-make}

if [ ! -f "$target_dir/librocksfilter.a" ]; then
    echo "run-compat.sh: $target_dir/librocksfilter.a missing; running cargo build --release" >&2
    (cd "$root" && cargo build --release)
fi

"$make" -C "$here" --no-print-directory TARGET_DIR="$target_dir" compat >&2
[ $# -gt 0 ] || set -- all
exec "$here/build/compat" "$@"
