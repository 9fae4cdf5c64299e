"""A row the UI holds already crosses the channel as the cells that changed (wire/channel/rows.py), and
the table's store applies the patch to the row it holds: it ends up holding, showing and ordering
exactly what the same rows applied whole in-process give, and redraws the same cells. A pod's
record crosses only when it changed, and the UI's view still has every pod's latest record."""

from __future__ import annotations

import pytest

from sagan_tui.wire.channel.messages import TO_PANEL, Update, encode
from sagan_tui.wire.channel.rows import HeldTables, SentTables
from sagan_tui.wire.channel.views import CachedPodView, PodRecordView, RowPatchView, UpdateView
from sagan_tui.wire.render import Cell, Column, Row
from sagan_tui.panel.view import PanelView
from sagan_tui.panel.widgets.row_store import RowStore

COLUMNS = [Column("id", "id"), Column("status", "status"), Column("seen", "seen")]


def row(pod: str, status: str, seen: int, group: int = 0, until: float = 1e9, order: int = 0) -> Row:
    return Row((Cell(pod, "bold"), Cell(status, "green" if status == "RUNNING" else "yellow"),
                Cell(f"{seen // 60}m", "dim", sort=-seen)), group=group, order=(order, "team", pod), until=until)


def update(pods: dict | None = None, removed: tuple = (), full: bool = False, records: dict | None = None):
    """An update as the session builds it: rows whole, every record it touched."""
    return UpdateView(pods=pods or {}, pods_removed=removed, full=full, pod_records=records or {})


def over_the_channel(sent: SentTables, held: HeldTables, u: UpdateView) -> UpdateView:
    """`u` through the host's send step, encoded, decoded and checked as the client does."""
    [message] = sent.send(u)
    return held.receive(TO_PANEL.decode(encode(Update(message))).update)


def apply(store: RowStore, u):
    """As MainScreen.apply does: a full update replaces the rows, any other is a diff."""
    if u.full:
        return store.replace(u.pods)
    return store.update(u.pods, u.pods_removed, getattr(u, "pod_patches", None))


def shown(r) -> tuple:
    """What a row shows and sorts by (a render.Row or the RowView it arrived as)."""
    return (tuple((c.text, c.style, c.sort) for c in r.cells), r.group, tuple(r.order), r.until)


def state(store: RowStore) -> tuple:
    return {k: shown(r) for k, r in store.records.items()}, list(store.order), dict(store.marks)


STEPS = [
    update({"a": row("a", "RUNNING", 60), "b": row("b", "RUNNING", 120), "c": row("c", "RUNNING", 180)}, full=True),
    update({"a": row("a", "EXITED", 60)}),  # one cell
    update({"b": row("b", "RUNNING", 540, until=5.0)}),  # a cell and the until
    update({"b": row("b", "RUNNING", 540, until=7.0)}),  # only the until
    update({"a": row("a", "EXITED", 60, group=1)}),  # only the group: it moves
    update({"c": row("c", "RUNNING", 200)}),  # only the sort value of a cell: nothing drawn
    update({"d": row("d", "RUNNING", 3)}, removed=("b",)),  # a new key whole, one gone
    update({"b": row("b", "EXITED", 240)}),  # the gone key comes back: whole
    update({"a": row("a", "EXITED", 120), "d": row("d", "EXITED", 3)}, removed=("a", "d")),  # changed and removed: stay
    update({"c": row("c", "RUNNING", 200)}, removed=("c",)),  # unchanged and removed: stays
    update({"c": row("c", "RUNNING", 200, order=-1)}),  # only the order: it moves
    update({"c": row("c", "RUNNING", 300)}, full=True),  # starts again
    update({"c": row("c", "LOST", 360, group=1)}),
]


@pytest.mark.parametrize("sort", [None, (2, False), (1, True)])
def test_patched_rows_leave_the_table_as_the_rows_applied_whole_and_redraw_the_same_cells(sort):
    sent, held = SentTables(), HeldTables()
    channel, in_process = RowStore(COLUMNS), RowStore(COLUMNS)
    for store in (channel, in_process):
        if sort is not None:
            store.set_sort(*sort)
    for n, u in enumerate(STEPS):
        got = over_the_channel(sent, held, u)
        via_channel, whole = apply(channel, got), apply(in_process, u)
        assert state(channel) == state(in_process), n
        assert {k: list(v) for k, v in via_channel.redraw.items()} == whole.redraw, n
        assert via_channel.reordered == whole.reordered, n
        assert {k: shown(r) for k, r in channel.shown.items()} == {k: shown(r) for k, r in in_process.shown.items()}
        assert [channel.index[k] for k in channel.order] == list(range(len(channel.order)))
        assert held.pods.keys == set(sent.pods.rows) == set(channel.records), n


