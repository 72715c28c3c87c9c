#!/usr/bin/env python3
"""gen_rocksdict.py OUTDIR

Writes RocksDB SST files with rocksdict's SstFileWriter (the RocksDB that
rocksdict's wheel bundles), one keys file per SST (one hex-encoded user key
per line, in the order written), and appends one JSON object per SST to
OUTDIR/manifest.jsonl.

Options rocksdict exposes directly (BlockBasedOptions.set_bloom_filter,
set_format_version, set_checksum_type, set_partition_filters, set_index_type,
set_metadata_block_size, Options.set_prefix_extractor,
set_compression_type) are set through its API.  Options it does not expose
(Ribbon filter policy, whole_key_filtering, optimize_filters_for_memory,
decouple_partitioned_filters, index_shortening) are set by writing a RocksDB
OPTIONS file and loading it with rocksdict.Options.load_latest(), which
yields a complete Options object (table factory included) for SstFileWriter.

Every SST is verified right after writing: it is ingested into a fresh
temporary Rdict opened with the same options; every key is read back with a
point lookup (which consults the filter) and the full key list is compared
by iteration.
"""
import json
import os
import random
import re
import shutil
import sys

import rocksdict
from rocksdict import (BlockBasedIndexType, BlockBasedOptions, ChecksumType,
                       DBCompressionType, Options, Rdict, ReadOptions,
                       SliceTransform, SstFileWriter)

CHECKSUMS = {
    "none": ("kNoChecksum", ChecksumType.no_checksum),
    "crc32c": ("kCRC32c", ChecksumType.crc32c),
    "xxhash32": ("kxxHash", ChecksumType.xxhash),
    "xxhash64": ("kxxHash64", ChecksumType.xxhash64),
    "xxh3": ("kXXH3", ChecksumType.xxh3),
}
COMPRESSIONS = {
    "none": ("kNoCompression", DBCompressionType.none),
    "snappy": ("kSnappyCompression", DBCompressionType.snappy),
    "lz4": ("kLZ4Compression", DBCompressionType.lz4),
    "zstd": ("kZSTD", DBCompressionType.zstd),
}


def rocksdb_version():
    """The RocksDB version the bundled library reports about itself.

    rocksdict has no version API; a DB's OPTIONS file records
    ROCKSDB_MAJOR.MINOR.PATCH of the compiled library in [Version]."""
    import tempfile
    d = tempfile.mkdtemp(prefix="rdver")
    try:
        db = Rdict(os.path.join(d, "db"), Options(raw_mode=True))
        db.close()
        for f in os.listdir(os.path.join(d, "db")):
            if f.startswith("OPTIONS-"):
                m = re.search(r"rocksdb_version=(\S+)", open(os.path.join(d, "db", f)).read())
                if m:
                    return m.group(1)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return "unknown"


# ------------------------------------------------------------------- keys

def make_keys(shape, n, seed):
    rnd = random.Random(seed)
    keys = set()
    if shape == "ascii":
        keys = {b"k%08d" % (i * 7 + 3) for i in range(n)}
    elif shape == "k20":
        while len(keys) < n:
            keys.add(b"key-%016d" % rnd.randrange(10 ** 16))
    elif shape == "bin":
        if n >= 8:
            keys.update([b"\x00", b"\x00\x00", b"\xff", b"\xff\xff\xff\xff"])
        while len(keys) < n:
            ln = rnd.randint(1, 24)
            b = bytearray()
            for _ in range(ln):
                r = rnd.getrandbits(16)
                b.append(0x00 if r & 7 == 0 else 0xFF if r & 7 == 1 else r >> 8)
            keys.add(bytes(b))
    elif shape == "long":
        for i in range(n):
            head = b"L%08d" % i
            keys.add(head + bytes(ord("a") + (i * 31 + j * 7) % 26 for j in range(len(head), 300)))
    elif shape == "pfx":
        if n >= 16:
            keys.update([b"p", b"p0", b"p00"])
        i = 0
        while len(keys) < n:
            keys.add(b"p%03d:%06d" % ((i * 37) % 200, i))
            i += 1
    else:
        raise ValueError(shape)
    out = sorted(keys)
    assert len(out) == n
    return out


