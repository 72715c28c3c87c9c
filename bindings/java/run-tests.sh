#!/usr/bin/env bash
# Builds the native library if needed, runs the Java binding's tests (JUnit 5 via Maven Surefire),
# installs the jar (which bundles the stripped native library) into the local Maven repository,
# then builds and runs the consumer application against it (consumer/run.sh: no flags, no
# warning, JDK 17 and JDK 25), and runs the suite again on the JNI backend, on JDK 17 and JDK 25.
# Usage: bindings/java/run-tests.sh [extra mvn args]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

export JAVA_HOME="${ROCKSFILTER_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
if ! "$JAVA_HOME/bin/java" -version >/dev/null 2>&1; then
  echo "run-tests.sh: no JDK at $JAVA_HOME (JDK 22+ needed; set ROCKSFILTER_JAVA_HOME)" >&2
  exit 1
fi
command -v mvn >/dev/null || { echo "run-tests.sh: mvn (Maven 3.8+) not found" >&2; exit 1; }
# Maven 3.8's bundled Guava warns about sun.misc.Unsafe on JDK 24+; silence it.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

lib="$root/target/release/librocksfilter.so"
# Build the native library when missing; when cargo is at hand, also rebuild a stale one (a no-op
# when current). ROCKSFILTER_SKIP_CARGO=1 uses whatever library is there.
if [ "${ROCKSFILTER_SKIP_CARGO:-0}" != 1 ] && { [ ! -f "$lib" ] || command -v cargo >/dev/null; }; then
  echo "run-tests.sh: cargo build --release --locked (native library)"
  (cd "$root" && cargo build --release --locked)
fi
[ -f "$lib" ] || { echo "run-tests.sh: $lib missing (cargo build --release failed?)" >&2; exit 1; }

cd "$here"
mvn -B -ntp -Drocksfilter.native="$lib" "$@" install
"$here/consumer/run.sh" --no-install

# The JNI backend (JniBackend over src/jni.rs, picked where the jar's base classes are all the JVM
# reads) runs the same suite: every test but the FFM-only ones (Segments, the FFM backend's
# internals, or the Maven build's class directories), compiled by JDK 17's javac against the
# installed jar, run by the JUnit console launcher on JDK 17 and on JDK 25 (there with
# -Djdk.util.jar.enableMultiRelease=false, so that the JVM reads only the jar's base classes).
# BackendTest checks, in each run, which backend answered.
old_java_home="${ROCKSFILTER_OLD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
"$old_java_home/bin/java" -version >/dev/null 2>&1 || { echo "run-tests.sh: no JDK 17 at $old_java_home (set ROCKSFILTER_OLD_JAVA_HOME)" >&2; exit 1; }
ffm_only=(FfmFilterTest FfmSstTest JniBackendTest BaseApiTest StructLayoutTest BenchSupport MicroBenchmark)
jni="$here/target/jni-suite"
rm -rf "$jni" && mkdir -p "$jni/classes"
jar="$here/target/rocksfilter-0.1.0-SNAPSHOT.jar"
junit_version="$(sed -n 's|.*<junit.version>\(.*\)</junit.version>.*|\1|p' pom.xml)"
console_version="1.${junit_version#5.}"  # JUnit 5.x.y ships with the platform's 1.x.y
mvn -B -ntp -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$jni/deps.txt"
mvn -B -ntp -q dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$console_version" \
  -DoutputDirectory="$jni"
console="$jni/junit-platform-console-standalone-$console_version.jar"
sources=()
for f in src/test/java/io/github/rocksfilter/*.java; do
  name="$(basename "$f" .java)"
  [[ " ${ffm_only[*]} " == *" $name "* ]] || sources+=("$f")
done
"$old_java_home/bin/javac" --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$jni/classes" \
  -cp "$jar:$(cat "$jni/deps.txt")" "${sources[@]}"
jni_suite() { # jni_suite LABEL JAVA_HOME [JVM ARGS...]: the portable tests on the jar's JNI classes
  local label="$1" home="$2"; shift 2
  echo "run-tests.sh: the suite on the JNI backend, $label"
  "$home/bin/java" "$@" -Drocksfilter.library.path="$lib" -Drocksfilter.test.backend=jni \
    -cp "$console:$jar:$(cat "$jni/deps.txt"):$jni/classes" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --details=summary --disable-ansi-colors --scan-class-path "$jni/classes" \
    --reports-dir "$jni/reports-$label" >"$jni/$label.log" 2>&1 || { cat "$jni/$label.log" >&2; exit 1; }
  grep -E '^\[ +[0-9]+ tests (successful|failed|skipped|aborted|found) +\]' "$jni/$label.log" | sed "s/^/  $label: /"
}
jni_suite jdk17 "$old_java_home"
jni_suite jdk25 "$JAVA_HOME" --enable-native-access=ALL-UNNAMED -Djdk.util.jar.enableMultiRelease=false
echo "run-tests.sh: the JNI suite ran ${#sources[@]} test sources (FFM-only, not on JNI: ${ffm_only[*]})"

# Inside a Flink job (flink-test/, issue 26): a MiniCluster on JDK 17 keeps keyed state in the
# RocksDB state backend with Bloom filters, takes an incremental checkpoint, and every SST file of
# it is checked through the jar on JDK 17 (JNI): each key SstFileReader iterates may match, absent
# keys are rejected at about the filter's FP rate.
"$here/flink-test/run.sh" --no-install
