#!/usr/bin/env bash
# scripts/dist-check.sh DIST [PLATFORM...]   (run by scripts/dist.sh)
#
# Checks what `make dist` wrote, file by file, without running anything:
#   - each C archive holds exactly the layout `make install` writes for its
#     OS (shared and static library, both headers, pkg-config, CMake);
#   - each native is of its platform's format and machine (ELF, Mach-O or
#     PE; x86-64, AArch64, S/390, arm64);
#   - each glibc ELF asks for no symbol version above GLIBC_2.17, and each
#     musl ELF for no glibc at all;
#   - every shared library exports the same set of symbols: every function
#     of include/rocksfilter.h, the JNI entry points, and nothing else; every
#     static library defines every function of the header;
#   - the jar holds every platform's native, byte for byte the archive's,
#     and native/platforms.txt names exactly them; the Go module holds a
#     static library per GOOS_GOARCH;
#   - each Python wheel's tag fits its native, as auditwheel would check
#     (bindings/python/check_wheels.py).
# Prints one line per platform with the sizes; exits 1 on the first class
# of failure after listing every failing check.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIST [PLATFORM...]" >&2; exit 2; }
dist=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/.."
root=$(pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
all="linux-x86_64 linux-aarch64 linux-x86_64-musl linux-aarch64-musl linux-s390x windows-x86_64 darwin-x86_64 darwin-aarch64"
wanted=${*:-$all}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
bad() { echo "dist-check: FAIL: $*"; failures=$((failures + 1)); }

# The C API's functions: every `rocksfilter_...(` declared in the header.
# (Declarations start at column 0 with their return type; the name is the
# identifier before the parenthesis. Typedefs of callbacks are not functions.)
grep -E '^[a-z]' include/rocksfilter.h | grep -v '^typedef' | grep -oE 'rocksfilter_[a-z0-9_]+\(' | tr -d '(' \
  | sort -u >"$work/header"
[ "$(wc -l <"$work/header")" -ge 40 ] || bad "found only $(wc -l <"$work/header") functions in include/rocksfilter.h"

# exports FILE: the symbols a shared library exports, one a line, Mach-O's
# leading underscore removed. A Mach-O dylib linked by zig exports Rust's
# own symbols too (zig's linker ignores rustc's -exported_symbols_list):
# only the C ABI's and the JNI names are compared there.
exports() {
  case "$(file -b "$1")" in
    ELF*) llvm-nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVWi]$/ {print $3}' ;;
    Mach-O*) llvm-nm -gU "$1" | awk '{print $3}' | sed 's/^_//' ;;
    PE32*) llvm-objdump -p "$1" | awk '/^Export Table:/ {t=1; next} t && /^ +[0-9]+ +0x[0-9a-f]+ +[^ ]+$/ {print $3} t && /^$/ {t=0}' ;;
  esac | sort -u
}
# defined FILE: the functions a static library defines (global text symbols).
# (--no-llvm-bc: the object code's symbols, not bitcode's, which this LLVM
# may be too old to read.)
defined() { llvm-nm --no-llvm-bc --defined-only "$1" 2>/dev/null | awk '$2 == "T" {print $3}' | sed 's/^_//' | sort -u; }

