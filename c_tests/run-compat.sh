#!/bin/sh
# Builds and runs the RocksDB compatibility test (compat.c) through cargo:
#
#   c_tests/run-compat.sh [bloom|legacy|ribbon|prefix|all ...] [-v] [-k]   (default: all)
#
# Needs gcc/g++, librocksdb-dev (RocksDB 7.8.3) and cargo. The RocksDB
# 11.12 sources for the oracle are fetched by cargo (oracle/rocksdb-src.sh).
# The arguments reach compat.c's main through ROCKSFILTER_COMPAT_ARGS (see
# tests/compat.rs); the build is c_tests/build.rs. Environment: CARGO
# (default cargo).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cargo=${CARGO:-cargo}

[ $# -gt 0 ] || set -- all
cd "$root"
ROCKSFILTER_C_TESTS_ROCKSDB=1 ROCKSFILTER_COMPAT_ARGS="$*" \
    exec "$cargo" test --release --locked -p rocksfilter-c-tests --test compat -- --ignored --nocapture