# ---------------------------------------------------------------- options

class Variant:
    def __init__(self, **kw):
        self.fv = None          # None = rocksdict/RocksDB default
        self.checksum = None    # None = default
        self.filter = "none"    # none | bloom | ribbon
        self.bpk = 10.0
        self.partitioned = False
        self.metadata_block_size = None
        self.prefix_len = 0
        self.wkf = True
        self.compression = None  # None = default (snappy)
        self.ofm = None          # optimize_filters_for_memory (None = default)
        self.decouple = None     # decouple_partitioned_filters (None = default)
        self.index_shortening = None
        self.nkeys = 1000
        self.shape = "ascii"
        self.note = ""
        self.__dict__.update(kw)

    def needs_options_file(self):
        return (self.filter == "ribbon" or not self.wkf or self.ofm is not None
                or self.decouple is not None or self.index_shortening is not None)

    def name(self):
        fv = "fv%d" % self.fv if self.fv else "fvdef"
        cs = self.checksum or "csdef"
        if self.filter == "none":
            filt = "nofilter"
        else:
            b = ("%g" % self.bpk).replace(".", "p")
            filt = ("part" if self.partitioned else "") + self.filter + b
        parts = ["rd", fv, cs, filt]
        if self.prefix_len:
            parts.append("pfx%d%s" % (self.prefix_len, "wk" if self.wkf else "nowk"))
        parts.append(self.compression or "compdef")
        parts.append("%s%d" % (self.shape, self.nkeys))
        if self.metadata_block_size:
            parts.append("mbs%d" % self.metadata_block_size)
        if self.ofm is not None:
            parts.append("ofm%d" % int(self.ofm))
        if self.decouple is not None:
            parts.append("decouple%d" % int(self.decouple))
        if self.index_shortening:
            parts.append(self.index_shortening.replace("k", "", 1).lower())
        return "_".join(parts)


def options_via_api(v):
    o = Options(raw_mode=True)
    b = BlockBasedOptions()
    if v.fv is not None:
        b.set_format_version(v.fv)
    if v.checksum is not None:
        b.set_checksum_type(CHECKSUMS[v.checksum][1]())
    if v.filter == "bloom":
        # block_based=False -> full filter (bloomfilter:bpk:false)
        b.set_bloom_filter(v.bpk, False)
    elif v.filter != "none":
        raise ValueError("rocksdict has no API for filter %s" % v.filter)
    if v.partitioned:
        b.set_partition_filters(True)
        b.set_index_type(BlockBasedIndexType.two_level_index_search())
    if v.metadata_block_size:
        b.set_metadata_block_size(v.metadata_block_size)
    o.set_block_based_table_factory(b)
    if v.prefix_len:
        o.set_prefix_extractor(SliceTransform.create_fixed_prefix(v.prefix_len))
    if v.compression is not None:
        o.set_compression_type(COMPRESSIONS[v.compression][1]())
    return o


