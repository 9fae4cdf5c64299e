"""The keyed rows behind a table pane: which pass the scope and the filter, in what order, which are marked; no Textual."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from sagan_tui.wire.render import Column, Row, compile_filter


class _Desc:
    """Inverts comparison, for a descending column under an ascending group order."""

    __slots__ = ("v",)

    def __init__(self, v: Any):
        self.v = v

    def __lt__(self, other: "_Desc") -> bool:
        return other.v < self.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and other.v == self.v


def _safe(v: Any) -> tuple:
    # Sort values of one column may mix numbers and text (a "—" beside counts): never compare across.
    return (0, v) if isinstance(v, (int, float)) else (1, str(v))


def _sorted_by(row: Row, i: int) -> Any:
    # A row narrower than the table (a session of another version) sorts as an empty cell.
    return row.cells[i].sort_value if i < len(row.cells) else ""


def sort_key(row: Row, sort_index: int | None, reverse: bool) -> tuple:
    """Where a row goes: its group first (the owner's inbox on top), then the chosen column in
    the chosen direction, then the pane's own order; without a column, group and own order."""
    if sort_index is None:
        return (row.group, row.order)
    v = _safe(_sorted_by(row, sort_index))
    return (row.group, _Desc(v) if reverse else v, row.order)


class RowPatch(Protocol):
    """A row held, as the cells that changed (wire/channel/views.py's RowPatchView): the new cells at
    the indexes `at`; `group` and `order` None where they did not change. `applied_to` gives the
    row made whole and the indexes of the cells it drew differently."""

    at: tuple[int, ...]
    cells: tuple[Any, ...]
    group: int | None
    order: Any

    def applied_to(self, row: Any) -> tuple[Any, Sequence[int]]: ...


class Applied:
    """What one change of the store means for the screen. (Not a dataclass: the first frame
    imports this module, and a dataclass compiles its generated methods when it is made.)"""

    __slots__ = ("redraw", "reordered")

    def __init__(self, reordered: bool = False) -> None:
        self.redraw: dict[str, Sequence[int]] = {}  # key: the indexes of cells drawn differently
        self.reordered = reordered  # rows came, went or moved: every line below the first change may differ


class RowStore:
    """Rows by key (`records`); those the scope and filter let through (`shown`) in sort order.

    Every change is a diff: `update` reads only the rows it is given, and the order is re-sorted
    only when a row came, went or changed what it sorts by. A poll costs the rows it changed.
    """

    def __init__(self, columns: Sequence[Column]) -> None:
        self.specs = tuple(columns)
        self.records: dict[str, Row] = {}
        self.shown: dict[str, Row] = {}
        self.order: list[str] = []  # the shown keys, top to bottom
        self.index: dict[str, int] = {}  # key: its place in `order`
        self.marks: dict[str, None] = {}  # in the order marked
        self.filter_text = ""
        self.filter: Callable[[str], bool] | None = None
        self.scope: Callable[[str, Row], bool] | None = None
        self.sort_index: int | None = None
        self.sort_reverse = False
        # Each shown row's sort key, kept between sorts for the (column, direction) it was made
        # for: a poll that moved a few rows computes a few keys, not one per row.
        self._keys: dict[str, tuple] = {}
        self._keys_for: tuple | None = None

    # --- changes ----------------------------------------------------------------------------

    def replace(self, rows: Mapping[str, Row]) -> Applied:
        """Make the row set exactly `rows`."""
        self.records = dict(rows)
        return self.apply()

    def update(self, changed: Mapping[str, Row], removed: Iterable[str] = (),
               patches: Mapping[str, RowPatch] | None = None) -> Applied:
        """Replace or add the `changed` rows, patch the rows of `patches` (a row held, as the cells
        that changed: wire/channel/rows.py) and drop the `removed` keys; no other row is read.

        A patch says which cells changed, so its row is not compared again: what is redrawn and
        whether it moved are read from the patched cells alone. A patch of a key not held is a
        KeyError (the channel's client refuses one before it comes here)."""
        patches = patches or {}
        removed = [k for k in removed if k not in changed and k not in patches]
        for k in removed:
            self.records.pop(k, None)
        self.records.update(changed)
        if not (changed or removed or patches):
            return Applied()
        return self.apply([*removed, *changed], patches)

    def set_filter(self, query: str) -> Applied:
        """Filter by `query`; raises ValueError (the store untouched) for a bad regex."""
        predicate = compile_filter(query)
        self.filter, self.filter_text = predicate, query.strip() if predicate else ""
        return self.apply()

    def set_sort(self, index: int | None, reverse: bool) -> Applied:
        self.sort_index, self.sort_reverse = index, reverse
        return Applied(reordered=self._resort())

    def toggle_mark(self, key: str) -> None:
        if key in self.marks:
            del self.marks[key]
        else:
            self.marks[key] = None

    def visible(self, key: str, row: Row) -> bool:
        if self.scope is not None and not self.scope(key, row):
            return False
        return self.filter is None or self.filter(row.search_text())

    def apply(self, keys: Iterable[str] | None = None, patches: Mapping[str, RowPatch] | None = None) -> Applied:
        """Bring `shown` and `order` in line with `records`: every row, or only those of `keys`
        and of `patches` (applied here to the rows held)."""
        records, shown = self.records, self.shown
        out, gone = Applied(), []
        moved = self._patch(patches, out, gone) if patches else False
        if keys is None:
            for k in [k for k in self.marks if k not in records]:
                del self.marks[k]
            wanted = {k: r for k, r in records.items() if self.visible(k, r)}
            gone += [k for k in shown if k not in wanted]
        else:
            keys = list(keys)
            for k in keys:
                if k not in records:
                    self.marks.pop(k, None)
            wanted = {k: r for k in keys if (r := records.get(k)) is not None and self.visible(k, r)}
            gone += [k for k in keys if k in shown and k not in wanted]
        if gone:
            moved = True
            for k in gone:
                del shown[k]
                self._keys.pop(k, None)
            gone_set = set(gone)
            self.order = [k for k in self.order if k not in gone_set]
        i = self.sort_index
        for k, row in wanted.items():
            old = shown.get(k)
            if old is None:
                self.order.append(k)
                moved = True
            elif old != row:
                self._keys.pop(k, None)
                # A cell that is the same object is unchanged (a row made from the one held
                # shares its cells).
                drawn = [n for n, (a, b) in enumerate(zip(old.cells, row.cells))
                         if a is not b and (a.text != b.text or a.style != b.style)]
                if drawn:
                    out.redraw[k] = drawn
                moved = moved or old.group != row.group or old.order != row.order or (
                    i is not None and _sorted_by(old, i) != _sorted_by(row, i))
            shown[k] = row
        if moved:
            self._resort(force=True)
            out.reordered = True
        return out

    def _patch(self, patches: Mapping[str, RowPatch], out: Applied, gone: list[str]) -> bool:
        """Make each patched row from the one held and show it (`gone`: those it hides now).

        The patch names the cells that changed, so the row is not compared again: its redrawn
        cells are the patched ones that read differently, and it moved if it is newly shown or
        its group, order or sorted cell changed. True if a row moved."""
        records, shown, keys, redraw = self.records, self.shown, self._keys, out.redraw
        i, reverse, moved = self.sort_index, self.sort_reverse, False
        visible = None if self.scope is None and self.filter is None else self.visible
        for k, p in patches.items():
            old = records[k]
            row, drawn = p.applied_to(old)
            records[k] = row
            if visible is not None and not visible(k, row):
                if k in shown:
                    gone.append(k)
                continue
            if k not in shown:
                self.order.append(k)
                moved = True
            else:
                if drawn:
                    redraw[k] = drawn
                if (p.group is not None or p.order is not None or (i is not None and i in p.at)) and sort_key(
                        old, i, reverse) != sort_key(row, i, reverse):
                    keys.pop(k, None)
                    moved = True
            shown[k] = row
        return moved

    def _resort(self, force: bool = False) -> bool:
        """Put `order` in sort order; True if it changed (or `force`, after rows came or went).

        What is sorted is the order shown: a poll moves a few rows of it, and sorting an almost
        sorted list is one pass of comparisons, where the rows' arrival order costs a full sort."""
        keys, shown = self._keys, self.shown
        if self._keys_for != (self.sort_index, self.sort_reverse):
            keys.clear()
            self._keys_for = (self.sort_index, self.sort_reverse)
        if len(keys) != len(shown):
            for k, row in shown.items():
                if k not in keys:
                    keys[k] = sort_key(row, self.sort_index, self.sort_reverse)
        order = sorted(self.order, key=keys.__getitem__)
        if order == self.order and not force:
            return False
        self.order = order
        self.index = {k: n for n, k in enumerate(order)}
        return True

    # --- reading ----------------------------------------------------------------------------

    def key_at(self, index: int) -> str | None:
        return self.order[index] if 0 <= index < len(self.order) else None

    def marked(self, visible_only: bool = False) -> list[str]:
        """Marked keys in the order marked; `visible_only` leaves out rows the scope or filter hides."""
        return [k for k in self.marks if k in self.shown] if visible_only else list(self.marks)

    def hidden_marked(self) -> list[str]:
        return [k for k in self.marks if k not in self.shown]
