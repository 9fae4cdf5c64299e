"""Big row changes are applied a slice at a time, and a row that waits is never applied over a newer one (ui/backlog.py)."""

from __future__ import annotations

from sagan_tui.session.updates import PanelUpdate
from sagan_tui.ui.backlog import RowBacklog


def rows(prefix: str, n: int, version: int = 1) -> dict[str, tuple]:
    return {f"{prefix}{i}": ("v", version) for i in range(n)}


def drained(backlog: RowBacklog) -> list[PanelUpdate]:
    out = []
    while backlog.waiting:
        out.append(backlog.take(PanelUpdate()))
    return out


def test_a_big_update_goes_a_slice_at_a_time_and_everything_else_at_once():
    b = RowBacklog(per_turn=100)
    u = PanelUpdate(pods=rows("p", 250), experiments=rows("e", 30), pods_removed=("gone",), said="ok")
    first = b.take(u)
    assert len(first.experiments) == 30 and len(first.pods) == 70
    assert first.pods_removed == ("gone",) and first.said == "ok"
    rest = drained(b)
    assert [len(r.pods) for r in rest] == [100, 80] and not b.waiting
    assert set(first.pods).union(*(r.pods for r in rest)) == set(rows("p", 250))


def test_a_newer_row_replaces_the_one_that_waits_and_a_removal_drops_it():
    b = RowBacklog(per_turn=10)
    b.take(PanelUpdate(pods=rows("p", 30, version=1)))
    second = b.take(PanelUpdate(pods={"p25": ("v", 2), "p26": ("v", 2)}, pods_removed=("p27",)))
    applied = {**second.pods}
    for r in drained(b):
        applied.update(r.pods)
    assert applied["p25"] == ("v", 2) and applied["p26"] == ("v", 2) and "p27" not in applied


def test_a_full_update_clears_what_waited():
    b = RowBacklog(per_turn=10)
    b.take(PanelUpdate(pods=rows("p", 30)))
    full = PanelUpdate(full=True, pods=rows("q", 50))
    assert b.take(full) is full and not b.waiting


async def test_the_panel_applies_every_slice(tmp_path):
    """Through the real app, one row per turn: every changed row reaches the pods pane."""
    from dataclasses import replace

    from sagan_tui.render import Cell
    from sagan_tui.ui.messages import Updated

    from .frozen import frozen_app

    app = frozen_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        app.backlog.per_turn = 1
        table = app.pods_table
        changed = {k: replace(r, cells=(Cell(f"renamed-{k}"), *r.cells[1:])) for k, r in table.records.items()}
        assert len(changed) > 2
        app.post_message(Updated(PanelUpdate(pods=changed)))
        for _ in range(200):
            await pilot.pause()
            if all(table.records[k].cells[0].text == f"renamed-{k}" for k in changed) and not app.backlog.waiting:
                break
        assert {k: table.records[k].cells[0].text for k in changed} == {k: f"renamed-{k}" for k in changed}
        assert not app.backlog.waiting
