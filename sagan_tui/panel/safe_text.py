"""Untrusted text as Rich Text that is never parsed as markup; the sanitising itself is `sagan_tui.wire.safe_text`."""

from __future__ import annotations

from rich.text import Text

from sagan_tui.wire.safe_text import clean, one_line

__all__ = ["clean", "literal", "one_line"]


def literal(text: object, style: str | None = None, multiline: bool = False) -> Text:
    """A Rich Text holding `text` verbatim (after `clean`): `[b]`, `[@click=...]` and `[/]` stay text."""
    return Text(clean(text, multiline), style=style or "", end="")
