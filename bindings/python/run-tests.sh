#!/usr/bin/env bash
# Tests of the Python binding as a user gets it: the linux-x86_64 wheel
# installed into a fresh virtualenv, then the pytest suite against it.
#
#   bindings/python/run-tests.sh [DIST]
#
# DIST: a directory of wheels (build_wheels.py's output, e.g. make dist's
# dist/python); its linux-x86_64 wheel is installed, after check_wheels.py
# has checked every wheel in it. Without DIST, one wheel is built from this
# checkout's target/release/librocksfilter.so (cargo build --release first
# when it is missing or older than the header), tagged for this host.
#
# The suite reads the SST fixtures RocksDB writes (ROCKSFILTER_SST_FIXTURES,
# default target/sst-fixtures, generated when missing: needs librocksdb-dev
# and gcc). Needs python3 (3.8+; 3.11+ to build wheels) with venv and pip,
# PyPI for pytest, numpy and rocksdict, llvm and file for check_wheels.py.
set -euo pipefail
dist=${1:-}
if [ -n "$dist" ]; then
  dist=$(cd "$dist" && pwd) || { echo "run-tests.sh: no directory $1" >&2; exit 1; }
fi
fixtures=${ROCKSFILTER_SST_FIXTURES:+$(realpath -m "$ROCKSFILTER_SST_FIXTURES")}
cd "$(dirname "$0")"
here=$(pwd)
root=$(cd ../.. && pwd)
python=${PYTHON:-python3}
work=$root/target/python
mkdir -p "$work"

if [ -z "$dist" ]; then
  lib=$root/target/release/librocksfilter.so
  if [ ! -f "$lib" ] || [ "$root/include/rocksfilter.h" -nt "$lib" ]; then
    command -v cargo >/dev/null || { echo "run-tests.sh: $lib is missing and cargo is not on PATH" >&2; exit 1; }
    echo "== cargo build --release --locked (native library)"
    (cd "$root" && cargo build --release --locked)
  fi
  natives=$work/natives
  dist=$work/wheels
  rm -rf "$natives" "$dist"
  mkdir -p "$natives/linux-x86_64/lib"
  cp "$lib" "$natives/linux-x86_64/lib/"
  echo "== build_wheels.py: the linux-x86_64 wheel from target/release"
  "$python" build_wheels.py "$natives" "$dist" --platform linux-x86_64
fi
echo "== check_wheels.py $dist"
"$python" check_wheels.py "$dist"
wheel=$(ls "$dist"/rocksfilter-*-py3-none-manylinux_*x86_64*.whl 2>/dev/null | head -n 1 || true)
[ -n "$wheel" ] || { echo "run-tests.sh: no linux-x86_64 wheel in $dist" >&2; exit 1; }

fixtures=${fixtures:-$root/target/sst-fixtures}
if [ ! -f "$fixtures/manifest.jsonl" ]; then
  echo "== sst_fixtures/generate.sh $fixtures"
  "$root/sst_fixtures/generate.sh" "$fixtures"
fi

venv=$work/venv
rm -rf "$venv"
echo "== a fresh venv ($("$python" --version)): pip install $(basename "$wheel") pytest numpy rocksdict"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" pytest numpy \
  -r "$root/sst_fixtures/requirements.txt"
"$venv/bin/python" -c 'import rocksfilter; print("installed rocksfilter", rocksfilter.version(), "from", rocksfilter.LIBRARY_PATH)'

echo "== pytest"
# From outside the checkout's src/, with no ROCKSFILTER_LIBRARY: the suite
# imports the installed wheel and its bundled native (test_package checks).
cd "$work"
env -u ROCKSFILTER_LIBRARY ROCKSFILTER_EXPECT_WHEEL=1 ROCKSFILTER_SST_FIXTURES="$fixtures" \
  "$venv/bin/python" -m pytest "$here/tests" -p no:cacheprovider -rs
