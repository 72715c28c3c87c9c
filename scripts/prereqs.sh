#!/usr/bin/env bash
# scripts/prereqs.sh [--go] [--java] [--python] [--abi] [--dist] [--cross]
#
# Checks everything `make test` needs before anything is built, so a fresh
# machine fails in the first second with what to do, not minutes in.
# Debian packages that are missing are installed when run as root (as CI
# does); otherwise the script prints the one command to run and exits 1.
# Tools no Debian package provides (Rust, Go, a JDK 22+) are reported with
# where to get them. Exit 0 when everything is there.
#
#   --go     also check the Go binding's needs (go 1.21+)
#   --java   also check the Java binding's (JDK 22+, Maven, JDK 17 for the
#            "needs JDK 22" check)
#   --python also the Python binding's (python3 3.11+ with venv, for
#            run-tests.sh and build_wheels.py; llvm's binutils and file
#            for check_wheels.py)
#   --abi    also libabigail's abidw and abidiff (abigail-tools), for
#            `make abi-check` (part of `make lint`)
#   --dist   also what `make dist` builds with: the Rust targets of every
#            platform (rustup), cargo-zigbuild and ziglang (PyPI, pinned
#            below), mingw-w64, llvm's binutils (strip, nm, objdump for
#            every format), Maven
#   --cross  also what `make cross-test` runs with: Debian's aarch64 and
#            s390x cross compilers and libraries, qemu-user, wine64,
#            musl-tools
set -euo pipefail

# The PyPI packages `make dist` links with (zig's linker and glibc 2.17's
# symbol lists; cargo-zigbuild drives it from cargo).
ZIGLANG_VERSION=0.17.1
CARGO_ZIGBUILD_VERSION=0.24.1
DIST_TARGETS="x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu s390x-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin"

want_go=0
want_java=0
want_python=0
want_abi=0
want_dist=0
want_cross=0
for a in "$@"; do
  case "$a" in
    --go) want_go=1 ;;
    --java) want_java=1 ;;
    --python) want_python=1 ;;
    --abi) want_abi=1 ;;
    --dist) want_dist=1 ;;
    --cross) want_cross=1 ;;
    *) echo "prereqs.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done

missing_pkgs=()
problems=()
have() { command -v "$1" >/dev/null 2>&1; }
need_pkg() { missing_pkgs+=("$1"); }

# --- Debian packages (installable here)
have cc || need_pkg gcc
have g++ || need_pkg g++
have make || need_pkg make
have cmake || need_pkg cmake
have pkg-config || need_pkg pkg-config
have strip && have readelf && have nm || need_pkg binutils
have python3 || need_pkg python3
# sst_fixtures/generate.sh makes a virtualenv for rocksdict when needed.
# (Debian's python3 imports `venv` but cannot make one without python3-venv:
# try it.)
# bindings/python/run-tests.sh always makes one.
if have python3 && { [ $want_python = 1 ] || ! python3 -c 'import rocksdict' >/dev/null 2>&1; }; then
  venv_probe=$(mktemp -d)
  python3 -m venv "$venv_probe/v" >/dev/null 2>&1 || need_pkg python3-venv
  rm -rf "$venv_probe"
