"""Exceptions: one class per rocksfilter_status, all under :class:`Error`."""

import ctypes
from typing import Dict, Optional, Type

from . import _ffi


class Error(Exception):
    """A call into the library failed.

    ``status`` is the C status (a ``rocksfilter_status`` value) and
    ``message`` the library's message, which starts with the status in words
    (``"corruption: ..."``) and says what was wrong and where.
    """

    status: int = -1

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidArgumentError(Error, ValueError):
    """ROCKSFILTER_INVALID_ARGUMENT: an unusable argument (also a ValueError)."""

    status = 1


class CorruptionError(Error):
    """ROCKSFILTER_CORRUPTION: the bytes are not a valid block or file."""

    status = 2


class NotSupportedError(Error):
    """ROCKSFILTER_NOT_SUPPORTED: valid input this version does not handle."""

    status = 3


class IOError(Error):  # noqa: A001 - the status's name, as rocksfilter.IOError
    """ROCKSFILTER_IO_ERROR: a read failed.

    When a ``read_at`` callback (:meth:`Sst.from_reader`) raised, that
    exception is this one's ``__cause__``.
    """

    status = 4


class NotFoundError(Error):
    """ROCKSFILTER_NOT_FOUND: e.g. no full filter in a partitioned file."""

    status = 5


class InternalError(Error):
    """ROCKSFILTER_INTERNAL: a bug in rocksfilter (a caught panic); please report it."""

    status = 6


_BY_STATUS: Dict[int, Type[Error]] = {
    c.status: c
    for c in (InvalidArgumentError, CorruptionError, NotSupportedError, IOError, NotFoundError, InternalError)
}

_WORDS = {
    1: "invalid argument",
    2: "corruption",
    3: "not supported",
    4: "I/O error",
    5: "not found",
    6: "internal error",
}


def error_for(status: int, message: str) -> Error:
    """The exception for a C status and its message (a default one when empty)."""
    if not message:
        message = _WORDS.get(status, "status %d" % status)
    return _BY_STATUS.get(status, Error)(message, status)


def check(status: int, err: ctypes.c_void_p) -> None:
    """Raises the status's exception (with the message behind `err`) unless OK."""
    message = _ffi.take_message(err)
    if status != _ffi.OK:
        raise error_for(status, message)


def closed(what: str) -> ValueError:
    return ValueError("operation on a closed %s" % what)
