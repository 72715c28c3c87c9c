#!/usr/bin/env python3
"""check_output.py OUTDIR: sanity checks of what run.sh wrote (../README.md's contract).

Independent of MatrixWriter.java: footer format_version / checksum byte and the
metaindex filter names are read straight from the file bytes. Exit 1 on any
violation; prints one line per writer directory.
"""
import json, os, struct, sys

FIELDS = ["file", "keys", "probes", "prefix_probes", "writer", "rocksdb_version", "case",
          "format_version", "checksum", "filter", "policy", "bits_per_key", "prefix_extractor",
          "whole_key_filtering", "optimize_filters_for_memory", "index_type", "timestamp_size",
          "num_keys", "options"]
CK = ["none", "crc32c", "xxhash", "xxhash64", "xxh3"]
LEGACY_MAGIC = 0xDB4775248B80FB57
MAGIC = 0x88e241b785f4cff7
errors = []


def err(w, case, msg):
    errors.append(f"{w} {case}: {msg}")


def check_writer(d):
    w = os.path.basename(d.rstrip("/"))
    lines = open(os.path.join(d, "manifest.jsonl")).read().splitlines()
    total = 0
    stats = []
    for line in lines:
        m = json.loads(line)
        c = m["case"]
        if list(m.keys()) != FIELDS:
            err(w, c, f"manifest fields {list(m.keys())}")
        for k in ("file", "keys", "probes", "prefix_probes"):
            if m[k] is not None and not os.path.isfile(os.path.join(d, m[k])):
                err(w, c, f"{k} {m[k]} missing")
        if (m["prefix_extractor"] is None) != (m["prefix_probes"] is None):
            err(w, c, "prefix_probes present iff prefix_extractor")
        if m["writer"] != w:
            err(w, c, "writer field")
        raw = open(os.path.join(d, m["file"]), "rb").read()
        total += len(raw)
        fv = struct.unpack_from("<I", raw, len(raw) - 12)[0]
        magic = struct.unpack_from("<Q", raw, len(raw) - 8)[0]
        ck = raw[len(raw) - 53]
        if magic == LEGACY_MAGIC:  # format_version 0: 48-byte footer, crc32c, no version field
            fv, ck, magic = 0, 1, MAGIC
        if magic != MAGIC or fv != m["format_version"] or CK[ck] != m["checksum"]:
            err(w, c, f"footer fv={fv} checksum={ck} magic={magic:x} vs manifest")
        n_full = raw.count(b"fullfilter.rocksdb.")
        n_part = raw.count(b"partitionedfilter.rocksdb.")
        n_bb = raw.count(b"filter.rocksdb.") - n_full - n_part  # "filter." not preceded by full/partitioned
        has = {"block_based": n_bb, "full": n_full, "partitioned": n_part}
        want = {"block_based": n_bb and not n_full and not n_part, "full": n_full and not n_bb and not n_part,
                "partitioned": n_part and not n_bb and not n_full, "none": not (n_bb or n_full or n_part)}
        if not want[m["filter"]]:
            err(w, c, f"filter={m['filter']} but file bytes say {has}")
        keys = [bytes.fromhex(x) for x in open(os.path.join(d, m["keys"])).read().split()]
        if len(keys) != m["num_keys"] or keys != sorted(keys) or len(set(keys)) != len(keys):
            err(w, c, "keys file: count/sorted/unique")
        if not 3000 <= len(keys) <= 20000:
            err(w, c, f"{len(keys)} keys")
        kset = set(keys)
        lo, hi = keys[0], keys[-1]
        npres = nabs = nrej = 0
        for pl in open(os.path.join(d, m["probes"])).read().splitlines():
            hk, inf, fnd, rej = pl.split(" ")
            k = bytes.fromhex(hk)
            if hk != hk.lower() or (k in kset) != (inf == "1"):
                err(w, c, f"probe {hk} in_file wrong")
            if inf == "1":
                npres += 1
                if fnd != "1" or rej != "0":
                    err(w, c, f"present key {hk} found={fnd} rejected={rej}")
            else:
                nabs += 1
                nrej += rej == "1"
                if fnd != "0":
                    err(w, c, f"absent key {hk} found")
                if not lo < k < hi:
                    err(w, c, f"absent key {hk} outside [smallest, largest]")
        if npres != min(len(keys), 2000) or nabs < 2000:
            err(w, c, f"{npres} present / {nabs} absent probes")
        rate = nrej / nabs
        line_stats = f"{c}:{rate:.3f}"
        # Whole-key filters at 10 bits/key: ~99% of absent keys rejected. The
        # hash index (RocksDB <= 6) answers absent prefixes before the filter.
        if m["filter"] != "none" and m["whole_key_filtering"] and m["index_type"] != "hash" and rate < 0.97:
            err(w, c, f"absent-key rejection rate {rate:.3f}")
        if m["filter"] == "none" and nrej:
            err(w, c, "no filter but rejections")
        if m["prefix_probes"]:
            pres = {k[:4] for k in keys}
            pp = pa = pr = 0
            for pl in open(os.path.join(d, m["prefix_probes"])).read().splitlines():
                hp, inf, rej = pl.split(" ")
                p = bytes.fromhex(hp)
                if len(p) != 4 or (p in pres) != (inf == "1"):
                    err(w, c, f"prefix probe {hp}")
                if inf == "1":
                    pp += 1
                    if rej != "0":
                        err(w, c, f"present prefix {hp} rejected")
                else:
                    pa += 1
                    pr += rej == "1"
            if pp != min(len(pres), 500) or pa < 500:
                err(w, c, f"{pp} present / {pa} absent prefixes")
            prate = pr / pa
            line_stats += f"/{prate:.3f}"
            # (RocksDB 5.18's partitioned prefix seeks reject ~94%)
            if m["filter"] in ("full", "partitioned") and prate < (0.95 if m["filter"] == "full" else 0.9):
                err(w, c, f"absent-prefix rejection rate {prate:.3f}")
        stats.append(line_stats)
    if total > 30 * 2**20:
        err(w, "-", f"{total} bytes of SST files")
    print(f"{w}: {len(lines)} files, {total / 2**20:.1f} MiB of SSTs; absent rejection rates (keys[/prefixes]): " + " ".join(stats))


def main():
    out = sys.argv[1]
    for name in sorted(os.listdir(out)):
        if os.path.isfile(os.path.join(out, name, "manifest.jsonl")):
            check_writer(os.path.join(out, name))
    for e in errors:
        print("ERROR", e)
    sys.exit(1 if errors else 0)


main()
