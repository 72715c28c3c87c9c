"""SST files: open one (by path, from memory or through a read_at callback),
ask whether it can hold a key."""

import ctypes
import os
import sys
from ctypes import byref, c_bool, c_size_t, c_void_p
from itertools import count
from typing import Any, Callable, Dict, NamedTuple, Optional, Union

from . import _ffi
from ._errors import IOError, InvalidArgumentError, check, closed, error_for
from ._filter import Filter
from ._owned import Owned
from ._keys import BytesLike, Keys, batch, key

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
ReadAt = Callable[[int, int], Any]

CHECKSUMS = {0: "none", 1: "crc32c", 2: "xxhash32", 3: "xxhash64", 4: "xxh3"}
FILTER_TYPES = {0: "none", 1: "full", 2: "partitioned", 3: "unsupported", 4: "block_based"}


class CacheStats(NamedTuple):
    """A cache's counters (since it was made) and occupancy."""

    capacity: int
    bytes_held: int
    entries: int
    hits: int
    misses: int
    reads: int
    bytes_read: int
    read_errors: int
    bad_blocks: int
    evictions: int
    uncached: int
    open_files: int


class Cache(Owned[_ffi.CacheHandle]):
    """A cache of filter blocks with a byte budget, shared by the SST handles
    opened with it (``Sst.open(path, cache=cache)``); thread-safe.

    Handles opened with a cache read each filter partition when a query first
    needs it, and files opened by path stay open only while the cache keeps
    them among its ``max_open_files`` (128 by default). Handles keep the
    cache alive: closing it first is harmless.
    """

    _what = "Cache"

    def __init__(self, capacity_bytes: int, *, max_open_files: Optional[int] = None) -> None:
        self._h: Optional[_ffi.CacheHandle] = None
        if capacity_bytes < 0 or (max_open_files is not None and max_open_files < 0):
            raise InvalidArgumentError("invalid argument: capacity_bytes and max_open_files must be >= 0", 1)
        if max_open_files is None:
            p = _ffi.lib.rocksfilter_cache_new(capacity_bytes)
        else:
            p = _ffi.lib.rocksfilter_cache_new_with_open_files(capacity_bytes, max_open_files)
        if not p:
            raise error_for(6, "internal error: rocksfilter_cache_new failed")
        self._h = _ffi.CacheHandle(p)
        self.capacity = capacity_bytes

    @property
    def bytes_held(self) -> int:
        """Bytes the cache holds now (blocks and entries)."""
        return int(_ffi.lib.rocksfilter_cache_bytes_held(self._handle()))

    def stats(self) -> CacheStats:
        out = _ffi.CacheStats()
        out.struct_size = ctypes.sizeof(out)
        err = c_void_p()
        check(_ffi.lib.rocksfilter_cache_get_stats(self._handle(), byref(out), byref(err)), err)
        return CacheStats(*(getattr(out, f) for f in CacheStats._fields))


    def __repr__(self) -> str:
        if self._h is None:
            return "<rocksfilter.Cache closed>"
        return "<rocksfilter.Cache %d of %d bytes held>" % (self.bytes_held, self.capacity)


class OpenStats(NamedTuple):
    """What opening a file read, and what its handle keeps."""

    reads: int  #: pread() calls, or read_at calls of a reader
    bytes_read: int
    bytes_held: int  #: bytes the handle owns for its queries


class SstProperties(NamedTuple):
    """An SST file's format and table properties (strings None when absent)."""

    format_version: int
    checksum_type: int
    checksum: str  #: "none", "crc32c", "xxhash32", "xxhash64" or "xxh3"
    filter_type: str  #: "none", "full", "partitioned", "block_based" or "unsupported"
    num_partitions: int
    whole_key_filtering: bool
    has_prefix_filter: bool
    num_entries: int
    num_filter_entries: int
    filter_size: int
    creation_time: int
    file_creation_time: int
    filter_policy: Optional[str]
    comparator: Optional[str]
    prefix_extractor: Optional[str]
    filter_block_name: Optional[str]


def _cstr(p: Optional[int]) -> Optional[str]:
    return ctypes.string_at(p).decode("utf-8", "replace") if p else None


_sst_may_match = _ffi.lib.rocksfilter_sst_may_match


class _Reader:
    """A read_at callback's state while the library may call it."""

    __slots__ = ("read_at", "error", "opening")

    def __init__(self, read_at: ReadAt) -> None:
        self.read_at = read_at
        self.error: Optional[BaseException] = None
        self.opening = True  # errors are kept for the open to raise