def test_a_patch_carries_only_what_changed_and_the_row_shares_the_cells_held():
    sent, held, store = SentTables(), HeldTables(), RowStore(COLUMNS)
    apply(store, over_the_channel(sent, held, update({"a": row("a", "RUNNING", 60)}, full=True)))
    first = store.records["a"]
    got = over_the_channel(sent, held, update({"a": row("a", "EXITED", 60)}))
    assert got.pods == {} and got.pod_patches == {"a": RowPatchView((1,), (Cell("EXITED", "yellow"),))}
    assert {k: list(v) for k, v in apply(store, got).redraw.items()} == {"a": [1]}
    again = store.records["a"]
    assert again.cells[1].text == "EXITED"
    assert again.cells[0] is first.cells[0] and again.cells[2] is first.cells[2]
    assert (again.group, again.order, again.until) == (first.group, first.order, first.until)


def test_a_row_equal_to_the_one_held_is_not_sent_and_one_of_another_width_goes_whole():
    sent, held = SentTables(), HeldTables()
    over_the_channel(sent, held, update({"a": row("a", "RUNNING", 60), "b": row("b", "RUNNING", 60)}, full=True))
    got = over_the_channel(sent, held, update({"a": row("a", "RUNNING", 60), "b": row("b", "EXITED", 60)}))
    assert set(got.pod_patches) == {"b"} and got.pods == {}
    got = over_the_channel(sent, held, update({"a": Row((Cell("a"),), order=(0, "team", "a"))}))
    assert set(got.pods) == {"a"} and got.pod_patches == {}


def test_a_patched_row_follows_the_scope_and_the_filter():
    sent, held = SentTables(), HeldTables()
    channel, in_process = RowStore(COLUMNS), RowStore(COLUMNS)
    steps = [update({"a": row("a", "RUNNING", 60), "b": row("b", "RUNNING", 60)}, full=True),
             update({"a": row("a", "EXITED", 60)}),  # hidden by the filter now
             update({"b": row("b", "EXITED", 60, group=1)}),  # out of the scope now
             update({"a": row("a", "RUNNING", 120), "b": row("b", "RUNNING", 60)})]  # both back
    for store in (channel, in_process):
        store.set_filter("running")
        store.scope = lambda _k, r: r.group == 0
    for u in steps:
        apply(channel, over_the_channel(sent, held, u))
        apply(in_process, u)
        assert state(channel) == state(in_process)
    assert channel.order == ["a", "b"]


def test_a_patch_for_a_key_the_ui_does_not_hold_cannot_be_read():
    held = HeldTables()
    with pytest.raises(KeyError, match="ghost"):
        held.receive(UpdateView(pod_patches={"ghost": RowPatchView((0,), (Cell("x"),))}))
    with pytest.raises(KeyError):
        RowStore(COLUMNS).update({}, patches={"ghost": RowPatchView((0,), (Cell("x"),))})


def record(pod: str, status: str = "RUNNING", gone: str | None = None) -> CachedPodView:
    return CachedPodView(PodRecordView(status, f"exp7-{pod}", "A100", 1.49), pod, "team", 7, None, gone)


def test_a_record_goes_only_when_it_changed_and_the_view_has_every_latest_one():
    sent, held, view = SentTables(), HeldTables(), PanelView()
    steps = [update(full=True, records={"a": record("a"), "b": record("b")}),
             update(records={"a": record("a"), "b": record("b", "EXITED")}),  # a unchanged
             update(records={"a": None}),  # a no longer held
             update(records={"a": record("a", gone="reaped")}),  # back
             update(full=True, records={"b": record("b", "EXITED")})]  # starts again: sent whole
    sizes, expect = [], {}
    for u in steps:
        got = over_the_channel(sent, held, u)
        view.apply(got)
        sizes.append((set(got.pod_records), {k for p in got.pod_record_patches for k in p.keys}))
        if u.full:
            expect = {}
        expect.update(u.pod_records)
        expect = {k: v for k, v in expect.items() if v is not None}
        assert view.pods == expect
    # A record held goes as the fields that changed; one the UI does not hold (again), whole.
    assert sizes == [({"a", "b"}, set()), (set(), {"b"}), ({"a"}, set()), ({"a"}, set()), ({"b"}, set())]


