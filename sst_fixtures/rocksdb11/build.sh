#!/usr/bin/env bash
# sst_fixtures/rocksdb11/build.sh
#
# Builds RocksDB 11.12 from the complete source shipped in the crate
# rust-librocksdb-sys =0.49.0 (fetched into the cargo registry by
# c_tests/oracle/rocksdb-src.sh; never copied into this repository) into a
# static library kept in a cache OUTSIDE the clone, so each machine builds it
# once:
#
#   ${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}/rocksdb-<version>-<flags hash>/
#       librocksdb.a   obj/...   Makefile   BUILT (written last)
#
# The key is the RocksDB version plus a hash of the compiler's version and the
# flags below, so a new compiler or new flags get their own directory. The
# objects are kept, so an interrupted build resumes where it stopped.
#
# Files compiled: every line of the crate's rocksdb_lib_sources.txt except
# util/build_version.cc, plus the crate's own build_version.cc (the upstream one
# is generated from git). No compression library is needed: RocksDB compiles
# without any, and the fixtures are written uncompressed.
#
# Speed: the source is ~350 translation units whose time is mostly spent
# parsing the C++ standard library, so a precompiled header of the standard
# headers (and nothing of RocksDB's) is built first and force-included; on 2
# cores that cuts the build from ~50 to ~15 minutes. Standard headers are
# include-guarded and RocksDB defines no macro that changes them, so the
# objects are the same code; a file that refuses the PCH would be compiled
# without it (-Winvalid-pch makes that visible in the log).
#
# Prints the cache directory on stdout (the last line); progress on stderr.
# The directory's `cxxflags` file holds the -std, defines and include paths a
# program linking librocksdb.a must be compiled with (link: -lpthread -ldl).
# Environment: CXX (default g++), JOBS (default nproc), ROCKSDB_SRC,
# ROCKSDB11_OPT (default -O1; the benchmarks against RocksDB's own reader,
# bench/sst, build a second copy with "-O2 -march=native", RocksDB's own
# Makefile default, in a directory of its own).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
CXX="${CXX:-g++}"
JOBS="${JOBS:-$(nproc)}"
R="${ROCKSDB_SRC:-$("$repo/c_tests/oracle/rocksdb-src.sh")}"
crate="$(cd "$R/.." && pwd)"
[ -f "$crate/rocksdb_lib_sources.txt" ] || { echo "build.sh: $crate/rocksdb_lib_sources.txt missing" >&2; exit 1; }
h="$R/include/rocksdb/version.h"
ver="$(awk '/#define ROCKSDB_MAJOR/{a=$3} /#define ROCKSDB_MINOR/{b=$3} /#define ROCKSDB_PATCH/{c=$3} END{print a"."b"."c}' "$h")"

# -O1: the fixtures are small, so build time matters more than speed.
# Portable x86-64 baseline (no -msse4.2): crc32c takes RocksDB's software path.
# ROCKSDB_MALLOC_USABLE_SIZE as RocksDB's CMake build defines it on glibc:
# optimize_filters_for_memory (default on since 9.2) rounds filter sizes to
# malloc_usable_size only with it.
defines="-DNDEBUG -DHAVE_ALIGNED_NEW -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_MALLOC_USABLE_SIZE -DROCKSDB_NAMESPACE=rocksdb"
opt="${ROCKSDB11_OPT:--O1}"
flags="-std=c++20 $opt -g0 -fPIC $defines -I$R -I$R/include -w"
key="$( { "$CXX" --version | head -n 1; echo "$flags" | sed "s|$R|SRC|g"; cat "$crate/rocksdb_lib_sources.txt"; } | sha256sum | cut -c1-12)"
cache_root="${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}"
dir="$cache_root/rocksdb-$ver-$key"
if [ -f "$dir/BUILT" ] && [ -f "$dir/librocksdb.a" ]; then
  echo "rocksdb11 build: cached at $dir" >&2
  echo "$dir"
  exit 0
fi
mkdir -p "$dir/obj"
echo "-std=c++20 $defines -I$R -I$R/include" > "$dir/cxxflags"
exec 9>"$dir/.lock"
flock 9
# Another build.sh (e.g. make test-all's background one) may have finished while
# this one waited for the lock.
if [ -f "$dir/BUILT" ] && [ -f "$dir/librocksdb.a" ]; then
  echo "rocksdb11 build: built by another run, at $dir" >&2
  echo "$dir"
  exit 0
fi
start=$SECONDS

# The precompiled standard headers (rewritten only if they changed: make
# would otherwise rebuild every object).
cat > "$dir/std_pch.h.new" <<'H'
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>
H
if cmp -s "$dir/std_pch.h.new" "$dir/std_pch.h"; then rm "$dir/std_pch.h.new"; else mv "$dir/std_pch.h.new" "$dir/std_pch.h"; fi

{
  echo "CXX := $CXX"
  echo "FLAGS := $flags"
  echo "PCHFLAGS := -include $dir/std_pch.h -Winvalid-pch"
  echo "all: librocksdb.a"
  echo "std_pch.h.gch: std_pch.h"
  printf '\t$(CXX) $(FLAGS) -x c++-header $< -o $@\n'
  objs=""
  while IFS= read -r src; do
    src="${src%%#*}"; src="$(echo "$src" | tr -d '[:space:]')"
    [ -n "$src" ] || continue
    [ "$src" = util/build_version.cc ] && continue
    o="obj/${src%.cc}.o"
    objs="$objs $o"
    echo "$o: $R/$src std_pch.h.gch"
    printf '\t@mkdir -p $(dir $@)\n\t@echo "  CXX $<" >&2\n\t@$(CXX) $(FLAGS) $(PCHFLAGS) -c $< -o $@.tmp && mv $@.tmp $@\n'
  done < "$crate/rocksdb_lib_sources.txt"
  o="obj/crate_build_version.o"
  objs="$objs $o"
  echo "$o: $crate/build_version.cc std_pch.h.gch"
  printf '\t@mkdir -p $(dir $@)\n\t$(CXX) $(FLAGS) $(PCHFLAGS) -c $< -o $@.tmp && mv $@.tmp $@\n'
  echo "OBJS := $objs"
  echo "librocksdb.a: \$(OBJS)"
  printf '\trm -f $@.tmp && ar rcs $@.tmp $(OBJS) && mv $@.tmp $@\n'
} > "$dir/Makefile.new"
if cmp -s "$dir/Makefile.new" "$dir/Makefile"; then rm "$dir/Makefile.new"; else mv "$dir/Makefile.new" "$dir/Makefile"; fi

n="$(grep -c '^obj/.*\.o:' "$dir/Makefile")"
echo "rocksdb11 build: RocksDB $ver, $n files, $JOBS jobs, into $dir" >&2
make -C "$dir" -j"$JOBS" --no-print-directory all >&2
date -u +%FT%TZ > "$dir/BUILT"
echo "rocksdb11 build: done in $((SECONDS - start)) s" >&2
echo "$dir"
