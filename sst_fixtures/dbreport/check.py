#!/usr/bin/env python3
"""Checks `rocksfilter report` against RocksDB's own counts (run.sh).

  check.py db NAME LIVE.jsonl PROBE.json REPORT.json PLOT.svg
  check.py damaged CLI DBDIR WORKDIR
"""
import json
import os
import random
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print(f"check.py: FAIL: {msg}")
    sys.exit(1)


def check_db(name, live_path, probe_path, report_path, svg_path):
    live = [json.loads(line) for line in open(live_path)]
    rocks = json.load(open(probe_path))
    rep = json.load(open(report_path))
    ours = {(f["file"], f["level"], f["entries"]) for f in rep["files"] if f["column_family"] == "default"}
    theirs = {(f["file"], f["level"], f["entries"]) for f in live if f["column_family"] == "default"}
    if ours != theirs:
        fail(f"{name}: files differ from GetLiveFilesMetaData: only in the report {sorted(ours - theirs)[:5]}, "
             f"only in RocksDB's {sorted(theirs - ours)[:5]}")
    levels = {}
    for f in live:
        lv = levels.setdefault(f["level"], [0, 0])
        lv[0] += 1
        lv[1] += f["entries"]
    for lv in rep["levels"]:
        if [lv["files"], lv["entries"]] != levels.get(lv["level"]):
            fail(f"{name}: level {lv['level']}: report {lv['files']} files, {lv['entries']} entries; RocksDB {levels.get(lv['level'])}")
    if len(rep["levels"]) != len(levels) or len(levels) < 3 or 0 not in levels:
        fail(f"{name}: levels {sorted(levels)}: expected files on L0 and at least two deeper levels")
    kinds = {}
    for f in rep["files"]:
        kinds.setdefault(f["filter"], []).append(f["level"])
    if name.endswith("legacy"):
        if set(kinds) != {"LegacyBloom"}:
            fail(f"{name}: filter kinds {sorted(kinds)}: expected LegacyBloom only (format_version 4)")
        if not any(w["name"].startswith("legacy Bloom rebuilt") for w in rep["what_if"]):
            fail(f"{name}: no what-if row for rebuilding legacy Bloom")
    else:
        # NewRibbonFilterPolicy(10, 1): Bloom for files written for L0,
        # Ribbon from L1; trivial moves carry a Bloom file down unchanged.
        if set(kinds) - {"FastLocalBloom", "Standard128Ribbon"} or 0 in kinds.get("Standard128Ribbon", [0]) \
                or "Standard128Ribbon" not in kinds:
            fail(f"{name}: filter kinds by level {kinds}: expected Bloom on L0 and Ribbon below")
    # (A file of a few keys still takes a whole 64-byte line.)
    for f in rep["files"]:
        if f["entries"] >= 1000 and not (f["filter_bytes"] > 0 and 0 < f["fp_rate"] < 0.05 and 5 < f["bits_per_key"] < 12):
            fail(f"{name}: {f}: filter figures out of range for 10 bits/key")
    p = rep["probe"]
    if rocks["found"] != 0:
        fail(f"{name}: RocksDB found {rocks['found']} of the absent keys")
    if (p["keys"], p["may_match"], p["files_probed"], p["no_filter"]) != \
            (rocks["keys"], rocks["full_positive"], rocks["full_positive"] + rocks["useful"], 0):
        fail(f"{name}: probe {p} against RocksDB's tickers {rocks}")
    root = ET.parse(svg_path).getroot()
    rects = [e for e in root.iter() if e.tag.endswith("rect")]
    want = 2 * len(levels) * (1 + len(rep["what_if"]))
    if len(rects) < want:
        fail(f"{name}: the plot has {len(rects)} rectangles, expected at least {want} bars")
    print(f"ok: {name}: {len(ours)} files on levels {sorted(levels)} as GetLiveFilesMetaData; kinds "
          f"{ {k: len(v) for k, v in kinds.items()} }; {p['keys']} absent keys, {p['files_probed']} file probes, "
          f"may_match {p['may_match']} = rocksdb.bloom.filter.full.positive {rocks['full_positive']}; "
          f"{len(rep['what_if'])} what-if rows, {len(rep['warnings'])} warnings; plot {len(rects)} rectangles")


def check_damaged(cli, db, work):
    manifest = open(os.path.join(db, "CURRENT")).read().strip()
    good = open(os.path.join(db, manifest), "rb").read()
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for f in os.listdir(db):
        if f.endswith(".sst"):
            os.symlink(os.path.join(db, f), os.path.join(work, f))
    open(os.path.join(work, "CURRENT"), "w").write(manifest + "\n")
    r = random.Random(11)
    cases = [("truncated", n, good[:n]) for n in sorted({r.randrange(0, len(good)) for _ in range(40)} | {0, 1, 6, 7, len(good) - 1})]
    for _ in range(40):
        b = bytearray(good)
        at = r.randrange(0, len(b))
        b[at] ^= 1 << r.randrange(8)
        cases.append(("garbled", at, bytes(b)))
    errors = warned = clean = 0
    for kind, at, data in cases:
        open(os.path.join(work, manifest), "wb").write(data)
        res = subprocess.run([cli, "report", work, "--json"], capture_output=True, text=True, timeout=120)
        if res.returncode == 0:
            rep = json.loads(res.stdout)
            if any("MANIFEST ends" in w for w in rep["warnings"]):
                warned += 1
            else:
                clean += 1
        elif res.returncode == 1:
            if manifest not in res.stderr or "offset" not in res.stderr:
                fail(f"{kind} at {at}: the error does not name the MANIFEST and an offset: {res.stderr.strip()}")
            errors += 1
        else:
            fail(f"{kind} at {at}: exit {res.returncode}: {res.stderr.strip()[-500:]}")
    if errors == 0 or warned == 0:
        fail(f"damaged: {errors} errors, {warned} warned reports: expected some of each")
    print(f"ok: damaged MANIFEST ({len(good)} bytes): {len(cases)} cases, {errors} clear errors naming the offset, "
          f"{warned} reports with a warning of what was skipped, {clean} clean (cut at a record boundary); no crash")


if __name__ == "__main__":
    if sys.argv[1] == "db":
        check_db(*sys.argv[2:7])
    elif sys.argv[1] == "damaged":
        check_damaged(*sys.argv[2:5])
    else:
        fail(f"unknown mode {sys.argv[1]}")
