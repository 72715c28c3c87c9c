#!/usr/bin/env bash
# The crate package of the library (what `cargo publish` would upload), as a
# Rust user gets it (called by `make package-test`, part of `make test`):
#   1. LICENSE at the root is the Apache License 2.0 that Cargo.toml names;
#   2. `cargo package --list` holds exactly what a Rust user of the library
#      needs: Cargo.toml, Cargo.lock, build.rs, every file of src/, the C
#      headers cargo-c installs, README.md (the crate's readme), CHANGELOG.md
#      and LICENSE; nothing of the bindings, benchmarks, fixtures, tests or
#      scripts (the `include` list of Cargo.toml);
#   3. the package builds on its own (cargo package's verification build of
#      the unpacked .crate), and its LICENSE is the repository's.
# The jar's and the generated Go module's LICENSE are checked where they are
# built: bindings/java/consumer/run.sh and bindings/go/consumer-test.sh.
# Offline: it needs only the library's dependencies, which the build fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# 1. The license text.
grep -qx 'license = "Apache-2.0"' Cargo.toml || bad "Cargo.toml does not say license = \"Apache-2.0\""
if [ -f LICENSE ] && grep -q '^ *Apache License$' LICENSE && grep -q '^ *Version 2.0, January 2004$' LICENSE \
   && grep -q 'END OF TERMS AND CONDITIONS' LICENSE; then
  ok "LICENSE is the Apache License, Version 2.0 ($(wc -l <LICENSE) lines)"
else
  bad "LICENSE is missing or not the Apache License 2.0 text"
fi

# 2. The package's file list (.cargo_vcs_info.json is there only when the
# checkout is clean, so it may be there and need not be).
export LC_ALL=C
have=$(cargo package --list -p rocksfilter --allow-dirty --locked --offline 2>/dev/null | sort -u) \
  || { cargo package --list -p rocksfilter --allow-dirty --locked --offline; echo "package-test: cargo package --list failed" >&2; exit 1; }
want=$( { printf '%s\n' Cargo.toml Cargo.toml.orig Cargo.lock build.rs README.md CHANGELOG.md LICENSE \
            include/rocksfilter.h include/rocksfilter.hpp; git ls-files src; } | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$have"))
extra=$(comm -13 <(echo "$want") <(echo "$have") | grep -vx .cargo_vcs_info.json || true)
[ -z "$missing" ] && ok "the package holds every file of src/, build.rs, the headers, README.md, CHANGELOG.md and LICENSE" \
  || bad "the package lacks: $(echo $missing)"
[ -z "$extra" ] && ok "the package holds nothing else ($(echo "$have" | wc -l) files)" \
  || bad "the package also holds (not for a Rust user of the library; see include in Cargo.toml): $(echo $extra)"

# 3. The package builds from its own files, and carries the license.
if cargo package -p rocksfilter --allow-dirty --locked --offline >target/package-test.log 2>&1; then
  crate=target/package/rocksfilter-$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1).crate
  ok "cargo package: the unpacked crate builds ($(stat -c %s "$crate") bytes)"
  if tar -xzOf "$crate" "$(basename "$crate" .crate)/LICENSE" | cmp -s - LICENSE; then
    ok "$crate carries LICENSE"
  else
    bad "$crate: no LICENSE, or not the repository's"
  fi
else
  cat target/package-test.log; bad "cargo package failed (log above)"
fi

echo "package-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
