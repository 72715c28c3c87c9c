#!/usr/bin/env python3
"""Runs every shell block of README.md (every ```sh fence), taken straight out
of the README, as a reader would type them in one terminal, so that a README
command cannot break unnoticed. Called by `make readme-test` (part of `make
test`) after the release build; prints every command it runs or skips.

    scripts/readme-test.py [--readme README.md] [--fixtures DIR] [--keep]

How each block runs:
  * In order, each block in its own `bash -euo pipefail`: a failing command
    fails its block; what a block exports (`export PKG_CONFIG_PATH=...`) is
    in the environment of the blocks after it, as in one terminal.
  * HOME is a new temporary directory (so `make install PREFIX=$HOME/.local`
    installs there; cargo and rustup keep their own directories through
    CARGO_HOME and RUSTUP_HOME), `target/release` of this checkout is first
    on PATH (the `rocksfilter` that `make` builds), and LD_LIBRARY_PATH and
    PKG_CONFIG_PATH are unset.
  * Blocks of `rocksfilter` commands run in a temporary directory holding the
    files they name, made here: keys.txt (apple, banana, cherry and the 1,000
    keys of the SST file), probes.txt (100 of those keys, then 100 absent
    ones), and 000042.sst, a file RocksDB 7.8.3 wrote (format_version 5,
    crc32c, a full FastLocalBloom filter), copied from the SST fixtures
    (sst_fixtures/generate.sh; `make readme-test` makes them when missing).
    filter.bin is written by the block itself. Every other block runs in the
    repository root, as the README says; the files they write there
    (WRITES below) must not exist before and are removed after, and any
    other new file in the root fails the test.
  * `[--flag]` on a command line is the README's notation for an optional
    argument, not shell: that line runs twice, without and with the flag.
  * Some commands' output is checked too (CHECKS below), beyond their exit
    status.
  * Blocks that cannot run here are in SKIP with the reason; a SKIP or CHECKS
    entry that matches nothing in the README fails the test (stale).
Also: `.ci/run` must run the README's first command (the "See it work"
block) exactly as written, before `make test-all`. After the blocks, `make
uninstall` with the README's prefix must leave nothing behind.

The README's other blocks are checked elsewhere: `<!-- file: PATH -->` blocks
by scripts/check-readme-examples.py (`make readme-check`), the Rust block as
a doctest, the Go and Java blocks by their bindings' tests. (The `rocksfilter
size` output BENCHMARKS.md shows is checked by cli/tests/cli.rs.)
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Blocks (their exact text) that this test does not run, and why.
SKIP = {
    "make test": "the test command itself, which runs this test (readme-test is one of its suites);"
                 " .ci/run runs every suite of it through make test-all",
    "make test-all": "make test plus the version matrix, this test included; .ci/run runs it",
    "make dist\nmake cross-test": "every platform's build (about 8 minutes) and the emulated tests;"
                                  " .ci/run runs both as its own steps, after make test-all",
}

# What the repository-root blocks write into the root (removed afterwards).
WRITES = {"example", "example-static", "build"}

# (a README command line, without its comment; what its block's output must show)
CHECKS = [
    ("cargo run --release -- demo", "the demo table", re.compile(
        r"^FastLocalBloom .*^Standard128Ribbon .*^LegacyBloom .*^every added key answered \"may match\"", re.M | re.S)),
    ("rocksfilter demo", "the demo table", re.compile(
        r"^FastLocalBloom .*^Standard128Ribbon .*^LegacyBloom .*^every added key answered \"may match\"", re.M | re.S)),
    ("rocksfilter query filter.bin apple durian", "apple, a key of keys.txt, may match", re.compile(r"^apple\tmay match$", re.M)),
    ("rocksfilter inspect 000042.sst [--json]", "the file's format_version and filter, as text and as JSON", re.compile(
        r"^format_version:\s+5$.*^filter kind:\s+FastLocalBloom$.*\"format_version\":5,.*\"filter_kind\":\"FastLocalBloom\"", re.M | re.S)),
    ("rocksfilter inspect 000042.sst --cache-bytes 65536", "the filter read through the cache, and its counters", re.compile(
        r"^filter kind:\s+FastLocalBloom$.*^filter cache:\s+\d+ of 65536 bytes held \(1 blocks\); 1 hits, 1 misses, 1 reads", re.M | re.S)),
    ("rocksfilter report mydb [--json]", "the database's levels, as text and as JSON", re.compile(
        r"^default\s+L0\s+3\s.*FastLocalBloom.*^expected wasted data-block reads per absent Get.*\"levels\":\[\{\"column_family\":\"default\",\"level\":0,\"files\":3,", re.M | re.S)),
    ("rocksfilter report mydb --probe absent.txt --plot filters.svg", "the probe's counts", re.compile(
        r"^probe \(default\): 100000 keys, \d+ file probes, \d+ may match", re.M)),
    ("./example", "the C example's answers", re.compile(r"\"banana\" may match")),
    ("./example-static", "the C example's answers", re.compile(r"\"banana\" may match")),
    ("cmake --build build && (cd build && ctest)", "both CMake tests pass", re.compile(r"100% tests passed, 0 tests failed out of 2")),
]

SST_FIXTURE = "r78_fv5_crc32c_bloom10_none_ascii1000.sst"


def shell_blocks(readme):
    """(line number of the fence, text) of every ```sh block."""
    lines = readme.read_text(encoding="utf-8").splitlines(keepends=True)
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w*)", lines[i])
        if not m:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        if m.group(2) in ("sh", "bash", "shell"):
            blocks.append((i + 1, "".join(lines[i + 1:end])))
        i = end + 1
    return blocks


def command(line):
    """A line without its trailing comment."""
    return re.sub(r"(^|\s+)#.*$", "", line).strip()


OPTIONAL = re.compile(r"\s\[(-[^\]]*)\]")


def expand(text):
    """The block as it runs, and notes: a line with `[--flag]` runs without and with it."""
    out, notes = [], []
    for line in text.splitlines():
        if OPTIONAL.search(command(line)):
            without = OPTIONAL.sub("", line)
            with_ = OPTIONAL.sub(lambda m: " " + m.group(1), line)
            notes.append(f"`{command(line)}`: optional-argument notation, run without and with it")
            out += [without, with_]
        else:
            out.append(line)
    return "\n".join(out) + "\n", notes


def make_data(data, sst, keys_file):
    data.mkdir()
    shutil.copy(sst, data / "000042.sst")
    sst_keys = [bytes.fromhex(l.strip()).decode() for l in keys_file.read_text().split()]
    keys = ["apple", "banana", "cherry"] + sst_keys
    (data / "keys.txt").write_text("".join(k + "\n" for k in keys))
    present = keys[:100]
    absent = [f"absent-{i:04d}" for i in range(100)]
    (data / "probes.txt").write_text("".join(k + "\n" for k in present + absent))
    return len(keys), set(present), set(absent)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    ap.add_argument("--fixtures", default=os.environ.get("ROCKSFILTER_SST_FIXTURES", str(ROOT / "target/sst-fixtures")))
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    readme = pathlib.Path(args.readme)
    blocks = shell_blocks(readme)
    failures = []

    # Stale entries and the README's first command in .ci/run.
    texts = {t.strip() for _, t in blocks}
    for skip in SKIP:
        if skip not in texts:
            failures.append(f"SKIP lists a block the README does not have: {skip!r}")
    all_commands = {command(l) for _, t in blocks for l in t.splitlines()}
    for cmd, _, _ in CHECKS:
        if cmd not in all_commands:
            failures.append(f"CHECKS names a command the README does not have: {cmd!r}")
    first = blocks[0][1].strip() if blocks else ""
    ci = (ROOT / ".ci/run").read_text().splitlines()
    runs = [i for i, l in enumerate(ci) if re.match(r"(make|cargo|bench/|scripts/)", l)]
    if first not in ci:
        failures.append(f".ci/run does not run the README's first command {first!r} as written")
    elif "make test-all" not in ci or ci.index(first) != runs[0]:
        failures.append(f".ci/run does not run {first!r} first (before make test-all and the rest)")
    else:
        print(f"readme-test: .ci/run runs the README's first command ({first}) first, as written")

    fixtures = pathlib.Path(args.fixtures)
    sst, keys_file = fixtures / SST_FIXTURE, fixtures / SST_FIXTURE.replace(".sst", ".keys")
    if not sst.is_file() or not keys_file.is_file():
        sys.exit(f"readme-test: {sst} (or its .keys) is missing: run sst_fixtures/generate.sh {fixtures}")
    for w in sorted(WRITES):
        if (ROOT / w).exists():
            sys.exit(f"readme-test: the README's commands write {ROOT / w}, which exists: move it away first")
    before = set(os.listdir(ROOT))

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="rocksfilter-readme-test."))
    home, data = tmp / "home", tmp / "data"
    home.mkdir()
    n_keys, present, absent = make_data(data, sst, keys_file)
    # `rocksfilter report mydb`: a database RocksDB 7.8.3 wrote, and keys it
    # does not hold (sst_fixtures/dbreport/run.sh, make report-test).
    dbreport = pathlib.Path(os.environ.get("ROCKSFILTER_DBREPORT", str(ROOT / "target/dbreport")))
    if not (dbreport / "db-7.8.3/CURRENT").is_file():
        sys.exit(f"readme-test: {dbreport}/db-7.8.3 is missing: run sst_fixtures/dbreport/run.sh {dbreport}")
    shutil.copytree(dbreport / "db-7.8.3", data / "mydb")
    shutil.copy(dbreport / "absent.txt", data / "absent.txt")
    real_home = os.environ.get("HOME") or os.path.expanduser("~")
    env = dict(os.environ)
    for k in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_SYSROOT_DIR", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
        env.pop(k, None)
    env.update(HOME=str(home), PATH=f"{ROOT / 'target/release'}:{env.get('PATH', '')}",
               CARGO_HOME=env.get("CARGO_HOME", f"{real_home}/.cargo"),
               RUSTUP_HOME=env.get("RUSTUP_HOME", f"{real_home}/.rustup"))
    print(f"readme-test: {len(blocks)} shell blocks in {readme}; HOME={home}; rocksfilter blocks run in {data}"
          f" (keys.txt: {n_keys} keys, probes.txt: {len(present)} of them and {len(absent)} absent ones,"
          f" 000042.sst: {SST_FIXTURE})")

    ran = skipped = 0
    for line_no, text in blocks:
        where = f"{readme.name}:{line_no}"
        if text.strip() in SKIP:
            skipped += 1
            print(f"\n== {where}: skipped ({SKIP[text.strip()]})")
            for l in text.splitlines():
                print(f"   $ {l}")
            continue
        script, notes = expand(text)
        cmds = [command(l) for l in text.splitlines() if command(l)]
        cwd = data if all(c.startswith("rocksfilter ") for c in cmds) else ROOT
        print(f"\n== {where}: run in {'the data directory' if cwd == data else 'the repository root'}")
        for n in notes:
            print(f"   ({n})")
        for l in script.splitlines():
            print(f"   $ {l}")
        envfile = tmp / "env"
        prologue = f"trap 'env -0 > {envfile}' EXIT\n"
        proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", prologue + script], cwd=cwd, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        output = proc.stdout.readlines()
        rc = proc.wait()
        ran += 1
        out = "".join(output)
        # The whole output of a failed block; of others, the start and the end.
        shown = output if rc != 0 or len(output) <= 60 else \
            output[:40] + [f"... ({len(output) - 50} more lines) ...\n"] + output[-10:]
        for out_line in shown:
            sys.stdout.write("   | " + out_line)
        if envfile.exists():
            new = dict(e.split("=", 1) for e in envfile.read_text().split("\0") if "=" in e)
            for k in ("PWD", "OLDPWD", "SHLVL", "_"):
                new.pop(k, None)
            env = new
            envfile.unlink()
        if rc != 0:
            failures.append(f"{where}: exit status {rc}")
            print(f"   FAIL: exit status {rc}")
            continue
        for cmd, what, pattern in CHECKS:
            if cmd in cmds:
                if pattern.search(out):
                    print(f"   ok: {cmd}: {what}")
                else:
                    failures.append(f"{where}: {cmd}: the output does not show {what}")
                    print(f"   FAIL: {cmd}: the output does not show {what}")
        if "./example-static" in cmds:
            exe = ROOT / "example-static"
            needed = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True).stdout
            if not exe.is_file() or re.search(r"NEEDED.*librocksfilter", needed):
                failures.append(f"{where}: ./example-static is missing or needs librocksfilter.so: not a static link")
                print("   FAIL: ./example-static is not linked statically")
            else:
                print("   ok: ./example-static does not need librocksfilter.so")
        if "rocksfilter query filter.bin --keys probes.txt" in cmds:
            answers = dict(l.split("\t", 1) for l in out.splitlines() if "\t" in l)
            wrong = sorted(k for k in present if answers.get(k) != "may match")
            unanswered = sorted(k for k in absent if k not in answers)
            if wrong or unanswered:
                failures.append(f"{where}: query --keys probes.txt: keys of keys.txt not 'may match': {wrong[:5]},"
                                f" probes unanswered: {unanswered[:5]}")
                print("   FAIL: query --keys probes.txt")
            else:
                print(f"   ok: query --keys probes.txt: the {len(present)} keys of keys.txt may match,"
                      f" {sum(answers.get(k) == 'absent' for k in absent)} of {len(absent)} absent keys answered absent")

    # make uninstall with the README's prefix leaves nothing.
    if any("make install PREFIX=$HOME/.local" in t for _, t in blocks):
        subprocess.run(["make", "--no-print-directory", "uninstall", f"PREFIX={home}/.local"], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, check=False)
        left = [str(p) for p in (home / ".local").rglob("*") if p.is_file() or p.is_symlink()]
        if left:
            failures.append(f"make uninstall PREFIX=$HOME/.local left: {left}")
        else:
            print("\nreadme-test: make uninstall PREFIX=$HOME/.local removed everything the README's make install wrote")

    new_entries = set(os.listdir(ROOT)) - before
    for e in sorted(new_entries):
        p = ROOT / e
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()
    if new_entries - WRITES:
        failures.append(f"the README's commands wrote {sorted(new_entries - WRITES)} into the repository root"
                        " (removed; add them to WRITES if the README means it)")
    if new_entries:
        print(f"readme-test: removed what the commands wrote into the repository root: {', '.join(sorted(new_entries))}")
    if args.keep:
        print(f"readme-test: kept {tmp}")
    else:
        shutil.rmtree(tmp)

    print(f"\nreadme-test: {ran} blocks run, {skipped} skipped, {len(failures)} failures")
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
