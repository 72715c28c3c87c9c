"""SST files: the fixtures RocksDB wrote (the answers tests/sst_fixtures.rs
and the C tests give), files rocksdict's SstFileWriter writes here, opens by
path, from memory and through read_at, caches, closed handles."""

import os
import random
import threading
from pathlib import Path

import pytest

import rocksfilter
from conftest import absent_keys

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

try:
    import rocksdict
except ImportError:  # pragma: no cover
    rocksdict = None
needs_rocksdict = pytest.mark.skipif(rocksdict is None, reason="rocksdict==0.3.29 is not installed (sst_fixtures/requirements.txt)")


def write_sst(path: Path, keys, *, bits_per_key=10.0, partitioned=False, prefix_len=0):
    """An SST file written by rocksdict's SstFileWriter (RocksDB 9.8.4) with a
    Bloom filter policy; keys sorted."""
    from rocksdict import BlockBasedIndexType, BlockBasedOptions, Options, SliceTransform, SstFileWriter

    o = Options(raw_mode=True)
    b = BlockBasedOptions()
    b.set_bloom_filter(bits_per_key, False)
    if partitioned:
        b.set_partition_filters(True)
        b.set_index_type(BlockBasedIndexType.two_level_index_search())
        b.set_metadata_block_size(1024)
    o.set_block_based_table_factory(b)
    if prefix_len:
        o.set_prefix_extractor(SliceTransform.create_fixed_prefix(prefix_len))
    w = SstFileWriter(o)
    w.open(str(path))
    for i, k in enumerate(sorted(keys)):
        w[k] = b"v%d" % i
    w.finish()
    return path


# ---------------------------------------------------------------------------
# The fixtures RocksDB 7.8.3 and rocksdict wrote (sst_fixtures/generate.sh).


def expected_kinds(policy: str, fv: int):
    if policy == "bloom":
        return {"legacy_bloom"} if fv < 5 else {"fast_local_bloom"}
    return {"standard128_ribbon", "fast_local_bloom"}  # Ribbon falls back to Bloom when small


