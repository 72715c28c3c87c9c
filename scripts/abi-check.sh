#!/usr/bin/env bash
# scripts/abi-check.sh [--update]   (make abi-check; make abi-baseline runs --update)
#
# The C ABI as a checked promise. Builds the library with full debug info
# (`cargo build -p rocksfilter --lib`, the dev profile: the release profile
# has line tables only) and checks target/debug/librocksfilter.so:
#   1. it exports exactly the functions of include/rocksfilter.h and the
#      Java binding's JNI entry points (src/jni.rs), nothing else;
#   2. libabigail's abidiff finds no change against the committed baseline,
#      abi/librocksfilter.abi, under abi/suppressions.txt: added functions
#      and fields appended to the structs versioned by `struct_size` pass;
#      a removed function, a changed parameter or return type, a changed or
#      inserted struct field, a changed SONAME fail with abidiff's report.
#      (The opaque handles' insides and the JNI entry points are suppressed.)
# Before that, a self-test shows the check can fail: two small C libraries
# built with gcc -g from the real header, one with a function's parameter
# type changed, are compared with the same abidiff command and
# suppressions; its verdicts (fails on a changed parameter, a changed or
# inserted field, a removed function; passes on an added function and a
# field appended to a versioned struct) are asserted, and that the report
# names the function or struct.
#
# --update rewrites abi/librocksfilter.abi from the current build. When to
# regenerate it (and commit it, saying why):
#   - after adding functions or appended struct fields (the check passes and
#     says so), so that removing them later fails;
#   - after a toolchain update whose report names only Rust-internal types,
#     no function of the header and no field of its structs;
#   - with a deliberate incompatible change, which also bumps the SONAME
#     (the minor version while 0.x) and is listed in CHANGELOG.md.
# Never to silence a report on a function or struct of the header.
#
# Needs abidw/abidiff (Debian's abigail-tools; `scripts/prereqs.sh --abi`
# installs it as root), gcc, nm. About 5 s with the library built, plus
# its debug build (about 15 s after a change to the crate, 1-2 minutes
# from scratch on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
case "${1:-}" in
  --update) update=1 ;;
  "") ;;
  *) echo "usage: $0 [--update]" >&2; exit 2 ;;
esac
for t in abidw abidiff; do
  command -v $t >/dev/null || { echo "abi-check: $t not found: install abigail-tools (scripts/prereqs.sh --abi, as root)" >&2; exit 1; }
done
baseline=abi/librocksfilter.abi
supp=abi/suppressions.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# abidiff's exit status is a bit set: 1 error, 2 usage, 4 ABI change,
# 8 incompatible change. Added functions are not reported (--no-added-syms):
# they are compatible. Fields appended to the versioned structs are
# (abi/appended.txt), but that suppression alone would also hide a field
# whose type changed without changing the struct's size: it applies only
# when the report without it shows nothing but data members inserted.
abi_diff() { # abi_diff OLD NEW REPORT: returns abidiff's status (0: compatible); the report in REPORT
  local rc=0 lenient=0
  abidiff --no-added-syms --suppressions "$supp" "$1" "$2" >"$3" 2>&1 || rc=$?
  [ $rc -ne 0 ] && [ $((rc & 3)) -eq 0 ] || return $rc
  abidiff --no-added-syms --suppressions "$supp" --suppressions abi/appended.txt "$1" "$2" >/dev/null 2>&1 || lenient=$?
  [ $lenient -eq 0 ] || return $rc
  if grep -vqE "^ *$|^(Functions|Variables) changes summary|functions? with some indirect sub-type changes?:|^ *\[C\] '|^ *parameter [0-9]+ of type .* has sub-type changes:|^ *in pointed to type '[^']*rocksfilter_[a-z_]+'( |:$)|^ *type size changed from [0-9]+ to [0-9]+ \(in bits\)|^ *[0-9]+ data member insertions?:|^ *'[^']*', at offset [0-9]+ \(in bits\)" "$3"; then
    return $rc
  fi
  echo "(fields appended to versioned structs only: compatible)" >>"$3"
  return 0
}

