"""The table's row store, without a screen: moved rows land where a full sort puts them, marks outlive the filter, a change says what to redraw."""

from __future__ import annotations

import pytest

from sagan_tui.wire.render import Cell, Column, Row
from sagan_tui.panel.widgets.row_store import RowStore

COLUMNS = (Column("name", "name", 10), Column("up", "up", 6))


def row(i: int, up: int, group: int = 0, name: str | None = None) -> Row:
    return Row((Cell(name or f"pod-{i}"), Cell(f"{up}m", sort=up)), group=group, order=i)


def full_sort(store: RowStore) -> list[str]:
    """The order a sort of every shown row from nothing gives."""
    i, rev = store.sort_index, store.sort_reverse

    def key(k: str):
        r = store.records[k]
        if i is None:
            return (r.group, r.order)
        v = r.cells[i].sort_value
        return (r.group, -v if rev else v, r.order)

    return sorted((k for k in store.records if store.visible(k, store.records[k])), key=key)


def test_moved_added_and_removed_rows_land_where_a_full_sort_puts_them():
    store = RowStore(COLUMNS)
    store.replace({f"p{i}": row(i, up=i % 7) for i in range(300)})
    assert store.order == full_sort(store)

    store.update({"p5": row(5, 3, group=1), "p250": row(250, 1, group=1), "p300": row(300, 2)})
    assert store.order == full_sort(store)
    assert store.order[-2:] == ["p5", "p250"]  # the lost group sorts last

    store.set_sort(1, reverse=True)  # by up, descending
    assert store.order == full_sort(store)
    store.update({"p7": row(7, 6), "p8": row(8, 0)}, removed=["p9"])
    assert store.order == full_sort(store)
    assert [store.index[k] for k in store.order] == list(range(len(store.order)))
    store.set_sort(None, reverse=False)
    assert store.order == full_sort(store)


def test_a_change_that_moves_no_row_says_which_cells_to_redraw_and_keeps_the_order():
    store = RowStore(COLUMNS)
    store.replace({f"p{i}": row(i, up=i) for i in range(10)})
    before = list(store.order)

    applied = store.update({"p3": row(3, up=3, name="renamed")})  # same sort value, new text
    assert not applied.reordered and applied.redraw == {"p3": [0]} and store.order == before

    applied = store.update({"p4": Row((Cell("pod-4"), Cell("4m", sort=4.5)), order=4)})  # only a sort value
    assert applied.redraw == {}  # nothing drawn differently

    store.set_sort(1, reverse=False)
    applied = store.update({"p0": row(0, up=99)})  # sorts elsewhere now
    assert applied.reordered and store.order[-1] == "p0" and applied.redraw == {"p0": [1]}


def test_marks_survive_sort_and_filter_and_go_with_their_rows():
    store = RowStore(COLUMNS)
    store.replace({f"p{i}": row(i, up=i, name="team" if i % 2 else "personal") for i in range(6)})
    for k in ("p0", "p1", "p2"):
        store.toggle_mark(k)
    store.set_filter("team")
    store.set_sort(1, reverse=True)
    assert store.order == ["p5", "p3", "p1"]
    assert store.marked() == ["p0", "p1", "p2"] and store.marked(visible_only=True) == ["p1"]
    assert store.hidden_marked() == ["p0", "p2"]

    store.set_filter("")
    assert store.marked() == ["p0", "p1", "p2"] and store.hidden_marked() == []
    store.update({}, removed=["p1"])
    assert store.marked() == ["p0", "p2"]  # a row that went takes its mark with it


def test_a_bad_regex_leaves_the_store_as_it_was():
    store = RowStore(COLUMNS)
    store.replace({f"p{i}": row(i, up=i) for i in range(4)})
    store.set_filter("pod-1")
    with pytest.raises(ValueError):
        store.set_filter("re:(")
    assert store.filter_text == "pod-1" and store.order == ["p1"]


def test_a_scope_hides_rows_and_lifting_it_brings_them_back_in_order():
    store = RowStore(COLUMNS)
    store.replace({f"p{i}": row(i, up=i, group=i % 2) for i in range(8)})
    store.scope = lambda _k, r: r.group == 0
    store.apply()
    assert store.order == ["p0", "p2", "p4", "p6"]
    store.scope = None
    store.apply()
    assert store.order == full_sort(store)


def test_a_row_narrower_than_the_table_sorts_as_an_empty_cell_instead_of_failing():
    store = RowStore(COLUMNS)
    store.replace({"a": row(0, 5), "b": row(1, 3)})
    store.set_sort(1, reverse=False)
    store.update({"c": Row((Cell("pod-2"),), order=2)})  # no "up" cell: a session of another version
    assert store.order == ["b", "a", "c"]  # numbers before text, the missing cell as ""
    store.update({"c": row(2, 1)})
    assert store.order == ["c", "b", "a"]
