"""What the UI holds already, per connection: a held row goes as the cells that changed, a pod's record as its state.

Both ends keep, per table (pods, experiments), what the UI holds: the session's `SentRows` (the
rows it sent last, by key) and the UI's `HeldRows` (their keys). Each applies every update in the
order the channel carries it, by one rule: a full update starts again from its rows; otherwise
its rows replace their keys' and its removed keys go (a key both changed and removed stays, as
the table's store has it). So a row whose key the UI holds is sent as a `RowPatchView` (the
indexes and the new cells of those that differ, and the row's group, order and until if they
changed), and not at all if it equals the row held (unless it is also removed: then it goes as
an empty patch, so that it stays). A patch that rows one after another share crosses once, with
their keys (`PatchedView`): a poll that changes many rows the same way (a fleet's status flips)
sends one patch and a key per row, and the UI decodes no cell per row; any other patch goes by
key. The client spreads the shared patches over their keys at C speed (`HeldRows.receive`) and
passes them all on by key: the table's store
(panel/widgets/row_store.py) makes each row from the one it holds and takes what to redraw from
the patched cells, without comparing the row again, and the screens that read whole rows read
the table's. What a poll costs on both sides of the channel follows the cells it changed, not
the rows it touched.

A pod's record (CachedPodView) goes only when it differs from the one this connection sent last
(`SentRecords`): a poll that changes a row (an uptime) and nothing the UI reads of its pod sends
the row's patch and no record. One whose state alone changed (its status, whether and why it is
gone) goes as that state, once per state with the keys of its records (`RecordPatchView`: the
record sent whole with this state); one that changed in more (its account, experiment, name,
GPU or price: seldom) goes whole. The UI keeps each record's latest state patch and applies it
when the record is read (panel/view.py's `PodRecords`): a poll may patch every pod, the owner
reads a few.

The session makes one UpdateView per change, rows whole and every record it touched; its host's
send step (`SentTables.send`) turns it into what this connection carries: the same Struct with
its held rows as patches and its held records as states, its unchanged ones left out, in parts
when it is large.

A patch for a key the UI does not hold (a row's or a record's) is the session's bug: the
client's reading of it fails (`HeldTables.receive`), which ends the channel (the panel restarts
the session, whose first update is full).
"""

from __future__ import annotations

import heapq
from itertools import compress, repeat
from operator import itemgetter, ne
from typing import Any, Callable, Iterable, Iterator, Mapping

import msgspec

from sagan_tui.wire.channel.views import PatchedView, RecordPatchView, RowPatchView, RowView, UpdateView

# Rows per frame of a large update. Its parts go out as each is made, so the session makes the
# next while the UI decodes and applies this one (two processes, two cores), and a key the owner
# presses meanwhile is answered between parts instead of after the whole.
PART_ROWS = 1000


# Rows of each big pane in the first part of a whole panel sent ahead of the panel's first frame (a
# panel attaching to a watch): more than a screen shows. The rest follows at once as an update, so
# what the first frame waits for (encoding, the session's check, decoding, applying) is a screen's
# worth, not the fleet's.
FIRST_ROWS = 200


def first_part(u: UpdateView, rows: int = FIRST_ROWS) -> tuple[UpdateView, UpdateView | None]:
    """A whole panel as its first `rows` experiments and pods in the panes' own order (group, then
    order: what a screen shows first) with every other part of it, and the rest of those rows and
    their records as an update that adds them by key (None when nothing is left)."""
    exps, pods = _first_keys(u.experiments, rows), _first_keys(u.pods, rows)
    if len(exps) == len(u.experiments) and len(pods) == len(u.pods):
        return u, None
    numbers = {int(k) for k in exps if k.isdigit()}
    first = msgspec.structs.replace(
        u, experiments={k: u.experiments[k] for k in exps}, pods={k: u.pods[k] for k in pods},
        experiment_records={n: r for n, r in u.experiment_records.items() if n in numbers},
        pod_records={k: r for k, r in u.pod_records.items() if k in pods})
    rest = UpdateView(
        experiments={k: r for k, r in u.experiments.items() if k not in exps},
        pods={k: r for k, r in u.pods.items() if k not in pods},
        experiment_records={n: r for n, r in u.experiment_records.items() if n not in numbers},
        pod_records={k: r for k, r in u.pod_records.items() if k not in pods})
    return first, rest


def _first_keys(rows: Mapping[str, Any], n: int) -> set[str]:
    if len(rows) <= n:
        return set(rows)
    return {k for k, _ in heapq.nsmallest(n, rows.items(), key=lambda kv: (kv[1].group, kv[1].order))}


