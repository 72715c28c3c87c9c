#!/usr/bin/env python3
"""judge.py OUTDIR: RocksDB 7.8.3's verdict on every file of the family matrix.

For every OUTDIR/<writer>/manifest.jsonl (the contract of
../matrix/README.md), builds verdict78.cc against Debian's librocksdb
(7.8.3) into OUTDIR/build/, asks it about every key of each row's
`candidates` (or, when the writer judged its own files, `probes`) file, and
adds to the row either `"rocksdb78_probes": "<case>.rocksdb78"` (lines
`<hex key> <in_file> <found> <filter_rejected>`) or `"rocksdb78_refused":
"<why>"`, and `"rocksdb78_imported": "<why ingestion refused>"` when the
file was imported instead. Prints one summary line per writer. Exit status 1 if the judge
fails or RocksDB finds an absent key; files RocksDB refuses, or whose written
keys it does not find, are reported, not failures (tests/matrix.rs decides
what they mean for this library).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def prefix_spec(name):
    """The extractor verdict78 opens its DB with: the file's, when RocksDB
    has it; else none, as a RocksDB user without it reads the file (RocksDB
    skips a prefix filter whose extractor name is not its own: Pebble v1
    names its Split comparer there)."""
    for kind, spec in (("rocksdb.FixedPrefix.", "fixed:"), ("rocksdb.CappedPrefix.", "capped:")):
        if name and name.startswith(kind):
            return spec + name[len(kind):]
    return "-"


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: judge.py OUTDIR")
    out = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(out, "build")
    os.makedirs(build, exist_ok=True)
    exe = os.path.join(build, "verdict78")
    src = os.path.join(here, "verdict78.cc")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["g++", "-O2", "-std=c++17", "-Wall", "-Werror", "-o", exe, src, "-lrocksdb"], check=True)
    bad = False
    for writer in sorted(os.listdir(out)):
        wdir = os.path.join(out, writer)
        manifest = os.path.join(wdir, "manifest.jsonl")
        if not os.path.isfile(manifest):
            continue
        rows = [json.loads(l) for l in open(manifest) if l.strip()]
        tasks, by_file = [], {}
        for r in rows:
            for k in ("rocksdb78_probes", "rocksdb78_refused", "rocksdb78_imported"):
                r.pop(k, None)
            cand = r.get("candidates") or r.get("probes")
            sst = os.path.join(wdir, r["file"])
            res = os.path.join(wdir, r["case"] + ".rocksdb78")
            # The forks' rows give the options their writer used; a Pebble
            # file has no RocksDB options: a reader with RocksDB's defaults
            # (whole-key filtering on, narrowed by what the file records).
            wk = "1" if r.get("whole_key_filtering", True) or r.get("pebble_version") else "0"
            tasks.append("\t".join([sst, os.path.join(wdir, cand), prefix_spec(r.get("prefix_extractor")), wk, res]))
            by_file[sst] = (r, os.path.basename(res))
        work = tempfile.mkdtemp(prefix="verdict78-", dir=build)
        p = subprocess.run([exe, work], input="\n".join(tasks) + "\n", capture_output=True, text=True)
        shutil.rmtree(work, ignore_errors=True)
        if p.returncode != 0:
            sys.stderr.write(p.stderr)
            raise SystemExit(f"judge.py: verdict78 failed on {writer} (exit {p.returncode})")
        refused = imported = absent = rejected = missed = 0
        for line in p.stdout.splitlines():
            word, sst, rest = (line.split(" ", 2) + [""])[:3]
            r, res = by_file[sst]
            if word == "IMPORTED":
                r["rocksdb78_imported"] = rest
                imported += 1
                continue
            if word == "REFUSED":
                r["rocksdb78_refused"] = rest
                refused += 1
                continue
            r["rocksdb78_probes"] = res
            for l in open(os.path.join(wdir, res)):
                key, in_file, found, rej = l.split()
                if in_file == "1":
                    missed += found == "0"
                else:
                    absent += 1
                    rejected += rej == "1"
                    if found == "1":
                        print(f"judge.py: FAIL {writer}/{r['file']}: RocksDB 7.8.3 found absent key {key}", file=sys.stderr)
                        bad = True
        with open(manifest + ".tmp", "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        os.replace(manifest + ".tmp", manifest)
        print(
            f"{writer}: judged by RocksDB 7.8.3: {len(rows)} files, {refused} refused, {imported} imported (ingestion refused), "
            f"{rejected} of {absent} absent keys rejected by its filter, {missed} written keys not found"
        )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
