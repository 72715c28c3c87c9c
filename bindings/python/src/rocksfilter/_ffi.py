"""The native library: where it is found, and every C function's signature.

The library is found in this order:

1. ``ROCKSFILTER_LIBRARY``: when this environment variable is set (and not
   empty), it is the path of the library to load and nothing else is tried,
   so a wrong path is an error rather than a silent fallback.
2. The copy bundled in the wheel: ``rocksfilter/_native/<libfile>``, where
   ``<libfile>`` is ``librocksfilter.so`` (Linux), ``librocksfilter.dylib``
   (macOS) or ``rocksfilter.dll`` (Windows).

The library is loaded with :class:`ctypes.CDLL`, so every call into it
releases the GIL for its duration.
"""

import array
import ctypes
import os
import sys
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_bool,
    c_char_p,
    c_double,
    c_int,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, List, Tuple

ENV_VAR = "ROCKSFILTER_LIBRARY"

if sys.platform == "win32":
    LIBFILE = "rocksfilter.dll"
elif sys.platform == "darwin":
    LIBFILE = "librocksfilter.dylib"
else:
    LIBFILE = "librocksfilter.so"

BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")


class NativeLibraryNotFound(ImportError):
    """The native library could not be loaded; the message names every path tried."""


def _load() -> Tuple[ctypes.CDLL, str]:
    tried: List[str] = []
    env = os.environ.get(ENV_VAR, "")
    if env:
        candidates = [(env, "%s=%s" % (ENV_VAR, env))]
    else:
        bundled = os.path.join(BUNDLED_DIR, LIBFILE)
        candidates = [(bundled, "the bundled copy %s" % bundled)]
    for path, what in candidates:
        if not os.path.isfile(path):
            tried.append("%s: no such file" % what)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s: %s" % (what, e))
    hint = (
        "unset %s to use the library bundled in the wheel, or point it at a "
        "librocksfilter built with 'cargo build --release'" % ENV_VAR
        if env
        else "install a rocksfilter wheel for this platform (pip install rocksfilter), "
        "or set %s to the path of %s (cargo build --release writes "
        "target/release/%s)" % (ENV_VAR, LIBFILE, LIBFILE)
    )
    raise NativeLibraryNotFound(
        "rocksfilter: cannot load the native library; tried: %s. %s" % ("; ".join(tried), hint)
    )


lib, LIBRARY_PATH = _load()

# ---------------------------------------------------------------------------
# Structs, as include/rocksfilter.h declares them (the tests compare every
# offset and size with bindings/layout/struct_layout.c).


class BuilderOptions(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("policy", c_uint32),
        ("bits_per_key", c_double),
        ("fp_rate", c_double),
        ("max_bytes", c_uint64),
        ("ribbon_failure_one_in", c_uint32),
        ("reserved", c_uint32),
    ]


class FilterInfoEx(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("kind", c_uint32),
        ("bytes", c_uint64),
        ("num_probes", c_uint32),
        ("num_lines", c_uint32),
        ("line_bytes", c_uint32),
        ("num_blocks", c_uint32),
        ("seed", c_uint32),
        ("lower_num_columns", c_uint32),
        ("upper_start_block", c_uint32),
        ("reserved", c_uint32),
    ]


class CacheStats(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("reserved", c_uint32),
        ("capacity", c_uint64),
        ("bytes_held", c_uint64),
        ("entries", c_uint64),
        ("hits", c_uint64),
        ("misses", c_uint64),
        ("reads", c_uint64),
        ("bytes_read", c_uint64),
        ("read_errors", c_uint64),
        ("bad_blocks", c_uint64),
        ("evictions", c_uint64),
        ("uncached", c_uint64),
        ("open_files", c_uint64),
    ]


class SstOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("flags", c_uint32),
        ("cache", c_void_p),
    ]


READ_AT = CFUNCTYPE(c_int, c_void_p, c_uint64, c_void_p, c_size_t)
RELEASE = CFUNCTYPE(None, c_void_p)


class Source(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("size", c_uint64),
        ("ctx", c_void_p),
        ("read_at", READ_AT),
        ("release", RELEASE),
    ]


