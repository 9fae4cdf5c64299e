"""The key line at the bottom: the active screen's bindings (their keymap keys) as one line, rebuilt only when they change."""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static


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
        items: list[tuple[str, str]] = []
        # A screen over the panel (help) may ask for its own keys only: the panel's are not what it is for.
        own_only = getattr(self._screen, "OWN_KEYS_ONLY", False)
        for node, binding, enabled, _tooltip in self._screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen or (own_only and node is self.app):
                continue
            seen.add(binding.action)
            items.append((self.app.get_key_display(binding), binding.description))
        items.append(("^p", "palette"))
        key = tuple(items)
        if key == self._last:
            return
        self._last = key
        text = Text(" ", end="", no_wrap=True, overflow="ellipsis")
        for k, what in items:
            text.append(k, "bold")
            text.append(f" {what}  ")
        self.update(text)

    @property
    def plain(self) -> str:
        return " ".join(f"{k} {w}" for k, w in self._last)
