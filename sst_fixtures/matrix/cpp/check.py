#!/usr/bin/env python3
"""Checks what matrix_writer wrote against ../README.md, and describes the
format_version 8 bytes it finds.

    check.py OUTDIR [--blocks]

For every OUTDIR/rocksdb-*/manifest.jsonl line:
  * the .sst, .keys, .probes (and .prefix_probes) files exist and agree with
    the manifest (num_keys, in_file flags, probe counts, absent keys inside
    [smallest, largest] bytewise);
  * every in_file key was found and never filter_rejected; no absent key was
    found; the rejection rate of absent keys is plausible for the case;
  * the footer's last 12 bytes (u32 format_version, u64 magic) say the
    manifest's format_version; for metaindex_gap files the footer's
    metaindex-size field carries the gap in its high 16 bits.
With --blocks, format_version >= 8 files are walked (metaindex, index,
index partitions, filter partition index, data blocks) and, per case, the
block-level features found are printed: a stored common key prefix
(restarts[0] > 0), the value-delta escape in index entries, the is_uniform
and separated-KV footer bits.

Exit status 1 if any check failed.
"""
import json
import os
import struct
import sys

MAGIC = 0x88E241B785F4CFF7
FOOTER_LEN = 53  # format_version >= 1 footer
errors = []


def err(msg):
    errors.append(msg)
    print("FAIL:", msg)


def varint(b, i):
    r = 0
    s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def footer(data):
    fv, magic = struct.unpack_from("<IQ", data, len(data) - 12)
    return fv, magic


def metaindex_handle(data, fv):
    """(offset, size, gap) of the metaindex block."""
    f = len(data) - FOOTER_LEN
    if fv >= 6:
        field = struct.unpack_from("<I", data, f + 13)[0]
        if fv >= 8:
            size, gap = field & 0xFFFF, field >> 16
        else:
            size, gap = field, 0
        return f - gap - 5 - size, size, gap
    off, i = varint(data, f + 1)
    size, i = varint(data, i)
    return off, size, 0


class Block:
    def __init__(self, data, off, size):
        b = data[off:off + size]
        packed = struct.unpack_from("<I", b, len(b) - 4)[0]
        self.hash_index = bool(packed >> 31 & 1)
        self.extended = bool(packed >> 30 & 1)
        self.uniform = bool(packed >> 29 & 1)
        self.separated = bool(packed >> 28 & 1)
        n = packed & ((1 << 28) - 1)
        end = len(b) - 4
        self.values_off = None
        if self.separated:
            self.values_off = struct.unpack_from("<I", b, end - 4)[0]
            end -= 4
        rs = end - 4 * n
        self.restarts = list(struct.unpack_from("<%dI" % n, b, rs))
        self.b = b
        self.entries_end = self.values_off if self.separated else rs
        self.prefix_len = self.restarts[0] if self.restarts else 0

    def index_entries(self, value_delta, escape_fv8, first_key=False):
        """Yields (is_restart, handle, escaped) for an index block."""
        b = self.b
        i = self.prefix_len
        rset = set(self.restarts)
        prev = None
        while i < self.entries_end:
            is_restart = i in rset
            shared, i = varint(b, i)
            nonshared, i = varint(b, i)
            if not value_delta:
                vlen, i = varint(b, i)
            i += nonshared
            escaped = False
            if not value_delta:
                vstart = i
                off, j = varint(b, i)
                size, j = varint(b, j)
                i = vstart + vlen
            elif is_restart or prev is None:
                off, i = varint(b, i)
                size, i = varint(b, i)
            else:
                u, i = varint(b, i)
                contig = prev[0] + prev[1] + 5
                if escape_fv8:
                    if u == 0:
                        escaped = True
                        off, i = varint(b, i)
                        size, i = varint(b, i)
                    else:
                        z = u - 1
                        d = (z >> 1) ^ -(z & 1)
                        off, size = contig, prev[1] + d
                else:
                    d = (u >> 1) ^ -(u & 1)
                    off, size = contig, prev[1] + d
            if value_delta and first_key and (is_restart or prev is None):
                kl, i = varint(b, i)
                i += kl
            prev = (off, size)
            yield is_restart, prev, escaped


def meta_entries(data, off, size):
    blk = Block(data, off, size)
    b = blk.b
    i = blk.prefix_len
    last = b""
    out = {}
    while i < blk.entries_end:
        shared, i = varint(b, i)
        nonshared, i = varint(b, i)
        vlen, i = varint(b, i)
        key = last[:shared] + b[i:i + nonshared]
        i += nonshared
        v = b[i:i + vlen]
        i += vlen
        o, j = varint(v, 0)
        s, j = varint(v, j)
        out[key.decode("latin1")] = (o, s)
        last = key
    return out


