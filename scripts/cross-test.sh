#!/usr/bin/env bash
# scripts/cross-test.sh [STAGE...]   (make cross-test)
#
# The library's tests on the platforms this x86_64 machine can run but is
# not. The stages:
#   aarch64       the Rust tests (the library's unit and integration tests,
#                 golden vectors included) and the C tests that need no
#                 RocksDB (c_tests/api.c, the whole C ABI, and
#                 c_tests/golden_check.c, RocksDB's golden vectors through
#                 the C ABI), cross-compiled, under qemu-user (Debian's
#                 arm64 libraries)
#   s390x         the same, big-endian, under qemu-user
#   windows       the same for x86_64-pc-windows-gnu (Debian's mingw-w64)
#                 under wine
#   musl          the same for x86_64-unknown-linux-musl, natively
#   go-arm64      the Go binding's suite from the module `make dist` wrote
#                 (dist/go, linking its bundled linux_arm64 library),
#                 cross-built for GOARCH=arm64 and run under qemu-user
#                 (`go test -exec`)
#   go-windows    the same suite for windows/amd64 (its bundled library,
#                 mingw-w64 as cgo's compiler) under wine
#   dist-aarch64  the dist linux-aarch64 C archive as a user unpacks it:
#                 golden_check.c compiled and linked by the archive's own
#                 pkg-config files (static, then shared), run under qemu
# The go-* and dist-* stages need `make dist` first.
#
# With no arguments every stage runs, in two lanes side by side (the
# emulated test runs are mostly one thread; the builds take what they
# leave): aarch64 then s390x; windows, go-windows, musl, go-arm64,
# dist-aarch64. The Rust tests build in target/cross with the cross-test
# profile (release optimization, 16 codegen units, no LTO: about 3x faster
# to build on 2 cores than the release profile). qemu and wine are set as
# cargo's runner through the environment (CARGO_TARGET_<T>_RUNNER), not
# .cargo/config.toml, which would also apply on a native aarch64 host.
# Prints a count line per stage and "N passed, M failed" in all; exits 1 on
# any failure. Each stage's whole log: target/cross/logs/STAGE.log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR=$root/target/cross
start=$SECONDS
logs=$root/target/cross/logs
mkdir -p "$logs"
counts=$logs/counts
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)

# record STAGE PASSED FAILED: one stage's counts (lanes run in subshells,
# so the totals are summed from this file at the end).
record() {
  echo "$1 $2 $3" >>"$counts"
  echo "cross-test: $1: $2 passed, $3 failed ($((SECONDS - start))s)"
}

