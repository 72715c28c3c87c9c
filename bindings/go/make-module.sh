#!/usr/bin/env bash
# Writes the self-contained Go module into DEST (a new or empty
# directory): the same module path and Go files as this directory, plus
# the header and stripped static libraries, so that it builds with Go and a
# C compiler alone (no cargo, no checkout, `go mod vendor` works).
#
#   bindings/go/make-module.sh DEST        this host's library (target/release);
#                                          `make go-module DEST=dir` builds it first
#   bindings/go/make-module.sh DEST LIBS   every platform in LIBS, laid out as
#                                          LIBS/<goos>_<goarch>/librocksfilter.a and
#                                          LIBS/<goos>_<goarch>/native-static-libs (the
#                                          system libraries, rustc's list);
#                                          scripts/dist.sh (make dist) writes it
#
# The module differs from this directory in one file: link_checkout.go
# (which links ../../target/release) is replaced by link_bundled.go (which
# links lib/<goos>_<goarch>/librocksfilter.a inside the module, for each
# platform it holds). Added:
#   LICENSE                         (the repository's)
#   include/rocksfilter.h           + include/doc.go
#   lib/<goos>_<goarch>/librocksfilter.a + lib/<goos>_<goarch>/doc.go
# The doc.go files make those directories Go packages, and link_bundled.go
# imports them, because `go mod vendor` copies only the directories of
# imported packages. The scripts (*.sh) are left out.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: $0 DEST [LIBS]   (or: make go-module DEST=dir)" >&2
  exit 2
fi
dest=$1
libs_dir=${2:-}
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)
lib="$root/target/release/librocksfilter.a"
header="$root/include/rocksfilter.h"
modpath=$(sed -n 's/^module //p' "$src/go.mod")

die() { echo "make-module.sh: $*" >&2; exit 1; }

[ -f "$root/LICENSE" ] || die "$root/LICENSE is missing (the module carries it)"
if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  die "$dest exists and is not empty; give a new or empty directory"
fi

# platforms: each GOOS_GOARCH the module holds; lib_of and libs_of: its
# static library, and the system libraries a program linking it needs.
declare -A lib_of libs_of
if [ -z "$libs_dir" ]; then
  [ -f "$lib" ] || die "$lib is missing: run 'cargo build --release --locked' in $root (make go-module does)"
  [ "$header" -nt "$lib" ] && die "$lib is older than $header: rebuild it with 'cargo build --release --locked'"
  command -v strip >/dev/null || die "strip (binutils) is not on PATH"
  # The platform of the library cargo built: this host's.
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) platforms=linux_amd64 ;;
    Linux/aarch64) platforms=linux_arm64 ;;
    *) die "only Linux hosts (x86_64, aarch64) are supported, not $(uname -s)/$(uname -m)" ;;
  esac
  lib_of[$platforms]=$lib
  # The system libraries Rust's standard library needs, from the one place
  # that lists them.
  syslibs=$(sed -n 's|^#cgo LDFLAGS: ${SRCDIR}/../../target/release/librocksfilter.a \(.*\)$|\1|p' "$src/link_checkout.go")
  [ -n "$syslibs" ] || die "no '#cgo LDFLAGS: \${SRCDIR}/../../target/release/librocksfilter.a ...' line in $src/link_checkout.go"
  libs_of[$platforms]=$syslibs
