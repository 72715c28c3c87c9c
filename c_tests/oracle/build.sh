#!/bin/sh
# Usage: c_tests/oracle/build.sh OUTDIR
#
# Compiles every c_tests/oracle/*.cc plus the few RocksDB 11.12 .cc files the
# header-only filter code needs into OUTDIR/liboracle.a.
#
# RocksDB code is compiled with -DROCKSDB_NAMESPACE=rocksfilter_oracle so it
# can share a process with a real librocksdb. All objects are first merged
# into one relocatable object (ld -r) so that the weak reference from
# oracle.cc to oracle_ribbon_may_match_hash is resolved whenever
# oracle_ribbon.cc exists (a weak reference alone never pulls an archive
# member in).
#
# Environment: CXX (default g++), AR (default ar), LD (default ld),
# ROCKSDB_SRC (default: output of rocksdb-src.sh), ORACLE_CXXFLAGS (extra).
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
CXX=${CXX:-g++}
AR=${AR:-ar}
LD=${LD:-ld}
R=${ROCKSDB_SRC:-$("$here/rocksdb-src.sh")}

# XXH_NAMESPACE: RocksDB prefixes xxhash symbols with ROCKSDB_ by default,
# which librocksdb exports too; give ours a private prefix.
common="-std=c++17 -O3 -fPIC -DNDEBUG -DROCKSDB_NAMESPACE=rocksfilter_oracle
 -DXXH_NAMESPACE=rocksfilter_oracle_
 -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX ${ORACLE_CXXFLAGS:-}"
# RocksDB's own files: its warnings are not ours.
rocksdb_flags="$common -I$R -I$R/include -w"
# Our glue: warnings on, RocksDB headers as system headers.
glue_flags="$common -I$here -isystem $R -isystem $R/include -Wall -Wextra"

objdir="$out/oracle-obj"
rm -rf "$objdir"
mkdir -p "$objdir"

# RocksDB translation units needed by util/hash.h and util/ribbon_*.h.
for src in util/hash.cc util/xxhash.cc util/ribbon_config.cc; do
    obj="$objdir/rocksdb_$(basename "$src" .cc).o"
    # shellcheck disable=SC2086
    $CXX $rocksdb_flags -c "$R/$src" -o "$obj"
done

for src in "$here"/*.cc; do
    [ -e "$src" ] || continue
    obj="$objdir/$(basename "$src" .cc).o"
    # shellcheck disable=SC2086
    $CXX $glue_flags -c "$src" -o "$obj"
done

"$LD" -r -o "$objdir/oracle_all.o" "$objdir"/*.o
rm -f "$out/liboracle.a"
"$AR" rcs "$out/liboracle.a" "$objdir/oracle_all.o"
echo "built $out/liboracle.a (RocksDB sources: $R)" >&2
