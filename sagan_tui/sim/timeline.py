"""A sorted list of timed field updates; the state at time t is every update up to t merged."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any


class Timeline:
    """Field updates keyed by scenario time; later updates win, equal times keep insertion order."""

    __slots__ = ("_keys", "_fields", "_seq")

    def __init__(self) -> None:
        self._keys: list[tuple[float, int]] = []
        self._fields: list[dict[str, Any]] = []
        self._seq = 0

    def add(self, t: float, **fields: Any) -> None:
        self._seq += 1
        key = (t, self._seq)
        i = bisect_right(self._keys, key)
        self._keys.insert(i, key)
        self._fields.insert(i, fields)

    def count_at(self, t: float) -> int:
        """How many updates have happened by time t (a cheap cache key)."""
        return bisect_right(self._keys, (t, float("inf")))

    def state(self, t: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for fields in self._fields[: self.count_at(t)]:
            out.update(fields)
        return out

    def last_change(self, t: float) -> float | None:
        """The time of the latest update at or before t."""
        n = self.count_at(t)
        return self._keys[n - 1][0] if n else None

    def times(self) -> list[float]:
        return [k[0] for k in self._keys]

    def __len__(self) -> int:
        return len(self._keys)
