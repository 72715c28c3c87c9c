#!/usr/bin/env bash
# The generated module as a user gets it: `make go-module` writes it, it is
# copied (read-only, as in the module cache) outside any checkout, and a
# new module that requires it (through a replace) is built, vetted, tested,
# run, vendored and built again from vendor/ with the module gone. Every Go
# command runs with a PATH holding only go, the C compiler, as and ld, plus
# cargo and rustc stand-ins that fail (and leave a mark) if anything calls
# them; no network (GOPROXY=off). Called by run-tests.sh.
#
#   bindings/go/consumer-test.sh
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)
modpath=$(sed -n 's/^module //p' "$src/go.mod")

if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/rocksfilter-go-cache"
fi
export GOCACHE=${GOCACHE:-$(go env GOCACHE)} GOMODCACHE=${GOMODCACHE:-$(go env GOMODCACHE)}
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS= GOWORK=off CGO_ENABLED=1

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "consumer-test: FAIL: $*" >&2; exit 1; }

echo "== make go-module DEST=$tmp/gen"
make -C "$root" --no-print-directory go-module DEST="$tmp/gen"
mod="$tmp/elsewhere/rocksfilter-go"
mkdir -p "$tmp/elsewhere"
cp -r "$tmp/gen" "$mod"
rm -rf "$tmp/gen"
chmod -R a-w "$mod"
platform=$(ls "$mod/lib")
cmp -s "$mod/LICENSE" "$root/LICENSE" || fail "the generated module has no LICENSE, or not the repository's"
echo "the generated module carries LICENSE"

# The only programs the Go commands may find.
bin="$tmp/bin"
mkdir -p "$bin"
for tool in go gcc cc as ld; do
  path=$(command -v "$tool") || fail "$tool is not on PATH"
  ln -s "$path" "$bin/$tool"
done
for tool in cargo rustc; do
  printf '#!/bin/sh\necho "%s was called: $*" >>"%s"\necho "consumer-test: %s must not be needed" >&2\nexit 1\n' \
    "$tool" "$tmp/called" "$tool" >"$bin/$tool"
  chmod +x "$bin/$tool"
done
run() { echo "\$ $*"; env PATH="$bin" "$@"; }

app="$tmp/app"
mkdir -p "$app"
cd "$app"
cat >go.mod <<EOF
module example.com/app

go 1.21

require $modpath v0.0.0

replace $modpath => $mod
EOF
cat >main.go <<'EOF'
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

func main() {
	b, err := rocksfilter.NewBuilder(rocksfilter.Bloom, 10)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	for _, k := range []string{"apple", "banana", "cherry"} {
		b.Add([]byte(k))
	}
	block, err := b.Finish()
	if err != nil {
		log.Fatal(err)
	}
	f, err := rocksfilter.Load(block)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	out := make([]bool, 2)
	f.MayMatchBatchInto(out, [][]byte{[]byte("banana"), []byte("durian")})
	_, err = rocksfilter.OpenSST("missing.sst")
	fmt.Printf("rocksfilter %s: %v, %d bytes, banana %v, durian %v, missing SST is fs.ErrNotExist: %v\n",
		rocksfilter.Version(), f.Kind(), len(block), out[0], out[1], errors.Is(err, fs.ErrNotExist))
}
EOF
cat >main_test.go <<'EOF'
package main

