"""A sorted list of timed field updates; the state at time t is every update up to t merged."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any


class Timeline:
    """Field updates keyed by scenario time; later updates win, equal times keep insertion order."""

    __slots__ = ("_keys", "_fields", "_seq", "_merged")

    def __init__(self) -> None:
        self._keys: list[tuple[float, int]] = []
        self._fields: list[dict[str, Any]] = []
        self._seq = 0
        self._merged: tuple[int, dict[str, Any]] | None = None  # (updates merged, their state)

    def add(self, t: float, **fields: Any) -> tuple[float, int]:
        """Add an update; its key, for `discard`."""
        self._merged = None
        self._seq += 1
        key = (t, self._seq)
        i = bisect_right(self._keys, key)
        self._keys.insert(i, key)
        self._fields.insert(i, fields)
        return key

    def discard(self, key: tuple[float, int]) -> None:
        """Forget one update (a future that will not happen now: a stopped pod's RUNNING)."""
        if key in self._keys:
            i = self._keys.index(key)
            del self._keys[i], self._fields[i]
            self._merged = None

    def cut_after(self, t: float) -> None:
        """Forget every update after t: what the script had planned past a change of course."""
        n = self.count_at(t)
        del self._keys[n:], self._fields[n:]
        self._merged = None

    def count_at(self, t: float) -> int:
        """How many updates have happened by time t (a cheap cache key)."""
        return bisect_right(self._keys, (t, float("inf")))

    def state(self, t: float) -> dict[str, Any]:
        n = self.count_at(t)
        if self._merged is None or self._merged[0] != n:
            # Every served view asks for it (three times per pod in a REST list of 10,000 pods),
            # and it moves only when t passes an update: merged once, handed out as copies.
            out: dict[str, Any] = {}
            for fields in self._fields[:n]:
                out.update(fields)
            self._merged = (n, out)
        return dict(self._merged[1])

    def last_change(self, t: float) -> float | None:
        """The time of the latest update at or before t."""
        n = self.count_at(t)
        return self._keys[n - 1][0] if n else None

    def updates(self, t: float) -> list[tuple[float, dict[str, Any]]]:
        """Every update up to t, oldest first, with its time (what a pod's system log retells)."""
        n = self.count_at(t)
        return [(k[0], dict(f)) for k, f in zip(self._keys[:n], self._fields[:n])]

    def times(self) -> list[float]:
        return [k[0] for k in self._keys]

    def __len__(self) -> int:
        return len(self._keys)
