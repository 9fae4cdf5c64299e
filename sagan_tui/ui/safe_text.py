"""Untrusted text made safe to show: terminal escapes and control characters stripped, never parsed as markup."""

from __future__ import annotations

import re

from rich.text import Text

# ESC-introduced strings (OSC, DCS, SOS, PM, APC) run to BEL or ST; an unterminated one runs
# to the end: better to lose a title's tail than to let the terminal swallow the screen.
_ESC_STRING = re.compile(r"(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)", re.S)
_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?")
_ESC_OTHER = re.compile(r"\x1b[ -/]*[0-~]?")
# C0 (but \t and \n, handled below), DEL, C1; and the bidi overrides that reorder what is shown.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: object, multiline: bool = False) -> str:
    """`text` without escape sequences or control characters; newlines kept only if `multiline`."""
    s = "" if text is None else str(text)
    if not s.isprintable() or "\x1b" in s:
        s = _ESC_STRING.sub("", s)
        s = _CSI.sub("", s)
        s = _ESC_OTHER.sub("", s)
        s = s.replace("\r\n", "\n").replace("\t", "    ")
        s = _CONTROL.sub("", s.replace("\r", "\n"))
    if not multiline:
        s = s.replace("\n", " ")
    return s


def literal(text: object, style: str | None = None, multiline: bool = False) -> Text:
    """A Rich Text holding `text` verbatim (after `clean`): `[b]`, `[@click=...]` and `[/]` stay text."""
    return Text(clean(text, multiline), style=style or "", end="")


def one_line(text: object, limit: int = 200) -> str:
    """A cleaned single line, cut to `limit` characters: for notifications and titles."""
    s = " ".join(clean(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"
