#!/usr/bin/env bash
# observe.sh OUTDIR: what this library's CLI and (if librocksdb-dev is
# installed) RocksDB 7.8.3 say about the files run.sh wrote to OUTDIR.
# Not a test: it prints one line per case for NOTES.md; exit 0 unless a
# tool is missing. Needs target/release/rocksfilter (cargo build --release).
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../../.." && pwd)
R="$root/target/release/rocksfilter"
[ -x "$R" ] || { echo "build the CLI first: cargo build --release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
judge=
if [ -e /usr/include/rocksdb/c.h ] && gcc -O2 -Wall -Werror -o "$tmp/judge78" "$root/sst_fixtures/judge78.c" -lrocksdb 2>"$tmp/gcc.log"; then
  judge="$tmp/judge78"
fi
for d in "$out"/pebble-*/; do
  for p in "$d"*.pebble_probes; do
    base=${p%.pebble_probes}
    n="$(basename "$d")/$(basename "$base")"
    cut -d' ' -f1 "$p" >"$tmp/keys"
    # CLI: verdict per candidate vs Pebble's.
    if q=$("$R" query "$base.sst" --hex --keys "$tmp/keys" 2>"$tmp/q.err"); then
      echo "$q" | awk -F'\t' '{print ($2=="may match") ? 0 : 1}' | paste -d' ' <(cut -d' ' -f2,3 "$p") - |
        awk -v n="$n" '$1==1 && $3==1 {miss++} $1==0 {ab++; if ($2==1) pr++; if ($3==1) lr++; if ($2==$3) same++}
          END {printf "cli   %s: written keys answered absent %d; absent %d: Pebble rejects %d, library %d, same verdict %d\n", n, miss, ab, pr, lr, same}'
    else
      echo "cli   $n: query failed: $(head -1 "$tmp/q.err")"
    fi
    [ -n "$judge" ] || continue
    rm -rf "$tmp/db"
    j=$(nice "$judge" "$base.sst" "$tmp/keys" 0 1 "$tmp/db" 2>"$tmp/j.err")
    first=$(echo "$j" | head -1)
    case "$first" in
      "") echo "judge $n: judge78 printed nothing: $(head -1 "$tmp/j.err")" ;;
      REFUSED*) echo "judge $n: $first" ;;
      *) echo "$first" | fold -w1 | paste -d' ' <(cut -d' ' -f2 "$p") - |
           awk -v n="$n" -v t="$(echo "$j" | sed -n 2p)" '$1==1 && $2!="1" {miss++} $1==0 && $2=="1" {wrong++} $2=="E" {err++}
             END {printf "judge %s: ingested; written keys not found %d, absent found %d, errors %d; filter %s\n", n, miss, wrong, err, t}' ;;
    esac
  done
  for f in "$d"foreign/*.sst; do
    [ -e "$f" ] && echo "cli   $(basename "$d")/foreign/$(basename "$f"): $("$R" inspect "$f" 2>&1 | head -1)"
  done
done
[ -n "$judge" ] || echo "(no judge78: librocksdb-dev not installed or did not compile)"
