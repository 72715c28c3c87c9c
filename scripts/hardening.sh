#!/usr/bin/env bash
# scripts/hardening.sh [--quick] [--full]
#
# Hostile bytes, misuse and concurrency must never crash rocksfilter or lose
# a key. Runs, each with a one-line summary and a findings count:
#   1. fuzz smoke runs of every cargo-fuzz target (fuzz/), ASan-instrumented,
#      seeded from our builder's blocks, real RocksDB SSTs and MANIFESTs
#      (60 s each; --quick 10 s; FUZZ_SECONDS=N overrides);
#   2. the Rust tests (--lib --tests) under AddressSanitizer;
#   3. the C API test (c_tests/api) under ASan + UBSan (--full: also
#      c_tests/compat, ~15 min under ASan);
#   4. the C API test and the I/O fault tests (tests/io.rs) under valgrind
#      (errors and definite/indirect leaks);
#   5. Miri over the library's unit tests, in the background beside the fuzz
#      step (skipped with a message when the
#      nightly miri component cannot be installed);
#   6. tests/concurrency.rs under ThreadSanitizer (nightly + rust-src +
#      -Zbuild-std; skipped with a message when unavailable).
# Exits non-zero on any finding or failed step.
#
# Needs: cargo (stable; RUSTC_BOOTSTRAP=1 unlocks -Zsanitizer), gcc, make,
# valgrind, librocksdb-dev and python3 (SST seeds; optional). Installs
# cargo-fuzz with `cargo install --locked` when missing. Everything is built
# under target/hardening/; the fuzz corpus grows in fuzz/corpus/ (ignored).
# Environment: ROCKSFILTER_SST_FIXTURES=DIR reuses generated SST fixtures;
# SKIP="miri tsan ..." skips steps (fuzz asan c-asan valgrind miri tsan).
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
QUICK=0
FULL=0
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --full) FULL=1 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
FUZZ_SECONDS=${FUZZ_SECONDS:-$([ $QUICK = 1 ] && echo 10 || echo 60)}
SKIP=" ${SKIP:-} "
HOST=x86_64-unknown-linux-gnu
OUT="$here/target/hardening"
LOGS="$OUT/logs"
mkdir -p "$LOGS"
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

SUMMARY=()
FAILED=0
START=$(date +%s)
say() { printf '\n=== %s\n' "$*"; }
result() { # name findings text
  local line
  if [ "$2" = 0 ]; then line="PASS  $1: $3"; else line="FAIL  $1: $3"; FAILED=1; fi
  SUMMARY+=("$line")
  echo "$line"
}
skipped() { SUMMARY+=("SKIP  $1: $2"); echo "SKIP  $1: $2"; }
want() { case "$SKIP" in *" $1 "*) skipped "$1" "in SKIP"; return 1 ;; esac; return 0; }
secs() { echo $(( $(date +%s) - $1 )); }