def options_via_file(v, workdir, version):
    """Write an OPTIONS file holding only the options we set (everything
    else keeps RocksDB's defaults) and load it."""
    d = os.path.join(workdir, "optsdir")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cf = []
    if v.compression is not None:
        cf.append("compression=%s" % COMPRESSIONS[v.compression][0])
    if v.prefix_len:
        cf.append("prefix_extractor=rocksdb.FixedPrefix.%d" % v.prefix_len)
    t = []
    if v.fv is not None:
        t.append("format_version=%d" % v.fv)
    if v.checksum is not None:
        t.append("checksum=%s" % CHECKSUMS[v.checksum][0])
    if v.filter == "bloom":
        t.append("filter_policy=bloomfilter:%g:false" % v.bpk)
    elif v.filter == "ribbon":
        # bloom_before_level=-1: Ribbon at every level (SstFileWriter's
        # level is -1 "unknown")
        t.append("filter_policy=ribbonfilter:%g:-1" % v.bpk)
    if v.partitioned:
        t.append("partition_filters=true")
        t.append("index_type=kTwoLevelIndexSearch")
    if v.metadata_block_size:
        t.append("metadata_block_size=%d" % v.metadata_block_size)
    t.append("whole_key_filtering=%s" % ("true" if v.wkf else "false"))
    if v.ofm is not None:
        t.append("optimize_filters_for_memory=%s" % ("true" if v.ofm else "false"))
    if v.decouple is not None:
        t.append("decouple_partitioned_filters=%s" % ("true" if v.decouple else "false"))
    if v.index_shortening:
        t.append("index_shortening=%s" % v.index_shortening)
    text = ("[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n\n[DBOptions]\n\n"
            "[CFOptions \"default\"]\n%s\n[TableOptions/BlockBasedTable \"default\"]\n%s\n") % (
        version, "".join("  %s\n" % x for x in cf), "".join("  %s\n" % x for x in t))
    with open(os.path.join(d, "OPTIONS-000001"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "rocksdict-config.json"), "w") as f:
        json.dump({"raw_mode": True, "prefix_extractors": {}}, f)
    _db_opts, cfs = Options.load_latest(d)
    return cfs["default"]


def make_options(v, workdir, version):
    if v.needs_options_file():
        return options_via_file(v, workdir, version)
    return options_via_api(v)


# ---------------------------------------------------------------- writing

def verify(v, sst, keys, workdir, version):
    d = os.path.join(workdir, "verify_db")
    shutil.rmtree(d, ignore_errors=True)
    o = make_options(v, workdir, version)
    o.create_if_missing(True)
    db = Rdict(d, o)
    try:
        db.ingest_external_file([sst])
        for i, k in enumerate(keys):
            got = db.get(k)
            if got != b"v%d" % i:
                raise SystemExit("%s: key #%d (%s) read back as %r" % (sst, i, k.hex(), got))
        ro = ReadOptions()
        ro.set_total_order_seek(True)
        it = db.iter(ro)
        it.seek_to_first()
        seen = []
        while it.valid():
            seen.append(it.key())
            it.next()
        del it
        if seen != keys:
            raise SystemExit("%s: iteration gave %d keys, wrote %d (or order/content differs)"
                             % (sst, len(seen), len(keys)))
        present = set(keys)
        for absent in (b"\x01zz-absent", b"zzzzzzzz-absent", b"k-absent", b"p999:absent"):
            if absent not in present and db.get(absent) is not None:
                raise SystemExit("%s: absent key %r found" % (sst, absent))
    finally:
        db.close()
        Rdict.destroy(d)
        shutil.rmtree(d, ignore_errors=True)