class SstOpenStats(Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("reserved", c_uint32),
        ("reads", c_uint64),
        ("bytes_read", c_uint64),
        ("bytes_held", c_uint64),
    ]


class SstProperties(Structure):
    _fields_ = [
        ("format_version", c_uint32),
        ("checksum_type", c_uint32),
        ("filter_type", c_uint32),
        ("num_partitions", c_uint32),
        ("whole_key_filtering", c_bool),
        ("has_prefix_filter", c_bool),
        ("num_entries", c_uint64),
        ("num_filter_entries", c_uint64),
        ("filter_size", c_uint64),
        ("creation_time", c_uint64),
        ("file_creation_time", c_uint64),
        ("filter_policy", c_void_p),
        ("comparator", c_void_p),
        ("prefix_extractor", c_void_p),
        ("filter_block_name", c_void_p),
    ]


# The structs mirrored here, by their C names (for the layout test).
STRUCTS = {
    "rocksfilter_builder_options": BuilderOptions,
    "rocksfilter_filter_info_ex": FilterInfoEx,
    "rocksfilter_cache_stats": CacheStats,
    "rocksfilter_sst_options": SstOptions,
    "rocksfilter_source": Source,
    "rocksfilter_sst_open_stats": SstOpenStats,
    "rocksfilter_sst_properties": SstProperties,
}

# Constants of the header.
OK = 0
POLICY_BLOOM = 1
POLICY_RIBBON = 2
POLICY_LEGACY_BLOOM = 3
SST_SKIP_CHECKSUMS = 1
SST_CACHE_FULL_FILTERS = 4

# ---------------------------------------------------------------------------
# Functions. Handles are void pointers; `errptr` arguments are void** so the
# message pointer can be freed with rocksfilter_string_free().

_ERR = POINTER(c_void_p)
_SIGNATURES: List[Tuple[str, Any, List[Any]]] = [
    ("rocksfilter_version", c_char_p, []),
    ("rocksfilter_hash64", c_uint64, [c_char_p, c_size_t]),
    ("rocksfilter_legacy_hash32", c_uint32, [c_char_p, c_size_t]),
    ("rocksfilter_string_free", None, [c_void_p]),
    ("rocksfilter_bytes_free", None, [c_void_p, c_size_t]),
    # builders
    ("rocksfilter_builder_new_with_options", c_int, [POINTER(BuilderOptions), POINTER(c_void_p), _ERR]),
    ("rocksfilter_builder_add_key", None, [c_void_p, c_char_p, c_size_t]),
    ("rocksfilter_builder_add_key_and_alt", None, [c_void_p, c_char_p, c_size_t, c_char_p, c_size_t]),
    ("rocksfilter_builder_add_hash", None, [c_void_p, c_uint64]),
    ("rocksfilter_builder_num_entries", c_size_t, [c_void_p]),
    ("rocksfilter_builder_finish", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t), _ERR]),
    ("rocksfilter_builder_free", None, [c_void_p]),
    # filters
    ("rocksfilter_filter_load", c_int, [c_char_p, c_size_t, POINTER(c_void_p), _ERR]),
    ("rocksfilter_filter_load_borrowed", c_int, [c_char_p, c_size_t, POINTER(c_void_p), _ERR]),
    ("rocksfilter_filter_may_match", c_bool, [c_void_p, c_char_p, c_size_t]),
    ("rocksfilter_filter_may_match_hash", c_bool, [c_void_p, c_uint64]),
    ("rocksfilter_filter_may_match_batch_ex", c_int, [c_void_p, c_void_p, c_void_p, c_size_t, c_void_p, _ERR]),
    ("rocksfilter_filter_may_match_packed", c_int, [c_void_p, c_void_p, c_size_t, c_void_p, c_size_t, c_void_p, _ERR]),
    ("rocksfilter_filter_kind", c_int, [c_void_p]),
    ("rocksfilter_filter_get_info_ex", c_int, [c_void_p, POINTER(FilterInfoEx), _ERR]),
    ("rocksfilter_filter_data_ex", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t), _ERR]),
    ("rocksfilter_filter_estimated_fp_rate", c_double, [c_void_p, c_size_t]),
    ("rocksfilter_filter_free", None, [c_void_p]),
    # caches
    ("rocksfilter_cache_new", c_void_p, [c_size_t]),
    ("rocksfilter_cache_new_with_open_files", c_void_p, [c_size_t, c_size_t]),
    ("rocksfilter_cache_free", None, [c_void_p]),
    ("rocksfilter_cache_bytes_held", c_size_t, [c_void_p]),
    ("rocksfilter_cache_get_stats", c_int, [c_void_p, POINTER(CacheStats), _ERR]),
    # SST files
    ("rocksfilter_sst_open_ex", c_int, [c_char_p, POINTER(SstOptions), POINTER(c_void_p), _ERR]),
    ("rocksfilter_sst_open_memory_opts", c_int, [c_char_p, c_size_t, c_uint32, POINTER(c_void_p), _ERR]),
    ("rocksfilter_sst_open_source_ex", c_int, [POINTER(Source), POINTER(SstOptions), POINTER(c_void_p), _ERR]),
    ("rocksfilter_sst_get_open_stats", c_int, [c_void_p, POINTER(SstOpenStats), _ERR]),
    ("rocksfilter_sst_may_match", c_bool, [c_void_p, c_char_p, c_size_t]),
    ("rocksfilter_sst_may_match_batch", None, [c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
    ("rocksfilter_sst_may_match_packed", c_int, [c_void_p, c_void_p, c_size_t, c_void_p, c_size_t, c_void_p, _ERR]),
    ("rocksfilter_sst_prefix_may_match", c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_bool), _ERR]),
    ("rocksfilter_sst_full_filter", c_int, [c_void_p, POINTER(c_void_p), _ERR]),
    ("rocksfilter_sst_filter_type", c_uint32, [c_void_p]),
    ("rocksfilter_sst_get_properties_ex", c_int, [c_void_p, POINTER(SstProperties), _ERR]),
    ("rocksfilter_sst_property", c_void_p, [c_void_p, c_char_p, POINTER(c_size_t)]),
    ("rocksfilter_sst_free", None, [c_void_p]),
]


