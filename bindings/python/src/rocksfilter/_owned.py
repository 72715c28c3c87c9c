"""The lifecycle every class owning a native handle shares: FilterBuilder,
Filter, Cache and Sst."""

from typing import Any, Generic, Optional, TypeVar

from ._errors import closed

H = TypeVar("H")
S = TypeVar("S", bound="Owned[Any]")


class Owned(Generic[H]):
    """`_handle()` returns the live handle or raises once closed; `close()`
    drops it (the handle's finalizer frees the native object after any call
    running in another thread returns); a context manager closes on exit."""

    _what = "handle"
    _h: Optional[H]

    def _handle(self) -> H:
        h = self._h
        if h is None:
            raise closed(self._what)
        return h

    def close(self) -> None:
        """Frees the native object (idempotent); a call running in another
        thread finishes first."""
        self._h = None

    @property
    def closed(self) -> bool:
        return self._h is None

    def __enter__(self: S) -> S:
        self._handle()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