def gen(v, outdir, version, manifest, seen_names):
    base = v.name()
    if base in seen_names:
        raise SystemExit("duplicate variant name " + base)
    seen_names.add(base)
    sst_name, keys_name = base + ".sst", base + ".keys"
    sst = os.path.join(outdir, sst_name)
    workdir = os.path.join(outdir, ".rocksdict_work")
    os.makedirs(workdir, exist_ok=True)
    keys = make_keys(v.shape, v.nkeys, 0x5EED0000 + v.nkeys * 131 + len(v.shape))
    if os.path.exists(sst):
        os.unlink(sst)
    w = SstFileWriter(make_options(v, workdir, version))
    w.open(sst)
    for i, k in enumerate(keys):
        w[k] = b"v%d" % i
    w.finish()
    with open(os.path.join(outdir, keys_name), "w") as f:
        for k in keys:
            f.write(k.hex() + "\n")
    verify(v, sst, keys, workdir, version)

    # Record the effective values (rocksdict/RocksDB defaults resolved).
    fv = v.fv if v.fv is not None else DEFAULTS["format_version"]
    row = {
        "file": sst_name,
        "writer": "rocksdict-%s/rocksdb-%s" % (ROCKSDICT_VERSION, version),
        "format_version": fv,
        "checksum": v.checksum or DEFAULTS["checksum"],
        "filter": v.filter,
        "bits_per_key": float(v.bpk) if v.filter != "none" else 0.0,
        "partitioned": v.partitioned,
        "prefix_len": v.prefix_len,
        "whole_key_filtering": v.wkf,
        "compression": v.compression or DEFAULTS["compression"],
        "num_keys": len(keys),
        "keys": keys_name,
        "key_shape": v.shape,
        "metadata_block_size": v.metadata_block_size or 4096,
        "optimize_filters_for_memory": DEFAULTS["optimize_filters_for_memory"] if v.ofm is None else v.ofm,
        "decouple_partitioned_filters": DEFAULTS["decouple_partitioned_filters"] if v.decouple is None else v.decouple,
        "set_via": "options-file" if v.needs_options_file() else "rocksdict-api",
        "note": v.note,
    }
    manifest.write(json.dumps(row) + "\n")
    manifest.flush()


# Defaults of the bundled RocksDB as rocksdict configures it; checked at
# start-up against the OPTIONS file a default Rdict writes.
DEFAULTS = {"format_version": 6, "checksum": "xxh3", "compression": "snappy",
            "optimize_filters_for_memory": True, "decouple_partitioned_filters": False}
ROCKSDICT_VERSION = "unknown"


def check_defaults(outdir):
    d = os.path.join(outdir, ".rocksdict_work", "defaults_db")
    shutil.rmtree(d, ignore_errors=True)
    db = Rdict(d, Options(raw_mode=True))
    db.close()
    text = "".join(open(os.path.join(d, f)).read() for f in os.listdir(d) if f.startswith("OPTIONS-"))
    shutil.rmtree(d, ignore_errors=True)
    want = {"format_version": "6", "checksum": "kXXH3", "compression": "kSnappyCompression",
            "optimize_filters_for_memory": "true", "decouple_partitioned_filters": "false",
            "filter_policy": "nullptr", "whole_key_filtering": "true"}
    for k, val in want.items():
        m = re.search(r"^\s*%s=(\S*)" % k, text, re.M)
        if not m or m.group(1) != val:
            raise SystemExit("rocksdict default %s is %s, expected %s; update DEFAULTS"
                             % (k, m and m.group(1), val))