def _bind() -> None:
    missing = []
    for name, restype, argtypes in _SIGNATURES:
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    if missing:
        raise NativeLibraryNotFound(
            "rocksfilter: the native library %s lacks %s: it is older than this package "
            "(or not librocksfilter at all)" % (LIBRARY_PATH, ", ".join(missing))
        )


_bind()


def native_version() -> str:
    v = lib.rocksfilter_version()
    return v.decode("ascii") if v else ""


def take_message(err: c_void_p) -> str:
    """The message behind an errptr, freed; "" when none was stored."""
    if not err.value:
        return ""
    try:
        return ctypes.string_at(err.value).decode("utf-8", "replace")
    finally:
        lib.rocksfilter_string_free(err)
        err.value = None


# The handle types: a void pointer that frees what it points to when the last
# reference to it goes. Each Python object holds one; a call in progress holds
# another (a local variable), so closing a handle while another thread is
# inside a call on it frees the native handle only when that call returns.


class _Handle(c_void_p):
    _free_name = ""
    keep: Any = None  # memory the native handle reads (a borrowed block or file image)

    def __del__(self) -> None:
        p = self.value
        if p:
            self.value = None
            try:
                getattr(lib, self._free_name)(p)
            except Exception:  # interpreter shutdown: the module may be gone
                pass


class BuilderHandle(_Handle):
    _free_name = "rocksfilter_builder_free"


class FilterHandle(_Handle):
    _free_name = "rocksfilter_filter_free"


class CacheHandle(_Handle):
    _free_name = "rocksfilter_cache_free"


class SstHandle(_Handle):
    _free_name = "rocksfilter_sst_free"


BOOL_SIZE = ctypes.sizeof(c_bool)
SIZE_T_SIZE = ctypes.sizeof(c_size_t)
# The array module's typecode of size_t.
SIZE_T_CODE = next(c for c in "QLI" if array.array(c).itemsize == SIZE_T_SIZE)