async def test_a_patch_of_a_row_the_panel_does_not_hold_ends_the_channel_and_is_never_applied():
    import asyncio
    import socket

    from sagan_tui.wire.channel.client import SessionClient
    from sagan_tui.wire.channel.frames import pack

    applied, ended = [], []
    client = SessionClient(applied.append, ended.append)
    ours, theirs = socket.socketpair()
    client._reader, client._writer = await asyncio.open_unix_connection(sock=ours)
    reading = asyncio.ensure_future(client._read())
    sent = SentTables()
    [good] = sent.send(update({"a": row("a", "RUNNING", 60)}, full=True))
    ghost = UpdateView(pod_patches={"ghost": RowPatchView((1,), (Cell("EXITED"),))})
    theirs.sendall(pack(encode(Update(good))) + pack(encode(Update(ghost))))
    theirs.close()  # then the end of the stream: a reader that took the patch ends there instead
    await asyncio.wait_for(reading, 10)
    assert [set(u.pods) for u in applied] == [{"a"}]  # the patch never reaches the screens
    assert len(ended) == 1 and "KeyError" in ended[0] and "ghost" in ended[0]


def test_a_large_update_goes_in_parts_that_leave_the_table_as_the_whole_update_does(monkeypatch):
    from sagan_tui.wire.channel import rows as R

    monkeypatch.setattr(R, "PART_ROWS", 3)  # parts of three rows: seven pods make three parts
    pods = {p: row(p, "RUNNING", 60, order=i) for i, p in enumerate("abcdefg")}
    sent, held = SentTables(), HeldTables()
    channel, in_process = RowStore(COLUMNS), RowStore(COLUMNS)
    first = UpdateView(full=True, pods=pods)
    [whole] = sent.send(first)  # a whole panel goes in one, whatever its size
    apply(channel, held.receive(whole))
    apply(in_process, first)
    changed = {p: row(p, "EXITED", 120, order=i) for i, p in enumerate("abcdefg")}
    later = UpdateView(pods=changed, pods_removed=("b", "x"), polls=4,
                       pod_records={"a": record("a", "EXITED"), "zz": None})
    parts = [held.receive(TO_PANEL.decode(encode(Update(v))).update) for v in sent.send(later)]
    assert [p.more for p in parts] == [True, True, True, False]
    assert [len(p.pods) + len(p.pod_patches) for p in parts] == [3, 3, 1, 0]
    # The rest of the update comes last: the poll's count, the removal of a pod not changed
    # ("b", changed too, stays, as in the whole update), and the records of pods not in a part.
    assert [p.polls for p in parts] == [None, None, None, 4]
    assert parts[-1].pods_removed == ("x",) and set(parts[-1].pod_records) == {"zz"}
    assert set(parts[0].pod_records) == {"a"}
    for p in parts:
        apply(channel, p)
    apply(in_process, later)
    assert state(channel) == state(in_process)


def test_a_whole_panel_sent_ahead_of_the_first_frame_goes_as_its_first_rows_then_the_rest():
    """The PreOpen's answer (core/session/serve.py): the rows a screen shows first, in the panes' own
    order (group, then order), with their records; the rest added by key right after leaves the
    table, and the panel's view, as the whole panel does."""
    from sagan_tui.wire.channel.rows import first_part

    pods = {p: row(p, "RUNNING", 60, group=1 if p in "ce" else 0, order=-i) for i, p in enumerate("abcdefg")}
    whole = UpdateView(full=True, pods=pods, pod_records={p: record(p) for p in pods}, polls=2)
    first, rest = first_part(whole, 3)
    assert set(first.pods) == {"g", "f", "d"} and first.full and first.polls == 2  # group 0, lowest order
    assert set(first.pod_records) == set(first.pods) and set(rest.pod_records) == set(rest.pods) == set("abce")
    assert not rest.full and rest.polls is None
    sent, held = SentTables(), HeldTables()
    channel, in_process, view, whole_view = RowStore(COLUMNS), RowStore(COLUMNS), PanelView(), PanelView()
    for u in (sent.one(first), *sent.send(rest)):
        u = held.receive(TO_PANEL.decode(encode(Update(u))).update)
        apply(channel, u)
        view.apply(u)
    apply(in_process, whole)
    whole_view.apply(whole)
    assert state(channel) == state(in_process) and view.pods == whole_view.pods
    assert first_part(whole, 7) == (whole, None)  # small enough: whole, in one


