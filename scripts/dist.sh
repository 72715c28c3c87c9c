#!/usr/bin/env bash
# scripts/dist.sh [PLATFORM...]   (make dist)
#
# Builds every platform's native library on this one Linux machine and
# writes dist/:
#   rocksfilter-VERSION-PLATFORM.tar.gz  per platform: the shared and static
#       library, include/, pkg-config and CMake files, laid out by
#       `make install` itself (PREFIX=/usr/local; no CLI), under one
#       top directory rocksfilter-VERSION-PLATFORM/
#   rocksfilter-VERSION.jar   the Java binding with every platform's native
#       under native/PLATFORM/ (and native/platforms.txt)
#   go/   the self-contained Go module (bindings/go/make-module.sh) with the
#       static library of every platform cgo links: linux_amd64,
#       linux_arm64, darwin_amd64, darwin_arm64, windows_amd64
#   python/   a Python wheel per platform, rocksfilter-VERSION-py3-none-TAG.whl
#       (bindings/python/build_wheels.py), the platform's native inside
#   SHA256SUMS, and natives.txt (the size of every native)
# then checks them (scripts/dist-check.sh): machine and format of every
# file, the GLIBC_2.17 floor, the same exported symbols everywhere, every
# wheel's tag against its native (bindings/python/check_wheels.py).
#
# Toolchains (scripts/prereqs.sh --dist installs them): cargo-zigbuild with
# the ziglang package (PyPI) links the Linux and macOS builds, the glibc
# ones against glibc 2.17's symbols (the .2.17 target suffix); Debian's
# mingw-w64 links Windows (the toolchain the wine tests use). Rust targets
# through rustup. PLATFORM arguments build only those (the jar and the Go
# module are then written only if every platform they hold was built).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# name            cargo target                      linker  os
platforms_table='
linux-x86_64       x86_64-unknown-linux-gnu.2.17     zig     linux
linux-aarch64      aarch64-unknown-linux-gnu.2.17    zig     linux
linux-x86_64-musl  x86_64-unknown-linux-musl         zig     linux
linux-aarch64-musl aarch64-unknown-linux-musl        zig     linux
linux-s390x        s390x-unknown-linux-gnu.2.17      zig     linux
windows-x86_64     x86_64-pc-windows-gnu             mingw   windows
darwin-x86_64      x86_64-apple-darwin               zig     darwin
darwin-aarch64     aarch64-apple-darwin              zig     darwin
'
# The Go module's platforms (GOOS_GOARCH) and the dist platform each takes
# its static library from.
go_platforms='linux_amd64:linux-x86_64 linux_arm64:linux-aarch64 darwin_amd64:darwin-x86_64 darwin_arm64:darwin-aarch64 windows_amd64:windows-x86_64'

