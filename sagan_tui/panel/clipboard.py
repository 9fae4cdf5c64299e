"""Copy to the owner's clipboard over SSH: OSC 52 through the app's driver (tmux needs set-clipboard on)."""

from __future__ import annotations

import base64

from textual.app import App

from sagan_tui.panel.safe_text import clean

# Terminals cap OSC 52 payloads (xterm and tmux around 100 KB of base64); beyond that the
# sequence is dropped or, worse, echoed: the file on disk is then the only copy.
MAX_OSC52_BYTES = 100_000


def osc52(text: str) -> str:
    """The escape sequence that asks the terminal to put `text` on the clipboard."""
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\a"


def copy(app: App, text: str) -> str | None:
    """Copy `text`, cleaned as every output is (a pasted escape acts wherever it lands); None
    when done, else why it was not (too large for the terminal)."""
    text = clean(text, multiline=True)
    size = len(osc52(text))
    if size > MAX_OSC52_BYTES:
        return f"too large for the terminal clipboard ({size // 1000} KB of OSC 52)"
    # Textual writes the same OSC 52 sequence through its driver, between frames.
    app.copy_to_clipboard(text)
    return None
