#!/usr/bin/env bash
# `make install` as users consume it, against a temporary DESTDIR (called by
# `make install-test`, after the release build):
#   1. the installed files are exactly the Makefile's INSTALLED_FILES;
#   2. examples/c through pkg-config: shared (runs with no LD_LIBRARY_PATH
#      thanks to -Wl,-rpath) and static (rocksfilter-static.pc; no
#      librocksfilter.so needed); the static list is complete (links with
#      -nodefaultlibs) and equals rustc's native-static-libs; cache.c on two
#      partitioned files RocksDB wrote (ROCKSFILTER_SST_FIXTURES);
#   3. examples/cpp through find_package(rocksfilter CONFIG REQUIRED):
#      rocksfilter::rocksfilter and rocksfilter::rocksfilter_static, run by
#      ctest with no LD_LIBRARY_PATH; then again from a moved copy of the
#      prefix (the package is relocatable); version requests are honoured;
#   4. `make uninstall` leaves no file of ours behind.
# The README's own install, pkg-config and CMake commands are run as shown by
# scripts/readme-test.py (`make readme-test`).
set -euo pipefail
cd "$(dirname "$0")/.."
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
need() { command -v "$1" >/dev/null || { echo "install-test: '$1' not found; install $2" >&2; exit 1; }; }
need pkg-config pkg-config
need cmake cmake
need readelf binutils
need "${CXX:-c++}" g++

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocksfilter-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/rocksfilter-test     # as the package will see it
dest=$tmp/dest                   # DESTDIR
make --no-print-directory install PREFIX=$prefix DESTDIR="$dest" >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; echo "install-test: make install failed" >&2; exit 1; }
root_of_install=$dest$prefix
unset LD_LIBRARY_PATH

# 1. exactly the listed files
make --no-print-directory -s install-files PREFIX=$prefix | sort >"$tmp/want"
(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort) >"$tmp/have"
if diff -u "$tmp/want" "$tmp/have"; then ok "installed files are exactly INSTALLED_FILES ($(wc -l <"$tmp/have"))"; else bad "installed files differ from INSTALLED_FILES"; fi
[ "$("$root_of_install/bin/rocksfilter" --version 2>&1 | grep -c "$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)")" -ge 1 ] \
  && ok "bin/rocksfilter --version" || bad "bin/rocksfilter --version: $("$root_of_install/bin/rocksfilter" --version 2>&1)"

# The .pc files name the final prefix; point pkg-config into DESTDIR.
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$root_of_install/lib/pkgconfig