die() { echo "dist.sh: $*" >&2; exit 1; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || die "no version in Cargo.toml"
all=$(echo "$platforms_table" | awk 'NF {print $1}')
wanted=${*:-$all}
for p in $wanted; do echo "$all" | grep -qx "$p" || die "unknown platform $p (known: $(echo $all))"; done

for tool in cargo-zigbuild llvm-objcopy llvm-nm llvm-objdump x86_64-w64-mingw32-gcc; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/prereqs.sh --dist (as root it installs it)"
done

dist=$root/dist
stage=$root/target/dist-stage
rm -rf "$dist" "$stage"
mkdir -p "$dist" "$stage"
start=$SECONDS

for p in $wanted; do
  read -r _ target linker os < <(echo "$platforms_table" | awk -v p="$p" '$1 == p')
  base=${target%.2.17}
  echo "== $p: $target ($((SECONDS - start))s)"
  case $linker in
    zig)
      # A musl cdylib must link libc dynamically (Rust's musl targets link
      # it statically by default, and a static libc cannot back a shared
      # library that a musl JVM or program loads).
      env_var="CARGO_TARGET_$(echo "$base" | tr 'a-z-' 'A-Z_')_RUSTFLAGS"
      case $base in *-musl) export "$env_var=-C target-feature=-crt-static" ;; esac
      # The oldest macOS each dylib is for: rustc's own minimums. Without
      # them zig stamps its default, macOS 15.0, into LC_BUILD_VERSION: the
      # dylibs would claim to need macOS 15, and the Python wheels, tagged
      # from that claim, would install on macOS 15 and later only.
      case $base in
        x86_64-apple-darwin) macos_min=10.12 ;;
        aarch64-apple-darwin) macos_min=11.0 ;;
        *) macos_min= ;;
      esac
      env ${macos_min:+MACOSX_DEPLOYMENT_TARGET=$macos_min} \
        cargo zigbuild --profile dist --locked -q -p rocksfilter --lib --target "$target"
      ;;
    mingw)
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        cargo build --profile dist --locked -q -p rocksfilter --lib --target "$target"
      ;;
  esac
  built=$root/target/$base/dist
  # The libraries as shipped: the shared one is stripped by the dist
  # profile (its exports stay); the static one keeps its symbol table (the
  # linker needs it) but neither debug info nor the LLVM bitcode rustc
  # embeds for cross-crate LTO (no C or Go linker reads it: 19.6 -> 6.3 MB
  # for linux-x86_64).
  lib=$stage/$p/lib
  mkdir -p "$lib"
  case $os in
    linux) shared=librocksfilter.so ;;
    darwin) shared=librocksfilter.dylib ;;
    windows) shared=rocksfilter.dll; cp "$built/librocksfilter.dll.a" "$lib/" ;;
  esac
  cp "$built/$shared" "$lib/$shared"
  case $os in
    darwin) bitcode=(--remove-section=__LLVM,__bitcode --remove-section=__LLVM,__cmdline) ;;
    *) bitcode=(--remove-section=.llvmbc --remove-section=.llvmcmd) ;;
  esac
  llvm-objcopy --strip-debug "${bitcode[@]}" "$built/librocksfilter.a" "$lib/librocksfilter.a"
  # What a program linking the static library also needs, from rustc.
  rustc --crate-type staticlib --target "$base" --print native-static-libs -o "$stage/$p/probe.a" - </dev/null \
    2>"$stage/$p/native-static-libs.txt"
  libs=$(sed -n 's/.*native-static-libs: //p' "$stage/$p/native-static-libs.txt" | tail -n 1)
  [ -n "$libs" ] || die "$p: rustc printed no native-static-libs"
  echo "$libs" >"$lib/native-static-libs"
  rm -f "$stage/$p/probe.a"
  make -s --no-print-directory install DESTDIR="$stage/$p/root" PREFIX=/usr/local \
    LIB_SRC="$lib" TARGET_OS="$os" RUST_TARGET="$base" NATIVE_STATIC_LIBS="$libs" INSTALL_CLI=0 >/dev/null
  find "$stage/$p/root" -type d -empty -delete
  tar -C "$stage/$p/root/usr/local" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    --transform "s,^\.,rocksfilter-$version-$p," -czf "$dist/rocksfilter-$version-$p.tar.gz" .
done

# The jar: every platform's shared library, as built above, under
# native/PLATFORM/ (bindings/java/pom.xml, -Drocksfilter.natives.dir).
have_all=1
for p in $all; do [ -d "$stage/$p/lib" ] || have_all=0; done
if [ $have_all = 1 ]; then
  echo "== the jar ($((SECONDS - start))s)"
  natives=$stage/jar-natives
  for p in $all; do
    mkdir -p "$natives/$p"
    for f in librocksfilter.so librocksfilter.dylib rocksfilter.dll; do
      [ -f "$stage/$p/lib/$f" ] && cp "$stage/$p/lib/$f" "$natives/$p/"
    done
  done
  export JAVA_HOME="${ROCKSFILTER_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  (cd bindings/java && PATH="$JAVA_HOME/bin:$PATH" mvn -B -ntp -q -Dstyle.color=never -DskipTests \
    -Drocksfilter.natives.dir="$natives" package)
  cp "bindings/java/target/rocksfilter-$version-SNAPSHOT.jar" "$dist/rocksfilter-$version.jar"

  echo "== the Go module ($((SECONDS - start))s)"
  golibs=$stage/go-libs
  for gp in $go_platforms; do
    mkdir -p "$golibs/${gp%%:*}"
    cp "$stage/${gp#*:}/lib/librocksfilter.a" "$golibs/${gp%%:*}/"
    cp "$stage/${gp#*:}/lib/native-static-libs" "$golibs/${gp%%:*}/"
  done
  bindings/go/make-module.sh "$dist/go" "$golibs"
else
  echo "== not every platform built: no jar, no Go module"
fi

# The Python wheels: one per platform built, its native inside
# (bindings/python/build_wheels.py; --require-all when every platform was).
echo "== the Python wheels ($((SECONDS - start))s)"
python3 bindings/python/build_wheels.py "$stage" "$dist/python" $([ $have_all = 1 ] && echo --require-all) \
  $(for p in $wanted; do echo --platform "$p"; done)

# Sizes of what ships, then the checksums.
(cd "$stage" && for p in $wanted; do
  for f in "$p"/lib/*; do
    case $f in *native-static-libs) continue ;; esac
    printf '%-20s %-22s %10d\n' "$p" "$(basename "$f")" "$(stat -c %s "$f")"
  done
done) >"$dist/natives.txt"
(cd "$dist" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs sha256sum >SHA256SUMS)

echo "== checks ($((SECONDS - start))s)"
scripts/dist-check.sh "$dist" $wanted
echo "dist.sh: wrote $dist in $((SECONDS - start))s"
