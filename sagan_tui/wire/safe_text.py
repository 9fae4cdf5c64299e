"""The one sanitiser of untrusted text (screen, notifications, reports, audit, terminal titles): no escapes, no controls."""

from __future__ import annotations

import re

# ESC-introduced strings (OSC, DCS, SOS, PM, APC) run to BEL or ST; an unterminated one runs
# to the end: better to lose a title's tail than to let the terminal swallow the screen.
_ESC_STRING = re.compile(r"(?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)", re.S)
_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?")
_ESC_OTHER = re.compile(r"\x1b[ -/]*[0-~]?")
# C0 (but \t and \n, handled below), DEL, C1; and the bidi overrides and isolates that
# reorder what the owner reads.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: object, multiline: bool = False) -> str:
    """`text` without escape sequences or control characters; newlines kept only if `multiline`.

    Whole sequences go, not just their ESC: `A100\\x1b[31m red` reads `A100 red`, never
    `A100[31m red`. Rich markup such as `[red]` is left as it is: showing it literally is the
    renderer's job (`markup=False`, `Text`), and a report or an audit line must keep it.
    """
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


def one_line(text: object, limit: int = 200) -> str:
    """A cleaned single line, runs of whitespace folded, cut to `limit` characters: for
    notifications, titles and audit details."""
    s = " ".join(clean(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def clean_document(text: object) -> str:
    """A whole document (a report, a ticket, a command's output) as it may leave the process for
    a terminal, a file or the clipboard: `clean` keeping its lines."""
    return clean(text, multiline=True)


class CleanStream:
    """A text stream (stdout, stderr) that cleans every write: the headless commands' one sink,
    so no field, however it was formatted on its way, reaches the terminal with an escape.

    A sequence split across two writes loses its ESC in the first (a lone ESC goes) and is
    harmless text in the second. Everything but `write` is the wrapped stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(clean_document(text))
        return len(text)  # what the caller gave: print() and json.dump check nothing else

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
