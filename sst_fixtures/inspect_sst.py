#!/usr/bin/env python3
"""inspect_sst.py FILE.sst [...] | --outdir OUTDIR

Stdlib-only, independent reading of a block-based SST file's layout, used to
cross-check the generated fixtures (it is not the code under test):

* footer (format_version, checksum type; metaindex/index handles; the fv>=6
  "extended magic" footer whose metaindex handle is implied by its size),
* metaindex block entries (meta-block names + handles) and the compression
  type byte of each meta block's trailer,
* selected table properties (rocksdb.properties block),
* the filter: full filter's 5-byte metadata trailer (0xff = FastLocalBloom,
  0xfe = Standard128Ribbon, otherwise legacy Bloom with that many probes) or,
  for a partitioned filter, the partition index block (entry count, its
  trailer compression byte) and each partition's metadata byte.

With --outdir it inspects every SST in OUTDIR/manifest.jsonl and writes
OUTDIR/inspect.jsonl (one JSON object per SST) plus a short table on stdout.
"""
import json
import os
import struct
import sys

BLOCK_TRAILER = 5
FOOTER_LEN = 53  # fv >= 1: 1 checksum byte + 40 part2 + 4 fv + 8 magic
BLOCK_BASED_MAGIC = 0x88E241B785F4CFF7
LEGACY_BLOCK_BASED_MAGIC = 0xDB4775248B80FB57
EXTENDED_MAGIC = b"\x3e\x00\x7a\x00"
CHECKSUMS = {0: "none", 1: "crc32c", 2: "xxhash32", 3: "xxhash64", 4: "xxh3"}
COMPRESSIONS = {0: "none", 1: "snappy", 2: "zlib", 3: "bz2", 4: "lz4", 5: "lz4hc",
                6: "xpress", 7: "zstd"}


def varint(buf, pos):
    shift = 0
    result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def signed_varint(buf, pos):
    v, pos = varint(buf, pos)
    return (v >> 1) ^ -(v & 1), pos


def handle(buf, pos=0):
    off, pos = varint(buf, pos)
    size, pos = varint(buf, pos)
    return (off, size), pos


def block_entries(data, value_delta=False):
    """Decode a (uncompressed) block; yields (key, value_or_handle).

    With value_delta (index blocks, fv>=4), values are BlockHandles and
    non-restart entries store only the signed size delta."""
    num_restarts = struct.unpack_from("<I", data, len(data) - 4)[0] & 0x7FFFFFFF
    end = len(data) - 4 - 4 * num_restarts
    pos = 0
    key = b""
    prev = None
    while pos < end:
        shared, pos = varint(data, pos)
        non_shared, pos = varint(data, pos)
        if value_delta:
            key = key[:shared] + data[pos:pos + non_shared]
            pos += non_shared
            if shared == 0:
                h, pos = handle(data, pos)
            else:
                d, pos = signed_varint(data, pos)
                h = (prev[0] + prev[1] + BLOCK_TRAILER, prev[1] + d)
            prev = h
            yield key, h
        else:
            vlen, pos = varint(data, pos)
            key = key[:shared] + data[pos:pos + non_shared]
            pos += non_shared
            yield key, data[pos:pos + vlen]
            pos += vlen


