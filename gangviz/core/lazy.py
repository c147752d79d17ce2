"""A read-only sequence whose items are made when they are read (:class:`MadeOnRead`): columns
of numbers read like a list of records, without a record object kept per item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class MadeOnRead(Sequence[T]):
    """A sequence of ``len(self)`` items, item ``i`` made by ``_make(i)`` each time it is read.

    Indexing counts from the end for a negative index and raises ``IndexError`` ("<item> index
    out of range", :attr:`_ITEM` naming the item) past either end; a slice gives a list.
    Subclasses define ``__len__`` and ``_make``.
    """

    __slots__ = ()
    _ITEM = "item"

    def __len__(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _make(self, i: int) -> T:  # pragma: no cover - abstract
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(n))]
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"{self._ITEM} index out of range")
        return self._make(i)