printf '%-20s %-10s %-12s %-12s %s\n' platform format shared static notes
for p in $wanted; do
  tarball="$dist/rocksfilter-$version-$p.tar.gz"
  [ -f "$tarball" ] || { bad "$p: $tarball missing"; continue; }
  tar -C "$work" -xzf "$tarball"
  top="$work/rocksfilter-$version-$p"
  [ -d "$top" ] || { bad "$p: the archive's top directory is not rocksfilter-$version-$p"; continue; }
  case $p in
    linux-*) shared=lib/librocksfilter.so.$version; os=linux ;;
    darwin-*) shared=lib/librocksfilter.dylib; os=darwin ;;
    windows-*) shared=bin/rocksfilter.dll; os=windows ;;
  esac
  # The layout, from `make install-files` for this OS (relative to PREFIX).
  make -s --no-print-directory install-files PREFIX=/usr/local TARGET_OS=$os INSTALL_CLI=0 \
    | sed 's|^/usr/local/||' | sort >"$work/want-files"
  (cd "$top" && find . \( -type f -o -type l \) -printf '%P\n' | sort) >"$work/have-files"
  diff -u "$work/want-files" "$work/have-files" >"$work/files.diff" \
    || bad "$p: the archive's files differ from make install's: $(cat "$work/files.diff")"
  so="$top/$shared"
  a="$top/lib/librocksfilter.a"
  [ -f "$so" ] && [ -f "$a" ] || { bad "$p: $shared or lib/librocksfilter.a missing"; continue; }
  kind=$(file -b "$so")
  case $p in
    linux-x86_64*) want_kind='ELF 64-bit LSB shared object, x86-64' ;;
    linux-aarch64*) want_kind='ELF 64-bit LSB shared object, ARM aarch64' ;;
    linux-s390x) want_kind='ELF 64-bit MSB shared object, IBM S/390' ;;
    windows-x86_64) want_kind='PE32+ executable (DLL)' ;;
    darwin-x86_64) want_kind='Mach-O 64-bit x86_64 dynamically linked shared library' ;;
    darwin-aarch64) want_kind='Mach-O 64-bit arm64 dynamically linked shared library' ;;
  esac
  case "$kind" in "$want_kind"*) ;; *) bad "$p: $shared is '$kind', expected '$want_kind...'" ;; esac
  [ "$p" = windows-x86_64 ] && { case "$kind" in *x86-64*) ;; *) bad "$p: $shared is not x86-64: $kind" ;; esac; }
  notes=""
  case $p in
    linux-*-musl)
      if llvm-objdump -T "$so" | grep -q 'GLIBC_'; then bad "$p: the musl library asks for glibc symbols"; fi
      if llvm-readelf -d "$so" | grep -q 'libc.so.6'; then bad "$p: the musl library needs glibc's libc.so.6"; fi
      notes="musl"
      ;;
    linux-*)
      top_glibc=$(llvm-objdump -T "$so" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sort -uV | tail -n 1)
      floor_ok=$(printf '%s\nGLIBC_2.17\n' "$top_glibc" | sort -V | tail -n 1)
      [ "$floor_ok" = GLIBC_2.17 ] || bad "$p: asks for $top_glibc (above GLIBC_2.17): $(llvm-objdump -T "$so" | grep -E "$top_glibc" | head -5)"
      notes="needs $top_glibc"
      ;;
    darwin-*)
      id=$(llvm-objdump --macho --dylib-id "$so" | tail -n 1)
      [ "$id" = "@rpath/librocksfilter.dylib" ] || bad "$p: install name is '$id', expected @rpath/librocksfilter.dylib"
      notes="install name $id"
      ;;
  esac
  exports "$so" >"$work/all-exports-$p"
  if [ $os = darwin ]; then
    grep -E '^(rocksfilter_|Java_io_github_rocksfilter_)' "$work/all-exports-$p" >"$work/exports-$p" || true
    notes="$notes; $(wc -l <"$work/all-exports-$p") exports in all"
  else
    cp "$work/all-exports-$p" "$work/exports-$p"
  fi
  grep -v '^Java_io_github_rocksfilter_' "$work/exports-$p" >"$work/c-exports-$p" || true
  diff -u "$work/header" "$work/c-exports-$p" >"$work/exports.diff" \
    || bad "$p: exported C symbols differ from the header's functions: $(cat "$work/exports.diff")"
  jni=$(grep -c '^Java_io_github_rocksfilter_' "$work/exports-$p" || true)
  [ "$jni" -gt 0 ] || bad "$p: no JNI entry points exported"
  if [ -f "$work/exports-first" ]; then
    cmp -s "$work/exports-first" "$work/exports-$p" \
      || bad "$p: exports differ from $(cat "$work/first-name"): $(diff "$work/exports-first" "$work/exports-$p" | head -5)"
  else
    cp "$work/exports-$p" "$work/exports-first"
    echo "$p" >"$work/first-name"
  fi
  defined "$a" >"$work/static-$p"
  missing=$(comm -23 "$work/header" "$work/static-$p")
  [ -z "$missing" ] || bad "$p: lib/librocksfilter.a does not define: $missing"
  printf '%-20s %-10s %-12s %-12s %s\n' "$p" "${kind%% *}" "$(stat -c %s "$so")" "$(stat -c %s "$a")" \
    "$(wc -l <"$work/header") C functions, $jni JNI; $notes"
  cp "$so" "$work/shared-$p"
  rm -rf "$top"
done

jar=$dist/rocksfilter-$version.jar
if [ -f "$jar" ]; then
  mkdir -p "$work/jar"
  (cd "$work/jar" && unzip -q "$jar" 'native/*')
  listed=$(sort "$work/jar/native/platforms.txt" 2>/dev/null | tr '\n' ' ')
  want_listed=$(echo $all | tr ' ' '\n' | sort | tr '\n' ' ')
  [ "$listed" = "$want_listed" ] || bad "jar: native/platforms.txt lists '$listed', expected '$want_listed'"
  for p in $all; do
    case $p in linux-*) f=librocksfilter.so ;; darwin-*) f=librocksfilter.dylib ;; windows-*) f=rocksfilter.dll ;; esac
    if [ ! -f "$work/jar/native/$p/$f" ]; then bad "jar: native/$p/$f missing"; continue; fi
    if [ -f "$work/shared-$p" ]; then
      cmp -s "$work/jar/native/$p/$f" "$work/shared-$p" || bad "jar: native/$p/$f differs from the $p archive's"
    fi
  done
  echo "jar: $(basename "$jar") ($(stat -c %s "$jar") bytes) holds $(ls "$work/jar/native" | grep -vc platforms.txt) natives: $(echo $listed)"
fi
if [ -d "$dist/go" ]; then
  for gp in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64; do
    [ -f "$dist/go/lib/$gp/librocksfilter.a" ] || bad "Go module: lib/$gp/librocksfilter.a missing"
  done
  echo "Go module: $(sed -n 's/^module //p' "$dist/go/go.mod") with $(ls "$dist/go/lib" | tr '\n' ' ')"
fi

if [ -d "$dist/python" ]; then
  python3 bindings/python/check_wheels.py "$dist/python" \
    $([ "$wanted" = "$all" ] && echo --require-all) || bad "Python wheels: check_wheels.py failed (above)"
fi

[ "$failures" = 0 ] || { echo "dist-check: $failures checks failed"; exit 1; }
echo "dist-check: every check passed"