class Sst:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.buf = f.read()
        self.path = path
        self.parse_footer()

    def parse_footer(self):
        buf = self.buf
        foot = buf[-FOOTER_LEN:]
        magic = struct.unpack_from("<Q", foot, FOOTER_LEN - 8)[0]
        if magic == LEGACY_BLOCK_BASED_MAGIC:
            raise ValueError("legacy (format_version 0) footer: unsupported")
        if magic != BLOCK_BASED_MAGIC:
            raise ValueError("not a block-based table (magic %x)" % magic)
        self.format_version = struct.unpack_from("<I", foot, FOOTER_LEN - 12)[0]
        self.checksum = foot[0]
        part2 = foot[1:41]
        self.footer_offset = len(buf) - FOOTER_LEN
        if part2[:4] == EXTENDED_MAGIC:
            # fv >= 6: part2 = ext magic, footer checksum, base context
            # checksum, metaindex size (metaindex adjacent to footer), 24 zeros
            _, self.footer_checksum, self.base_context_checksum, mi_size = struct.unpack_from(
                "<4sIII", part2, 0)
            self.metaindex = (self.footer_offset - BLOCK_TRAILER - mi_size, mi_size)
            self.index = None  # in metaindex as "rocksdb.index"
            self.footer_layout = "fv6+ (extended magic, context checksums)"
        else:
            self.metaindex, p = handle(part2)
            self.index, p = handle(part2, p)
            self.footer_layout = "fv<=5 (metaindex+index handles)"
            self.base_context_checksum = 0

    def raw_block(self, h):
        off, size = h
        data = self.buf[off:off + size]
        ctype = self.buf[off + size]
        return data, ctype

    def inspect(self):
        out = {
            "format_version": self.format_version,
            "checksum": CHECKSUMS.get(self.checksum, str(self.checksum)),
            "footer_layout": self.footer_layout,
        }
        if self.base_context_checksum:
            out["base_context_checksum"] = "%08x" % self.base_context_checksum
        mi_data, mi_ctype = self.raw_block(self.metaindex)
        out["metaindex_compression"] = COMPRESSIONS.get(mi_ctype, mi_ctype)
        meta = {}
        for k, v in block_entries(mi_data):
            meta[k.decode("latin-1")] = handle(v)[0]
        out["metaindex_keys"] = list(meta)
        if self.index is None:
            self.index = meta.get("rocksdb.index")
        # block compression byte of each meta block
        out["meta_block_compression"] = {
            k: COMPRESSIONS.get(self.raw_block(h)[1], "?") for k, h in meta.items()}
        _, idx_ctype = self.raw_block(self.index)
        out["index_compression"] = COMPRESSIONS.get(idx_ctype, idx_ctype)
        props = {}
        if "rocksdb.properties" in meta:
            pdata, pct = self.raw_block(meta["rocksdb.properties"])
            if pct != 0:
                raise ValueError("compressed properties block")
            for k, v in block_entries(pdata):
                props[k.decode("latin-1")] = v
        out["properties"] = self.summarize_props(props)
        out["filter"] = self.inspect_filter(meta, props)
        return out

    @staticmethod
    def summarize_props(props):
        num = ["rocksdb.num.entries", "rocksdb.filter.size", "rocksdb.index.size",
               "rocksdb.num.data.blocks", "rocksdb.index.partitions",
               "rocksdb.index.key.is.user.key",
               "rocksdb.index.value.is.delta.encoded", "rocksdb.format.version",
               "rocksdb.fixed.key.length", "rocksdb.column.family.id",
               "rocksdb.top-level.index.size", "rocksdb.num.filter_entries"]
        s = {}
        for k, v in props.items():
            if k == "rocksdb.block.based.table.index.type":  # fixed32 LE
                s[k] = struct.unpack("<I", v[:4])[0]
            elif k in ("rocksdb.block.based.table.whole.key.filtering",
                       "rocksdb.block.based.table.prefix.filtering"):
                s[k] = v.decode("latin-1")  # "1" / "0"
            elif k in num:
                s[k] = varint(v, 0)[0]
            elif k in ("rocksdb.filter.policy", "rocksdb.prefix.extractor.name",
                       "rocksdb.compression", "rocksdb.comparator", "rocksdb.creating.db.identity",
                       "rocksdb.compression_options", "rocksdb.merge.operator",
                       "rocksdb.property.collectors", "rocksdb.creating.host.identity"):
                s[k] = v.decode("latin-1")
        s["_all_property_names"] = sorted(props)
        return s

    def inspect_filter(self, meta, props):
        full = [k for k in meta if k.startswith("fullfilter.")]
        part = [k for k in meta if k.startswith("partitionedfilter.")]
        old = [k for k in meta if k.startswith("filter.")]
        if full:
            data, ct = self.raw_block(meta[full[0]])
            return {"kind": "full", "meta_key": full[0], "size": len(data),
                    "compression": COMPRESSIONS.get(ct, ct), "impl": self.filter_impl(data)}
        if part:
            data, ct = self.raw_block(meta[part[0]])
            fv = self.format_version
            delta = "rocksdb.index.value.is.delta.encoded" in props and \
                varint(props["rocksdb.index.value.is.delta.encoded"], 0)[0] != 0
            entries = list(block_entries(data, value_delta=delta))
            impls = {}
            ctypes = set()
            for _, h in entries:
                if not delta:
                    h = handle(h)[0]
                pd, pct = self.raw_block(h)
                ctypes.add(COMPRESSIONS.get(pct, pct))
                impl = self.filter_impl(pd)
                impls[impl] = impls.get(impl, 0) + 1
            return {"kind": "partitioned", "meta_key": part[0],
                    "partition_index_size": len(data),
                    "partition_index_compression": COMPRESSIONS.get(ct, ct),
                    "partition_index_value_delta": delta,
                    "partitions": len(entries), "partition_compression": sorted(ctypes),
                    "partition_impls": impls, "fv": fv}
        if old:
            return {"kind": "block-based(old)", "meta_key": old[0]}
        return {"kind": "none"}

    @staticmethod
    def filter_impl(data):
        if len(data) < 5:
            return "empty(always-true? len=%d)" % len(data)
        m = data[-5]
        if m == 0xFF:
            return "FastLocalBloom"
        if m == 0xFE:
            return "Standard128Ribbon"
        if m == 0:
            return "degenerate(len=%d)" % len(data)
        return "LegacyBloom(probes=%d)" % m


