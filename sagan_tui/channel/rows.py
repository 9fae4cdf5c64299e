"""A table's rows on the channel: a row the UI holds already goes as the cells that changed.

Both ends keep the same table of what the UI holds, one per table (pods, experiments), per
connection: the session's `SentRows` (the rows it sent last, by key) and the UI's `HeldRows`
(the rows it received, by key). Each applies every update in the order the channel carries it,
by one rule: a full update starts again from its rows; otherwise its rows replace their keys'
and its removed keys go (a key both changed and removed stays, as the table's store has it).
So a row whose key the UI holds is sent as a `RowPatchView` (the indexes and the new cells of
those that differ, and the row's group, order and until if they changed) and the UI makes the whole row again
from the one it holds, sharing the cells that did not change: the table's diff then finds them
unchanged by identity, and what a poll costs on both sides of the channel follows the cells it
changed, not the rows it touched. What the screens receive is whole rows, as before; only the
frame is smaller.

A patch for a key the UI does not hold is the session's bug: the client's reading of it fails,
which ends the channel (the panel restarts the session, whose first update is full).
"""

from __future__ import annotations

from itertools import compress
from operator import ne
from typing import Any, Iterable, Mapping

import msgspec

from sagan_tui.channel.views import RowPatchView, RowView, UpdateView


def _forget(held: dict, changed: Mapping[str, Any], removed: Iterable[str]) -> None:
    for k in removed:
        if k not in changed:
            held.pop(k, None)


class SentRows:
    """The session's end: each row the UI holds, as this channel sent it."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: dict[str, RowView] = {}

    def send(self, rows: Mapping[str, Any], full: bool = False,
             removed: Iterable[str] = ()) -> tuple[dict[str, RowView], dict[str, RowPatchView]]:
        """`rows` (render.Row or RowView, by key) as the update carries them: whole (a key the UI
        does not hold, or a row of another width) and as patches (every other)."""
        if full:
            self.rows = {}
        held = self.rows
        whole: dict[str, RowView] = {}
        patches: dict[str, RowPatchView] = {}
        for k, row in rows.items():
            cells = row.cells
            old = held.get(k)
            if old is None or len(old.cells) != len(cells):
                whole[k] = sent = RowView(cells, row.group, row.order, row.until)
            else:
                differ = list(map(ne, old.cells, cells))
                until, group, order = row.until, row.group, row.order
                patches[k] = RowPatchView(tuple(compress(range(len(cells)), differ)), tuple(compress(cells, differ)),
                                          None if until == old.until else until,
                                          None if group == old.group else group,
                                          None if order == old.order else order)
                sent = RowView(cells, group, order, until)
            held[k] = sent  # untracked by the collector, as a render.Row is not
        _forget(held, rows, removed)
        return whole, patches


class HeldRows:
    """The UI's end: the rows this channel delivered, by key."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: dict[str, RowView] = {}

    def receive(self, whole: Mapping[str, RowView], patches: Mapping[str, RowPatchView], full: bool = False,
                removed: Iterable[str] = ()) -> dict[str, RowView]:
        """The update's rows made whole again (KeyError for a patch of a key not held)."""
        if full:
            self.rows = {}
        held = self.rows
        out = dict(whole)
        for k, patch in patches.items():
            out[k] = patch.applied_to(held[k])
        held.update(out)
        _forget(held, out, removed)
        return out


class SentTables:
    """The session's end of one connection: the pods' and the experiments' rows sent."""

    __slots__ = ("experiments", "pods")

    def __init__(self) -> None:
        self.experiments = SentRows()
        self.pods = SentRows()


class HeldTables:
    """The UI's end of one connection: each update's patches made whole rows again."""

    __slots__ = ("experiments", "pods")

    def __init__(self) -> None:
        self.experiments = HeldRows()
        self.pods = HeldRows()

    def receive(self, u: UpdateView) -> UpdateView:
        """`u` as the screens read it: every row whole, no patch."""
        pods = self.pods.receive(u.pods, u.pod_patches, u.full, u.pods_removed)
        experiments = self.experiments.receive(u.experiments, u.experiment_patches, u.full)
        if not u.pod_patches and not u.experiment_patches:
            return u
        return msgspec.structs.replace(u, pods=pods, experiments=experiments, pod_patches={}, experiment_patches={})