def test_every_fixture_opens_and_every_key_may_match(sst_fixtures):
    keys_checked = 0
    cache = rocksfilter.Cache(64 << 20)
    for fx in sst_fixtures:
        row = fx.row
        with rocksfilter.Sst.open(fx.path) as sst:
            p = sst.properties
            assert p.format_version == row["format_version"], fx.name
            assert p.checksum == row["checksum"], fx.name
            want_type = "none" if row["filter"] == "none" else "partitioned" if row["partitioned"] else "full"
            assert p.filter_type == want_type == sst.filter_type, fx.name
            assert p.num_entries == row["num_keys"], fx.name
            assert p.comparator == "leveldb.BytewiseComparator", fx.name
            if row["filter"] != "none":
                assert p.filter_policy == row["filter"] + "filter", fx.name
                assert p.whole_key_filtering == row["whole_key_filtering"], fx.name
                assert p.filter_block_name == (
                    "partitionedfilter" if row["partitioned"] else "fullfilter"
                ) + ".rocksdb.BuiltinBloomFilter", fx.name
            if row["prefix_len"]:
                assert p.prefix_extractor == "rocksdb.FixedPrefix.%d" % row["prefix_len"], fx.name
            if want_type == "full":
                kind = sst.full_filter().kind
                assert kind in expected_kinds(row["filter"], row["format_version"]), (fx.name, kind)

            # Every key written may match: batch, and single calls on a sample.
            answers = sst.may_match_batch(fx.keys)
            missed = [k for k, a in zip(fx.keys, answers) if not a]
            assert not missed, "%s: %d keys answered absent, e.g. %r" % (fx.name, len(missed), missed[0])
            assert all(sst.may_match(k) for k in fx.keys[:: max(1, len(fx.keys) // 200)]), fx.name
            keys_checked += len(fx.keys)
            if p.has_prefix_filter and row["prefix_len"]:
                n = row["prefix_len"]
                for k in fx.keys[:: max(1, len(fx.keys) // 100)]:
                    if len(k) >= n:
                        assert sst.prefix_may_match(k[:n]), (fx.name, k)
                with pytest.raises(rocksfilter.InvalidArgumentError):
                    sst.prefix_may_match(b"x" * (n + 1))
            elif not p.has_prefix_filter:
                with pytest.raises(rocksfilter.NotSupportedError):
                    sst.prefix_may_match(b"abc")

            absent = absent_keys(fx.keys, 2000)
            probe = fx.keys[:: max(1, len(fx.keys) // 500)] + absent
            want = sst.may_match_batch(probe)
            if want_type == "full" and p.whole_key_filtering:
                assert sst.full_filter().may_match_batch(probe) == want, fx.name
            if np is not None:
                arr = np.array(probe)
                assert sst.may_match_batch(arr).tolist() == sst.may_match_batch(arr.tolist()), fx.name

            # The same file through read_at: the same answers, one call per
            # read the path open made.
            data = fx.path.read_bytes()
            calls = []

            def read_at(offset, length):
                calls.append((offset, length))
                return data[offset : offset + length]

            with rocksfilter.Sst.from_reader(read_at, len(data)) as cb:
                assert cb.may_match_batch(probe) == want, fx.name
                assert cb.open_stats().reads == len(calls) == sst.open_stats().reads, fx.name
                assert 1 <= len(calls) <= 3, (fx.name, calls)
            with rocksfilter.Sst.from_bytes(data) as mem:
                assert mem.may_match_batch(probe) == want, fx.name
            with rocksfilter.Sst.open(fx.path, cache=cache, cache_full_filters=True) as cached:
                assert cached.may_match_batch(probe) == want, fx.name
    assert keys_checked > 1_000_000
    assert cache.stats().misses > 0


def test_damaged_fixtures_fail_cleanly(sst_fixtures):
    fx = next(f for f in sst_fixtures if f.row["checksum"] != "none" and f.row["filter"] == "bloom")
    data = fx.path.read_bytes()
    for cut in (0, 10, len(data) // 2, len(data) - 1):
        with pytest.raises((rocksfilter.CorruptionError, rocksfilter.NotSupportedError)) as e:
            rocksfilter.Sst.from_bytes(data[:cut])
        assert e.value.message
    opened = refused = 0
    for at in range(len(data) - 60, len(data)):
        m = bytearray(data)
        m[at] ^= 0x10
        try:
            with rocksfilter.Sst.from_bytes(bytes(m)) as s:
                assert all(s.may_match_batch(fx.keys[::50]))
                opened += 1
        except (rocksfilter.CorruptionError, rocksfilter.NotSupportedError):
            refused += 1
    assert refused > 0


# ---------------------------------------------------------------------------
# Files rocksdict's SstFileWriter writes in the test.


@needs_rocksdict
@pytest.mark.parametrize("partitioned", [False, True], ids=["full", "partitioned"])
def test_rocksdict_sst_with_a_bloom_filter(tmp_path, partitioned):
    rnd = random.Random(7)
    keys = sorted({b"user:%08d:%s" % (rnd.randrange(10**8), bytes([rnd.randrange(256)]).hex().encode()) for _ in range(20000)})
    path = write_sst(tmp_path / "rd.sst", keys, bits_per_key=10.0, partitioned=partitioned)
    with rocksfilter.Sst.open(path) as sst:
        p = sst.properties
        assert p.filter_type == ("partitioned" if partitioned else "full")
        assert p.filter_policy == "bloomfilter" and p.num_entries == len(keys)
        assert all(sst.may_match_batch(keys))
        assert all(sst.may_match(k) for k in keys[::97])
        absent = [b"absent:%d" % i for i in range(20000)]
        fp = sum(sst.may_match_batch(absent)) / len(absent)
        assert fp < 0.03, "false-positive rate %.4f at 10 bits/key" % fp
        if np is not None:
            arr = np.array(keys + absent)
            assert sst.may_match_batch(arr).tolist() == sst.may_match_batch(keys + absent)


@needs_rocksdict
def test_rocksdict_prefix_filter(tmp_path):
    keys = sorted(b"%04d-%06d" % (i % 97, i) for i in range(5000))
    path = write_sst(tmp_path / "pfx.sst", keys, prefix_len=4)
    with rocksfilter.Sst.open(path) as sst:
        assert sst.properties.prefix_extractor == "rocksdb.FixedPrefix.4"
        assert all(sst.prefix_may_match(b"%04d" % i) for i in range(97))
        assert sum(sst.prefix_may_match(b"x%03d" % i) for i in range(1000)) < 100


# ---------------------------------------------------------------------------
# read_at: object storage over HTTP, and readers that fail.


class RangeServer:
    """A loopback HTTP server of one file that honours `Range: bytes=a-b`,
    counting GETs."""

    def __init__(self, data: bytes):
        import http.server

        self.data = data
        self.gets = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.gets += 1
                rng = self.headers.get("Range", "")
                if rng.startswith("bytes="):
                    a, b = rng[6:].split("-")
                    a, b = int(a), min(int(b), len(server.data) - 1)
                    body = server.data[a : b + 1]
                    self.send_response(206)
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, len(server.data)))
                else:
                    body = server.data
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/file.sst" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def read_at(self, offset: int, length: int) -> bytes:
        import urllib.request

        req = urllib.request.Request(self.url, headers={"Range": "bytes=%d-%d" % (offset, offset + length - 1)})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def big_sst(tmp_path):
    """A file whose filter lies outside its last 64 KiB (two reads to open)."""
    if rocksdict is None:
        pytest.skip("rocksdict==0.3.29 is not installed (sst_fixtures/requirements.txt)")
    keys = [b"key%09d" % i for i in range(0, 300000, 3)]
    return write_sst(tmp_path / "big.sst", keys, bits_per_key=10.0), keys


def test_from_reader_over_http_gets_equal_reads(big_sst):
    path, keys = big_sst
    data = path.read_bytes()
    srv = RangeServer(data)
    try:
        with rocksfilter.Sst.from_reader(srv.read_at, len(data)) as sst:
            stats = sst.open_stats()
            assert stats.reads == srv.gets == 2, (stats, srv.gets)
            assert stats.bytes_read > 64 << 10
            assert all(sst.may_match_batch(keys))
            with rocksfilter.Sst.open(path) as by_path:
                probe = keys[::10] + [b"nokey%d" % i for i in range(5000)]
                assert sst.may_match_batch(probe) == by_path.may_match_batch(probe)
                assert by_path.open_stats().reads == stats.reads
            assert srv.gets == 2  # queries read nothing
    finally:
        srv.close()


@needs_rocksdict
def test_from_reader_with_a_cache_reads_partitions_on_demand(tmp_path):
    keys = [b"key%09d" % i for i in range(0, 100000, 2)]
    path = write_sst(tmp_path / "part.sst", keys, partitioned=True)
    data = path.read_bytes()
    srv = RangeServer(data)
    try:
        cache = rocksfilter.Cache(8 << 20)
        with rocksfilter.Sst.from_reader(srv.read_at, len(data), cache=cache) as sst:
            open_reads = sst.open_stats().reads
            assert open_reads == srv.gets
            assert all(sst.may_match_batch(keys))
            st = cache.stats()
            assert st.reads > 0 and srv.gets == open_reads + st.reads and st.read_errors == 0
            assert all(sst.may_match_batch(keys))
            assert cache.stats().reads == st.reads  # all hits now
    finally:
        srv.close()
    # A cached reader that fails at query time answers "may match" and counts it.
    fails = {"on": False}

    def flaky(offset, length):
        if fails["on"]:
            raise OSError("gone")
        return data[offset : offset + length]

    cache = rocksfilter.Cache(8 << 20)
    with rocksfilter.Sst.from_reader(flaky, len(data), cache=cache) as sst:
        fails["on"] = True
        assert all(sst.may_match_batch([b"absent%d" % i for i in range(100)]))
        assert cache.stats().read_errors > 0
    assert not rocksfilter._sst._readers  # the source was released with the handle


def test_a_raising_read_at_raises_ioerror_with_its_cause(big_sst):
    path, _ = big_sst
    data = path.read_bytes()

    class Boom(Exception):
        pass

    def raising(offset, length):
        raise Boom("no such object")

    with pytest.raises(rocksfilter.IOError) as e:
        rocksfilter.Sst.from_reader(raising, len(data))
    assert isinstance(e.value.__cause__, Boom) and e.value.status == 4
    assert "Boom" in str(e.value) and "failed" in str(e.value)

    # The second read fails: the first one's success does not hide it.
    calls = []

    def second_fails(offset, length):
        calls.append(offset)
        if len(calls) == 2:
            raise ConnectionResetError("peer went away")
        return data[offset : offset + length]

    with pytest.raises(rocksfilter.IOError) as e:
        rocksfilter.Sst.from_reader(second_fails, len(data))
    assert isinstance(e.value.__cause__, ConnectionResetError) and len(calls) == 2

    def interrupted(offset, length):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rocksfilter.Sst.from_reader(interrupted, len(data))
    assert not rocksfilter._sst._readers


@pytest.mark.parametrize("how", ["short", "long", "none", "str", "empty"])
def test_a_read_at_returning_the_wrong_amount_raises(big_sst, how):
    path, _ = big_sst
    data = path.read_bytes()

    def bad(offset, length):
        good = data[offset : offset + length]
        return {"short": good[:-1], "long": good + b"x", "none": None, "str": "text", "empty": b""}[how]

    with pytest.raises(rocksfilter.IOError) as e:
        rocksfilter.Sst.from_reader(bad, len(data))
    assert "read_at" in str(e.value)
    # A size past the end: the reader is asked past it and comes back short.
    with pytest.raises(rocksfilter.IOError):
        rocksfilter.Sst.from_reader(lambda o, n: data[o : o + n], len(data) + 100)


def test_a_read_at_whose_bytes_change_between_reads_raises(big_sst):
    path, _ = big_sst
    data = path.read_bytes()
    n = {"calls": 0}

    def changing(offset, length):
        n["calls"] += 1
        chunk = data[offset : offset + length]
        return chunk if n["calls"] == 1 else bytes(b ^ 0x5A for b in chunk)

    with pytest.raises((rocksfilter.IOError, rocksfilter.CorruptionError)):
        rocksfilter.Sst.from_reader(changing, len(data))

    # Overlapping ranges read twice must agree: change only the bytes the
    # second read shares with the first.
    first = {}

    def overlap_changes(offset, length):
        chunk = bytearray(data[offset : offset + length])
        if first:
            a, b = first["range"]
            lo, hi = max(a, offset), min(b, offset + length)
            for i in range(lo, hi):
                chunk[i - offset] ^= 0xFF
        else:
            first["range"] = (offset, offset + length)
        return bytes(chunk)

    with pytest.raises((rocksfilter.IOError, rocksfilter.CorruptionError)) as e:
        rocksfilter.Sst.from_reader(overlap_changes, len(data))
    assert e.value.message

    def random_bytes(offset, length):
        return os.urandom(length)

    with pytest.raises(rocksfilter.CorruptionError):
        rocksfilter.Sst.from_reader(random_bytes, len(data))
    assert not rocksfilter._sst._readers


def test_read_at_may_return_any_buffer(big_sst):
    path, keys = big_sst
    data = path.read_bytes()
    for wrap in (bytearray, memoryview, lambda b: memoryview(bytearray(b))):
        with rocksfilter.Sst.from_reader(lambda o, n: wrap(data[o : o + n]), len(data)) as sst:
            assert all(sst.may_match_batch(keys[::7]))


# ---------------------------------------------------------------------------
# Handles.


def test_closed_sst_raises_and_with_closes(sst_fixtures):
    fx = next(f for f in sst_fixtures if f.row["filter"] == "bloom" and not f.row["partitioned"])
    with rocksfilter.Sst.open(str(fx.path)) as sst:
        assert sst.may_match(fx.keys[0])
        f = sst.full_filter()
    assert sst.closed
    calls = [
        lambda: sst.may_match(b"a"),
        lambda: sst.may_match_batch([b"a"]),
        lambda: sst.properties,
        sst.open_stats,
        sst.full_filter,
        lambda: sst.prefix_may_match(b"a"),
        lambda: sst.raw_property("rocksdb.num.entries"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="closed Sst"):
            call()
    # The full filter outlives the file's handle.
    assert f.may_match(fx.keys[0])
    with pytest.raises(TypeError):
        rocksfilter.Sst()
    with rocksfilter.Cache(1 << 20) as c:
        assert c.stats().capacity == 1 << 20
    with pytest.raises(ValueError, match="closed Cache"):
        c.stats()
    with pytest.raises(ValueError, match="closed Cache"):
        rocksfilter.Sst.open(fx.path, cache=c)


def test_open_errors(tmp_path, sst_fixtures):
    with pytest.raises(rocksfilter.IOError) as e:
        rocksfilter.Sst.open(tmp_path / "missing.sst")
    assert "missing.sst" in str(e.value)
    with pytest.raises(rocksfilter.CorruptionError, match="magic"):
        rocksfilter.Sst.from_bytes(b"x" * 100)
    with pytest.raises(rocksfilter.InvalidArgumentError):
        rocksfilter.Sst.open("a\0b")
    with pytest.raises(rocksfilter.InvalidArgumentError):
        rocksfilter.Sst.open(sst_fixtures[0].path, cache_full_filters=True)
    partitioned = next(f for f in sst_fixtures if f.row["partitioned"] and f.row["filter"] != "none")
    with rocksfilter.Sst.open(os.fsencode(partitioned.path)) as sst:
        with pytest.raises(rocksfilter.NotFoundError):
            sst.full_filter()


def test_cache_is_shared_and_outlived_by_its_handles(sst_fixtures):
    parts = [f for f in sst_fixtures if f.row["partitioned"] and f.row["filter"] != "none"][:4]
    cache = rocksfilter.Cache(16 << 20, max_open_files=2)
    handles = [rocksfilter.Sst.open(f.path, cache=cache) for f in parts]
    cache.close()  # the handles keep it
    for f, h in zip(parts, handles):
        assert all(h.may_match_batch(f.keys))
        # It keeps its separators and slots, not the filter (in the cache).
        with rocksfilter.Sst.open(f.path) as loaded:
            assert 0 < h.open_stats().bytes_held < loaded.open_stats().bytes_held
        h.close()


def test_raw_property(sst_fixtures):
    fx = sst_fixtures[0]
    with rocksfilter.Sst.open(fx.path) as sst:
        assert sst.raw_property("rocksdb.comparator") == b"leveldb.BytewiseComparator"
        assert sst.raw_property("no.such.property") is None


def test_threads_query_one_sst(sst_fixtures):
    fx = max((f for f in sst_fixtures if f.row["partitioned"] and f.row["filter"] != "none"), key=lambda f: len(f.keys))
    sst = rocksfilter.Sst.open(fx.path)
    errors = []

    def worker():
        try:
            for _ in range(3):
                assert all(sst.may_match_batch(fx.keys))
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
