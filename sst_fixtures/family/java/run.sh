#!/usr/bin/env bash
# run.sh OUTDIR [WRITER...]
#
# The RocksDB forks of the family matrix (../README.md), each writing and
# judging its own files with ../../matrix/java/MatrixWriter.java (they ship
# RocksJava's API; ForSt under the package org.forstdb, so the source is
# compiled with that package), into OUTDIR/<writer>/:
#
#   frocksdb-6.20.3  com.ververica:frocksdbjni:6.20.3-ververica-2.0   (Flink 1.x's RocksDB)
#   frocksdb-8.10.0  com.ververica:frocksdbjni:8.10.0-ververica-1.0   (Flink 2.x's RocksDB)
#   forst-0.1.8      com.ververica:forstjni:0.1.8                     (Flink 2.x's ForSt backend)
#   speedb-2.8.0     io.github.speedb-io:speedbjni:2.8.0              (also its speedb.PairedBloomFilter)
#
# Jars come from Maven Central into a cache outside the repository:
#   ${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}/family-jars/
# Exit status non-zero on a download, compile, crash or judge failure.
set -u -o pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [WRITER...]" >&2; exit 2; }
OUT=$1; shift
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/../../matrix/java/MatrixWriter.java
CACHE=${ROCKSFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocksfilter}/family-jars
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
mkdir -p "$CACHE" "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)

declare -A ARTIFACT=(
  [frocksdb-6.20.3]=com.ververica:frocksdbjni:6.20.3-ververica-2.0
  [frocksdb-8.10.0]=com.ververica:frocksdbjni:8.10.0-ververica-1.0
  [forst-0.1.8]=com.ververica:forstjni:0.1.8
  [speedb-2.8.0]=io.github.speedb-io:speedbjni:2.8.0
)
WRITERS=("$@")
[ ${#WRITERS[@]} -eq 0 ] && WRITERS=(frocksdb-6.20.3 frocksdb-8.10.0 forst-0.1.8 speedb-2.8.0)

start=$(date +%s)
failed=()
for w in "${WRITERS[@]}"; do
  a=${ARTIFACT[$w]:-}
  [ -n "$a" ] || { echo "run.sh: unknown writer $w" >&2; failed+=("$w(unknown)"); continue; }
  IFS=: read -r group artifact version <<<"$a"
  jar=$CACHE/$artifact-$version.jar
  if [ ! -s "$jar" ]; then
    echo "$w: downloading $a" >&2
    if ! mvn -B -q dependency:copy -Dartifact="$a" -DoutputDirectory="$CACHE" >"$CACHE/mvn-$w.log" 2>&1 || [ ! -s "$jar" ]; then
      echo "$w: FAILED to download $a (see $CACHE/mvn-$w.log)" >&2
      failed+=("$w(download)"); continue
    fi
  fi
  pkg=org.rocksdb
  [ "$artifact" = forstjni ] && pkg=org.forstdb
  sum=$( { sha256sum "$SRC"; echo "$pkg"; } | sha256sum | cut -d' ' -f1)
  classes=$CACHE/classes/$w
  if [ "$(cat "$classes/.source-sha256" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$classes" && mkdir -p "$classes/src"
    sed "s/\borg\.rocksdb\./$pkg./g" "$SRC" >"$classes/src/MatrixWriter.java"
    if ! "$JAVAC" -nowarn -encoding UTF-8 -cp "$jar" -d "$classes" "$classes/src/MatrixWriter.java" 2>"$classes/javac.log"; then
      echo "$w: FAILED to compile MatrixWriter.java against $jar:" >&2; cat "$classes/javac.log" >&2
      failed+=("$w(compile)"); continue
    fi
    echo "$sum" >"$classes/.source-sha256"
  fi
  extra=()
  [ "$artifact" = speedbjni ] && extra=(-Dmatrix.cases=speedb)
  t0=$(date +%s)
  if "$JAVA" -Dmatrix.writer="$w" "${extra[@]}" -cp "$jar:$classes" MatrixWriter "$OUT" "$jar"; then
    echo "$w: $(($(date +%s) - t0)) s, $(du -sh "$OUT/$w" | cut -f1) in $OUT/$w"
  else
    echo "$w: FAILED (details above and in $OUT/$w/writer.log)" >&2
    failed+=("$w")
  fi
done
echo "run.sh: ${#WRITERS[@]} fork(s) in $(($(date +%s) - start)) s"
[ ${#failed[@]} -eq 0 ] || { echo "run.sh: FAILED: ${failed[*]}" >&2; exit 1; }
