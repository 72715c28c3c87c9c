#!/usr/bin/env bash
# run.sh OUTDIR: builds the Pebble family writers (one Go module per Pebble
# major version: v1/ = github.com/cockroachdb/pebble v1.1.5, v2/ =
# github.com/cockroachdb/pebble/v2 v2.1.7, from the Go module proxy) into
# OUTDIR/build and runs them; each writes OUTDIR/pebble-<version>/
# (manifest.jsonl, .sst/.keys/.candidates/.pebble_probes, writer.log,
# foreign/ + foreign.jsonl) and prints its summary line.
#
# Exit status: non-zero when a download or build fails, or when a writer's
# self-check fails (Pebble's own filter rejects a key the file holds, or
# the file does not record what was asked).
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
mkdir -p "$out/build"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"
status=0
for v in v1 v2; do
  if ! (cd "$here/$v" && nice go build -o "$out/build/pebble-$v-writer" .) >"$out/build/$v.build.log" 2>&1; then
    echo "pebble $v: download/build failed:" >&2
    cat "$out/build/$v.build.log" >&2
    exit 1
  fi
done
for v in v1 v2; do
  nice "$out/build/pebble-$v-writer" "$out" || status=1
done
exit $status
