"""FilterBuilder and Filter: RocksDB's golden blocks byte for byte, hashes,
errors, closed handles, batches from lists and NumPy arrays, the GIL."""

import ctypes
import sys
import threading
import time

import pytest

import rocksfilter
from conftest import GOLDEN

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None
needs_numpy = pytest.mark.skipif(np is None, reason="numpy is not installed")

# tests/golden.rs's CASES: (file prefix, policy, bits/key as in the file name, keys).
CASES = [
    ("bloom", "bloom", bpk, n) for bpk in ("1", "10", "23.45") for n in (1, 50, 1000)
] + [
    ("legacy", "legacy", bpk, n) for bpk in ("1", "10", "23.45") for n in (1, 50, 1000)
] + [("ribbon", "ribbon", "10", n) for n in (100, 3000, 20000, 200000)]


def filter_key(i: int) -> bytes:
    return b"key%06d" % i


def hash_key(n: int) -> bytes:
    return bytes((j * 131 + n * 7 + 17) & 0xFF for j in range(n))


@pytest.mark.parametrize("prefix,policy,bpk,n", CASES, ids=["%s-%s-%d" % (c[0], c[2], c[3]) for c in CASES])
def test_golden_blocks_byte_for_byte(prefix, policy, bpk, n):
    want = (GOLDEN / ("%s-%s-%d.bin" % (prefix, bpk, n))).read_bytes()
    keys = [filter_key(i) for i in range(n)]
    with rocksfilter.FilterBuilder(policy, bits_per_key=float(bpk)) as b:
        b.add_many(keys[: n // 2])
        for k in keys[n // 2 :]:
            b.add(k)
        assert b.num_entries == n == len(b)
        got = b.finish()
        assert b.num_entries == 0
    assert got == want, "%s: %d vs %d bytes" % (prefix, len(got), len(want))
    with rocksfilter.Filter(want) as f:
        assert f.data() == want and bytes(f) == want
        assert all(f.may_match_batch(keys))
        assert all(f.may_match(k) for k in keys[:: max(1, n // 100)])
        kind = f.kind
        assert kind == {"bloom": "fast_local_bloom", "legacy": "legacy_bloom"}.get(
            policy, "standard128_ribbon" if n >= 3000 else "fast_local_bloom"
        )
        info = f.info
        assert info.kind == kind and info.bytes == len(want)
        # A copy loads too (a bytearray is copied, not borrowed).
        assert rocksfilter.Filter(bytearray(want)).data() == want


def test_hashes_equal_rocksdb():
    lens = list(range(301)) + [1000, 4096, 5000]
    lines = (GOLDEN / "hashes.txt").read_text().splitlines()
    assert len(lines) == len(lens)
    for line, n in zip(lines, lens):
        ln, h64, h32 = line.split(" ")
        assert int(ln) == n
        k = hash_key(n)
        assert rocksfilter.hash64(k) == int(h64, 16)
        assert rocksfilter.legacy_hash32(k) == int(h32, 16)
    assert rocksfilter.hash64(b"") == 0x5342C3010FE1DD04


def test_add_hash_and_may_match_hash():
    keys = [b"k%d" % i for i in range(500)]
    b1 = rocksfilter.FilterBuilder("ribbon", 10.0)
    b2 = rocksfilter.FilterBuilder("ribbon", 10.0)
    for k in keys:
        b1.add(k)
        b2.add_hash(rocksfilter.hash64(k))
    block = b1.finish()
    assert block == b2.finish()
    f = rocksfilter.Filter(block)
    assert all(f.may_match_hash(rocksfilter.hash64(k)) for k in keys)
    assert 0.0 < f.estimated_fp_rate(len(keys)) < 0.05


def test_sizing_by_fp_rate_and_bytes():
    keys = [b"key%d" % i for i in range(10000)]
    b = rocksfilter.FilterBuilder("bloom", fp_rate=0.001)
    b.add_many(keys)
    f = rocksfilter.Filter(b.finish())
    assert f.estimated_fp_rate(len(keys)) <= 0.001
    b = rocksfilter.FilterBuilder("ribbon", max_bytes=4096, ribbon_failure_one_in=1000)
    b.add_many(keys)
    block = b.finish()
    assert len(block) <= 4096
    assert all(rocksfilter.Filter(block).may_match_batch(keys))


def test_empty_builder_writes_the_always_false_block():
    b = rocksfilter.FilterBuilder()
    assert b.finish() == b""
    f = rocksfilter.Filter(b"")
    assert f.kind == "always_false" and not f.may_match(b"x")


def test_errors_carry_status_and_message():
    with pytest.raises(rocksfilter.InvalidArgumentError) as e:
        rocksfilter.FilterBuilder("bloom", bits_per_key=0.1)
    assert e.value.status == 1 and "bits_per_key" in str(e.value) and e.value.message == str(e.value)
    assert isinstance(e.value, rocksfilter.Error) and isinstance(e.value, ValueError)
    with pytest.raises(rocksfilter.InvalidArgumentError, match="policy"):
        rocksfilter.FilterBuilder("cuckoo")
    with pytest.raises(rocksfilter.InvalidArgumentError):
        rocksfilter.FilterBuilder("legacy", fp_rate=0.01)
    with pytest.raises(rocksfilter.InvalidArgumentError):
        rocksfilter.FilterBuilder("bloom", fp_rate=0.01, max_bytes=1000)
    with pytest.raises(rocksfilter.InvalidArgumentError):
        rocksfilter.FilterBuilder("ribbon", ribbon_failure_one_in=7)
    # The legacy Bloom has no hash64 form: finish fails, naming it.
    b = rocksfilter.FilterBuilder("legacy")
    b.add_hash(1)
    with pytest.raises(rocksfilter.InvalidArgumentError):
        b.finish()
    # Every status has its class.
    classes = [rocksfilter.InvalidArgumentError, rocksfilter.CorruptionError, rocksfilter.NotSupportedError,
               rocksfilter.IOError, rocksfilter.NotFoundError, rocksfilter.InternalError]
    assert [c.status for c in classes] == [1, 2, 3, 4, 5, 6]
    assert all(issubclass(c, rocksfilter.Error) for c in classes)


def test_keys_must_be_bytes():
    f = rocksfilter.Filter(rocksfilter.FilterBuilder().finish())
    with pytest.raises(TypeError, match="encode"):
        f.may_match("text")
    with pytest.raises(TypeError):
        f.may_match_batch([b"a", "b"])
    with pytest.raises(TypeError):
        f.may_match_batch(b"abc")
    with pytest.raises(TypeError):
        rocksfilter.FilterBuilder().add(3)


def test_closed_handles_raise_and_context_managers_close():
    with rocksfilter.FilterBuilder() as b:
        b.add(b"a")
        block = b.finish()
    assert b.closed
    for call in (lambda: b.add(b"x"), b.finish, lambda: b.num_entries):
        with pytest.raises(ValueError, match="closed FilterBuilder"):
            call()
    with rocksfilter.Filter(block) as f:
        assert f.may_match(b"a")
    assert f.closed
    for call in (lambda: f.may_match(b"a"), lambda: f.may_match_batch([b"a"]), lambda: f.kind, f.data):
        with pytest.raises(ValueError, match="closed Filter"):
            call()
    f.close()  # idempotent
    with pytest.raises(ValueError):
        with f:
            pass
    assert "closed" in repr(f) and "closed" in repr(b)


def test_batch_answers_equal_single_answers():
    keys = [b"key%d" % i for i in range(2000)]
    b = rocksfilter.FilterBuilder("ribbon", 8.0)
    b.add_many(keys[::2])
    f = rocksfilter.Filter(b.finish())
    single = [f.may_match(k) for k in keys]
    assert f.may_match_batch(keys) == single
    assert f.may_match_batch(tuple(keys)) == single
    assert f.may_match_batch(iter(keys)) == single
    assert f.may_match_batch([bytearray(k) for k in keys]) == single
    assert f.may_match_batch([memoryview(k) for k in keys]) == single
    assert f.may_match_batch([]) == []
    assert all(single[::2]) and not all(single[1::2])


def _numpy_filter(keys):
    b = rocksfilter.FilterBuilder("bloom", 10.0)
    b.add_many(keys[::2])
    return rocksfilter.Filter(b.finish())


@needs_numpy
def test_numpy_batch_equals_list_batch():
    keys = [b"key%08d" % i for i in range(5000)]  # all 11 bytes
    f = _numpy_filter(keys)
    arr = np.array(keys, dtype="S11")
    want = f.may_match_batch(keys)
    got = f.may_match_batch(arr)
    assert isinstance(got, np.ndarray) and got.dtype == np.bool_ and got.shape == arr.shape
    assert got.tolist() == want
    # Other shapes and layouts: 2-D, a strided (copied) view, an empty array.
    assert f.may_match_batch(arr.reshape(50, 100)).ravel().tolist() == want
    assert f.may_match_batch(arr[::3]).tolist() == want[::3]
    assert f.may_match_batch(arr[:0]).tolist() == []
    # Sst and Filter batches accept the same arrays (checked in test_sst).


@needs_numpy
def test_numpy_s_items_are_the_keys_numpy_shows():
    # Variable-length keys in an S<n> array are NUL-padded; NumPy strips the
    # padding (arr[i], arr.tolist()), and so does the batch.
    keys = [b"a", b"bb", b"key0001", b"", b"x\x00y", b"k" * 9]
    f = _numpy_filter(keys * 2)
    arr = np.array(keys)
    assert arr.dtype == np.dtype("S9")
    assert f.may_match_batch(arr).tolist() == f.may_match_batch(arr.tolist())
    assert arr.tolist() == keys
    # fixed_width=True: every item is 9 bytes, padding included.
    padded = [k.ljust(9, b"\x00") for k in keys]
    assert f.may_match_batch(arr, fixed_width=True).tolist() == f.may_match_batch(padded)
    v = np.frombuffer(b"".join(padded), dtype="V9")
    assert f.may_match_batch(v).tolist() == f.may_match_batch(padded)


@needs_numpy
def test_numpy_keys_need_a_bytes_dtype():
    f = _numpy_filter([b"a"])
    for bad in (np.arange(3), np.array(["text"]), np.zeros(2, dtype=[("a", "i4")])):
        with pytest.raises(TypeError, match="dtype"):
            f.may_match_batch(bad)
    with pytest.raises(TypeError, match="fixed_width"):
        f.may_match_batch([b"a"], fixed_width=True)


def test_the_library_is_loaded_with_cdll_so_calls_release_the_gil():
    from rocksfilter import _ffi

    assert type(_ffi.lib) is ctypes.CDLL
    fn = _ffi.lib.rocksfilter_filter_may_match_packed
    assert not fn._flags_ & ctypes._FUNCFLAG_PYTHONAPI


def test_another_thread_runs_python_during_a_batch():
    # With a switch interval of 10 s, the interpreter never takes the GIL
    # from a thread running Python: the main thread can only run while the
    # batch thread is inside a C call that released it.
    keys = [b"key%010d" % i for i in range(400000)]
    f = _numpy_filter(keys[:1000])
    windows = []

    def worker():
        for _ in range(5):
            t0 = time.perf_counter()
            f.may_match_batch(keys)
            windows.append((t0, time.perf_counter()))

    ticks = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while t.is_alive():
            time.sleep(0.0005)
            ticks.append(time.perf_counter())
        t.join()
    finally:
        sys.setswitchinterval(old)
    inside = [x for x in ticks if any(a < x < b for a, b in windows)]
    assert inside, "the main thread never ran during a batch: the GIL was held (%d ticks)" % len(ticks)


def test_threads_share_a_filter():
    keys = [b"key%d" % i for i in range(20000)]
    f = _numpy_filter(keys)
    want = f.may_match_batch(keys)
    errors = []

    def worker():
        try:
            for _ in range(5):
                assert f.may_match_batch(keys) == want
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_close_during_a_query_in_another_thread_frees_after_it():
    keys = [b"key%010d" % i for i in range(300000)]
    f = _numpy_filter(keys[:100])
    done = []

    def worker():
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                f.may_match_batch(keys)
        except ValueError:
            done.append("closed")

    t = threading.Thread(target=worker)
    t.start()
    time.sleep(0.01)
    f.close()
    t.join()
    assert done == ["closed"]
