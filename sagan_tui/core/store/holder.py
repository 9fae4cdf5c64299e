"""What a repository needs of the connection holder (core/store/cache.py's Cache): committed reads and
the write transaction. The repositories name this, not Cache, so that no store module imports the
one that composes it."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Any, Iterable, Protocol


class Holder(Protocol):
    def rows(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Committed rows as dicts."""

    def tuples(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """Committed rows as plain tuples."""

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction."""