class _ShortRead(Exception):
    pass


# Readers by the integer handed to C as ctx; removed by _release, which the
# library calls exactly once per source. (No lock: a dict's get, setitem and
# pop are atomic under the GIL, and _release may run inside a garbage
# collection, at any point of any thread.)
_readers: Dict[int, _Reader] = {}
_ctx_numbers = count(1)


def _read_at(ctx: Optional[int], offset: int, dst: Optional[int], length: int) -> int:
    r = _readers.get(ctx or 0)
    if r is None or dst is None:
        return 2
    try:
        data = r.read_at(offset, length)
        if isinstance(data, bytes):
            got = len(data)
        else:
            data = memoryview(data).cast("B")
            got = data.nbytes
        if got != length:
            raise _ShortRead("read_at(%d, %d) returned %d bytes" % (offset, length, got))
        if isinstance(data, bytes):
            ctypes.memmove(dst, data, length)
        elif length:
            (ctypes.c_char * length).from_address(dst)[:] = data.tobytes()
        return 0
    except BaseException as e:  # never let an exception cross into C
        if r.opening and r.error is None:
            r.error = e
        return 1


def _release(ctx: Optional[int]) -> None:
    try:
        _readers.pop(ctx or 0, None)
    except Exception:  # interpreter shutdown: the module may be gone
        pass


# The C function pointers, made once: the library calls them with ctx.
_read_at_c = _ffi.READ_AT(_read_at)
_release_c = _ffi.RELEASE(_release)


def _options(cache: Optional[Cache], skip_checksums: bool, cache_full_filters: bool) -> Any:
    opts = _ffi.SstOptions()
    opts.struct_size = ctypes.sizeof(opts)
    flags = _ffi.SST_SKIP_CHECKSUMS if skip_checksums else 0
    if cache_full_filters:
        if cache is None:
            raise InvalidArgumentError("invalid argument: cache_full_filters=True needs a cache", 1)
        flags |= _ffi.SST_CACHE_FULL_FILTERS
    opts.flags = flags
    if cache is not None:
        if not isinstance(cache, Cache):
            raise TypeError("cache must be a rocksfilter.Cache, not %s" % type(cache).__name__)
        opts.cache = cache._handle().value
    return opts


def _encode_path(path: PathLike) -> bytes:
    p = os.fspath(path)
    if isinstance(p, bytes):
        b = p
    elif sys.platform == "win32":
        b = p.encode("utf-8")  # the library reads a Windows path as UTF-8
    else:
        b = os.fsencode(p)
    if b"\0" in b:
        raise InvalidArgumentError("invalid argument: path contains a NUL byte", 1)
    return b