def variants():
    V = Variant
    out = []
    # 1. rocksdict defaults, no filter, and defaults + Bloom 10
    out.append(V(note="all rocksdict/RocksDB defaults (no filter policy)"))
    out.append(V(filter="bloom", note="defaults + set_bloom_filter(10, False)"))
    # 2. key counts and shapes with default table options + Bloom / Ribbon
    for shape, counts in (("ascii", (1, 25000)), ("k20", (1, 1000, 25000)),
                          ("bin", (1, 1000, 25000)), ("long", (1, 1000))):
        for n in counts:
            out.append(V(filter="bloom", shape=shape, nkeys=n, note="key count / shape"))
            out.append(V(filter="ribbon", shape=shape, nkeys=n, note="key count / shape"))
    out.append(V(filter="ribbon", note="Ribbon via OPTIONS file, defaults otherwise"))
    # 3. explicit format_version 5/6 x checksum types (Bloom)
    for fv in (5, 6):
        for cs in CHECKSUMS:
            out.append(V(fv=fv, checksum=cs, filter="bloom", compression="none",
                         note="explicit format_version/checksum"))
    for cs in ("crc32c", "xxh3"):
        out.append(V(fv=5, checksum=cs, filter="ribbon", compression="none",
                     note="Ribbon at format_version 5"))
    out.append(V(fv=4, checksum="crc32c", filter="bloom", compression="none",
                 note="legacy Bloom (format_version 4) from the newer writer"))
    # 4. bits per key
    for bpk in (1, 5, 7.5, 16, 23.4):
        out.append(V(filter="bloom", bpk=bpk, note="bits_per_key sweep"))
        out.append(V(filter="ribbon", bpk=bpk, note="bits_per_key sweep"))
    # 5. optimize_filters_for_memory off (default on)
    for f in ("bloom", "ribbon"):
        out.append(V(filter=f, ofm=False, nkeys=5000, note="optimize_filters_for_memory=false"))
    # 6. partitioned filters
    for f in ("bloom", "ribbon"):
        out.append(V(filter=f, partitioned=True, metadata_block_size=256, nkeys=25000,
                     note="partitioned, metadata_block_size 256 (coupled partitions: default)"))
        out.append(V(filter=f, partitioned=True, metadata_block_size=256, nkeys=25000,
                     decouple=True, note="partitioned, decouple_partitioned_filters=true"))
        out.append(V(filter=f, partitioned=True, nkeys=25000,
                     note="partitioned, default metadata_block_size 4096"))
    out.append(V(fv=5, checksum="crc32c", filter="bloom", partitioned=True, metadata_block_size=512,
                 nkeys=20000, compression="zstd", note="partitioned fv5 + zstd"))
    out.append(V(filter="bloom", partitioned=True, metadata_block_size=256, nkeys=5000,
                 shape="k20", index_shortening="kNoShortening", note="partitioned, kNoShortening"))
    out.append(V(filter="ribbon", partitioned=True, metadata_block_size=256, nkeys=5000,
                 shape="k20", index_shortening="kShortenSeparatorsAndSuccessor",
                 note="partitioned, kShortenSeparatorsAndSuccessor"))
    out.append(V(filter="ribbon", partitioned=True, metadata_block_size=256, nkeys=1,
                 note="partitioned, single key"))
    # 7. prefix extractor, whole_key_filtering on/off
    for wkf in (True, False):
        for f in ("bloom", "ribbon"):
            out.append(V(filter=f, prefix_len=4, wkf=wkf, shape="pfx", nkeys=2000,
                         note="FixedPrefix(4); keys p,p0,p00 are outside the prefix domain"))
            out.append(V(filter=f, prefix_len=4, wkf=wkf, shape="pfx", nkeys=20000,
                         partitioned=True, metadata_block_size=256, note="partitioned + FixedPrefix(4)"))
    # 8. no filter variants and compression
    out.append(V(filter="none", partitioned=True, metadata_block_size=256, nkeys=5000,
                 note="no filter, two-level index"))
    for c in ("none", "lz4", "zstd"):
        out.append(V(filter="bloom", compression=c, shape="k20", nkeys=5000, note="compression"))
    out.append(V(filter="ribbon", compression="lz4", prefix_len=4, shape="pfx", nkeys=5000,
                 note="lz4 + ribbon + prefix"))
    return out


def main(argv):
    global ROCKSDICT_VERSION
    if len(argv) != 1:
        print("usage: gen_rocksdict.py OUTDIR", file=sys.stderr)
        return 2
    outdir = argv[0]
    os.makedirs(outdir, exist_ok=True)
    try:
        from importlib.metadata import version as pkg_version
        ROCKSDICT_VERSION = pkg_version("rocksdict")
    except Exception:
        pass
    version = rocksdb_version()
    check_defaults(outdir)
    seen = set()
    n = 0
    with open(os.path.join(outdir, "manifest.jsonl"), "a") as manifest:
        for v in variants():
            gen(v, outdir, version, manifest, seen)
            n += 1
    shutil.rmtree(os.path.join(outdir, ".rocksdict_work"), ignore_errors=True)
    print("gen_rocksdict: wrote %d SST files to %s (rocksdict %s, RocksDB %s)"
          % (n, outdir, ROCKSDICT_VERSION, version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
