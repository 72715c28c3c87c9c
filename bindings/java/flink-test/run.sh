#!/usr/bin/env bash
# The Flink checkpoint test (bindings/java/README.md, "Inside a Flink job"):
#   step 1, JDK 17 (Flink's class path): a keyed job in a MiniCluster keeps ValueState and MapState
#     in the RocksDB state backend (Bloom filters, 10 bits/key), takes incremental checkpoints to
#     target/flink-work/checkpoints and is cancelled once one completed after its last record; the
#     SST files of that checkpoint (listed from its _metadata, recognized by the table magic
#     number) are iterated with the SstFileReader of the RocksDB Flink bundles (frocksdbjni);
#   step 2, the check's JDK (only rocksfilter on the class path): every key iterated must "may
#     match" in rocksfilter's Sst, and absent keys of the same shape are counted (FP rate <= 3%).
# Exits non-zero on any failure. Flink and its dependencies come from Maven Central (about 157 MB
# into a cold local repository); rocksfilter from the local repository (mvn install in
# bindings/java: done here unless --no-install).
# Usage: bindings/java/flink-test/run.sh [--no-install]
#   ROCKSFILTER_OLD_JAVA_HOME    JDK 17 (default /usr/lib/jvm/java-17-openjdk-amd64)
#   ROCKSFILTER_JAVA_HOME        JDK 22+ that builds and installs the rocksfilter jar (default JDK 25)
#   ROCKSFILTER_FLINK_JAVA_HOME  JDK of step 1 (default JDK 17)
#   ROCKSFILTER_CHECK_JAVA_HOME  JDK of step 2 (default JDK 17: the jar's JNI backend; a JDK 22+
#                                runs the FFM backend)
set -euo pipefail
start=$SECONDS

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java_dir="$(cd "$here/.." && pwd)"
root="$(cd "$java_dir/../.." && pwd)"

jdk17="${ROCKSFILTER_OLD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
jdk25="${ROCKSFILTER_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
flink_java_home="${ROCKSFILTER_FLINK_JAVA_HOME:-$jdk17}"
check_java_home="${ROCKSFILTER_CHECK_JAVA_HOME:-$jdk17}"
build_java_home="$jdk25"
for j in "$flink_java_home" "$check_java_home"; do
  "$j/bin/java" -version >/dev/null 2>&1 || { echo "flink-test: no JDK at $j" >&2; exit 1; }
done
command -v mvn >/dev/null || { echo "flink-test: mvn (Maven 3.8+) not found" >&2; exit 1; }
base_maven_opts="${MAVEN_OPTS:-}"
base_maven_opts="${base_maven_opts//--sun-misc-unsafe-memory-access=allow/}"

spec_version() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

# ---- the rocksfilter jar, in the local Maven repository ----
if [ "${1:-}" != --no-install ]; then
  t=$SECONDS
  lib="$root/target/release/librocksfilter.so"
  if [ ! -f "$lib" ]; then
    echo "flink-test: cargo build --release --locked (native library)"
    (cd "$root" && cargo build --release --locked)
  fi
  echo "flink-test: mvn install (bindings/java, tests skipped, JDK at $build_java_home)"
  (cd "$java_dir" && JAVA_HOME="$build_java_home" PATH="$build_java_home/bin:$PATH" \
     MAVEN_OPTS="$base_maven_opts --sun-misc-unsafe-memory-access=allow" \
     mvn -B -ntp -q -Dstyle.color=never -DskipTests -Drocksfilter.native="$lib" install)
  echo "time: rocksfilter jar install: $((SECONDS - t)) s"
fi

# ---- build this project (JDK 17; resolves Flink from Maven Central when the cache is cold) ----
t=$SECONDS
echo "flink-test: mvn compile (bindings/java/flink-test, JDK at $flink_java_home)"
(cd "$here" && JAVA_HOME="$flink_java_home" PATH="$flink_java_home/bin:$PATH" MAVEN_OPTS="$base_maven_opts" \
   mvn -B -ntp -q -Dstyle.color=never compile)
maven_s=$((SECONDS - t))
echo "time: maven (compile, class paths): $maven_s s"

work="$here/target/flink-work"
rm -rf "$work"
mkdir -p "$work"

# ---- step 1: the Flink job and the SstFileReader dump ----
t=$SECONDS
echo "flink-test: step 1 on JDK $(spec_version "$flink_java_home"): Flink job, checkpoint, SstFileReader"
set +e
"$flink_java_home/bin/java" -Xmx1g -cp "$here/target/classes:$(cat "$here/target/flink.classpath")" \
  io.github.rocksfilter.flinktest.FlinkCheckpointDump "$work" "${ROCKSFILTER_FLINK_KEYS:-150000}" \
  >"$work/step1.out" 2>"$work/step1.err"
rc=$?
set -e
sed 's/^/  /' "$work/step1.out"
step1_s=$((SECONDS - t))
echo "time: step 1 (JVM, MiniCluster, job, checkpoint, iteration): $step1_s s"
if [ "$rc" != 0 ]; then
  echo "flink-test: step 1 failed (exit $rc); its stderr:" >&2
  grep -v '^SLF4J' "$work/step1.err" | tail -n 60 >&2
  echo "flink-test: 0 passed, 1 failed"
  exit 1
fi

# ---- step 2: the rocksfilter check ----
t=$SECONDS
check_version="$(spec_version "$check_java_home")"
check_flags=()
if [ "${check_version%%.*}" -ge 22 ] 2>/dev/null; then check_flags+=(--enable-native-access=ALL-UNNAMED); fi
echo "flink-test: step 2 on JDK $check_version: rocksfilter check"
set +e
"$check_java_home/bin/java" -Xmx1g "${check_flags[@]}" -cp "$here/target/classes:$(cat "$here/target/check.classpath")" \
  io.github.rocksfilter.flinktest.FilterCheck "$work" "${ROCKSFILTER_FLINK_MAX_FP:-0.03}" 2>&1 | tee "$work/step2.out" | sed 's/^/  /'
rc=${PIPESTATUS[0]}
set -e
step2_s=$((SECONDS - t))
echo "time: step 2 (JVM, rocksfilter check): $step2_s s"

echo "flink-test: wall time $((SECONDS - start)) s (maven $maven_s s, step 1 $step1_s s, step 2 $step2_s s)"
if [ "$rc" != 0 ]; then
  echo "flink-test: 1 passed, 1 failed"
  exit 1
fi
echo "flink-test: 2 passed, 0 failed"
