#!/usr/bin/env bash
# sst_fixtures/matrix/cpp/run.sh OUTDIR
#
# Builds (or reuses) RocksDB 11.12 via ../../rocksdb11/build.sh, compiles
# matrix_writer.cc against it and against Debian's librocksdb-dev (7.8.3),
# runs both, and prints one summary line per version. Output goes to
# OUTDIR/rocksdb-<version>/ (see ../README.md); the binaries go to
# OUTDIR/build/ and are reused while newer than the source and the library.
#
# Environment: CXX (default g++).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
CXX="${CXX:-g++}"
[ $# -eq 1 ] || { echo "usage: run.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
bin="$out/build"
mkdir -p "$bin"
src="$here/matrix_writer.cc"

fail() { echo "run.sh: $*" >&2; exit 1; }

# stale TARGET DEP...: true if TARGET is missing or older than any DEP
stale() {
  local t="$1"; shift
  [ -x "$t" ] || return 0
  local d
  for d in "$@"; do [ "$d" -nt "$t" ] && return 0; done
  return 1
}

# --- RocksDB 11.12 ---------------------------------------------------------
lib11="$("$repo/sst_fixtures/rocksdb11/build.sh" | tail -n 1)" \
  || fail "building RocksDB 11.12 (sst_fixtures/rocksdb11/build.sh) failed"
[ -f "$lib11/librocksdb.a" ] || fail "no librocksdb.a in '$lib11' (from rocksdb11/build.sh)"
R="$("$repo/c_tests/oracle/rocksdb-src.sh")" || fail "locating the RocksDB 11.12 source (c_tests/oracle/rocksdb-src.sh) failed"
w11="$bin/matrix_writer-rocksdb11"
if stale "$w11" "$src" "$lib11/librocksdb.a" "$0"; then
  echo "run.sh: compiling matrix_writer against RocksDB 11.12 ($lib11)" >&2
  t=$SECONDS
  # The library's own -std, defines and include paths (build.sh writes them).
  [ -f "$lib11/cxxflags" ] || fail "no cxxflags in '$lib11' (from rocksdb11/build.sh)"
  # shellcheck disable=SC2046
  "$CXX" $(cat "$lib11/cxxflags") -O1 -g0 "$src" "$lib11/librocksdb.a" -lpthread -ldl \
    -o "$w11.tmp" || fail "compiling matrix_writer.cc against RocksDB 11.12 failed"
  mv "$w11.tmp" "$w11"
  echo "run.sh: compiled in $((SECONDS - t)) s" >&2
fi

# --- Debian librocksdb 7.8.3 ------------------------------------------------
[ -f /usr/include/rocksdb/version.h ] || fail "Debian's librocksdb-dev is not installed (/usr/include/rocksdb/version.h missing)"
w7="$bin/matrix_writer-debian"
if stale "$w7" "$src" /usr/include/rocksdb/version.h "$0"; then
  echo "run.sh: compiling matrix_writer against Debian's librocksdb" >&2
  t=$SECONDS
  "$CXX" -std=c++17 -O1 -g0 "$src" -lrocksdb -lpthread -ldl -o "$w7.tmp" \
    || fail "compiling matrix_writer.cc against Debian's librocksdb failed"
  mv "$w7.tmp" "$w7"
  echo "run.sh: compiled in $((SECONDS - t)) s" >&2
fi

# --- run ---------------------------------------------------------------------
status=0
for w in "$w7" "$w11"; do
  log="$out/$(basename "$w").log"
  if summary="$("$w" "$out" 2>"$log")"; then
    echo "$summary"
  else
    echo "${summary:-$(basename "$w"): no summary}"
    echo "run.sh: $(basename "$w") failed; its failures (full log: $log):" >&2
    grep FAILED "$log" >&2 || tail -n 20 "$log" >&2
    status=1
  fi
done
exit $status