class Sst(Owned[_ffi.SstHandle]):
    """An opened SST file's filter: ``may_match(key)`` answers as RocksDB's
    Get consults the filter (False is definite).

    Open with :meth:`open` (a path), :meth:`from_bytes` (the file in memory)
    or :meth:`from_reader` (a ``read_at(offset, length)`` callback: object
    storage, a remote or encrypted file). Without a cache, the handle owns
    everything it queries once opened: the file can go away. Queries are
    thread-safe and release the GIL. ``close()`` (or leaving a ``with``
    block) frees the handle; every method then raises ``ValueError``.
    """

    _what = "Sst"

    _h: Optional[_ffi.SstHandle]
    _props: Optional[SstProperties]

    def __init__(self) -> None:
        raise TypeError("use Sst.open(path), Sst.from_bytes(data) or Sst.from_reader(read_at, size)")

    @classmethod
    def _wrap(cls, h: _ffi.SstHandle) -> "Sst":
        s = object.__new__(cls)
        s._h = h
        s._props = None
        return s

    @classmethod
    def open(
        cls,
        path: PathLike,
        *,
        cache: Optional[Cache] = None,
        skip_checksums: bool = False,
        cache_full_filters: bool = False,
    ) -> "Sst":
        """Opens the SST file at ``path``: reads (pread) the blocks its filter
        needs into memory the handle owns, verified by their checksums
        (unless ``skip_checksums``), and closes the file. With ``cache``,
        filter partitions (and, with ``cache_full_filters``, full filters)
        are read when queries first need them, into the cache.

        Raises :class:`IOError`, :class:`CorruptionError` or
        :class:`NotSupportedError` (e.g. a PlainTable file).
        """
        p = _encode_path(path)
        opts = _options(cache, skip_checksums, cache_full_filters)
        h = _ffi.SstHandle()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_sst_open_ex(p, byref(opts), byref(h), byref(err)), err)
        return cls._wrap(h)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview], *, skip_checksums: bool = False) -> "Sst":
        """Opens an SST file held in memory. A ``bytes`` object is read in
        place (the handle keeps a reference to it); other buffers are copied."""
        if not isinstance(data, bytes):
            data = bytes(memoryview(data).cast("B"))
        h = _ffi.SstHandle()
        err = c_void_p()
        flags = _ffi.SST_SKIP_CHECKSUMS if skip_checksums else 0
        check(_ffi.lib.rocksfilter_sst_open_memory_opts(data, len(data), flags, byref(h), byref(err)), err)
        h.keep = data  # queries read these bytes: keep them as long as the handle
        return cls._wrap(h)

    @classmethod
    def from_reader(
        cls,
        read_at: ReadAt,
        size: int,
        *,
        cache: Optional[Cache] = None,
        skip_checksums: bool = False,
        cache_full_filters: bool = False,
    ) -> "Sst":
        """Opens an SST file of ``size`` bytes through ``read_at(offset,
        length)``, which must return exactly ``length`` bytes (bytes or any
        buffer) of the file at ``offset``.

        Without a cache, ``read_at`` is called only during this call, on this
        thread, a few times (the file's last 64 KiB, then its filter; see
        ``open_stats().reads``), and the handle owns what it queries. An
        exception raised by ``read_at`` fails the open with
        :class:`rocksfilter.IOError` whose ``__cause__`` is that exception
        (an exception that is not an ``Exception``, such as
        ``KeyboardInterrupt``, is raised as itself); so does a short read.
        Bytes that differ between two reads of the same range raise
        :class:`rocksfilter.IOError` or :class:`CorruptionError`.

        With ``cache``, the handle keeps ``read_at`` and calls it from the
        querying threads when a query needs a filter block the cache does not
        hold; it must then be thread-safe, and a failed read answers "may
        match" for that query (counted in ``cache.stats().read_errors``).
        """
        if not callable(read_at):
            raise TypeError("read_at must be callable: read_at(offset, length) -> bytes")
        size = int(size)
        if size < 0 or size >= 1 << 64:
            raise InvalidArgumentError("invalid argument: size %d is out of range" % size, 1)
        opts = _options(cache, skip_checksums, cache_full_filters)
        r = _Reader(read_at)
        ctx = next(_ctx_numbers)
        _readers[ctx] = r
        src = _ffi.Source()
        src.struct_size = ctypes.sizeof(src)
        src.size = size
        src.ctx = ctx
        src.read_at = _read_at_c
        src.release = _release_c
        h = _ffi.SstHandle()
        err = c_void_p()
        try:
            status = _ffi.lib.rocksfilter_sst_open_source_ex(byref(src), byref(opts), byref(h), byref(err))
            message = _ffi.take_message(err)
        except BaseException:
            _readers.pop(ctx, None)
            raise
        raised, r.error, r.opening = r.error, None, False
        if status != _ffi.OK:
            if raised is not None and not isinstance(raised, Exception):
                raise raised
            e = error_for(status, message)
            if isinstance(raised, _ShortRead):
                raise IOError("%s (%s)" % (message, raised), 4) from None
            if raised is not None:
                raise IOError("%s (read_at raised %r)" % (message, raised), 4) from raised
            raise e
        return cls._wrap(h)

    def may_match(self, k: BytesLike) -> bool:
        """Can the file hold this key? False is definite. Files without a
        readable filter answer True."""
        h = self._h
        if h is None:
            raise closed("Sst")
        if type(k) is not bytes:
            k = key(k)
        return bool(_sst_may_match(h, k, len(k)))

    def __contains__(self, k: BytesLike) -> bool:
        return self.may_match(k)

    def may_match_batch(self, keys: Keys, *, fixed_width: bool = False) -> Any:
        """Answers for many keys in one call, with the GIL released (keys in
        the file's order are fastest on a partitioned filter).

        ``keys`` is a sequence of bytes-like keys (answers: a list of bool),
        or a NumPy array of dtype ``S<n>`` (answers: a NumPy bool array of
        its shape), read in place without a copy. An ``S<n>`` item is the key
        NumPy shows for it (``arr[i]``, ``arr.tolist()``: trailing NUL bytes
        stripped); with ``fixed_width=True`` every item is exactly ``n``
        bytes, NULs included (dtype ``V<n>`` always is).
        """
        h = self._handle()
        lib = _ffi.lib

        def packed(buf: Any, buf_len: int, offsets: int, n: int, results: int) -> None:
            err = c_void_p()
            check(lib.rocksfilter_sst_may_match_packed(h, buf, buf_len, offsets, n, results, byref(err)), err)

        def pointers(keys_p: int, lens: int, n: int, results: int) -> None:
            lib.rocksfilter_sst_may_match_batch(h, keys_p, lens, n, results)

        return batch(keys, fixed_width, packed, pointers)

    def prefix_may_match(self, prefix: BytesLike) -> bool:
        """Can the file hold a key with this prefix (as the file's prefix
        extractor makes it)? :class:`NotSupportedError` without a prefix
        filter; :class:`InvalidArgumentError` for a prefix the extractor
        cannot make (e.g. the wrong length for rocksdb.FixedPrefix.N)."""
        h = self._handle()
        p = key(prefix, "prefix")
        out = c_bool()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_sst_prefix_may_match(h, p, len(p), byref(out), byref(err)), err)
        return bool(out.value)

    @property
    def filter_type(self) -> str:
        """"none", "full", "partitioned", "block_based" or "unsupported"."""
        t = _ffi.lib.rocksfilter_sst_filter_type(self._handle())
        return FILTER_TYPES.get(t, "unknown(%d)" % t)

    @property
    def properties(self) -> SstProperties:
        """The file's format and table properties."""
        h = self._handle()
        if self._props is None:
            out = _ffi.SstProperties()
            err = c_void_p()
            check(_ffi.lib.rocksfilter_sst_get_properties_ex(h, byref(out), byref(err)), err)
            self._props = SstProperties(
                format_version=out.format_version,
                checksum_type=out.checksum_type,
                checksum=CHECKSUMS.get(out.checksum_type, "unknown(%d)" % out.checksum_type),
                filter_type=FILTER_TYPES.get(out.filter_type, "unknown(%d)" % out.filter_type),
                num_partitions=out.num_partitions,
                whole_key_filtering=bool(out.whole_key_filtering),
                has_prefix_filter=bool(out.has_prefix_filter),
                num_entries=out.num_entries,
                num_filter_entries=out.num_filter_entries,
                filter_size=out.filter_size,
                creation_time=out.creation_time,
                file_creation_time=out.file_creation_time,
                filter_policy=_cstr(out.filter_policy),
                comparator=_cstr(out.comparator),
                prefix_extractor=_cstr(out.prefix_extractor),
                filter_block_name=_cstr(out.filter_block_name),
            )
        return self._props

    def raw_property(self, name: str) -> Optional[bytes]:
        """The raw bytes of a table property (e.g. "rocksdb.num.entries", a
        varint), or None when the file has none of that name."""
        h = self._handle()
        n = c_size_t()
        p = _ffi.lib.rocksfilter_sst_property(h, name.encode("utf-8"), byref(n))
        if not p:
            return None
        return ctypes.string_at(p, n.value)

    def open_stats(self) -> OpenStats:
        """Reads the open made (pread calls, or read_at calls), the bytes they
        returned, and the bytes the handle owns for its queries."""
        out = _ffi.SstOpenStats()
        out.struct_size = ctypes.sizeof(out)
        err = c_void_p()
        check(_ffi.lib.rocksfilter_sst_get_open_stats(self._handle(), byref(out), byref(err)), err)
        return OpenStats(out.reads, out.bytes_read, out.bytes_held)

    def full_filter(self) -> Filter:
        """The file's full filter as a :class:`Filter` (valid after the file
        is closed). :class:`NotFoundError` when the filter is partitioned or
        absent, :class:`NotSupportedError` when unreadable."""
        h = self._handle()
        f = _ffi.FilterHandle()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_sst_full_filter(h, byref(f), byref(err)), err)
        f.keep = h.keep  # from_bytes: the filter reads those bytes
        return Filter._from_handle(f)


    def __repr__(self) -> str:
        if self._h is None:
            return "<rocksfilter.Sst closed>"
        return "<rocksfilter.Sst %s filter>" % self.filter_type
