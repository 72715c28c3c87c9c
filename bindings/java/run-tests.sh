#!/usr/bin/env bash
# Builds the native library if needed, runs the Java binding's tests (JUnit 5 via Maven Surefire),
# installs the jar (which bundles the stripped native library) into the local Maven repository,
# then builds and runs the consumer application against it (consumer/run.sh: no flags, no
# warning, the JDK 17 messages).
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
