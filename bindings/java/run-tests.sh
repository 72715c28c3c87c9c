#!/usr/bin/env bash
# Builds the native library if needed, runs the Java binding's tests (JUnit 5 via Maven Surefire),
# installs the jar (which bundles the stripped native library) into the local Maven repository,
# then builds and runs the consumer application against it (consumer/run.sh: no flags, no
# warning, the JDK 17 messages), and checks the JNI backend on JDK 17 and JDK 25 (JniSmoke).
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

# The JNI backend (src/jni.rs, JniNative) on its own: compiled by JDK 17's javac for Java 11, run on
# JDK 17 and on JDK 25; the two runs must print the same lines. (JniBackendTest, in the suite above,
# checks it against the FFM backend call by call.)
old_java_home="${ROCKSFILTER_OLD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
smoke="$here/target/jni-smoke"
rm -rf "$smoke" && mkdir -p "$smoke/classes"
src="$here/src/main/java/io/github/rocksfilter"
"$old_java_home/bin/javac" --release 11 -Xlint:all -Werror -d "$smoke/classes" \
  "$src/JniNative.java" "$src/Status.java" "$src/RocksFilterException.java" "$src/Policy.java" \
  "$here/src/test/java/io/github/rocksfilter/JniSmoke.java"
"$old_java_home/bin/java" -Drocksfilter.library.path="$lib" -cp "$smoke/classes" io.github.rocksfilter.JniSmoke >"$smoke/jdk17.txt"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Drocksfilter.library.path="$lib" -cp "$smoke/classes" \
  io.github.rocksfilter.JniSmoke >"$smoke/jdk25.txt"
if ! cmp -s "$smoke/jdk17.txt" "$smoke/jdk25.txt"; then
  echo "run-tests.sh: the JNI smoke prints differently on JDK 17 and JDK 25:" >&2
  diff "$smoke/jdk17.txt" "$smoke/jdk25.txt" >&2
  exit 1
fi
echo "run-tests.sh: JNI backend on JDK 17 and JDK 25 ($(wc -l <"$smoke/jdk17.txt") identical lines):"
sed 's/^/  /' "$smoke/jdk17.txt"