# ------------------------------------------------------------------ fuzz
step_fuzz() {
  say "fuzz: ${FUZZ_SECONDS}s per target"
  if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "installing cargo-fuzz (cargo install cargo-fuzz --locked)"
    cargo install cargo-fuzz --locked >"$LOGS/cargo-fuzz-install.log" 2>&1 \
      || { result fuzz 1 "cargo install cargo-fuzz failed (see $LOGS/cargo-fuzz-install.log)"; return; }
  fi
  local targets="filter_load_query sst_open_query sst_crafted sst_source_faults build_roundtrip manifest"
  # Seeds: blocks from our builder and structured build inputs...
  if ! cargo run -q --manifest-path fuzz/Cargo.toml --target-dir "$OUT/fuzz-seeds" --no-default-features \
        --example gen_seeds -- "$OUT/seeds" >"$LOGS/gen_seeds.log" 2>&1; then
    result fuzz 1 "seed generation failed (see $LOGS/gen_seeds.log)"; return
  fi
  for t in $targets; do
    mkdir -p "fuzz/corpus/$t"
    [ -d "$OUT/seeds/$t" ] && cp -n "$OUT/seeds/$t"/* "fuzz/corpus/$t/" 2>/dev/null
  done
  # ...and real RocksDB SSTs (< 64 KB, the smallest of each kind).
  # (make test's fixtures when they are there: generating them again costs
  # a minute.)
  local fx="${ROCKSFILTER_SST_FIXTURES:-}"
  [ -z "$fx" ] && [ -f "$here/target/sst-fixtures/manifest.jsonl" ] && fx="$here/target/sst-fixtures"
  fx="${fx:-$OUT/sst-fixtures}"
  if [ ! -f "$fx/manifest.jsonl" ]; then
    echo "generating SST fixtures into $fx (sst_fixtures/generate.sh)"
    sst_fixtures/generate.sh "$fx" >"$LOGS/sst-fixtures.log" 2>&1 \
      || echo "warning: sst_fixtures/generate.sh failed (see $LOGS/sst-fixtures.log); sst_open_query starts from its own corpus only"
  fi
  if ls "$fx"/*.sst >/dev/null 2>&1; then
    find "$fx" -maxdepth 1 -name '*.sst' -size -64k -printf '%s %p\n' | sort -n \
      | awk '{n=$2; sub(/.*\//,"",n); f=n; sub(/_(ascii|bin|k|long|pfx)[0-9a-z_]*\.sst$/,"",f);
              if (!(f in seen)) {seen[f]=1; print $2}}' | head -32 \
      | while read -r f; do
          cp -n "$f" fuzz/corpus/sst_open_query/
          # The same files behind a fault description (fail the 2nd read).
          { printf '\000\001\000\000\000\000'; cat "$f"; } > "fuzz/corpus/sst_source_faults/real-$(basename "$f")"
        done
  fi
  # ...and the MANIFESTs of the databases RocksDB wrote for make report-test.
  local dbr="${ROCKSFILTER_DBREPORT:-$here/target/dbreport}"
  for cur in "$dbr"/db-*/CURRENT; do
    [ -f "$cur" ] || continue
    local db; db=$(dirname "$cur")
    cp -n "$db/$(cat "$cur")" "fuzz/corpus/manifest/real-$(basename "$db")" 2>/dev/null
  done
  local t0; t0=$(date +%s)
  if ! cargo fuzz build -O --sanitizer address >"$LOGS/fuzz-build.log" 2>&1; then
    result fuzz 1 "cargo fuzz build failed (see $LOGS/fuzz-build.log)"; return
  fi
  echo "fuzz build: $(secs "$t0")s"
  for t in $targets; do
    local art="$OUT/fuzz-artifacts/$t/"
    rm -rf "$art"; mkdir -p "$art"
    local log="$LOGS/fuzz-$t.log"
    # The crafted-SST target's inputs are edit scripts (small); no single
    # allocation of the library may be large on them.
    local extra=""
    [ "$t" = sst_crafted ] && extra="-malloc_limit_mb=256"
    [ "$t" = sst_source_faults ] && extra="-malloc_limit_mb=256"
    cargo fuzz run -O --sanitizer address "$t" "fuzz/corpus/$t" -- \
      -max_total_time="$FUZZ_SECONDS" -max_len=65536 -rss_limit_mb=4096 -timeout=20 $extra \
      -print_final_stats=1 -artifact_prefix="$art" >"$log" 2>&1
    local rc=$?
    local execs; execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    local crashes; crashes=$(find "$art" -type f | wc -l)
    if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then crashes=1; fi
    local text="${FUZZ_SECONDS}s, ${execs:-?} execs, $crashes crashes, corpus $(ls "fuzz/corpus/$t" | wc -l) inputs"
    if [ "$crashes" != 0 ]; then
      text="$text; reproduce: cargo fuzz run -O -s address $t $(find "$art" -type f | head -1) (log $log)"
    fi
    result "fuzz $t" "$crashes" "$text"
  done
}

