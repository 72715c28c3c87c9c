#!/usr/bin/env bash
# sst_fixtures/generate.sh OUTDIR
#
# Writes real RocksDB SST files (never committed) plus, per SST, a .keys file
# (one hex-encoded key per line, in write order) and one JSON line per SST in
# OUTDIR/manifest.jsonl, from two writers:
#   * gen_rocksdb78.c  - RocksDB C API of the system librocksdb (Debian 7.8.3)
#   * gen_rocksdict.py - rocksdict's SstFileWriter (bundled RocksDB 9.8.4)
# then cross-checks every file's footer/metaindex/properties/filter against its
# manifest row (inspect_sst.py --outdir, which also writes OUTDIR/inspect.jsonl).
#
# Needs (what CI must install):
#   apt-get install -y librocksdb-dev gcc        # headers + -lrocksdb (7.8.3 on Debian bookworm)
#   pip install -r sst_fixtures/requirements.txt # rocksdict==0.3.29
# If `python3 -c 'import rocksdict'` fails (e.g. pip refused a system-wide
# install), a virtualenv is created under OUTDIR/.venv and rocksdict is
# installed there from requirements.txt (needs PyPI access).
# Environment: CC (default gcc), PYTHON (default python3).
#
# Output: about 140 MB, 179 SSTs; about 30 s on 2 cores.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
CC="${CC:-gcc}"
PYTHON="${PYTHON:-python3}"

# Start from a clean manifest (only files this script produces are removed).
rm -f "$out"/manifest.jsonl "$out"/inspect.jsonl "$out"/r78_*.sst "$out"/r78_*.keys \
      "$out"/rd_*.sst "$out"/rd_*.keys

# --- RocksDB 7.8.3 via the C API
hdr=""
for d in ${ROCKSDB_INCLUDE:-} /usr/include /usr/local/include; do
  if [ -f "$d/rocksdb/version.h" ]; then hdr="$d/rocksdb/version.h"; break; fi
done
[ -n "$hdr" ] || { echo "generate.sh: rocksdb/version.h not found (apt-get install librocksdb-dev)" >&2; exit 1; }
ver="$(awk '/#define ROCKSDB_MAJOR/{a=$3} /#define ROCKSDB_MINOR/{b=$3} /#define ROCKSDB_PATCH/{c=$3} END{print a"."b"."c}' "$hdr")"
mkdir -p "$out/.build"
"$CC" -O2 -Wall -Werror -DRDB_VERSION="\"$ver\"" -o "$out/.build/gen_rocksdb78" \
  "$here/gen_rocksdb78.c" -lrocksdb
"$out/.build/gen_rocksdb78" "$out"

# --- rocksdict
if ! "$PYTHON" -c 'import rocksdict' 2>/dev/null; then
  echo "generate.sh: rocksdict not importable by $PYTHON; installing into $out/.venv" >&2
  if [ ! -x "$out/.venv/bin/python" ]; then
    "$PYTHON" -m venv "$out/.venv"
  fi
  "$out/.venv/bin/pip" install -q -r "$here/requirements.txt"
  PYTHON="$out/.venv/bin/python"
fi
"$PYTHON" "$here/gen_rocksdict.py" "$out"

# --- cross-check every file against its manifest row
python3 "$here/inspect_sst.py" --outdir "$out" > "$out/inspect.txt"

"$PYTHON" - "$out" <<'PY'
import collections, json, os, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "manifest.jsonl"))]
c = collections.Counter(r["writer"] for r in rows)
size = sum(os.path.getsize(os.path.join(out, r["file"])) + os.path.getsize(os.path.join(out, r["keys"])) for r in rows)
print("sst_fixtures: %d SST files (%s), %.1f MB, manifest %s" % (
    len(rows), ", ".join("%s: %d" % kv for kv in sorted(c.items())), size / 1e6,
    os.path.join(out, "manifest.jsonl")))
PY
