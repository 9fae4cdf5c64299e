"""Row changes applied a slice per turn of the UI loop, so a key typed during a big update is answered between slices.

At 10,000 pods a status tick or a poll can change thousands of rows at once (every pod's "up"
in its first hour, a restart of the fleet): applied in one message they held the UI thread
80-150 ms, and a key pressed meanwhile waited for all of it. The backlog keeps the rows not yet
applied by key, a newer row for a key replacing the older (an update that arrives while rows
wait can never be overtaken by them), and hands out at most ROWS_PER_TURN at a time.
"""

from __future__ import annotations

import dataclasses
from itertools import islice
from typing import Any

ROWS_PER_TURN = 400  # about 10 ms of the UI thread on this machine


def _first(rows: dict[str, Any], n: int) -> dict[str, Any]:
    taken = dict(islice(rows.items(), max(0, n)))
    for key in taken:
        del rows[key]
    return taken


class RowBacklog:
    """The experiments' and pods' rows an update brought that are not applied yet."""

    def __init__(self, per_turn: int = ROWS_PER_TURN) -> None:
        self.per_turn = per_turn
        self.experiments: dict[str, Any] = {}
        self.pods: dict[str, Any] = {}

    @property
    def waiting(self) -> bool:
        return bool(self.experiments or self.pods)

    def take(self, u):
        """`u` (a PanelUpdate) with at most `per_turn` of the rows waiting, its own included;
        everything else in it (records, removals, losses, health) goes now. A full update
        replaces every pane: nothing that waited before it still stands. An empty `u` takes
        the next slice."""
        if u.full:
            self.experiments.clear()
            self.pods.clear()
            return u
        for key in u.pods_removed:
            self.pods.pop(key, None)
        self.experiments.update(u.experiments)
        self.pods.update(u.pods)
        exps = _first(self.experiments, self.per_turn)
        return dataclasses.replace(u, experiments=exps, pods=_first(self.pods, self.per_turn - len(exps)))