COMPRESSION_PROP = {"none": "NoCompression", "snappy": "Snappy", "lz4": "LZ4", "zstd": "ZSTD",
                    "zlib": "Zlib"}


def check_row(r, info):
    """Compare a manifest row with what the file itself says; return a list
    of mismatch descriptions (empty = consistent)."""
    bad = []
    p = info["properties"]
    fl = info["filter"]

    def want(cond, what):
        if not cond:
            bad.append(what)

    want(info["format_version"] == r["format_version"], "format_version %s" % info["format_version"])
    want(info["checksum"] == r["checksum"], "checksum %s" % info["checksum"])
    want(p.get("rocksdb.compression") == COMPRESSION_PROP.get(r["compression"]),
         "compression %s" % p.get("rocksdb.compression"))
    want(p.get("rocksdb.num.entries") == r["num_keys"], "num.entries %s" % p.get("rocksdb.num.entries"))
    wkf = p.get("rocksdb.block.based.table.whole.key.filtering")
    want(wkf == ("1" if r["whole_key_filtering"] else "0"), "whole_key_filtering %s" % wkf)
    pname = p.get("rocksdb.prefix.extractor.name")
    want(pname == ("rocksdb.FixedPrefix.%d" % r["prefix_len"] if r["prefix_len"] else "nullptr"),
         "prefix extractor %s" % pname)
    if r["filter"] == "none":
        want(fl["kind"] == "none", "filter kind %s" % fl["kind"])
        return bad
    want(p.get("rocksdb.filter.policy") == {"bloom": "bloomfilter", "ribbon": "ribbonfilter"}[r["filter"]],
         "filter.policy %s" % p.get("rocksdb.filter.policy"))
    want(fl["kind"] == ("partitioned" if r["partitioned"] else "full"), "filter kind %s" % fl["kind"])
    impls = set(fl["partition_impls"]) if fl["kind"] == "partitioned" else {fl.get("impl")}
    if r["filter"] == "ribbon":
        # Ribbon builders fall back to FastLocalBloom for tiny filters
        ok = impls <= {"Standard128Ribbon", "FastLocalBloom"}
    elif r["format_version"] >= 5:
        ok = impls == {"FastLocalBloom"}
    else:
        ok = all(i.startswith("LegacyBloom") for i in impls)
    want(ok, "filter impl %s" % sorted(impls))
    if fl["kind"] == "partitioned":
        want(p.get("rocksdb.block.based.table.index.type") == 2, "index type not two-level")
    return bad


def main(argv):
    if len(argv) >= 2 and argv[0] == "--outdir":
        outdir = argv[1]
        rows = [json.loads(l) for l in open(os.path.join(outdir, "manifest.jsonl"))]
        failures = []
        with open(os.path.join(outdir, "inspect.jsonl"), "w") as f:
            for r in rows:
                info = Sst(os.path.join(outdir, r["file"])).inspect()
                info["file"] = r["file"]
                info["mismatches"] = check_row(r, info)
                if info["mismatches"]:
                    failures.append((r["file"], info["mismatches"]))
                f.write(json.dumps(info, sort_keys=True) + "\n")
                fl = info["filter"]
                desc = fl["kind"]
                if fl["kind"] == "full":
                    desc = "full:" + fl["impl"]
                elif fl["kind"] == "partitioned":
                    desc = "part[%d,idx=%s]:%s" % (fl["partitions"],
                                                  fl["partition_index_compression"],
                                                  ",".join(sorted(fl["partition_impls"])))
                print("%-60s fv=%d cs=%-8s %s meta=%s" % (
                    r["file"], info["format_version"], info["checksum"], desc,
                    ",".join(info["metaindex_keys"])))
        for f, m in failures:
            print("MISMATCH %s: %s" % (f, "; ".join(m)), file=sys.stderr)
        return 1 if failures else 0
    for p in argv:
        print(json.dumps(Sst(p).inspect(), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