import (
	"fmt"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

func TestEveryKeyMatches(t *testing.T) {
	b, err := rocksfilter.NewBuilder(rocksfilter.Ribbon, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var keys [][]byte
	for i := 0; i < 10000; i++ {
		keys = append(keys, fmt.Appendf(nil, "key%d", i))
		b.Add(keys[i])
	}
	block, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := rocksfilter.Load(block)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Kind() != rocksfilter.KindStandard128Ribbon {
		t.Errorf("Kind = %v", f.Kind())
	}
	out := make([]bool, len(keys))
	f.MayMatchBatchInto(out, keys)
	for i, m := range out {
		if !m {
			t.Fatalf("key %q does not match", keys[i])
		}
	}
	if h := rocksfilter.Hash64(nil); h != 0x5342c3010fe1dd04 {
		t.Errorf("Hash64(nil) = %#x", h)
	}
}
EOF
version=$(sed -n 's/^#define ROCKSFILTER_VERSION_STRING "\(.*\)"$/\1/p' "$root/include/rocksfilter.h")
want="rocksfilter $version: FastLocalBloom, 69 bytes, banana true, durian false, missing SST is fs.ErrNotExist: true"

echo "== consumer module in $app (go 1.21, replace => $mod)"
run go build -o app .
run go vet ./...
run go test -count=1 -v ./...
got=$(./app)
echo "./app: $got"
[ "$got" = "$want" ] || fail "./app printed '$got', want '$want'"
if ldd ./app | grep -q rocksfilter; then fail "./app links librocksfilter dynamically"; fi
run go mod tidy
grep -qx 'go 1.21' go.mod || fail "go.mod's go line changed: $(grep '^go ' go.mod)"

echo "== cgo off: the build must fail, naming the fix"
if out=$(CGO_ENABLED=0 env PATH="$bin" go build -o app-nocgo . 2>&1); then
  fail "CGO_ENABLED=0 go build succeeded"
fi
echo "$out" | grep -F 'rocksfilter_requires_cgo__set_CGO_ENABLED_1_and_install_a_C_compiler' \
  || fail "CGO_ENABLED=0 error does not name the fix: $out"

echo "== other platforms: no library flags, and the build stops with the #error"
# No cross compiler here: run the C preamble of link_bundled.go through the
# preprocessor with the flags go list gives for each platform.
sed -n '/^\/\*$/,/^\*\/$/p' "$mod/link_bundled.go" | grep -v -e '^#cgo' -e '^/\*$' -e '^\*/$' >"$tmp/preamble.c"
for goarch in amd64 arm64; do
  flags=$(cd "$mod" && GOARCH=$goarch env PATH="$bin" go list -f '{{join .CgoCFLAGS " "}}' .)
  echo "linux/$goarch CFLAGS: $flags"
  # shellcheck disable=SC2086 # the flags are words
  if out=$(env PATH="$bin" cc $flags -E "$tmp/preamble.c" -o /dev/null 2>&1); then
    [ "linux_$goarch" = "$platform" ] || fail "linux/$goarch has no library but its preamble passed"
  else
    [ "linux_$goarch" != "$platform" ] || fail "linux/$goarch (bundled): the preamble failed: $out"
    echo "$out" | grep -F '#error "rocksfilter: this module bundles the native library for' \
      || fail "linux/$goarch: unexpected error: $out"
  fi
done

echo "== the module's own tests, from the read-only copy (-tags norocksdb)"
(cd "$mod" && run go vet -tags norocksdb ./... && run go test -tags norocksdb -count=1 ./...)

echo "== go mod vendor; then build from vendor/ with the module moved away"
run go mod vendor
for f in include/rocksfilter.h "lib/$platform/librocksfilter.a" LICENSE; do
  [ -f "vendor/$modpath/$f" ] || fail "go mod vendor left out $f"
done
chmod -R u+w "$mod"
mv "$mod" "$mod.gone"
run go build -mod=vendor -o app-vendored .
run go vet -mod=vendor ./...
got=$(./app-vendored)
echo "./app-vendored: $got"
[ "$got" = "$want" ] || fail "./app-vendored printed '$got', want '$want'"

[ ! -e "$tmp/called" ] || fail "$(cat "$tmp/called")"
echo "== sizes: module $(du -sh "$mod.gone" | cut -f1) ($(du -k "$mod.gone/lib/$platform/librocksfilter.a" | cut -f1) KiB library)," \
  "vendor/ $(du -sh vendor | cut -f1), ./app $(du -k app | cut -f1) KiB"
echo "== consumer-test: passed (no cargo, no network, no checkout)"