def walk_blocks(data, m):
    """Features of an fv >= 8 file, as a dict of counters."""
    fv, _ = footer(data)
    mo, ms, _ = metaindex_handle(data, fv)
    meta = meta_entries(data, mo, ms)
    c = {}

    def bump(k, n=1):
        c[k] = c.get(k, 0) + n

    first_key = m["index_type"] == "binary_first_key"
    vd = fv >= 4  # format_version >= 4 index blocks: value delta encoding
    esc = fv >= 8

    def data_block(h):
        d = Block(data, h[0], h[1])
        bump("data_blocks")
        if d.prefix_len > 0:
            bump("data_prefix")
        if d.separated:
            bump("data_separated_kv")
        if d.uniform:
            bump("data_uniform")

    def index_block(h, kind, leaf):
        blk = Block(data, h[0], h[1])
        bump(kind + "_blocks")
        if blk.prefix_len > 0:
            bump(kind + "_prefix")
        if blk.uniform:
            bump(kind + "_uniform")
        for is_restart, ch, escaped in blk.index_entries(vd, esc, first_key and leaf):
            if escaped:
                bump(kind + "_escapes")
            if not is_restart:
                bump(kind + "_nonrestart_entries")
            if leaf:
                data_block(ch)
            else:
                index_block(ch, "index_partition", True)

    idx = meta.get("rocksdb.index")
    if fv < 6:
        f = len(data) - FOOTER_LEN
        _, i = varint(data, f + 1)
        _, i = varint(data, i)
        o, i = varint(data, i)
        s, i = varint(data, i)
        idx = (o, s)
    if idx:
        if m["index_type"] == "two_level":
            index_block(idx, "index_top", False)
        else:
            index_block(idx, "index", True)
    for k, h in meta.items():
        if k.startswith("partitionedfilter."):
            blk = Block(data, h[0], h[1])
            bump("filter_top_blocks")
            if blk.prefix_len > 0:
                bump("filter_top_prefix")
            if blk.uniform:
                bump("filter_top_uniform")
            for is_restart, ch, escaped in blk.index_entries(vd, esc):
                bump("filter_partitions")
                if escaped:
                    bump("filter_top_escapes")
    mb = Block(data, mo, ms)
    if mb.prefix_len > 0:
        bump("metaindex_prefix")
    return c


def check_writer(d, blocks):
    man = os.path.join(d, "manifest.jsonl")
    n = 0
    for line in open(man):
        m = json.loads(line)
        n += 1
        name = m["case"]
        sst = os.path.join(d, m["file"])
        data = open(sst, "rb").read()
        fv, magic = footer(data)
        if magic != MAGIC:
            err("%s: magic %x" % (name, magic))
        if fv != m["format_version"]:
            err("%s: footer format_version %d, manifest %d" % (name, fv, m["format_version"]))
        if fv >= 6:
            mo, ms, gap = metaindex_handle(data, fv)
            if gap != m.get("metaindex_gap", 0):
                err("%s: footer gap %d, manifest %s" % (name, gap, m.get("metaindex_gap")))
            if mo < 0 or not meta_entries(data, mo, ms):
                err("%s: metaindex unreadable at %d" % (name, mo))
        keys = [bytes.fromhex(l.strip()) for l in open(os.path.join(d, m["keys"]))]
        if len(keys) != m["num_keys"]:
            err("%s: %d keys, manifest %d" % (name, len(keys), m["num_keys"]))
        kset = set(keys)
        lo, hi = min(keys), max(keys)
        np = na = fp = rej = 0
        for l in open(os.path.join(d, m["probes"])):
            h, inf, found, r = l.split()
            k = bytes.fromhex(h)
            inf, found, r = int(inf), int(found), int(r)
            if inf != (k in kset):
                err("%s: probe %s in_file %d wrong" % (name, h, inf))
            if inf:
                np += 1
                if not found or r:
                    err("%s: in_file key %s found=%d rejected=%d" % (name, h, found, r))
            else:
                na += 1
                rej += r
                if found:
                    err("%s: absent key %s found" % (name, h))
                if not (lo <= k <= hi):
                    err("%s: absent key %s outside the key range" % (name, h))
        if np != min(2000, len(keys)) or na < 2000:
            err("%s: %d present / %d absent probes" % (name, np, na))
        rate = rej / na if na else 0
        wkf = m["whole_key_filtering"]
        if m["policy"] != "none" and wkf and rate < 0.9:
            err("%s: absent rejection rate %.3f" % (name, rate))
        if m["policy"] != "none" and not wkf and rate <= 0:
            err("%s: absent rejection rate %.3f (prefix-only filter)" % (name, rate))
        extra = ""
        if m["prefix_probes"]:
            pres = set(k[:4] for k in keys)
            pp = pa = prj = 0
            for l in open(os.path.join(d, m["prefix_probes"])):
                h, inf, r = l.split()
                p = bytes.fromhex(h)
                inf, r = int(inf), int(r)
                if inf != (p in pres):
                    err("%s: prefix %s in_file wrong" % (name, h))
                if inf:
                    pp += 1
                    if r:
                        err("%s: present prefix %s rejected" % (name, h))
                else:
                    pa += 1
                    prj += r
            if pa < 500 or pp == 0:
                err("%s: %d present / %d absent prefix probes" % (name, pp, pa))
            if pa and prj / pa < 0.9:
                err("%s: absent prefix rejection rate %.3f" % (name, prj / pa))
            extra = ", prefix rejection %.3f" % (prj / pa if pa else 0)
        feats = ""
        if blocks:
            try:
                feats = " " + json.dumps(walk_blocks(data, m), sort_keys=True)
            except Exception as e:  # noqa: BLE001
                feats = " block walk failed: %r" % (e,)
        print("  %-55s fv%d keys %6d absent rejection %.3f%s%s"
              % (name, fv, len(keys), rate, extra, feats))
    return n


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    blocks = "--blocks" in sys.argv[2:]
    total = 0
    for w in sorted(os.listdir(out)):
        d = os.path.join(out, w)
        if os.path.isfile(os.path.join(d, "manifest.jsonl")):
            print(w)
            total += check_writer(d, blocks)
    print("%d files checked, %d failures" % (total, len(errors)))
    return 1 if errors or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
