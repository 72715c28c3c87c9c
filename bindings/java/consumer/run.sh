#!/usr/bin/env bash
# Installs the rocksfilter jar into the local Maven repository, builds this consumer application
# against it and runs it the ways bindings/java/README.md documents: no -D flag, no
# LD_LIBRARY_PATH, no restricted-method warning, on JDK 25 (the FFM backend) and on JDK 17 (the JNI
# backend). Also checks the build-time message of JDK 17 and the jar's contents (the native
# library, both backends' classes, the public classes only in the base, META-INF/LICENSE).
# Usage: bindings/java/consumer/run.sh [--no-install]   (--no-install: the jar is already installed)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java_dir="$(cd "$here/.." && pwd)"
root="$(cd "$java_dir/../.." && pwd)"

export JAVA_HOME="${ROCKSFILTER_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
old_java_home="${ROCKSFILTER_OLD_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
for j in "$JAVA_HOME" "$old_java_home"; do
  "$j/bin/java" -version >/dev/null 2>&1 || { echo "run.sh: no JDK at $j (set ROCKSFILTER_JAVA_HOME / ROCKSFILTER_OLD_JAVA_HOME)" >&2; exit 1; }
done
command -v mvn >/dev/null || { echo "run.sh: mvn (Maven 3.8+) not found" >&2; exit 1; }
old_maven_opts="${MAVEN_OPTS:-}"
old_maven_opts="${old_maven_opts//--sun-misc-unsafe-memory-access=allow/}"
# Maven 3.8's bundled Guava warns about sun.misc.Unsafe on JDK 24+; silence it (not for JDK 17).
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
unset LD_LIBRARY_PATH

passed=0
failed=0
check() { # check NAME DETAILS-IF-FAILED COMMAND...: counts COMMAND's success
  local name="$1" details="$2"; shift 2
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name"; printf '%s\n' "$details" | sed 's/^/     /'; fi
}
has() { grep -qF -- "$2" <<<"$1"; }
lacks() { ! grep -qE -- "$2" <<<"$1"; }
line_in() { grep -qxF -- "$2" <<<"$1"; }
matches() { grep -qE -- "$2" <<<"$1"; }

jar="$java_dir/target/rocksfilter-0.1.0-SNAPSHOT.jar"
if [ "${1:-}" != --no-install ]; then
  echo "run.sh: mvn install (bindings/java, tests skipped)"
  (cd "$java_dir" && mvn -B -ntp -q -Dstyle.color=never -DskipTests install)
fi
[ -f "$jar" ] || { echo "run.sh: $jar missing (mvn install in bindings/java failed?)" >&2; exit 1; }

# ---- the jar ----
echo "run.sh: jar $(basename "$jar"): $(stat -c %s "$jar") bytes"
listing="$(jar tf "$jar")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/jar"
(cd "$tmp/jar" && jar xf "$jar" META-INF/MANIFEST.MF META-INF/LICENSE native/linux-x86_64/librocksfilter.so)
manifest="$(tr -d '\r' <"$tmp/jar/META-INF/MANIFEST.MF")"
for entry in native/linux-x86_64/librocksfilter.so native/platforms.txt META-INF/LICENSE META-INF/versions/22/module-info.class \
             META-INF/versions/22/io/github/rocksfilter/FfmBackend.class META-INF/versions/22/io/github/rocksfilter/Segments.class \
             io/github/rocksfilter/JniNative.class io/github/rocksfilter/Sst.class; do
  check "jar holds $entry" "$listing" has "$listing" "$entry"
done
# The public API exists once, in the base: versions/22 adds the FFM backend and Segments only.
check "jar: no public class of the base again in META-INF/versions/22/" "$listing" \
  lacks "$listing" '^META-INF/versions/22/io/github/rocksfilter/(Cache|Filter|FilterBuilder|RocksFilter|Sst|SstFilter)\.class$'
for line in "Multi-Release: true" "Enable-Native-Access: ALL-UNNAMED" "Main-Class: io.github.rocksfilter.RocksFilter"; do
  check "manifest: $line" "$manifest" line_in "$manifest" "$line"
done
check "META-INF/LICENSE is the repository's LICENSE" "differs from $root/LICENSE" \
  cmp -s "$tmp/jar/META-INF/LICENSE" "$root/LICENSE"