# --- The self-test: the same abidiff command must fail where it should.
selftest() {
  local d="$work/selftest" failed=0
  mkdir -p "$d"
  cat >"$d/stub.c" <<'EOF'
#include "rocksfilter.h"
#ifndef LEN_T
#define LEN_T size_t
#endif
#ifndef REMOVED
bool rocksfilter_filter_may_match(const struct rocksfilter_filter *f, const uint8_t *key, LEN_T len) {
  return f != NULL || key != NULL || len != 0;
}
#endif
rocksfilter_status rocksfilter_cache_get_stats(const struct rocksfilter_cache *cache,
                                               struct rocksfilter_cache_stats *out, char **errptr) {
  (void)cache;
  (void)errptr;
  out->struct_size = (uint32_t)sizeof *out;
  return ROCKSFILTER_OK;
}
#ifdef ADDED
uint32_t rocksfilter_selftest_added(void) { return 1; }
#endif
EOF
  # Variants of the real header: each edit must apply, or the self-test
  # no longer tests what it says.
  variant() { # variant NAME PERL-SUBSTITUTION
    mkdir -p "$d/$1"
    perl -0pe "$2" include/rocksfilter.h >"$d/$1/rocksfilter.h"
    ! cmp -s include/rocksfilter.h "$d/$1/rocksfilter.h" || { echo "abi-check self-test: the $1 edit no longer applies to include/rocksfilter.h" >&2; exit 1; }
  }
  mkdir -p "$d/base"
  cp include/rocksfilter.h "$d/base/"
  cp -r "$d/base" "$d/added"
  variant changed 's/(bool rocksfilter_filter_may_match\([^;]*?)size_t len\);/$1uint32_t len);/s'
  variant appended 's/\n\} rocksfilter_cache_stats;/\n  uint64_t selftest_appended;\n} rocksfilter_cache_stats;/'
  variant field 's/(typedef struct rocksfilter_cache_stats \{.*?)uint64_t capacity;/$1uint32_t capacity;/s'
  variant middle 's/(typedef struct rocksfilter_cache_stats \{.*?)(uint64_t capacity;)/$1uint64_t selftest_inserted;\n  $2/s'
  variant removed 's/bool rocksfilter_filter_may_match\([^;]*;//s'
  local flags=""
  for v in base added changed appended field middle removed; do
    case $v in added) flags=-DADDED ;; changed) flags=-DLEN_T=uint32_t ;; removed) flags=-DREMOVED ;; *) flags="" ;; esac
    gcc -g -O0 -shared -fPIC -Wall -Werror -I"$d/$v" $flags -Wl,-soname,librocksfilter.so.0 \
      -o "$d/$v/librocksfilter.so" "$d/stub.c"
  done
  abidw --no-show-locs --no-comp-dir-path --type-id-style hash --suppressions "$supp" \
    --out-file "$d/base.abi" "$d/base/librocksfilter.so"
  expect() { # expect VARIANT pass|fail [WORD THE REPORT MUST NAME]
    local rc=0
    abi_diff "$d/base.abi" "$d/$1/librocksfilter.so" "$d/$1.report" || rc=$?
    if [ "$2" = pass ] && [ $rc -ne 0 ]; then
      echo "abi-check self-test: the $1 variant should pass, abidiff exited $rc:" >&2; cat "$d/$1.report" >&2; failed=1
    elif [ "$2" = fail ] && { [ $((rc & 4)) -eq 0 ] || [ $((rc & 3)) -ne 0 ]; }; then
      echo "abi-check self-test: the $1 variant should fail with an ABI change (status bit 4), abidiff exited $rc:" >&2; cat "$d/$1.report" >&2; failed=1
    elif [ -n "${3:-}" ] && ! grep -q "$3" "$d/$1.report"; then
      echo "abi-check self-test: abidiff's report on the $1 variant does not name $3:" >&2; cat "$d/$1.report" >&2; failed=1
    else
      echo "abi-check self-test: $1: $2 (abidiff status $rc), as it should"
    fi
  }
  expect base pass
  expect added pass
  expect appended pass
  expect changed fail rocksfilter_filter_may_match
  expect field fail rocksfilter_cache_stats
  expect middle fail rocksfilter_cache_stats
  expect removed fail rocksfilter_filter_may_match
  [ $failed = 0 ] || exit 1
}
selftest

