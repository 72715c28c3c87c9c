"""Keys handed to the library: single keys, and batches from a list or NumPy."""

import array
import ctypes
import sys
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Callable, Sequence, Union

from . import _ffi

if TYPE_CHECKING:  # pragma: no cover
    import numpy

BytesLike = Union[bytes, bytearray, memoryview]
#: What the batch calls accept: a sequence of bytes-like keys, or a NumPy
#: array of dtype ``S<n>`` (or ``V<n>``).
Keys = Union[Sequence[BytesLike], "numpy.ndarray"]

# (buf, buf_len, offsets, n, results): key i is buf[offsets[i]:offsets[i+1]];
# buf is a bytes object or an address, the others addresses.
PackedCall = Callable[[Union[bytes, int], int, int, int, int], None]
# (keys, lens, n, results): key i is lens[i] bytes at keys[i].
PointersCall = Callable[[int, int, int, int], None]


def key(k: Any, what: str = "key") -> bytes:
    """A key as bytes, for the single-key calls (no copy for bytes)."""
    if isinstance(k, bytes):
        return k
    if isinstance(k, (bytearray, memoryview)):
        return bytes(k)
    if isinstance(k, str):
        raise TypeError("a %s is bytes, not str: encode it first (e.g. %r.encode())" % (what, k[:20]))
    raise TypeError("a %s must be bytes, bytearray or memoryview, not %s" % (what, type(k).__name__))


def batch(keys: Any, fixed_width: bool, packed: PackedCall, pointers: PointersCall) -> Any:
    """Runs a batch query over `keys`; the answers as a list, or as a NumPy
    bool array of the input's shape when `keys` is a NumPy array."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(keys, np.ndarray):
        return _numpy_batch(np, keys, fixed_width, packed, pointers)
    if fixed_width:
        raise TypeError("fixed_width=True applies to NumPy arrays of dtype 'S<n>' only")
    if isinstance(keys, (bytes, bytearray, memoryview, str)):
        raise TypeError("keys must be a sequence of keys, not a single %s" % type(keys).__name__)
    if not isinstance(keys, (list, tuple)):
        keys = list(keys)
    n = len(keys)
    if n == 0:
        return []
    try:
        buf = b"".join(keys)
    except TypeError as e:
        raise TypeError("keys must be bytes-like: %s" % e) from None
    offsets = array.array(_ffi.SIZE_T_CODE, accumulate(map(len, keys), initial=0))
    if offsets[-1] != len(buf):
        # A memoryview whose items are wider than a byte: len() counted items.
        keys = [bytes(k) for k in keys]
        offsets = array.array(_ffi.SIZE_T_CODE, accumulate(map(len, keys), initial=0))
    results = bytearray(n)
    res = (ctypes.c_char * n).from_buffer(results)
    packed(buf, len(buf), offsets.buffer_info()[0], n, ctypes.addressof(res))
    del res
    return memoryview(results).cast("?").tolist()


def _numpy_batch(np: Any, arr: Any, fixed_width: bool, packed: PackedCall, pointers: PointersCall) -> Any:
    dt = arr.dtype
    if not (dt.kind == "S" or (dt.kind == "V" and dt.fields is None and dt.subdtype is None)):
        raise TypeError(
            "a NumPy array of keys must have dtype 'S<n>' (or 'V<n>'), not %r: "
            "use arr.astype('S') or a list of bytes" % (dt.str,)
        )
    shape = arr.shape
    a = np.ascontiguousarray(arr).reshape(-1)  # a view when arr is C-contiguous
    n = a.size
    w = dt.itemsize
    out = np.empty(n, dtype=np.bool_)
    if n == 0:
        return out.reshape(shape)
    if w == 0:
        offsets = np.zeros(n + 1, dtype=np.uintp)
        packed(a.ctypes.data, 0, offsets.ctypes.data, n, out.ctypes.data)
        return out.reshape(shape)
    rows = a.view(np.uint8).reshape(n, w)
    if dt.kind == "V" or fixed_width or rows[:, w - 1].all():
        # Every key is exactly w bytes: the array's own buffer, key i at i*w.
        offsets = np.arange(0, (n + 1) * w, w, dtype=np.uintp)
        packed(a.ctypes.data, n * w, offsets.ctypes.data, n, out.ctypes.data)
    else:
        # NumPy drops an 'S' item's trailing NULs (arr[i], arr.tolist()), and
        # so does the batch: point at each key in place, with its length.
        str_len = np.strings.str_len if hasattr(np, "strings") else np.char.str_len  # NumPy 2 / 1
        lens = str_len(a).astype(np.uintp)
        ptrs = np.arange(n, dtype=np.uintp) * np.uintp(w) + np.uintp(a.ctypes.data)
        pointers(ptrs.ctypes.data, lens.ctypes.data, n, out.ctypes.data)
    return out.reshape(shape)