# cargo_tests STAGE TRIPLE: the library's tests and the two C test programs;
# the counts are libtest's "test result" lines.
cargo_tests() {
  local stage=$1 triple=$2 log="$logs/$1.log" rc=0 p f
  echo "== $stage: cargo test --target $triple ($((SECONDS - start))s)"
  {
    cargo test --profile cross-test --locked --no-fail-fast --target "$triple" -p rocksfilter --lib --tests &&
      cargo test --profile cross-test --locked --no-fail-fast --target "$triple" -p rocksfilter-c-tests --test api --test golden_check
  } >"$log" 2>&1 || rc=$?
  p=$(sed -nE 's/^test result: .* ([0-9]+) passed.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  f=$(sed -nE 's/^test result: .* ([0-9]+) failed.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  if [ $rc != 0 ]; then
    grep -E -A30 '^failures:|^error|panicked' "$log" | head -80 || true
    echo "cross-test: $stage failed (exit $rc); the whole log: $log"
    f=$((f + 1))
  fi
  record "$stage ($(grep -c '^test result: ' "$log" || true) test binaries)" "$p" "$f"
}

# go_tests STAGE LOG: the counts of a `go test -v` log (subtests and
# examples included).
go_counts() {
  local stage=$1 log=$2 rc=$3 p f
  p=$(grep -cE '^\s*--- PASS' "$log" || true)
  f=$(grep -cE '^\s*--- FAIL' "$log" || true)
  grep -E '^(ok|FAIL|\?) ' "$log" || true
  if [ "$rc" != 0 ]; then tail -40 "$log"; f=$((f + 1)); fi
  record "$stage" "$p" "$f"
}

# wine_prefix: a wine prefix of our own with a bcryptprimitives.dll that
# has ProcessPrng, which Rust's standard library calls for random bytes and
# Wine 8 (Debian 12) lacks: the stub asks RtlGenRandom (SystemFunction036)
# instead. Real Windows (8 and later) has ProcessPrng; nothing of this ships.
wine_prefix() {
  export WINEPREFIX=$root/target/cross/wine WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n,b;mscoree,mshtml="
  if [ ! -f "$WINEPREFIX/.rocksfilter-stub" ]; then
    rm -rf "$WINEPREFIX"
    wineboot --init >/dev/null 2>&1 || true
    wineserver -w || true
    x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
      scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32
    touch "$WINEPREFIX/.rocksfilter-stub"
  fi
  # One wineserver for every test binary, kept until the end: by default
  # it exits seconds after its last client, and a binary starting just
  # then loses its connection ("wine client error: recvmsg").
  wineserver -p 2>/dev/null || true   # exits 2 when one already runs
  # Wine's own services (services.exe, winedevice.exe) start with the
  # first program and live as long as the wineserver. Started here, with
  # their output on /dev/null: started by a test binary, they inherit its
  # stdout, and `go test` fails the package after waiting 60 s for the
  # pipe to close ("Test I/O incomplete ... WaitDelay expired").
  wine cmd /c exit </dev/null >/dev/null 2>&1 || true
}

need_dist() {
  [ -f "$1" ] || { echo "cross-test: $1 is missing: run make dist first"; record "$2" 0 1; return 1; }
}

stage() {
  case $1 in
    aarch64)
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
        cargo_tests aarch64 aarch64-unknown-linux-gnu
      ;;
    s390x)
      CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc \
      CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu" \
        cargo_tests s390x s390x-unknown-linux-gnu
      ;;
    windows)
      wine_prefix
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine \
        cargo_tests windows x86_64-pc-windows-gnu
      ;;
    musl)
      cargo_tests musl x86_64-unknown-linux-musl
      ;;
    go-arm64 | go-windows)
      need_dist dist/go/go.mod "$1" || return 0
      local log="$logs/$1.log" rc=0
      if [ "$1" = go-arm64 ]; then
        # The module's own suite (no RocksDB for arm64 here: -tags
        # norocksdb), as a user of the dist module on arm64 builds it.
        echo "== go-arm64: go test in dist/go, GOARCH=arm64 under qemu ($((SECONDS - start))s)"
        (cd dist/go && GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
          go test -tags norocksdb -count=1 -v -exec "qemu-aarch64 -L /usr/aarch64-linux-gnu" ./...) >"$log" 2>&1 || rc=$?
      else
        echo "== go-windows: go test in dist/go, GOOS=windows under wine ($((SECONDS - start))s)"
        wine_prefix
        (cd dist/go && GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc \
          go test -tags norocksdb -count=1 -v -exec wine ./...) >"$log" 2>&1 || rc=$?
      fi
      go_counts "$1" "$log" "$rc"
      ;;
    dist-aarch64)
      local tarball=dist/rocksfilter-$version-linux-aarch64.tar.gz work prefix how out line p f rc=0
      need_dist "$tarball" dist-aarch64 || return 0
      echo "== dist-aarch64: $tarball, golden_check.c linked by pkg-config ($((SECONDS - start))s)"
      work=$(mktemp -d)
      tar -C "$work" -xzf "$tarball"
      prefix=$work/rocksfilter-$version-linux-aarch64
      pc() { PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --define-prefix "$@"; }
      for how in static shared; do
        if [ $how = static ]; then
          # shellcheck disable=SC2046 # pkg-config prints words
          aarch64-linux-gnu-gcc -std=c11 -O2 -Wall -Wextra -Werror $(pc --cflags rocksfilter-static) \
            -o "$work/golden_check" c_tests/golden_check.c $(pc --libs rocksfilter-static)
        else
          # shellcheck disable=SC2046
          aarch64-linux-gnu-gcc -std=c11 -O2 -Wall -Wextra -Werror $(pc --cflags rocksfilter) \
            -o "$work/golden_check" c_tests/golden_check.c $(pc --libs rocksfilter) -Wl,-rpath,"$prefix/lib"
        fi
        out=$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/golden_check" tests/golden) || rc=1
        line=$(echo "$out" | tail -n 1)
        p=$(echo "$line" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p')
        f=$(echo "$line" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p')
        if [ -z "$p" ] || [ $rc != 0 ]; then echo "$out" | tail -20; p=${p:-0}; f=$((${f:-0} + 1)); fi
        record "dist-aarch64 ($how, $(file -b "$work/golden_check" | cut -d, -f1-2))" "$p" "$f"
      done
      rm -rf "$work"
      ;;
    *) echo "cross-test: unknown stage $1 (aarch64 s390x windows musl go-arm64 go-windows dist-aarch64)" >&2; exit 2 ;;
  esac
}

rm -f "$counts"
if [ $# -gt 0 ]; then
  for s in "$@"; do stage "$s"; done
else
  (stage aarch64; stage s390x) &
  lane=$!
  stage windows
  stage go-windows
  stage musl
  stage go-arm64
  stage dist-aarch64
  wait "$lane" || true
fi
command -v wineserver >/dev/null && WINEPREFIX=$root/target/cross/wine wineserver -k 2>/dev/null || true

echo "cross-test: every stage in $((SECONDS - start))s:"
sed 's/^/  /' "$counts"
total_pass=$(awk '{s += $(NF - 1)} END {print s + 0}' "$counts")
total_fail=$(awk '{s += $NF} END {print s + 0}' "$counts")
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