# --- The library itself.
cargo build --locked -q -p rocksfilter --lib
lib="${CARGO_TARGET_DIR:-target}/debug/librocksfilter.so"

# 1. The export list: the header's functions and the JNI entry points.
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' include/rocksfilter.h | tr '\n' ' ' \
  | grep -oE '\brocksfilter_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$work/header.txt"
grep -rhoE 'Java_io_github_rocksfilter_[A-Za-z0-9_]+' src/jni.rs | sort -u >"$work/jni.txt"
sort -u "$work/header.txt" "$work/jni.txt" >"$work/expected.txt"
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$work/exported.txt"
if ! cmp -s "$work/expected.txt" "$work/exported.txt"; then
  echo "abi-check: $lib does not export exactly the header's functions and the JNI entry points:" >&2
  comm -23 "$work/expected.txt" "$work/exported.txt" | sed 's/^/  missing: /' >&2
  comm -13 "$work/expected.txt" "$work/exported.txt" | sed 's/^/  extra:   /' >&2
  exit 1
fi
echo "abi-check: exports: the header's $(wc -l <"$work/header.txt") functions and $(wc -l <"$work/jni.txt") JNI entry points, nothing else"

# 2. The ABI against the baseline.
if [ $update = 1 ]; then
  # Each translation unit's path names this machine's directories (the
  # clone, cargo's registry): kept to the crate's name and codegen unit.
  abidw --no-show-locs --no-comp-dir-path --type-id-style hash --suppressions "$supp" "$lib" \
    | sed -E "s|(<abi-instr [^>]* path=')[^']*/@/([A-Za-z0-9_]+)\.[0-9a-f]+-(cgu\.[0-9]+)'|\1\2-\3'|" >"$baseline"
  echo "abi-check: wrote $baseline ($(wc -c <"$baseline") bytes, $(grep -c '<elf-symbol ' "$baseline") functions) from $lib; commit it with the reason"
  exit 0
fi
[ -f "$baseline" ] || { echo "abi-check: no $baseline: make abi-baseline writes it" >&2; exit 1; }
rc=0
abi_diff "$baseline" "$lib" "$work/report" || rc=$?
if [ $rc -ne 0 ]; then
  cat "$work/report" >&2
  if [ $((rc & 3)) -ne 0 ]; then
    echo "abi-check: abidiff failed (status $rc), above" >&2
  else
    echo "abi-check: the C ABI changed against $baseline (abidiff status $rc$([ $((rc & 8)) -ne 0 ] && echo ', incompatible')): the report above names what changed." >&2
    echo "  Released programs call these functions with the old types: keep the old function and add a new one (or append the field)." >&2
    echo "  Only for a deliberate change (see this script's header for when): make abi-baseline, and commit $baseline with the reason." >&2
  fi
  exit 1
fi
added=$(grep -o "<elf-symbol name='[^']*'" "$baseline" | sed "s/.*name='//; s/'//" | sort -u | comm -13 - "$work/header.txt")
if [ -n "$added" ]; then
  echo "abi-check: functions added since the baseline (compatible): $(echo $added); make abi-baseline records them, so that removing them fails"
fi
if grep -q '^(fields appended to versioned structs only' "$work/report"; then
  sed '$d' "$work/report"
  echo "abi-check: fields appended to versioned structs since the baseline (above; compatible): make abi-baseline records them, so that removing them fails"
fi
echo "abi-check: $lib matches $baseline (abidiff, abi/suppressions.txt) in $((SECONDS - start))s"