# 2. pkg-config, examples/c
nsl=$(cd "$tmp" && echo 'fn _f() {}' >nsl.rs && rustc --crate-type staticlib --crate-name nsl --print native-static-libs -o nsl.a nsl.rs 2>&1 | sed -n 's/.*native-static-libs: //p')
want_private=$(make --no-print-directory -s -f - <<<'include Makefile
print: ; @echo $(NATIVE_STATIC_LIBS)' print)
[ "$nsl" = "$want_private" ] && ok "NATIVE_STATIC_LIBS matches rustc ($nsl)" || bad "rustc says '$nsl', Makefile has '$want_private'"
got=$(echo $(pkg-config --static --libs-only-l rocksfilter))
[ "$got" = "-lrocksfilter $want_private" ] && ok "pkg-config --static --libs rocksfilter: Libs.private complete" || bad "pkg-config --static --libs-only-l rocksfilter: '$got'"

cp -r examples/c "$tmp/c"
if make --no-print-directory -C "$tmp/c" example example-static >"$tmp/c.log" 2>&1; then
  out=$("$tmp/c/example") && ok "examples/c shared runs with no LD_LIBRARY_PATH: $out" || bad "examples/c shared exited non-zero: $out"
  readelf -d "$tmp/c/example" | grep -q "R.*PATH.*\[$dest$prefix/lib\]" && ok "examples/c shared has the rpath" || bad "examples/c shared: no rpath to $dest$prefix/lib"
  out=$("$tmp/c/example-static") && ok "examples/c static runs: $out" || bad "examples/c static exited non-zero"
  if readelf -d "$tmp/c/example-static" | grep -q 'NEEDED.*librocksfilter'; then bad "examples/c static needs librocksfilter.so"; else ok "examples/c static does not need librocksfilter.so"; fi
else
  cat "$tmp/c.log"; bad "examples/c did not build through pkg-config"
fi
# examples/c/cache.c (the filter-budget example the README names): two partitioned
# files RocksDB 7.8.3 wrote (the SST fixtures, when made: make sst-test),
# one key of each and two absent ones, through one 1 MiB cache.
fixtures=${ROCKSFILTER_SST_FIXTURES:-}
pb=r78_fv5_crc32c_partbloom10_none_ascii25000_mbs512 pr=r78_fv5_crc32c_partribbon10_none_ascii25000_mbs512
if [ -n "$fixtures" ] && [ -f "$fixtures/$pb.sst" ] && [ -f "$fixtures/$pr.sst" ]; then
  key=$(python3 -c 'import sys; print(bytes.fromhex(open(sys.argv[1]).readline().strip()).decode())' "$fixtures/$pb.keys")
  if make --no-print-directory -C "$tmp/c" cache >>"$tmp/c.log" 2>&1 \
     && out=$("$tmp/c/cache" "$fixtures/$pb.sst" "$fixtures/$pr.sst" -- "$key" absent-key-1 absent-key-2) \
     && grep -q "^$key: 2 of 2 files may hold it$" <<<"$out" && grep -q '^cache: .* 0 read errors$' <<<"$out"; then
    ok "examples/c/cache runs on two partitioned files: $(tr '\n' ';' <<<"$out")"
  else
    cat "$tmp/c.log"; bad "examples/c/cache: ${out:-did not build}"
  fi
else
  bad "examples/c/cache: the SST fixtures $pb and $pr are missing (set ROCKSFILTER_SST_FIXTURES; make sst-test writes them)"
fi
# Complete list: the static link needs nothing the compiler adds by default.
if cc -nodefaultlibs examples/c/example.c -o "$tmp/nodefault" $(pkg-config --cflags --libs rocksfilter-static) 2>"$tmp/nodefault.log" \
   && "$tmp/nodefault" >/dev/null; then
  ok "static link with -nodefaultlibs and only the pkg-config libraries"
else
  cat "$tmp/nodefault.log"; bad "static link with -nodefaultlibs failed: the library list is incomplete"
fi

# 3. CMake, examples/cpp
cmake_test() { # name prefix-path cmake-args...
  local name=$1 p=$2; shift 2
  local b=$tmp/cmake-$name
  if ! cmake -S examples/cpp -B "$b" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_BUILD_TYPE=Release "$@" >"$b.log" 2>&1 \
     || ! cmake --build "$b" >>"$b.log" 2>&1; then
    cat "$b.log"; bad "$name: examples/cpp did not configure and build with find_package(rocksfilter)"; return
  fi
  if (cd "$b" && env -u LD_LIBRARY_PATH ctest --output-on-failure) >"$b.ctest" 2>&1; then
    ok "$name: ctest ($(grep -o 'tests passed.*out of [0-9]*' "$b.ctest" | head -n1)), no LD_LIBRARY_PATH"
  else
    cat "$b.ctest"; bad "$name: ctest failed"
  fi
  readelf -d "$b/example" | grep -q "NEEDED.*librocksfilter.so.0" && ok "$name: example links librocksfilter.so" || bad "$name: example does not need librocksfilter.so"
  readelf -d "$b/example" | grep -q "R.*PATH.*$p/lib" && ok "$name: example has CMake's RPATH to $p/lib" || bad "$name: no RPATH to $p/lib"
  if readelf -d "$b/example_static" | grep -q 'NEEDED.*librocksfilter'; then bad "$name: example_static needs librocksfilter.so"; else ok "$name: example_static is static"; fi
}
cmake_test installed "$root_of_install"
mv "$root_of_install" "$tmp/moved"
cmake_test relocated "$tmp/moved"
mv "$tmp/moved" "$root_of_install"

# Version requests: 0.1.z is compatible with 0.1 (and ranges whose lower
# end is 0.1), not with 0.0, 0.2 or 1.0.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
mkdir -p "$tmp/ver"
for req in "0.1:found" "$version EXACT:found" "0.1...0.9:found" "0.0.1...0.9:missing" "0.2:missing" "1.0:missing"; do
  r=${req%%:*} want=${req##*:}
  printf 'cmake_minimum_required(VERSION 3.19)\nproject(v NONE)\nfind_package(rocksfilter %s CONFIG)\nmessage(STATUS "rocksfilter_FOUND=${rocksfilter_FOUND}")\n' "$r" >"$tmp/ver/CMakeLists.txt"
  got=$(cmake -S "$tmp/ver" -B "$tmp/ver/b" -DCMAKE_PREFIX_PATH="$root_of_install" 2>&1 | sed -n 's/.*rocksfilter_FOUND=//p')
  rm -rf "$tmp/ver/b"
  case "$want:$got" in found:1|missing:0|missing:) ok "find_package(rocksfilter $r) -> $want";; *) bad "find_package(rocksfilter $r): FOUND='$got', wanted $want";; esac
done

# 4. uninstall
make --no-print-directory uninstall PREFIX=$prefix DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1 || { cat "$tmp/uninstall.log"; bad "make uninstall failed"; }
left=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\.||')
[ -z "$left" ] && ok "uninstall removed every installed file" || bad "uninstall left: $left"
[ ! -e "$root_of_install/lib/cmake/rocksfilter" ] && ok "uninstall removed lib/cmake/rocksfilter" || bad "lib/cmake/rocksfilter left behind"

echo "install-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
