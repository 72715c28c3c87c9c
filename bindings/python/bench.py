#!/usr/bin/env python3
"""The Python binding's cost over the C ABI, in ns per key (a benchmark, not a test).

    python bench.py [--keys 1000000] [--rounds 5]

For a Bloom and a Ribbon filter block (10 bits/key, built over --keys keys)
and, with rocksdict installed, an SST file rocksdict writes over the same
keys, queries --keys keys (half present) as:

  C batch        the packed batch call made directly through ctypes, with
                 its buffer, offsets and results prepared beforehand: the
                 library's own cost plus one foreign call
  numpy batch    may_match_batch(a NumPy 'S16' array): the array's buffer
                 passed in place (offsets made with NumPy, no copy of keys)
  numpy padded   the same with NUL-padded keys of varying length ('S16'
                 items shorter than 16 bytes): each key pointed at in place
  list batch     may_match_batch(a list of bytes): keys joined into one buffer
  single         a Python loop of may_match(key)
  C single       a Python loop calling rocksfilter_*_may_match through ctypes
                 directly (the floor of any per-key call from Python)

Best of --rounds; the single-call loops run over a tenth of the keys. Run
with the installed wheel, or PYTHONPATH=src ROCKSFILTER_LIBRARY=... .
"""

import argparse
import ctypes
import os
import tempfile
import time

import numpy as np

import rocksfilter
from rocksfilter import _ffi


def best(fn, rounds):
    out = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        fn()
        out = min(out, time.perf_counter_ns() - t0)
    return out


def bench(name, handle, packed_fn, single_fn, obj, queries, rounds):
    n = len(queries)
    arr = np.array(queries, dtype="S16")
    assert arr.dtype.itemsize == 16 and all(len(q) == 16 for q in queries[:100])
    # The C batch: everything prepared, one ctypes call.
    buf = arr.view(np.uint8)
    offsets = np.arange(0, (n + 1) * 16, 16, dtype=np.uintp)
    results = np.empty(n, dtype=np.bool_)
    err = ctypes.c_void_p()

    def c_batch():
        st = packed_fn(handle, buf.ctypes.data, n * 16, offsets.ctypes.data, n, results.ctypes.data, ctypes.byref(err))
        assert st == 0

    # Every other key 8 to 15 bytes: NUL-padded items, the pointer batch.
    padded = np.array([q[: 8 + i % 8] if i % 2 else q for i, q in enumerate(queries)], dtype="S16")
    c = best(c_batch, rounds)
    npb = best(lambda: obj.may_match_batch(arr), rounds)
    npp = best(lambda: obj.may_match_batch(padded), rounds)
    lst = best(lambda: obj.may_match_batch(queries), max(1, rounds // 2))
    assert obj.may_match_batch(arr).tolist() == results.tolist() == obj.may_match_batch(queries)
    few = queries[: max(1, n // 10)]
    may_match = obj.may_match

    def single():
        for q in few:
            may_match(q)

    def c_single():
        for q in few:
            single_fn(handle, q, 16)

    s = best(single, max(1, rounds // 2))
    cs = best(c_single, max(1, rounds // 2))
    print("%-28s %8.1f %12.1f %8.2fx %12.1f %10.1f %10.1f %10.1f" % (
        name, c / n, npb / n, npb / c, npp / n, lst / n, s / len(few), cs / len(few)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    n = args.keys
    keys = [b"key%013d" % (2 * i) for i in range(n)]
    # Half present, half absent, shuffled deterministically.
    queries = [b"key%013d" % (i if i % 4 else 2 * i + 1) for i in range(n)]
    queries = [queries[(i * 7919) % n] for i in range(n)] if n % 7919 else queries
    lib = _ffi.lib
    print("rocksfilter %s (%s), %d keys, %d queries, ns/key, best of %d" % (
        rocksfilter.version(), rocksfilter.LIBRARY_PATH, n, n, args.rounds))
    print("%-28s %8s %12s %9s %12s %10s %10s %10s" % (
        "", "C batch", "numpy batch", "vs C", "numpy padded", "list batch", "single", "C single"))
    for policy in ("bloom", "ribbon"):
        b = rocksfilter.FilterBuilder(policy, 10.0)
        b.add_many(keys)
        block = b.finish()
        f = rocksfilter.Filter(block)
        bench("Filter %s (%.1f MB)" % (policy, len(block) / 1e6), f._h,
              lib.rocksfilter_filter_may_match_packed, lib.rocksfilter_filter_may_match, f, queries, args.rounds)
    try:
        import rocksdict  # noqa: F401
    except ImportError:
        print("(rocksdict not installed: no SST row)")
        return
    from rocksdict import BlockBasedIndexType, BlockBasedOptions, Options, SstFileWriter

    with tempfile.TemporaryDirectory() as d:
        for partitioned in (False, True):
            o = Options(raw_mode=True)
            bo = BlockBasedOptions()
            bo.set_bloom_filter(10, False)
            if partitioned:
                bo.set_partition_filters(True)
                bo.set_index_type(BlockBasedIndexType.two_level_index_search())
            o.set_block_based_table_factory(bo)
            path = os.path.join(d, "bench%d.sst" % partitioned)
            w = SstFileWriter(o)
            w.open(path)
            for k in keys:
                w[k] = b""
            w.finish()
            with rocksfilter.Sst.open(path) as sst:
                bench("Sst %s bloom" % ("partitioned" if partitioned else "full"), sst._h,
                      lib.rocksfilter_sst_may_match_packed, lib.rocksfilter_sst_may_match, sst, queries, args.rounds)


if __name__ == "__main__":
    main()
