"""RocksDB filter blocks (FastLocalBloom, Standard128Ribbon, legacy Bloom)
byte for byte, and the filters of RocksDB's SST files, without RocksDB.

A ctypes binding of librocksfilter's C ABI (include/rocksfilter.h), which
the wheel bundles: installing needs no compiler and no Rust.

>>> import rocksfilter
>>> b = rocksfilter.FilterBuilder("bloom", bits_per_key=10.0)
>>> b.add(b"key")
>>> f = rocksfilter.Filter(b.finish())
>>> f.may_match(b"key")
True

Errors are :class:`Error` subclasses by the C status, carrying the C
message; a closed handle raises ``ValueError``. Every call into the library
releases the GIL.
"""

from ._errors import (
    CorruptionError,
    Error,
    InternalError,
    InvalidArgumentError,
    IOError,
    NotFoundError,
    NotSupportedError,
)
from ._ffi import LIBRARY_PATH, NativeLibraryNotFound
from ._filter import Filter, FilterBuilder, FilterInfo, hash64, legacy_hash32, version
from ._sst import Cache, CacheStats, OpenStats, Sst, SstProperties

__version__ = "0.1.0"

for _cls in (
    CorruptionError, Error, InternalError, InvalidArgumentError, IOError, NotFoundError, NotSupportedError,
    NativeLibraryNotFound, Filter, FilterBuilder, FilterInfo, Cache, CacheStats, OpenStats, Sst, SstProperties,
):
    _cls.__module__ = __name__
del _cls

__all__ = [
    "Cache",
    "CacheStats",
    "CorruptionError",
    "Error",
    "Filter",
    "FilterBuilder",
    "FilterInfo",
    "IOError",
    "InternalError",
    "InvalidArgumentError",
    "LIBRARY_PATH",
    "NativeLibraryNotFound",
    "NotFoundError",
    "NotSupportedError",
    "OpenStats",
    "Sst",
    "SstProperties",
    "__version__",
    "hash64",
    "legacy_hash32",
    "version",
]