# ------------------------------------------------------------------ ASan Rust tests
# The ASan builds (Rust tests and the library the C test links) at
# opt-level 1: the tests run in about a third of their -O0 time (the cache
# and partitioned tests dominate), and -O1 keeps ASan's reports exact.
ASAN_OPT="CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_PROFILE_TEST_OPT_LEVEL=1"
step_asan() {
  say "Rust tests under AddressSanitizer"
  local t0; t0=$(date +%s)
  local log="$LOGS/asan-rust-tests.log"
  # (tests/cache_budget.rs's soak: 20,000 queries per thread in this debug
  # build instead of 300,000.) Built at -O1, as ASan's documentation advises
  # ($ASAN_OPT), with debug assertions and overflow checks still on.
  env $ASAN_OPT RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
    ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:allocator_may_return_null=1" \
    ROCKSFILTER_SOAK_QUERIES=${ROCKSFILTER_SOAK_QUERIES:-20000} \
    cargo test -p rocksfilter -p rocksfilter-cli --no-fail-fast --target "$HOST" --target-dir "$OUT/asan" --lib --tests --bins >"$log" 2>&1
  local rc=$?
  local reports; reports=$(grep -c 'ERROR: \(Address\|Leak\)Sanitizer' "$log")
  local failed; failed=$(sed -n 's/.* \([0-9]*\) failed;.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  local passed; passed=$(sed -n 's/.* \([0-9]*\) passed;.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  local findings=$(( reports + failed ))
  [ "$rc" != 0 ] && [ "$findings" = 0 ] && findings=1
  result "asan rust tests" "$findings" "$passed passed, $failed failed, $reports sanitizer reports, $(secs "$t0")s (log $log)"
}

# ------------------------------------------------------------------ C tests
c_api_build() { # variant target-dir cflags
  make -C c_tests BUILD="$OUT/c-$1" TARGET_DIR="$2" CFLAGS="$3" api >"$LOGS/c-$1-build.log" 2>&1
}

step_c_asan() {
  say "C tests under ASan + UBSan"
  local t0; t0=$(date +%s)
  local tdir="$OUT/asan/$HOST/debug"
  if ! env $ASAN_OPT RUSTFLAGS="-Zsanitizer=address" cargo build -p rocksfilter --target "$HOST" --target-dir "$OUT/asan" --lib \
        >"$LOGS/c-asan-lib.log" 2>&1; then
    result "c asan+ubsan" 1 "ASan library build failed (see $LOGS/c-asan-lib.log)"; return
  fi
  local cflags="-O1 -g -std=c11 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  if ! c_api_build asan "$tdir" "$cflags"; then
    result "c asan+ubsan" 1 "build failed (see $LOGS/c-asan-build.log)"; return
  fi
  local log="$LOGS/c-asan-api.log"
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$OUT/c-asan/api" >"$log" 2>&1
  local rc=$?
  local reports; reports=$(grep -c 'ERROR: \(Address\|Leak\)Sanitizer\|runtime error:' "$log")
  local findings=$(( reports + (rc != 0 && reports == 0) ))
  result "c asan+ubsan api" "$findings" "$(tail -1 "$log"), $reports sanitizer reports, $(secs "$t0")s (log $log)"
  if [ $FULL = 1 ]; then
    local t1; t1=$(date +%s)
    log="$LOGS/c-asan-compat.log"
    if make -C c_tests BUILD="$OUT/c-asan" TARGET_DIR="$tdir" CFLAGS="$cflags" compat >"$LOGS/c-asan-compat-build.log" 2>&1; then
      (cd c_tests && ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$OUT/c-asan/compat" all) >"$log" 2>&1
      rc=$?
      reports=$(grep -c 'ERROR: AddressSanitizer\|runtime error:' "$log")
      findings=$(( reports + (rc != 0 && reports == 0) ))
      result "c asan+ubsan compat" "$findings" "$(tail -1 "$log"), $reports sanitizer reports, $(secs "$t1")s (log $log)"
    else
      result "c asan+ubsan compat" 1 "build failed (see $LOGS/c-asan-compat-build.log)"
    fi
  fi
}

step_valgrind() {
  say "C API test under valgrind"
  if ! command -v valgrind >/dev/null 2>&1; then
    result valgrind 1 "valgrind not installed (apt-get install valgrind)"; return
  fi
  local t0; t0=$(date +%s)
  if ! cargo build -p rocksfilter --target-dir "$OUT/plain" --lib >"$LOGS/valgrind-lib.log" 2>&1; then
    result valgrind 1 "library build failed (see $LOGS/valgrind-lib.log)"; return
  fi
  if ! c_api_build valgrind "$OUT/plain/debug" "-O1 -g -std=c11 -Wall -Wextra"; then
    result valgrind 1 "build failed (see $LOGS/c-valgrind-build.log)"; return
  fi
  local log="$LOGS/valgrind-api.log"
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect "$OUT/c-valgrind/api" >"$log" 2>&1
  local rc=$?
  local errors; errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
  local leaks; leaks=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d , | tail -1)
  local ind; ind=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d , | tail -1)
  local findings=$(( ${errors:-1} + (rc != 0 && ${errors:-1} == 0) ))
  result "valgrind c api" "$findings" "${errors:-?} errors, definitely lost ${leaks:-0} B, indirectly lost ${ind:-0} B, $(grep -a 'passed' "$log" | tail -1), $(secs "$t0")s (log $log)"

  # The I/O fault tests (tests/io.rs: every read of an open failed,
  # shortened and garbled through the C callback source; files truncated
  # under open handles), through the C ABI, under valgrind.
  say "I/O fault tests under valgrind"
  t0=$(date +%s)
  log="$LOGS/valgrind-io.log"
  local bin
  bin=$(cargo test --release -p rocksfilter --test io --no-run --message-format=json 2>"$LOGS/valgrind-io-build.log" \
    | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "io": print(m["executable"])' | tail -1)
  if [ -z "$bin" ]; then
    result "valgrind io faults" 1 "build failed (see $LOGS/valgrind-io-build.log)"; return
  fi
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect "$bin" --test-threads=1 >"$log" 2>&1
  rc=$?
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
  leaks=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d , | tail -1)
  ind=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d , | tail -1)
  findings=$(( ${errors:-1} + (rc != 0 && ${errors:-1} == 0) ))
  result "valgrind io faults" "$findings" "${errors:-?} errors, definitely lost ${leaks:-0} B, indirectly lost ${ind:-0} B, $(grep -a '^test result' "$log" | tail -1), $(secs "$t0")s (log $log)"
}

