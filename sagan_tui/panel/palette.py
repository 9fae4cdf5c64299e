"""Every binding of the panel, for the help screen and the command palette (read-only ones left out)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from sagan_tui.wire.keymap import WHERE, scope
from sagan_tui.panel.safe_text import literal

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


@dataclass(frozen=True)
class Entry:
    where: str  # "panel" or the pane's name
    node: DOMNode  # the namespace its action runs in
    binding: Binding
    enabled: bool
    owner: type | None = None  # the class that declares the binding

    @property
    def label(self) -> str:
        return self.binding.description or self.binding.action.replace("_", " ")

    @property
    def name(self) -> str:
        """The palette's name for it: the panel's actions by their label alone, a pane's or a
        screen's with where it applies (keymap.WHERE), never a class's name."""
        place = scope(self.binding.id) if self.binding.id else self.where
        if place in ("panel", "owneractions", "main"):
            return self.label
        return f"{self.label} ({WHERE.get(place, place)})"


def _declared(cls: type) -> list[Binding]:
    """The bindings a class itself declares (not those it inherits)."""
    return [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


_GROUPS = {"KeyedTable": "tables", "LossHeatmap": "heatmap"}


def _group(cls: type) -> str:
    return _GROUPS.get(cls.__name__) or cls.__name__.removesuffix("Table").removesuffix("Screen").lower()


def entries(app: "App", screen: "Screen | None" = None) -> list[Entry]:
    """The app's bindings (the mixin's among them), then those of the screen and of each kind of
    widget on it (ours and the heatmap's), each class's own once, under its own heading."""

    def enabled(node: DOMNode, action: str) -> bool:
        return node.check_action(action, ()) is not False

    out = [Entry("panel", app, b, enabled(app, b.action)) for b in _declared(type(app))]
    seen: set[type] = set()
    screen = screen or app.screen
    for node in [screen, *screen.query("*")]:
        for cls in reversed(type(node).__mro__):
            if cls in seen or not cls.__module__.startswith("sagan_tui.") or not _declared(cls):
                continue
            seen.add(cls)
            out += [Entry(_group(cls), node, b, enabled(node, b.action), cls) for b in _declared(cls)]
    return out


class BindingCommands(Provider):
    """The command palette's view of the bindings: one command per action, disabled ones absent."""

    def _commands(self) -> list[Entry]:
        focused = self.focused
        found = []
        for e in entries(self.app, self.screen):
            if not e.enabled:
                continue
            # A pane's command runs on the focused pane when it is of that kind.
            node = focused if e.owner is not None and isinstance(focused, e.owner) else e.node
            found.append(Entry(e.where, node, e.binding, True, e.owner))
        return found

    def _run(self, entry: Entry) -> None:
        self.app.call_later(self.app.run_action, entry.binding.action, entry.node)

    async def discover(self) -> Hits:
        for e in self._commands():
            yield DiscoveryHit(literal(e.name), partial(self._run, e),
                               help=f"key: {self.app.get_key_display(e.binding)}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for e in self._commands():
            text = e.name
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._run, e), text=text,
                          help=f"key: {self.app.get_key_display(e.binding)}")