else
  platforms=$(cd "$libs_dir" && ls -d ./*_* 2>/dev/null | sed 's|^\./||' | sort | tr '\n' ' ')
  [ -n "$platforms" ] || die "$libs_dir holds no <goos>_<goarch> directories"
  for p in $platforms; do
    [ -f "$libs_dir/$p/librocksfilter.a" ] || die "$libs_dir/$p/librocksfilter.a is missing"
    [ -f "$libs_dir/$p/native-static-libs" ] || die "$libs_dir/$p/native-static-libs is missing"
    lib_of[$p]=$libs_dir/$p/librocksfilter.a
    libs_of[$p]=$(cat "$libs_dir/$p/native-static-libs")
  done
fi
version=$(sed -n 's/^#define ROCKSFILTER_VERSION_STRING "\(.*\)"$/\1/p' "$header")
[ -n "$version" ] || die "no ROCKSFILTER_VERSION_STRING in $header"

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# The Go package files, README and go.mod, minus the one build-config file.
(cd "$src" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name README.md \) \
  ! -path ./link_checkout.go -print0) |
  while IFS= read -r -d '' f; do
    mkdir -p "$dest/$(dirname "$f")"
    cp -p "$src/$f" "$dest/$f"
  done
cp -p "$root/LICENSE" "$dest/LICENSE"

mkdir -p "$dest/include"
cp "$header" "$dest/include/rocksfilter.h"
chmod 644 "$dest/include/rocksfilter.h"
cat >"$dest/include/doc.go" <<EOF
// Package include holds rocksfilter.h, the C header the rocksfilter
// package is compiled against. It has no Go API: it is a package only so
// that \`go mod vendor\` copies this directory (link_bundled.go imports it).
package include
EOF

cgo_lines=""
imports=""
names=""
for platform in $platforms; do
  mkdir -p "$dest/lib/$platform"
  if [ -z "$libs_dir" ]; then
    # Debug info is most of the archive and not needed to link; the symbol
    # tables stay (the linker needs them).
    strip --strip-debug -o "$dest/lib/$platform/librocksfilter.a" "${lib_of[$platform]}"
  else
    # make dist's libraries come without debug info already.
    cp "${lib_of[$platform]}" "$dest/lib/$platform/librocksfilter.a"
  fi
  chmod 644 "$dest/lib/$platform/librocksfilter.a"
  cat >"$dest/lib/$platform/doc.go" <<EOF
// Package ${platform/_/} holds librocksfilter.a (rocksfilter $version) for
// ${platform/_//}, which the rocksfilter package links statically. It has
// no Go API: it is a package only so that \`go mod vendor\` copies this
// directory (link_bundled.go imports it).
package ${platform/_/}
EOF
  cond=${platform/_/,}
  cgo_lines+="#cgo $cond CFLAGS: -isystem \${SRCDIR}/lib/$platform"$'\n'
  cgo_lines+="#cgo $cond LDFLAGS: \${SRCDIR}/lib/$platform/librocksfilter.a ${libs_of[$platform]}"$'\n'
  imports+=$'\t'"_ \"$modpath/lib/$platform\""$'\n'
  names+="${names:+, }${platform/_//}"
done

cat >"$dest/link_bundled.go" <<EOF
//go:build !rocksfilter_pkgconfig

package rocksfilter

// Generated by bindings/go/make-module.sh for rocksfilter $version: in
// place of the repository's link_checkout.go, link the static library and
// use the header shipped inside this module, so that it builds with
// nothing but Go and a C compiler. The extra system libraries are those
// the Rust standard library needs on each platform. Other platforms: build
// with -tags rocksfilter_pkgconfig against an installed library
// (README.md).

/*
#cgo CFLAGS: -I\${SRCDIR}/include
${cgo_lines}#if defined(__has_include)
#if !__has_include(<librocksfilter.a>)
#error "rocksfilter: this module bundles the native library for $names only; elsewhere build with -tags rocksfilter_pkgconfig against an installed library (README.md, 'How the native library is found')"
#endif
#endif
*/
import "C"

// go mod vendor copies only the directories of imported packages.
import (
	_ "$modpath/include"
${imports})
EOF

if command -v gofmt >/dev/null; then
  bad=$(gofmt -l "$dest")
  [ -z "$bad" ] || die "generated files not gofmt-clean: $bad"
fi
echo "make-module.sh: wrote module $modpath (rocksfilter $version; $names) to $dest ($(du -sh "$dest" | cut -f1))"
