#!/usr/bin/env bash
# run.sh OUTDIR [VERSION...]
#
# Writes and judges the RocksJava version matrix (see ../README.md) into
# OUTDIR/rocksjava-<VERSION>/, one JVM per rocksdbjni jar. Jars come from
# Maven Central into a cache outside the repository:
#   ${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}/rocksjava/
# MatrixWriter.java is compiled once per jar into that cache as well.
#
# A version refusing an option is recorded in its writer.log and summary line;
# a download, compile, crash or judge failure makes the script exit non-zero.
# JAVA / JAVAC override the java and javac used (default: the ones on PATH).
set -u -o pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [VERSION...]" >&2
  exit 2
fi
OUT=$1; shift
VERSIONS=("$@")
[ ${#VERSIONS[@]} -eq 0 ] && VERSIONS=(5.18.4 6.29.5 7.10.2 8.11.4 9.11.2 10.10.1.1 11.8.1)

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/MatrixWriter.java
CACHE=${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}/rocksjava
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
mkdir -p "$CACHE" "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
SRC_SUM=$(sha256sum "$SRC" | cut -d' ' -f1)

start=$(date +%s)
failed=()
for v in "${VERSIONS[@]}"; do
  jar=$CACHE/rocksdbjni-$v.jar
  if [ ! -s "$jar" ]; then
    echo "rocksjava-$v: downloading org.rocksdb:rocksdbjni:$v" >&2
    if ! mvn -B -q dependency:copy -Dartifact="org.rocksdb:rocksdbjni:$v" -DoutputDirectory="$CACHE" >"$CACHE/mvn-$v.log" 2>&1 \
       || [ ! -s "$jar" ]; then
      echo "rocksjava-$v: FAILED to download org.rocksdb:rocksdbjni:$v (see $CACHE/mvn-$v.log):" >&2
      { grep -m 3 -E 'Failed to execute|Could not|not found|Unknown host' "$CACHE/mvn-$v.log" || tail -n 20 "$CACHE/mvn-$v.log"; } >&2
      failed+=("$v(download)")
      continue
    fi
  fi
  classes=$CACHE/classes/$v
  if [ "$(cat "$classes/.source-sha256" 2>/dev/null)" != "$SRC_SUM" ]; then
    rm -rf "$classes" && mkdir -p "$classes"
    if ! "$JAVAC" -nowarn -encoding UTF-8 -cp "$jar" -d "$classes" "$SRC" 2>"$classes/javac.log"; then
      echo "rocksjava-$v: FAILED to compile MatrixWriter.java against $jar:" >&2
      cat "$classes/javac.log" >&2
      failed+=("$v(compile)")
      continue
    fi
    echo "$SRC_SUM" >"$classes/.source-sha256"
  fi
  t0=$(date +%s)
  "$JAVA" -cp "$jar:$classes" MatrixWriter "$OUT" "$jar"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "rocksjava-$v: FAILED (exit $rc; details above and in $OUT/rocksjava-$v/writer.log)" >&2
    failed+=("$v(exit $rc)")
  else
    echo "rocksjava-$v: $(($(date +%s) - t0)) s, $(du -sh "$OUT/rocksjava-$v" | cut -f1) in $OUT/rocksjava-$v"
  fi
done
echo "run.sh: ${#VERSIONS[@]} version(s) in $(($(date +%s) - start)) s"
if [ ${#failed[@]} -ne 0 ]; then
  echo "run.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