# ------------------------------------------------------------------ nightly tools
have_nightly_component() { # component
  rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^$1"
}
ensure_nightly_component() { # component
  have_nightly_component "$1" && return 0
  command -v rustup >/dev/null 2>&1 || return 1
  rustup toolchain list 2>/dev/null | grep -q '^nightly' \
    || timeout 300 rustup toolchain install nightly --profile minimal >>"$LOGS/rustup.log" 2>&1 || return 1
  timeout 300 rustup component add --toolchain nightly "$1" >>"$LOGS/rustup.log" 2>&1 || return 1
  have_nightly_component "$1"
}

# Miri interprets on one core, for a fixed time: it runs in the background
# from the start, beside the fuzz step (one libFuzzer process at a time),
# and its result is collected after the valgrind step.
start_miri() {
  MIRI_PID=""
  if ! ensure_nightly_component miri || ! ensure_nightly_component rust-src; then
    skipped miri "nightly miri/rust-src not installable here (no access to the rustup servers?); see $LOGS/rustup.log"
    return
  fi
  MIRI_T0=$(date +%s)
  MIRI_LIMIT=${MIRI_TIMEOUT:-420}
  # The unit tests cover the pure-Rust core (hashes, builders, readers,
  # SST parsing, the FFI boundary). Miri cannot run AVX2 or mmap paths and
  # is ~1000x slower: tests that loop over large inputs are filtered out.
  # -Zmiri-disable-isolation: std::env and temp files are used by tests.
  # Default: the unit tests that are cheap enough for Miri (hashes, trailer
  # parsing, SST format, policy, builder rules, the FFI panic boundary).
  local filter=${MIRI_TEST_FILTER:-"hash:: filter::tests sst:: policy:: ffi:: send_sync trailer_layout geometry_validation odd_but_accepted short_blocks reserved_markers foreign_line_sizes odd_number_of_lines adjacent_duplicates key_and_alt empty_finish add_hash_on_legacy lines_at --skip avx2 --skip every_length"}
  echo "Miri: started in the background (at most ${MIRI_LIMIT}s; log $LOGS/miri.log)"
  rm -f "$OUT/miri.end"
  # shellcheck disable=SC2086
  (
    MIRIFLAGS="-Zmiri-disable-isolation" timeout "$MIRI_LIMIT" \
      cargo +nightly miri test -p rocksfilter --target-dir "$OUT/miri" --lib -- $filter >"$LOGS/miri.log" 2>&1
    rc=$?
    date +%s >"$OUT/miri.end"
    exit $rc
  ) &
  MIRI_PID=$!
}