class SentRows:
    """The session's end: each row the UI holds, as this channel sent it."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: dict[str, RowView] = {}

    def send(self, rows: Mapping[str, Any], full: bool = False, removed: Iterable[str] = (), keys: Iterable[str] | None = None
             ) -> tuple[dict[str, RowView], dict[str, RowPatchView], tuple[PatchedView, ...]]:
        """`rows` (RowView, by key: render's rows are the wire's; only `keys` of them, if given) as the
        update carries them: whole (a key the UI does not hold, or a row of another width) and as
        patches (every other that differs from the row held: one equal to it is not sent): by key,
        and once with their keys where rows in a row of `rows` have the same patch."""
        if full:
            self.rows = {}
        held, patterns = self.rows, _PATTERNS
        whole: dict[str, RowView] = {}
        runs = _Runs()
        for k, row in (rows.items() if keys is None else zip(keys, map(rows.__getitem__, keys))):
            cells, group, order, until = row.cells, row.group, row.order, row.until
            old = held.get(k)
            if old is None or len(old.cells) != len(cells):
                whole[k] = row
            else:
                differ = tuple(map(ne, old.cells, cells))
                at, pick = patterns.get(differ) or _pattern(differ)
                if until == old.until and group == old.group and order == old.order:
                    if not at:
                        continue  # the row the UI holds
                    patch: tuple = (at, pick(cells))
                else:
                    patch = (at, pick(cells), None if until == old.until else until,
                             None if group == old.group else group, None if order == old.order else order)
                if patch == runs.patch:
                    runs.keys.append(k)
                else:
                    runs.start(patch, k)
            held[k] = row  # a RowView (render's rows are the wire's): untracked by the collector
        runs.start(None, "")
        gone = [k for k in removed if k in rows]
        for k in removed:
            if k not in rows:
                held.pop(k, None)
        if gone:  # unchanged and removed: it stays, so it is sent (as an empty patch)
            sent = {k for p in runs.shared for k in p.keys}
            for k in gone:
                if k not in sent and k not in whole and k not in runs.one:
                    runs.one[k] = RowPatchView((), ())
        return whole, runs.one, tuple(runs.shared)


class _Runs:
    """A poll's patches, as `SentRows.send` makes them in the rows' order: a patch that rows one
    after another share (a fleet's status flip: its rows come in order) goes once with their
    keys; any other by key. Only the patch before is compared (no hashing of cells), so a poll of
    patches each its own (an uptime's sort value in each row) costs one comparison a row more."""

    __slots__ = ("keys", "one", "patch", "shared")

    def __init__(self) -> None:
        self.patch: tuple | None = None
        self.keys: list[str] = []
        self.one: dict[str, RowPatchView] = {}
        self.shared: list[PatchedView] = []

    def start(self, patch: tuple | None, key: str) -> None:
        """End the run so far and start one of `patch` (None: the end)."""
        keys = self.keys
        if len(keys) == 1:
            self.one[keys[0]] = RowPatchView(*self.patch)  # type: ignore[misc]
        elif keys:
            self.shared.append(PatchedView(RowPatchView(*self.patch), tuple(keys)))  # type: ignore[misc]
        self.patch, self.keys = patch, [key]


# A poll's patches share a few change patterns (the same columns change across the fleet): each
# pattern's indexes, and the C-level getter of its cells, are made once. Bounded: a table's width
# allows 2**width patterns.
_PATTERNS: dict[tuple[bool, ...], tuple[tuple[int, ...], Callable[[tuple], tuple]]] = {}
PATTERNS_KEPT = 4096


def _pattern(differ: tuple[bool, ...]) -> tuple[tuple[int, ...], Callable[[tuple], tuple]]:
    """The indexes of the cells that differ, and what picks those cells out of a row's (a tuple)."""
    at = tuple(compress(range(len(differ)), differ))
    pick = itemgetter(*at) if len(at) > 1 else itemgetter(slice(at[0], at[0] + 1) if at else slice(0, 0))
    if len(_PATTERNS) >= PATTERNS_KEPT:
        _PATTERNS.clear()
    _PATTERNS[differ] = (at, pick)
    return at, pick


class HeldRows:
    """The UI's end: the keys of the rows this channel delivered (the rows are the table's)."""

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def receive(self, whole: Mapping[str, Any], patched: Iterable[PatchedView], patches: Mapping[str, Any],
                full: bool = False, removed: Iterable[str] = ()) -> Mapping[str, Any]:
        """Hold the update's keys; its patches by key (`patched`, as the wire carries them, each
        patch with its keys, and any `patches` by key); a KeyError (naming one) for a patch of a
        key not held."""
        if full:
            self.keys = set()
        held = self.keys
        if not patches.keys() <= held:
            raise KeyError(next(k for k in patches if k not in held))
        if patched:
            patches = dict(patches)  # never the caller's
            for p in patched:  # each patch's keys checked and spread at C speed: no pass in Python per row
                _check(held, p.keys)
                patches.update(dict.fromkeys(p.keys, p.patch))
        held.update(whole)
        for k in removed:
            if k not in whole and k not in patches:
                held.discard(k)
        return patches


def _check(held: set[str], keys: tuple[str, ...]) -> None:
    """A KeyError naming the first of `keys` not `held`: a patch the session should not have sent."""
    if not held.issuperset(keys):
        raise KeyError(next(k for k in keys if k not in held))


_ABSENT = object()  # a key of the part with no record in the update


class SentRecords:
    """The session's end of the pods' records: each as this channel sent it last, as what the UI
    holds of the record it was sent whole (all but the state) and its state (RecordPatchView's)."""

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: dict[str, tuple[tuple, tuple]] = {}

    def send(self, records: Mapping[str, Any], full: bool = False,
             keys: Iterable[str] | None = None) -> tuple[dict[str, Any], tuple[RecordPatchView, ...]]:
        """Of `records` (CachedPodView by key; None: no longer held; only `keys` of them, if given),
        those that differ from the ones sent: as their state (status and gone), each state once
        with the keys of its records, where the rest of the record is the one the UI holds; the
        others whole, and every None."""
        if full:
            self.records = {}
        held, out = self.records, {}
        states: dict[tuple, list[str]] = {}
        pairs = records.items() if keys is None else zip(keys, map(records.get, keys, repeat(_ABSENT)))
        for k, record in pairs:
            if record is _ABSENT:
                continue
            if record is None:
                held.pop(k, None)
                out[k] = None
                continue
            was, pod = held.get(k), record.pod
            rest = (pod.name, pod.gpu, pod.cost_per_hr, record.account, record.experiment)
            state = (pod.desired_status, record.gone_at, record.gone_reason)
            if was is None or was[0] != rest:
                out[k] = record
            elif was[1] == state:
                continue  # the record the UI holds
            elif (same := states.get(state)) is None:
                states[state] = [k]
            else:
                same.append(k)
            held[k] = (rest, state)
        return out, tuple(RecordPatchView(*state, tuple(ks)) for state, ks in states.items())


class SentTables:
    """The session's end of one connection: the pods' and the experiments' rows, and the pods'
    records, sent."""

    __slots__ = ("experiments", "pod_records", "pods")

    def __init__(self) -> None:
        self.experiments = SentRows()
        self.pods = SentRows()
        self.pod_records = SentRecords()

    def send(self, u: UpdateView) -> Iterator[UpdateView]:
        """The session's `u` (rows whole, every record it touched) as this connection carries it, in
        parts when it changes more than PART_ROWS pods' rows: each part some pods' rows and records
        (`more` set), the last the rest of the update. Made one by one, in order: each records
        what it sends, so send each update in the order its frames go out. A whole panel
        (`full`) goes in one: its parts would each replace the tables' rows."""
        pods = u.pods
        if u.full or len(pods) <= PART_ROWS:
            yield self.one(u)
            return
        records = u.pod_records
        keys = list(pods)
        for at in range(0, len(keys), PART_ROWS):
            part = keys[at:at + PART_ROWS]
            whole, patches, patched = self.pods.send(pods, keys=part)
            records_whole, record_patches = self.pod_records.send(records, keys=part)
            yield UpdateView(pods=whole, pod_patches=patches, pods_patched=patched, pod_records=records_whole,
                             pod_record_patches=record_patches, more=True)
        # A key both changed and removed stays (the tables' rule): its removal means nothing, and
        # would be read alone in the last part, after its row.
        yield self.one(msgspec.structs.replace(
            u, pods={}, pods_removed=tuple(k for k in u.pods_removed if k not in pods),
            pod_records={k: records[k] for k in records.keys() - pods.keys()}))

    def one(self, u: UpdateView) -> UpdateView:
        """`u` in one frame: its held rows as patches, its unchanged records left out."""
        pods, pod_patches, pods_patched = self.pods.send(u.pods, u.full, u.pods_removed)
        experiments, experiment_patches, experiments_patched = self.experiments.send(u.experiments, u.full)
        records, record_patches = self.pod_records.send(u.pod_records, u.full)
        return msgspec.structs.replace(u, pods=pods, pod_patches=pod_patches, pods_patched=pods_patched,
                                       experiments=experiments, experiment_patches=experiment_patches,
                                       experiments_patched=experiments_patched, pod_records=records,
                                       pod_record_patches=record_patches)


class HeldTables:
    """The UI's end of one connection: the keys of the pods' and the experiments' rows held, and
    of the pods' records."""

    __slots__ = ("experiments", "pod_records", "pods")

    def __init__(self) -> None:
        self.experiments = HeldRows()
        self.pods = HeldRows()
        self.pod_records: set[str] = set()

    def receive(self, u: UpdateView) -> UpdateView:
        """`u` with its patches by key (`pod_patches`, `experiment_patches`), once they are found to
        be of rows and records held (else a KeyError)."""
        pod_patches = self.pods.receive(u.pods, u.pods_patched, u.pod_patches, u.full, u.pods_removed)
        experiment_patches = self.experiments.receive(u.experiments, u.experiments_patched, u.experiment_patches,
                                                      u.full)
        self._records(u)
        if not (u.pods_patched or u.experiments_patched):
            return u
        return msgspec.structs.replace(u, pod_patches=pod_patches, experiment_patches=experiment_patches,
                                       pods_patched=(), experiments_patched=())

    def _records(self, u: UpdateView) -> None:
        """Hold the keys of the update's records; a KeyError for a state patch of a record not held."""
        held = self.pod_records
        if u.full:
            held.clear()
        for p in u.pod_record_patches:
            _check(held, p.keys)
        for k, record in u.pod_records.items():
            if record is None:
                held.discard(k)
            else:
                held.add(k)
