"""A row the UI holds already crosses the channel as the cells that changed (channel/rows.py):
the UI's end makes it whole again, equal to the row the session rendered, sharing the cells it
held, and the table's diff redraws exactly the cells that changed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sagan_tui.channel.messages import TO_PANEL, Update, encode
from sagan_tui.channel.rows import HeldTables, SentTables
from sagan_tui.channel.views import RowPatchView, UpdateView
from sagan_tui.render import Cell, Column, Row
from sagan_tui.ui.widgets.row_store import RowStore

COLUMNS = [Column("id", "id"), Column("status", "status"), Column("seen", "seen")]


def row(pod: str, status: str, seen: int, group: int = 0, until: float = 1e9) -> Row:
    return Row((Cell(pod, "bold"), Cell(status, "green" if status == "RUNNING" else "yellow"),
                Cell(f"{seen}s", "dim", sort=-seen)), group=group, order=(0, "team", pod), until=until)


def update(pods: dict | None = None, removed: tuple = (), full: bool = False) -> SimpleNamespace:
    """A PanelUpdate's rows, as session/views.update_view reads them."""
    return SimpleNamespace(pods=pods or {}, pods_removed=removed, full=full, experiments={})


def over_the_channel(sent: SentTables, held: HeldTables, u) -> UpdateView:
    pods, pod_patches = sent.pods.send(u.pods, u.full, u.pods_removed)
    exps, exp_patches = sent.experiments.send(u.experiments, u.full)
    view = UpdateView(full=u.full, pods=pods, pods_removed=tuple(u.pods_removed), pod_patches=pod_patches,
                      experiments=exps, experiment_patches=exp_patches)
    return held.receive(TO_PANEL.decode(encode(Update(view))).update)


def shown(r) -> tuple:
    """What a row shows and sorts by (a render.Row or the RowView it arrived as)."""
    return (tuple((c.text, c.style, c.sort) for c in r.cells), r.group, tuple(r.order), r.until)


def test_a_sequence_of_updates_arrives_as_the_rows_the_session_rendered():
    sent, held = SentTables(), HeldTables()
    steps = [
        update({"a": row("a", "RUNNING", 1), "b": row("b", "RUNNING", 2)}, full=True),
        update({"a": row("a", "EXITED", 1)}),  # one cell
        update({"b": row("b", "RUNNING", 9, until=5.0)}),  # a cell and the until
        update({"a": row("a", "EXITED", 1, group=1)}),  # only the group
        update({"c": row("c", "RUNNING", 3)}, removed=("b",)),  # a new key whole, one gone
        update({"b": row("b", "EXITED", 4)}),  # the gone key comes back: whole
        update({"a": row("a", "EXITED", 2), "c": row("c", "EXITED", 3)}, removed=("a",)),  # changed and removed: stays
        update({"a": Row((Cell("a"),), order=(0, "team", "a"))}),  # another width: whole
        update({"c": row("c", "RUNNING", 5)}, full=True),  # starts again
        update({"c": row("c", "RUNNING", 6)}),
    ]
    expect: dict[str, tuple] = {}
    for u in steps:
        got = over_the_channel(sent, held, u)
        assert not got.pod_patches
        assert {k: shown(r) for k, r in got.pods.items()} == {k: shown(r) for k, r in u.pods.items()}
        if u.full:
            expect = {}
        expect.update({k: shown(r) for k, r in u.pods.items()})
        for k in u.pods_removed:
            if k not in u.pods:
                expect.pop(k, None)
        assert {k: shown(r) for k, r in held.pods.rows.items()} == expect
        assert set(sent.pods.rows) == set(expect)


def test_a_patch_carries_only_what_changed_and_shares_the_cells_held():
    sent, held = SentTables(), HeldTables()
    first = over_the_channel(sent, held, update({"a": row("a", "RUNNING", 1)}, full=True)).pods["a"]
    view_pods, patches = sent.pods.send({"a": row("a", "EXITED", 1)})
    assert view_pods == {} and patches == {"a": RowPatchView((1,), (Cell("EXITED", "yellow"),))}
    held.pods.rows["a"] = first
    again = held.pods.receive({}, patches)["a"]
    assert again.cells[1].text == "EXITED"
    assert again.cells[0] is first.cells[0] and again.cells[2] is first.cells[2]
    assert (again.group, again.order, again.until) == (first.group, first.order, first.until)


def test_the_table_redraws_the_patched_cells_only():
    sent, held = SentTables(), HeldTables()
    store = RowStore(COLUMNS)
    store.replace(over_the_channel(sent, held, update({"a": row("a", "RUNNING", 1), "b": row("b", "RUNNING", 2)},
                                                     full=True)).pods)
    applied = store.update(over_the_channel(sent, held, update({"a": row("a", "EXITED", 1),
                                                                "b": row("b", "RUNNING", 7)})).pods)
    assert applied.redraw == {"a": [1], "b": [2]}
    assert not applied.reordered


def test_a_patch_for_a_key_the_ui_does_not_hold_cannot_be_read():
    held = HeldTables()
    with pytest.raises(KeyError):
        held.receive(UpdateView(pod_patches={"ghost": RowPatchView((0,), (Cell("x"),))}))