bundled="$tmp/jar/native/linux-x86_64/librocksfilter.so"
echo "run.sh: bundled librocksfilter.so: $(stat -c %s "$bundled") bytes (cargo's: $(stat -c %s "$root/target/release/librocksfilter.so"))"
sections="$(readelf -S -W "$bundled")"
check "bundled library is stripped (no .debug_*/.symtab)" "$sections" lacks "$sections" '\.debug_|\.symtab'

# ---- the consumer, built against the installed artifact ----
cd "$here"
echo "run.sh: mvn package (consumer)"
mvn -B -ntp -q -Dstyle.color=never package

expect_line='^STANDARD128_RIBBON of [0-9]+ bytes: 10000/10000 keys found, [0-9]+/10000 absent keys matched$'
# Each command exactly as bindings/java/README.md shows it (checked below), run from this directory.
commands=(
  "java -jar target/rocksfilter-consumer.jar"
  "java --enable-native-access=io.github.rocksfilter -p target/lib/rocksfilter.jar --add-modules io.github.rocksfilter -cp target/classes example.consumer.Main"
)
readme="$(cat "$java_dir/README.md")"
for jdk in "$JAVA_HOME" "$old_java_home"; do
v="JDK $("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
for cmd in "${commands[@]}"; do
  [ "$jdk" = "$JAVA_HOME" ] && check "README shows: $cmd" "not found as a line of bindings/java/README.md" line_in "$readme" "$cmd"
  set +e
  PATH="$jdk/bin:$PATH" bash -c "$cmd" >"$tmp/out" 2>"$tmp/err"; rc=$?
  set -e
  out="$(cat "$tmp/out")"; err="$(cat "$tmp/err")"
  echo "\$ $cmd   # $v"; sed 's/^/  /' "$tmp/out" "$tmp/err"
  check "$v: exit status 0" "exit $rc; $err" test "$rc" = 0
  check "$v: prints the filter check" "$out" matches "$out" "$expect_line"
  check "$v: its first line is the one bindings/java/README.md shows" "$out" line_in "$readme" "$(head -n 1 <<<"$out")"
  check "$v: uses the bundled library" "$out" has "$out" "native library: bundled linux-x86_64 copy (jar:file:"
  check "$v: Sst: a missing file is IO_ERROR with the library's message" "$out" line_in "$out" \
    'Sst.open(missing.sst): status=IO_ERROR message="I/O error: missing.sst: No such file or directory (os error 2)"'
  check "$v: that line is the one bindings/java/README.md shows" "$out" line_in "$readme" "$(grep -F 'Sst.open(' <<<"$out")"
  check "$v: nothing on stderr (no restricted-method warning)" "$err" test -z "$err"
done
done

# ---- java -jar rocksfilter.jar: its own Enable-Native-Access line, no flag, no warning ----
for jdk in "$JAVA_HOME" "$old_java_home"; do
v="JDK $("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
out="$("$jdk/bin/java" -jar "$jar" 2>"$tmp/err")"; err="$(cat "$tmp/err")"
echo "\$ java -jar $(basename "$jar")   # $v"; echo "  $out"
check "$v: java -jar rocksfilter.jar names the versions and the bundled library" "$out" \
  has "$out" "rocksfilter 0.1.0 (Java bindings), native library 0.1.0 from bundled linux-x86_64 copy"
check "$v: java -jar rocksfilter.jar: nothing on stderr" "$err" test -z "$err"
done

# ---- JDK 17: building the jar needs JDK 22+ (it compiles the FFM classes); it says so ----
set +e
(cd "$java_dir" && MAVEN_OPTS="$old_maven_opts" JAVA_HOME="$old_java_home" mvn -B -ntp -q -Dstyle.color=never validate) >"$tmp/out" 2>&1; rc=$?
set -e
old_out="$(cat "$tmp/out")"
check "JDK 17: mvn in bindings/java fails" "exit $rc" test "$rc" != 0
check "JDK 17: mvn in bindings/java says 'rocksfilter needs JDK 22 or newer (found 17) to build'" "$old_out" \
  has "$old_out" "rocksfilter needs JDK 22 or newer (found 17) to build"
grep -F "needs JDK 22" <<<"$old_out" | sed 's/^/  /'

echo "consumer: $passed passed, $failed failed"
[ "$failed" = 0 ]
