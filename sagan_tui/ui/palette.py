"""Every binding of the panel, for the help screen and the command palette (read-only ones left out)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from sagan_tui.ui.safe_text import literal

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class Entry:
    where: str  # "panel" or the pane's name
    node: DOMNode  # the namespace its action runs in
    binding: Binding
    enabled: bool

    @property
    def label(self) -> str:
        return self.binding.description or self.binding.action.replace("_", " ")


def _declared(cls: type) -> list[Binding]:
    """The bindings a class itself declares (not those it inherits)."""
    return [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


def entries(app: "App") -> list[Entry]:
    """The app's bindings (the mixin's among them), the tables' common ones, then each pane's own."""
    from sagan_tui.ui.widgets.keyed_table import KeyedTable

    def enabled(node: DOMNode, action: str) -> bool:
        return node.check_action(action, ()) is not False

    out = [Entry("panel", app, b, enabled(app, b.action)) for b in _declared(type(app))]
    tables = list(app.screen.query(KeyedTable))
    if tables:
        out += [Entry("tables", tables[0], b, True) for b in _declared(KeyedTable)]
    seen: set[type] = set()
    for table in tables:
        if type(table) in seen:
            continue
        seen.add(type(table))
        where = table.pane_title.lower()
        out += [Entry(where, table, b, enabled(table, b.action)) for b in _declared(type(table))]
    return out


class BindingCommands(Provider):
    """The command palette's view of the bindings: one command per action, disabled ones absent."""

    def _commands(self) -> list[Entry]:
        focused = self.focused
        found = []
        for e in entries(self.app):
            if not e.enabled:
                continue
            # A pane's command runs on the pane with the focus when it is of that kind.
            node = focused if focused is not None and type(focused) is type(e.node) else e.node
            found.append(Entry(e.where, node, e.binding, True))
        return found

    def _run(self, entry: Entry) -> None:
        self.app.call_later(self.app.run_action, entry.binding.action, entry.node)

    async def discover(self) -> Hits:
        for e in self._commands():
            yield DiscoveryHit(literal(f"{e.label} ({e.where})"), partial(self._run, e),
                               help=f"key: {self.app.get_key_display(e.binding)}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for e in self._commands():
            text = f"{e.label} ({e.where})"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._run, e), text=text,
                          help=f"key: {self.app.get_key_display(e.binding)}")
