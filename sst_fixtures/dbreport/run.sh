#!/usr/bin/env bash
# sst_fixtures/dbreport/run.sh OUTDIR [--rocksdb11]
#
# `rocksfilter report` against RocksDB's own counts, on databases RocksDB
# writes here (writedb.c): Debian's 7.8.3 with NewRibbonFilterPolicy(10, 1)
# and with legacy Bloom at format_version 4; with --rocksdb11, also 11.12
# built from source (sst_fixtures/rocksdb11/build.sh, cached per machine).
# For each database (check.py):
#   - the report's files, levels and entry counts equal
#     GetLiveFilesMetaData's, file for file;
#   - the filter kinds are the policy's;
#   - for 100,000 absent keys inside the key range, --probe's may_match
#     equals RocksDB's rocksdb.bloom.filter.full.positive over the same Gets,
#     and its files_probed equals full.positive + useful;
# then the MANIFEST truncated and garbled at many offsets: each report is a
# clear error naming the MANIFEST and an offset, or a report with a warning
# (check.py damaged); then a report of 100,000 files within its memory bound
# (manyfiles.py).
# Needs target/release/rocksfilter, gcc, g++ and librocksdb-dev.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:?usage: run.sh OUTDIR [--rocksdb11]}"
cli="$repo/target/release/rocksfilter"
[ -x "$cli" ] || { echo "run.sh: $cli is missing: run cargo build --release --locked" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

writers=()
gcc -O2 -Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L -o "$out/writedb78" "$here/writedb.c" -lrocksdb
writers+=("7.8.3:$out/writedb78:" "7.8.3-legacy:$out/writedb78:legacy")
if [ "${2:-}" = --rocksdb11 ]; then
  dir="$("$repo/sst_fixtures/rocksdb11/build.sh" | tail -n 1)"
  inc="$(sed -n 's/.*-I\([^ ]*\/include\).*/\1/p' "$dir/cxxflags")"
  gcc -O2 -Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L -I"$inc" -c "$here/writedb.c" -o "$out/writedb11.o"
  g++ -o "$out/writedb11" "$out/writedb11.o" "$dir/librocksdb.a" -lpthread -ldl
  writers+=("11.12:$out/writedb11:")
fi

# 100,000 absent keys inside the range (odd numbers; the databases hold even ones).
python3 -c '
import random
r = random.Random(7)
print("\n".join("key%010d" % (2 * r.randrange(0, 900000) + 1) for _ in range(100000)))' > "$out/absent.txt"

for w in "${writers[@]}"; do
  IFS=: read -r name bin mode <<<"$w"
  db="$out/db-$name"
  rm -rf "$db"
  echo "== $name: writing $db"
  "$bin" write "$db" $mode
  "$bin" live "$db" $mode > "$out/$name.live.jsonl"
  "$bin" probe "$db" "$out/absent.txt" $mode > "$out/$name.probe.json"
  "$cli" report "$db" --json --probe "$out/absent.txt" > "$out/$name.report.json"
  "$cli" report "$db" --probe "$out/absent.txt" --plot "$out/$name.svg" > "$out/$name.report.txt"
  python3 "$here/check.py" db "$name" "$out/$name.live.jsonl" "$out/$name.probe.json" "$out/$name.report.json" "$out/$name.svg"
done
python3 "$here/check.py" damaged "$cli" "$out/db-7.8.3" "$out/damaged"
# 100,000 live files (hard links to the largest file above): the report's
# peak RSS within its stated bound, the 64 MiB cache plus about 1 KiB a file
# and the process's own 16 MiB: 180 MiB.
python3 "$here/manyfiles.py" "$cli" "$(ls -S "$out/db-7.8.3"/*.sst | head -n 1)" "$out/many" 100000 180
echo "dbreport: every database's report matched RocksDB's"
