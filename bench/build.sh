#!/bin/sh
# Builds bench/harness (RocksDB's filter code vs librocksfilter.a, one
# binary) into target/bench/. Usage: bench/build.sh  (prints the binary path)
#
# RocksDB side: RocksDB 11.12 sources from the rust-librocksdb-sys 0.49.0
# crate (c_tests/oracle/rocksdb-src.sh; never copied into this repo), -O3,
# NDEBUG, namespace rocksfilter_bench. -mavx2 -mbmi2 -mpopcnt -mlzcnt when the
# CPU has AVX2 (RocksDB's FastLocalBloom query has an AVX2 path, and a
# PORTABLE=0 RocksDB build uses -march=native, which includes all of them):
# this is the most favourable setting for RocksDB. Override with
# BENCH_ROCKSDB_ARCH="...".
# Our side: target/release/librocksfilter.a, built for the baseline x86-64
# target (no target-cpu): features are detected at run time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CXX=${CXX:-g++}
CARGO=${CARGO:-cargo}
R=${ROCKSDB_SRC:-$("$root/c_tests/oracle/rocksdb-src.sh")}
out="$root/target/bench"
mkdir -p "$out"

(cd "$root" && "$CARGO" build --release --quiet --lib) >&2

if [ -z "${BENCH_ROCKSDB_ARCH+x}" ]; then
    if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
        BENCH_ROCKSDB_ARCH="-mavx2 -mbmi -mbmi2 -mpopcnt -mlzcnt -msse4.2"
    else
        BENCH_ROCKSDB_ARCH="-msse4.2 -mpopcnt"
    fi
fi
flags="-std=c++17 -O3 -DNDEBUG -DROCKSDB_NAMESPACE=rocksfilter_bench
 -DXXH_NAMESPACE=rocksfilter_bench_ -DOS_LINUX -DROCKSDB_PLATFORM_POSIX
 -DROCKSDB_LIB_IO_POSIX -fno-devirtualize-speculatively $BENCH_ROCKSDB_ARCH -I$root/include -I$R -I$R/include -w"
echo "$BENCH_ROCKSDB_ARCH" > "$out/rocksdb_arch.txt"
objs=
for src in util/hash.cc util/xxhash.cc util/ribbon_config.cc; do
    obj="$out/rocksdb_$(basename "$src" .cc).o"
    if [ ! -f "$obj" ] || [ "$R/$src" -nt "$obj" ] || [ "$0" -nt "$obj" ]; then
        # shellcheck disable=SC2086
        $CXX $flags -c "$R/$src" -o "$obj"
    fi
    objs="$objs $obj"
done
# shellcheck disable=SC2086
$CXX $flags -c "$here/harness.cc" -o "$out/harness.o"
# shellcheck disable=SC2086
$CXX -o "$out/harness" "$out/harness.o" $objs "$root/target/release/librocksfilter.a" -lpthread -ldl -lm
echo "$out/harness"