finish_miri() {
  say "Miri (library unit tests)"
  [ -n "${MIRI_PID:-}" ] || return
  wait "$MIRI_PID"
  local rc=$?
  local log="$LOGS/miri.log"
  local ub; ub=$(grep -c '^error: Undefined Behavior\|^error: memory leaked' "$log")
  local passed; passed=$(grep -c '\.\.\. ok$' "$log")
  local failed; failed=$(grep -c '\.\.\. FAILED$' "$log")
  local unsupported; unsupported=$(grep -c 'unsupported operation' "$log")
  local findings=$(( ub + failed ))
  local note=""
  [ "$rc" = 124 ] && note=" (stopped at the ${MIRI_LIMIT}s limit: partial run; MIRI_TIMEOUT=N for more)"
  [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$findings" = 0 ] && [ "$unsupported" = 0 ] && findings=1
  local ran=$(( $(cat "$OUT/miri.end" 2>/dev/null || date +%s) - MIRI_T0 ))
  result miri "$findings" "$passed passed, $failed failed, $ub UB reports, $unsupported unsupported-operation stops, ${ran}s$note (log $log)"
}

step_tsan() {
  say "ThreadSanitizer (tests/concurrency.rs)"
  if ! ensure_nightly_component rust-src; then
    skipped tsan "-Zsanitizer=thread needs -Zbuild-std and nightly rust-src, not installable here"
    return
  fi
  local t0; t0=$(date +%s)
  local log="$LOGS/tsan.log"
  RUSTFLAGS="-Zsanitizer=thread" TSAN_OPTIONS="halt_on_error=1" \
    cargo +nightly test -p rocksfilter -Zbuild-std --target "$HOST" --target-dir "$OUT/tsan" --test concurrency >"$log" 2>&1
  local rc=$?
  local races; races=$(grep -c 'WARNING: ThreadSanitizer' "$log")
  local findings=$(( races + (rc != 0 && races == 0) ))
  result "tsan concurrency" "$findings" "$races data-race reports, $(grep 'test result' "$log" | tail -1), $(secs "$t0")s (log $log)"
}

want miri && start_miri
want fuzz && step_fuzz
want asan && step_asan
want c-asan && step_c_asan
want valgrind && step_valgrind
[ -n "${MIRI_PID:-}" ] && finish_miri
want tsan && step_tsan

echo
echo "=== hardening summary ($(secs "$START")s; logs in $LOGS)"
printf '%s\n' "${SUMMARY[@]}"
if [ $FAILED != 0 ]; then
  echo "hardening: FINDINGS (see above)"
  exit 1
fi
echo "hardening: no findings"
