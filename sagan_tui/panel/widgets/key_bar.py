"""The key line at the bottom: the active screen's bindings (their keymap keys) as one line, rebuilt only when they change."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


# Never dropped from the line, however narrow: the wave's response, help, the incident layout, quit.
KEEP = frozenset({"wave_response", "help", "incident", "quit"})
# The words a narrow line uses (by action); others keep their first word, cut.
SHORT = {"review_approval": "Appr", "redispatch": "Redisp", "stop_pod": "Stop", "promote": "Prom",
         "bulk_hold": "Hold*", "bulk_stop": "Stop*", "audit": "Audit", "export_report": "Export",
         "wave_response": "Wave", "inbox": "Inbox", "incident": "Incid", "pause": "Pause",
         "refresh": "Refr", "interval(1)": "Slow", "interval(-1)": "Fast", "zoom": "Zoom",
         "accounts": "Accts", "release": "Rel", "bulk_release": "Rel*", "canary": "Canary",
         "acknowledge": "Ack", "dismiss_loss": "Dismiss", "toggle_scope": "All/1", "cycle_kind": "Type",
         "toggle_follow": "Follow", "cycle_dimension": "Rows", "cycle_window": "Window",
         "select_cell": "Cell", "command_palette": "palette"}
SHORT_MAX = 7
ELLIPSIS = "…"

Item = tuple[str, str, str]  # key as shown, description, action


def short(item: Item) -> str:
    _key, what, action = item
    return SHORT.get(action) or (what.split()[0][:SHORT_MAX] if what else "")


def fit_keys(items: Sequence[Item], width: int, keep: frozenset[str] = KEEP) -> list[tuple[str, str]]:
    """The (key, words) pairs of one line `width` wide: every key with its words if they fit;
    else short words (SHORT), then the keys alone from the end backwards (the `keep` actions keep
    their words); else keys dropped from the end (marked `…`), never a `keep` one, whose words go
    last. A key bar that
    cut the line at its width hid `W ? I q` at 80 columns and `P R + - B z q` at 200."""
    def length(pairs: list[tuple[str, str]]) -> int:  # " k w  k w  …": one leading space, two between
        return 1 + sum(len(k) + (1 + len(w) if w else 0) + 2 for k, w in pairs)

    full = [(k, w) for k, w, _a in items]
    if length(full) <= width:
        return full
    pairs = [(i[0], short(i)) for i in items]
    kept = [i[2] in keep for i in items]
    # The words go first from the end (the panel's own keys), the kept ones' never.
    for j in reversed(range(len(pairs))):
        if length(pairs) <= width:
            return pairs
        if not kept[j]:
            pairs[j] = (pairs[j][0], "")
    if length(pairs) <= width:
        return pairs
    dropped = False
    while length(pairs) + len(ELLIPSIS) + 2 > width and not all(kept):
        drop = max(j for j, k in enumerate(kept) if not k)  # the last that may go
        del pairs[drop], kept[drop]
        dropped = True
    if length(pairs) + (len(ELLIPSIS) + 2) * dropped > width:  # the kept keys alone, at the last
        pairs = [(k, "") for k, _w in pairs]
    return pairs + [(ELLIPSIS, "")] if dropped else pairs


class KeyBar(Static):
    """Textual's Footer mounts a widget per key and recomposes them on every focus change,
    which costs a second at 200x50 under load; one Text line does the same job over SSH."""

    DEFAULT_CSS = "KeyBar { dock: bottom; height: 1; background: $panel; color: $text-muted; }"

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self._last: tuple = ()

    def on_mount(self) -> None:
        self._own = self.screen  # gone from the DOM by the time we unmount
        self._screen = self._own  # whose keys are shown: ours, or a dialog's over us that has no bar
        self._own.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self.bindings_changed(self._own)

    def on_unmount(self) -> None:
        self._own.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)
        if self._screen is not self._own:
            self._screen.bindings_updated_signal.unsubscribe(self)

    def _screen_changed(self, screen: Screen) -> None:
        """A dialog without a key bar of its own (confirm, guard, note) came up over ours: show its
        keys, not ours, which do nothing under it; back to ours when it goes."""
        if not self.is_attached:
            return
        ours = screen is self._own
        theirs = not ours and screen.is_modal and not screen.query(KeyBar) and self._own in self.app.screen_stack
        source = screen if theirs else self._own
        if source is self._screen:
            return
        if self._screen is not self._own:
            self._screen.bindings_updated_signal.unsubscribe(self)
        self._screen = source
        if source is not self._own:
            source.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(source)

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self._screen:
            self.call_after_refresh(self._show)

    def _show(self) -> None:
        if not self.is_attached:  # its screen was popped before this ran
            return
        seen: set[str] = set()
        items: list[Item] = []
        # A screen over the panel (help) may ask for its own keys only: the panel's are not what it is for.
        own_only = getattr(self._screen, "OWN_KEYS_ONLY", False)
        for node, binding, enabled, _tooltip in self._screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen or (own_only and node is self.app):
                continue
            seen.add(binding.action)
            items.append((self.app.get_key_display(binding), binding.description, binding.action))
        items.append(("^p", "palette", "command_palette"))
        key = tuple(fit_keys(items, self.size.width or self.app.size.width))
        if key == self._last:
            return
        self._last = key
        text = Text(" ", end="", no_wrap=True, overflow="ellipsis")
        for k, what in key:
            text.append(k, "bold")
            text.append(f" {what}  " if what else "  ")
        self.update(text)

    def on_resize(self) -> None:
        if self.is_attached:
            self._show()

    @property
    def keys(self) -> list[str]:
        """The keys shown, words or not."""
        return [k for k, _w in self._last]

    @property
    def plain(self) -> str:
        return " ".join(f"{k} {w}" if w else k for k, w in self._last)