def test_rows_in_a_row_changed_the_same_way_cross_as_one_patch_with_their_keys():
    sent = SentTables()
    list(sent.send(update({p: row(p, "RUNNING", 60) for p in "abcde"}, full=True)))
    exited = RowPatchView((1,), (Cell("EXITED", "yellow"),))
    [message] = sent.send(update({"a": row("a", "EXITED", 60), "b": row("b", "EXITED", 60),
                                  "c": row("c", "EXITED", 60), "d": row("d", "EXITED", 120),
                                  "e": row("e", "EXITED", 60)}))
    wire = TO_PANEL.decode(encode(Update(message))).update
    assert [(p.patch, p.keys) for p in wire.pods_patched] == [(exited, ("a", "b", "c"))]
    # A patch of its own, or one not next to its like, goes by key, as it would alone.
    assert wire.pod_patches == {"d": RowPatchView((1, 2), (Cell("EXITED", "yellow"), Cell("2m", "dim", sort=-120))),
                                "e": exited}
    got = HeldTables()
    got.pods.keys = set("abcde")
    assert got.receive(wire).pod_patches == {"a": exited, "b": exited, "c": exited, **wire.pod_patches}


def test_a_record_held_crosses_as_its_state_once_for_records_changed_alike_and_whole_if_more_changed():
    from datetime import datetime

    sent, held, view = SentTables(), HeldTables(), PanelView()
    view.apply(over_the_channel(sent, held, update(full=True, records={p: record(p) for p in "abcd"})))
    gone = CachedPodView(PodRecordView("EXITED", "exp7-c", "A100", 1.49), "c", "team", 7,
                         datetime(2026, 5, 14, 10, 54), "reaped")  # naive: it crosses as text
    renamed = CachedPodView(PodRecordView("EXITED", "exp8-d", "A100", 1.49), "d", "team", 8, None, None)
    later = {"a": record("a", "EXITED"), "b": record("b", "EXITED"), "c": gone, "d": renamed}
    got = over_the_channel(sent, held, update(records=later))
    assert got.pod_records == {"d": renamed}  # more than its state changed: whole
    assert [(p.desired_status, p.gone_at, p.gone_reason, p.keys) for p in got.pod_record_patches] == [
        ("EXITED", None, None, ("a", "b")), ("EXITED", datetime(2026, 5, 14, 10, 54), "reaped", ("c",))]
    view.apply(got)
    assert dict(view.pods) == later


def test_records_patched_again_before_they_are_read_read_as_the_latest():
    sent, held, view = SentTables(), HeldTables(), PanelView()
    steps = [{p: record(p) for p in "ab"},
             {"a": record("a", "EXITED"), "b": record("b", "EXITED")},  # the status
             {"a": record("a", "RUNNING"), "b": record("b", "EXITED", gone="reaped")},  # the status back; b gone
             {"a": record("a", "EXITED")}]  # the status again
    for n, records in enumerate(steps):
        view.apply(over_the_channel(sent, held, update(full=n == 0, records=records)))  # none read meanwhile
    assert dict(view.pods) == {"a": record("a", "EXITED"), "b": record("b", "EXITED", gone="reaped")}


def test_a_record_patch_for_a_record_the_ui_does_not_hold_cannot_be_read():
    from sagan_tui.wire.channel.views import RecordPatchView

    held = HeldTables()
    held.receive(update(full=True, records={"a": record("a")}))
    with pytest.raises(KeyError, match="ghost"):
        held.receive(UpdateView(pod_record_patches=(RecordPatchView("EXITED", None, None, ("a", "ghost")),)))
