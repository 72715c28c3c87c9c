"""Filter blocks: FilterBuilder writes them, Filter loads and queries them."""

import ctypes
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Dict, Iterable, NamedTuple, Optional, Union

from . import _ffi
from ._errors import InvalidArgumentError, check, closed
from ._owned import Owned
from ._keys import BytesLike, Keys, batch, key

_POLICIES: Dict[str, int] = {
    "bloom": _ffi.POLICY_BLOOM,
    "ribbon": _ffi.POLICY_RIBBON,
    "legacy": _ffi.POLICY_LEGACY_BLOOM,
    "legacy_bloom": _ffi.POLICY_LEGACY_BLOOM,
}

#: rocksfilter_kind values by name.
KINDS = {
    0: "always_false",
    1: "always_true",
    2: "fast_local_bloom",
    3: "standard128_ribbon",
    4: "legacy_bloom",
}


def version() -> str:
    """The native library's version ("MAJOR.MINOR.PATCH")."""
    return _ffi.native_version()


def hash64(k: BytesLike) -> int:
    """RocksDB's filter hash (GetSliceHash64, the XXH3 preview) of a key."""
    k = key(k)
    return int(_ffi.lib.rocksfilter_hash64(k, len(k)))


def legacy_hash32(k: BytesLike) -> int:
    """RocksDB's legacy Bloom hash (BloomHash) of a key."""
    k = key(k)
    return int(_ffi.lib.rocksfilter_legacy_hash32(k, len(k)))


_filter_may_match = _ffi.lib.rocksfilter_filter_may_match


class FilterBuilder(Owned[_ffi.BuilderHandle]):
    """Collects keys, then writes the filter block RocksDB writes for them.

    ``policy`` is ``"bloom"`` (FastLocalBloom, format_version >= 5),
    ``"ribbon"`` (Standard128Ribbon, with RocksDB's Bloom fallbacks) or
    ``"legacy"`` (the legacy Bloom of format_version < 5). Size the block
    by RocksDB's ``bits_per_key`` (the default, 10.0), or by at most one of
    ``fp_rate`` (a target false-positive rate) and ``max_bytes`` (a byte
    budget, at least 69); ``ribbon_failure_one_in`` (2, 20 or 1000) sizes
    Ribbon's slots. Bad values raise :class:`InvalidArgumentError`.

    A builder belongs to one thread at a time. ``finish()`` empties it for
    reuse; ``close()`` (or leaving a ``with`` block) frees it, after which
    every method raises ``ValueError``.
    """

    _what = "FilterBuilder"

    def __init__(
        self,
        policy: str = "bloom",
        bits_per_key: float = 10.0,
        *,
        fp_rate: Optional[float] = None,
        max_bytes: Optional[int] = None,
        ribbon_failure_one_in: Optional[int] = None,
    ) -> None:
        self._h: Optional[_ffi.BuilderHandle] = None
        code = _POLICIES.get(policy) if isinstance(policy, str) else None
        if code is None:
            raise InvalidArgumentError(
                "invalid argument: policy %r: use 'bloom', 'ribbon' or 'legacy'" % (policy,), 1
            )
        opts = _ffi.BuilderOptions()
        opts.struct_size = ctypes.sizeof(opts)
        opts.policy = code
        opts.bits_per_key = float(bits_per_key)
        if fp_rate is not None:
            opts.fp_rate = float(fp_rate)
            if opts.fp_rate == 0.0:  # 0 means "not set" in C
                raise InvalidArgumentError("invalid argument: fp_rate must be strictly between 0 and 1", 1)
        if max_bytes is not None:
            if max_bytes <= 0 or max_bytes >= 1 << 64:
                raise InvalidArgumentError("invalid argument: max_bytes %r is out of range" % (max_bytes,), 1)
            opts.max_bytes = int(max_bytes)
        if ribbon_failure_one_in is not None:
            if ribbon_failure_one_in <= 0 or ribbon_failure_one_in >= 1 << 32:
                raise InvalidArgumentError(
                    "invalid argument: ribbon_failure_one_in must be 2, 20 or 1000", 1
                )
            opts.ribbon_failure_one_in = int(ribbon_failure_one_in)
        h = _ffi.BuilderHandle()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_builder_new_with_options(byref(opts), byref(h), byref(err)), err)
        self._h = h
        self.policy = policy

    def add(self, k: BytesLike) -> None:
        """Adds a key (adjacent duplicates collapse into one entry, as in RocksDB)."""
        h = self._handle()
        k = key(k)
        _ffi.lib.rocksfilter_builder_add_key(h, k, len(k))

    def add_many(self, keys: Iterable[BytesLike]) -> None:
        """Adds every key of an iterable, in order."""
        h = self._handle()
        add = _ffi.lib.rocksfilter_builder_add_key
        for k in keys:
            k = key(k)
            add(h, k, len(k))

    def add_key_and_alt(self, k: BytesLike, alt: BytesLike) -> None:
        """Adds a key and an alternate form of it (its prefix) with RocksDB
        8.x's AddKeyAndAlt de-duplication (see the C header)."""
        h = self._handle()
        k, alt = key(k), key(alt, "alt")
        _ffi.lib.rocksfilter_builder_add_key_and_alt(h, k, len(k), alt, len(alt))

    def add_hash(self, h64: int) -> None:
        """Adds a key by its :func:`hash64` (not for the legacy Bloom: finish() then fails)."""
        h = self._handle()
        _ffi.lib.rocksfilter_builder_add_hash(h, h64)

    @property
    def num_entries(self) -> int:
        """Entries added since the last finish, duplicates collapsed."""
        return int(_ffi.lib.rocksfilter_builder_num_entries(self._handle()))

    def __len__(self) -> int:
        return self.num_entries

    def finish(self) -> bytes:
        """The filter block for the keys added (RocksDB's bytes), emptying the
        builder. No keys: ``b""``, RocksDB's empty (always-false) filter."""
        h = self._handle()
        data = c_void_p()
        n = c_size_t()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_builder_finish(h, byref(data), byref(n), byref(err)), err)
        if not data.value:
            return b""
        try:
            return ctypes.string_at(data.value, n.value)
        finally:
            _ffi.lib.rocksfilter_bytes_free(data, n)


    def __repr__(self) -> str:
        if self._h is None:
            return "<rocksfilter.FilterBuilder %s, closed>" % self.policy
        return "<rocksfilter.FilterBuilder %s, %d entries>" % (self.policy, self.num_entries)