fi
# RocksDB 7.8.3, the reference the tests compare against.
rocksdb_lib=0
for f in /usr/lib/*/librocksdb.so /usr/lib/librocksdb.so; do [ -e "$f" ] && rocksdb_lib=1; done
if [ ! -f /usr/include/rocksdb/c.h ] || [ $rocksdb_lib = 0 ]; then
  need_pkg librocksdb-dev
fi

if [ $want_python = 1 ] || [ $want_dist = 1 ] || [ $want_cross = 1 ]; then
  have llvm-objcopy && have llvm-nm && have llvm-objdump && have llvm-readelf || need_pkg llvm
  have file || need_pkg file
fi
if [ $want_abi = 1 ]; then
  have gcc || need_pkg gcc
  have abidw && have abidiff || need_pkg abigail-tools
fi
if [ $want_dist = 1 ] || [ $want_cross = 1 ]; then
  have x86_64-w64-mingw32-gcc || need_pkg gcc-mingw-w64-x86-64
  have llvm-objcopy && have llvm-nm && have llvm-objdump && have llvm-readelf || need_pkg llvm
  have file || need_pkg file
  have unzip || need_pkg unzip
  have mvn || need_pkg maven
fi
if [ $want_cross = 1 ]; then
  have aarch64-linux-gnu-gcc || need_pkg gcc-aarch64-linux-gnu
  have s390x-linux-gnu-gcc || need_pkg gcc-s390x-linux-gnu
  [ -d /usr/aarch64-linux-gnu/lib ] || need_pkg libc6-dev-arm64-cross
  [ -d /usr/s390x-linux-gnu/lib ] || need_pkg libc6-dev-s390x-cross
  have qemu-aarch64 && have qemu-s390x || need_pkg qemu-user
  have wine64 || have wine || need_pkg wine64
  have musl-gcc || need_pkg musl-tools
fi

# --- toolchains no Debian package here provides in the version needed
have cargo || problems+=("cargo (Rust) not found: install Rust (rustup)")
if { [ $want_python = 1 ] || [ $want_dist = 1 ]; } && have python3 && ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  problems+=("python3 is $(python3 --version 2>&1): bindings/python/build_wheels.py needs 3.11+ (tomllib)")
fi
if [ $want_go = 1 ]; then
  if ! have go; then
    problems+=("go not found: install Go 1.21 or later")
  fi
fi
if [ $want_java = 1 ]; then
  jh="${ROCKSFILTER_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  if ! "$jh/bin/java" -version >/dev/null 2>&1; then
    problems+=("no JDK 22+ at $jh: install one and set ROCKSFILTER_JAVA_HOME to it")
  fi
  have mvn || need_pkg maven
  old="${ROCKSFILTER_OLD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
  [ -x "$old/bin/java" ] || need_pkg openjdk-17-jdk-headless
fi

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && have apt-get; then
    echo "prereqs: installing ${missing_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing_pkgs[@]}" >/dev/null
  else
    echo "prereqs: missing packages; run: sudo apt-get install -y ${missing_pkgs[*]}" >&2
    exit 1
  fi
fi
if [ $want_dist = 1 ] || [ $want_cross = 1 ]; then
  if have rustup; then
    installed=$(rustup target list --installed)
    for t in $DIST_TARGETS; do
      if ! grep -qx "$t" <<<"$installed"; then
        echo "prereqs: rustup target add $t"
        rustup target add "$t" >/dev/null 2>&1 || problems+=("rustup target add $t failed")
      fi
    done
  else
    problems+=("rustup not found: make dist adds Rust targets with it")
  fi
fi
if [ $want_dist = 1 ] && ! { have cargo-zigbuild && python3 -m ziglang version >/dev/null 2>&1; }; then
  echo "prereqs: pip install ziglang==$ZIGLANG_VERSION cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"
  python3 -m pip install -q --disable-pip-version-check "ziglang==$ZIGLANG_VERSION" \
    "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION" >/dev/null 2>&1 \
    || problems+=("pip install ziglang==$ZIGLANG_VERSION cargo-zigbuild==$CARGO_ZIGBUILD_VERSION failed")
  if ! have cargo-zigbuild; then
    # pip put it in its scripts directory, which may not be on PATH (or a
    # pyenv shim not made yet): link it next to cargo.
    scripts_dir=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
    if [ -x "$scripts_dir/cargo-zigbuild" ] && have cargo; then
      ln -sf "$scripts_dir/cargo-zigbuild" "$(dirname "$(command -v cargo)")/cargo-zigbuild"
    fi
  fi
  have cargo-zigbuild || problems+=("cargo-zigbuild is not on PATH after pip install (pip's scripts directory?)")
fi

if [ ${#problems[@]} -gt 0 ]; then
  printf 'prereqs: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "prereqs: everything needed is installed (librocksdb $(sed -n 's/^#define ROCKSDB_MAJOR \(.*\)/\1/p' /usr/include/rocksdb/version.h).$(sed -n 's/^#define ROCKSDB_MINOR \(.*\)/\1/p' /usr/include/rocksdb/version.h).$(sed -n 's/^#define ROCKSDB_PATCH \(.*\)/\1/p' /usr/include/rocksdb/version.h))"
