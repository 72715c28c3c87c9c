#!/usr/bin/env python3
"""Runs `rocksfilter inspect --json` on every fixture SST and checks the
report against what the generator wrote (manifest.jsonl): format version,
checksum, filter shape and kind, entry counts, prefix extractor, and what
the open read (at most two reads).

    sst_fixtures/check_inspect.py OUTDIR path/to/rocksfilter
"""
import json
import subprocess
import sys

outdir, exe = sys.argv[1], sys.argv[2]
passed = failed = 0
for line in open(f"{outdir}/manifest.jsonl"):
    row = json.loads(line)
    path = f"{outdir}/{row['file']}"
    text = subprocess.run([exe, "inspect", "--json", path], capture_output=True, text=True)
    human = subprocess.run([exe, "inspect", path], capture_output=True, text=True)
    problems = []
    if text.returncode != 0 or human.returncode != 0:
        problems.append(f"exit {text.returncode}/{human.returncode}: {text.stderr.strip()}")
    else:
        r = json.loads(text.stdout)
        props = r["properties"]
        if r["format_version"] != row["format_version"]:
            problems.append(f"format_version {r['format_version']} != {row['format_version']}")
        if r["checksum"] != row["checksum"]:
            problems.append(f"checksum {r['checksum']} != {row['checksum']}")
        # Nothing is verified in a file written without checksums.
        if r["checksums_verified"] != (row["checksum"] != "none"):
            problems.append(f"checksums_verified {r['checksums_verified']} with checksum {row['checksum']}")
        want = "none" if row["filter"] == "none" else ("partitioned" if row["partitioned"] else "full")
        if r["filter"] != want:
            problems.append(f"filter {r['filter']} != {want}")
        if want != "none":
            kinds = {"bloom": {"FastLocalBloom"} if row["format_version"] >= 5 else {"LegacyBloom"},
                     "ribbon": {"Standard128Ribbon", "FastLocalBloom"}}[row["filter"]]
            if r.get("filter_kind") not in kinds:
                problems.append(f"filter_kind {r.get('filter_kind')} not in {kinds}")
            if not (0 < r.get("filter_bytes", 0) and 0.0 <= r.get("estimated_fp_rate", -1) <= 1.01):
                problems.append("missing filter geometry")
        if int(props.get("rocksdb.num.entries", -1)) != row["num_keys"]:
            problems.append(f"num.entries {props.get('rocksdb.num.entries')} != {row['num_keys']}")
        want_prefix = f"fixed {row['prefix_len']}" if row["prefix_len"] else "none"
        if r["prefix_extractor"] != want_prefix:
            problems.append(f"prefix_extractor {r['prefix_extractor']} != {want_prefix}")
        if r["whole_key_filtering"] != row["whole_key_filtering"]:
            problems.append("whole_key_filtering differs")
        # What the open read: a 64 KiB suffix, then at most one range.
        o = r.get("open", {})
        if not (1 <= o.get("reads", 0) <= 2 and o.get("file_bytes") == __import__("os").path.getsize(path)
                and 0 < o.get("bytes_read", 0) <= o["file_bytes"] + 65536):
            problems.append(f"open stats {o}")
        for needed in ("format_version:", "checksum:", "filter:", "opening read:", "properties:"):
            if needed not in human.stdout:
                problems.append(f"readable report lacks {needed!r}")
    if problems:
        failed += 1
        print(f"FAIL {row['file']}: " + "; ".join(problems))
    else:
        passed += 1
print(f"inspect reports: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