class FilterInfo(NamedTuple):
    """A loaded filter's geometry (rocksfilter_filter_info_ex)."""

    kind: str
    bytes: int
    num_probes: int
    num_lines: int
    line_bytes: int
    num_blocks: int
    seed: int
    lower_num_columns: int
    upper_start_block: int


class Filter(Owned[_ffi.FilterHandle]):
    """A loaded filter block: validated once, then queried from any thread.

    ``Filter(block)`` takes the bytes of a block (from
    :meth:`FilterBuilder.finish`, or cut out of an SST file); a ``bytes``
    object is used in place (it is immutable), any other buffer is copied.
    A block whose geometry does not fit its length raises
    :class:`CorruptionError`.
    """

    _what = "Filter"

    def __init__(self, block: Union[bytes, bytearray, memoryview]) -> None:
        self._h: Optional[_ffi.FilterHandle] = None
        h = _ffi.FilterHandle()
        err = c_void_p()
        if isinstance(block, bytes):
            status = _ffi.lib.rocksfilter_filter_load_borrowed(block, len(block), byref(h), byref(err))
            h.keep = block  # the handle reads these bytes: keep them as long as it lives
        else:
            data = bytes(memoryview(block).cast("B")) if isinstance(block, memoryview) else bytes(block)
            status = _ffi.lib.rocksfilter_filter_load(data, len(data), byref(h), byref(err))
        check(status, err)
        self._h = h

    @classmethod
    def _from_handle(cls, h: _ffi.FilterHandle) -> "Filter":
        f = cls.__new__(cls)
        f._h = h
        return f

    def may_match(self, k: BytesLike) -> bool:
        """May the key have been added? False is definite."""
        h = self._h
        if h is None:
            raise closed("Filter")
        if type(k) is not bytes:
            k = key(k)
        return bool(_filter_may_match(h, k, len(k)))

    def __contains__(self, k: BytesLike) -> bool:
        return self.may_match(k)

    def may_match_hash(self, h64: int) -> bool:
        """Query by a key's :func:`hash64` (a legacy Bloom filter answers True)."""
        return bool(_ffi.lib.rocksfilter_filter_may_match_hash(self._handle(), h64))

    def may_match_batch(self, keys: Keys, *, fixed_width: bool = False) -> Any:
        """Answers for many keys in one call, with the GIL released.

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
            check(lib.rocksfilter_filter_may_match_packed(h, buf, buf_len, offsets, n, results, byref(err)), err)

        def pointers(keys_p: int, lens: int, n: int, results: int) -> None:
            err = c_void_p()
            check(lib.rocksfilter_filter_may_match_batch_ex(h, keys_p, lens, n, results, byref(err)), err)

        return batch(keys, fixed_width, packed, pointers)

    @property
    def kind(self) -> str:
        """``"fast_local_bloom"``, ``"standard128_ribbon"``, ``"legacy_bloom"``,
        ``"always_false"`` (5 bytes or fewer) or ``"always_true"`` (a
        reserved format)."""
        k = _ffi.lib.rocksfilter_filter_kind(self._handle())
        return KINDS.get(k, "unknown(%d)" % k)

    @property
    def info(self) -> FilterInfo:
        """The filter's geometry."""
        out = _ffi.FilterInfoEx()
        out.struct_size = ctypes.sizeof(out)
        err = c_void_p()
        check(_ffi.lib.rocksfilter_filter_get_info_ex(self._handle(), byref(out), byref(err)), err)
        return FilterInfo(
            KINDS.get(out.kind, "unknown(%d)" % out.kind),
            out.bytes,
            out.num_probes,
            out.num_lines,
            out.line_bytes,
            out.num_blocks,
            out.seed,
            out.lower_num_columns,
            out.upper_start_block,
        )

    def data(self) -> bytes:
        """A copy of the block's bytes (its 5-byte trailer included)."""
        h = self._handle()
        p = c_void_p()
        n = c_size_t()
        err = c_void_p()
        check(_ffi.lib.rocksfilter_filter_data_ex(h, byref(p), byref(n), byref(err)), err)
        return ctypes.string_at(p.value, n.value) if p.value and n.value else b""

    def __bytes__(self) -> bytes:
        return self.data()

    def estimated_fp_rate(self, num_keys: int) -> float:
        """RocksDB's estimate of the false-positive rate with ``num_keys`` keys."""
        return float(_ffi.lib.rocksfilter_filter_estimated_fp_rate(self._handle(), num_keys))


    def __repr__(self) -> str:
        if self._h is None:
            return "<rocksfilter.Filter closed>"
        i = self.info
        return "<rocksfilter.Filter %s, %d bytes>" % (i.kind, i.bytes)
