"""The memory of the in-memory search indexes (vectors.py, texts.py): when
loading one takes their total above the store's budget, the least recently
used others are dropped, to be loaded again when next used."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

__all__ = ["Budget"]


class Budget:
    """Loaded indexes, least recently used first, within ``limit`` bytes
    (None: no limit). An index that alone exceeds the limit stays loaded
    while it is the one in use."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Callable[[], int], Callable[[], object]]] = OrderedDict()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def used(self, key: Hashable) -> None:
        """An index was used: it becomes the most recently used."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)

    def loaded(self, key: Hashable, size: Callable[[], int], drop: Callable[[], object]) -> None:
        """An index was loaded: ``size`` tells its bytes, ``drop`` forgets
        it. Drops the least recently used others while over the limit."""
        with self._lock:
            self._entries[key] = (size, drop)
            self._entries.move_to_end(key)
            self._trim()

    def trim(self) -> None:
        """Drop the least recently used indexes while over the limit, as
        indexes grow with writes; the most recently used one stays."""
        with self._lock:
            self._trim()

    def _trim(self) -> None:
        if self.limit is None or len(self._entries) < 2:
            return
        total = sum(s() for s, _ in self._entries.values())
        keep = next(reversed(self._entries))
        for other in list(self._entries):
            if total <= self.limit:
                break
            if other == keep:
                continue
            other_size, other_drop = self._entries.pop(other)
            total -= other_size()
            other_drop()

    def forget(self, key: Hashable) -> None:
        """An index was dropped by its owner."""
        with self._lock:
            self._entries.pop(key, None)

    def total(self) -> int:
        """The bytes of every loaded index."""
        with self._lock:
            return sum(s() for s, _ in self._entries.values())
