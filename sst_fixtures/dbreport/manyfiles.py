#!/usr/bin/env python3
"""A database directory of N live files for `rocksfilter report`'s memory
bound: every file a hard link to (a copy of) one SST RocksDB wrote, and a MANIFEST (the
log format, one VersionEdit of kNewFile4 entries per 1,000 files) placing
them on L0 to L6 with disjoint key ranges per level. Then runs
`rocksfilter report DIR --json` and checks its peak RSS.

  manyfiles.py CLI SST DIR N MAX_RSS_MIB
"""
import json
import os
import resource
import shutil
import subprocess
import sys

BLOCK, HEADER = 32768, 7


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def masked_crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def slice_(b):
    return varint(len(b)) + b


def ikey(user):
    return user + b"\x01" + b"\x00" * 7


def new_file4(level, number, size, lo, hi):
    return (varint(103) + varint(level) + varint(number) + varint(size) + slice_(ikey(lo)) + slice_(ikey(hi))
            + varint(1) + varint(2) + varint(1))


def log(records):
    out = bytearray()
    for rec in records:
        left, first = rec, True
        while True:
            room = BLOCK - len(out) % BLOCK
            if room < HEADER:
                out += b"\x00" * room
                continue
            n = min(len(left), room - HEADER)
            last = n == len(left)
            kind = {(True, True): 1, (True, False): 2, (False, False): 3, (False, True): 4}[(first, last)]
            body = bytes([kind]) + left[:n]
            out += masked_crc32c(body).to_bytes(4, "little") + n.to_bytes(2, "little") + body
            left, first = left[n:], False
            if last:
                break
    return bytes(out)


def main():
    cli, sst, out, n, max_rss_mib = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    size = os.path.getsize(sst)
    # ext4 allows 65,000 links to a file: a copy of the SST per 50,000.
    sources = []
    for c in range(n // 50000 + 1):
        sources.append(os.path.join(out, "source-%d.bin" % c))
        shutil.copy(sst, sources[-1])
    edits, edit = [], b""
    for i in range(n):
        number = i + 10
        level = min(6, i * 7 // n)
        os.link(sources[i // 50000], os.path.join(out, "%06d.sst" % number))
        edit += new_file4(level, number, size, b"k%09d" % i, b"k%09dz" % i)
        if (i + 1) % 1000 == 0 or i + 1 == n:
            edits.append(varint(1) + slice_(b"leveldb.BytewiseComparator") + edit if not edits else edit)
            edit = b""
    with open(os.path.join(out, "MANIFEST-000001"), "wb") as f:
        f.write(log(edits))
    with open(os.path.join(out, "CURRENT"), "w") as f:
        f.write("MANIFEST-000001\n")
    res = subprocess.run([cli, "report", out, "--json"], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"manyfiles.py: FAIL: report exited {res.returncode}: {res.stderr.strip()[-500:]}")
    rep = json.loads(res.stdout)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    files = len(rep["files"])
    if files != n or any(f.get("error") for f in rep["files"]):
        sys.exit(f"manyfiles.py: FAIL: {files} files reported of {n}, or some unreadable")
    print(f"ok: report on {n} files ({len(edits)} VersionEdits, one {size}-byte SST hard-linked): peak RSS "
          f"{peak_mib:.1f} MiB ({peak_mib * 1024 * 1024 / n:.0f} bytes per file), bound {max_rss_mib} MiB")
    if peak_mib > max_rss_mib:
        sys.exit(f"manyfiles.py: FAIL: peak RSS {peak_mib:.1f} MiB over the bound {max_rss_mib} MiB")
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
