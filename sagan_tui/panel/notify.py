"""Terminal notifications that cross SSH: the bell or a desktop-notification escape, built as text (no Textual).

Over SSH the panel cannot reach the owner's desktop except through the terminal: a BEL, or an
OSC sequence the laptop's terminal turns into a notification (OSC 9: iTerm2, WezTerm, Windows
Terminal, ConEmu; OSC 777: foot, Ghostty, urxvt, WezTerm; OSC 99: kitty). Inside tmux an OSC
reaches the outer terminal only wrapped in tmux's passthrough (DCS `tmux;` with every ESC
doubled) and only with `set -g allow-passthrough on` (tmux >= 3.3); a BEL needs no wrapping:
tmux forwards it itself (`bell-action`). Every text goes through the one sanitiser first, so a
title can never end the sequence early and inject an escape of its own.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from sagan_tui.wire.safe_text import one_line

MODES = ("bell", "osc9", "osc777", "osc99", "off")
ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
TEXT_LIMIT = 160  # desktop notifications cut long text anyway; the sequence stays small over SSH


def safe(text: object, limit: int = TEXT_LIMIT) -> str:
    """One printable line: no ESC, BEL, ST, C0/C1 control, newline or bidi override left."""
    s = one_line(text, limit)
    # one_line keeps printable text only; this is the guarantee the sequences below rely on.
    return "".join(ch for ch in s if ch.isprintable())


def _osc9_text(title: str, body: str) -> str:
    text = f"{title}: {body}" if title and body else title or body
    # ConEmu and Windows Terminal read `9;<digit>;` as a sub-command (progress, sleep, tab title):
    # a message that starts with a digit gets a word before it.
    return f"sagan: {text}" if re.match(r"\d", text) else text


def sequence(mode: str, title: object, body: object = "", *, tmux: bool = False) -> str:
    """What to write to the terminal for one notification in `mode` ('' when `off`)."""
    if mode not in MODES:
        raise ValueError(f"notify: unknown mode {mode!r} (one of {', '.join(MODES)})")
    if mode == "off":
        return ""
    if mode == "bell":
        return BEL
    t, b = safe(title, 60), safe(body)
    if mode == "osc9":
        seq = f"{ESC}]9;{_osc9_text(t, b)}{ST}"
    elif mode == "osc777":
        # Fields are `;`-separated: a `;` in the title would move text into the body field.
        seq = f"{ESC}]777;notify;{t.replace(';', ',') or 'sagan-tui'};{b}{ST}"
    else:  # osc99, kitty: the title, then the body under the same id (d=0: more parts follow)
        seq = f"{ESC}]99;i=sagan:d=0:p=title;{t or 'sagan-tui'}{ST}{ESC}]99;i=sagan:d=1:p=body;{b}{ST}"
    return tmux_wrap(seq) if tmux else seq


def tmux_wrap(seq: str) -> str:
    """`seq` inside tmux's passthrough: DCS `tmux;`, every ESC doubled, ended by ST."""
    return f"{ESC}Ptmux;{seq.replace(ESC, ESC + ESC)}{ST}"


def in_tmux(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("TMUX"))


def tmux_passthrough(environ: Mapping[str, str]) -> bool | None:
    """Whether the tmux this runs in forwards a wrapped OSC (`allow-passthrough` on or all): asked
    of that tmux (its socket is in $TMUX). None: not in tmux, or tmux could not be asked. A tmux
    older than 3.3 has no such option and forwards it (the option's error reads so: True)."""
    import subprocess

    if not in_tmux(environ):
        return None
    try:
        done = subprocess.run(["tmux", "show-options", "-gv", "allow-passthrough"], env=dict(environ),
                              capture_output=True, text=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return True if "invalid option" in done.stderr or "unknown option" in done.stderr else None
    return done.stdout.strip() in ("on", "all")


PASSTHROUGH_OFF = ("tmux drops desktop notifications (allow-passthrough is off): the bell is used "
                   "instead; `tmux set -g allow-passthrough on` lets them through")


def notify_path(mode: str, environ: Mapping[str, str], passthrough: bool | None) -> tuple[bool | None, str]:
    """How a notification reaches the owner, for `doctor`: (ok, words); None: a warning."""
    if mode == "off":
        return None, "off: nothing reaches the terminal (notify = \"off\")"
    where = f"{environ.get('TERM_PROGRAM') or environ.get('TERM') or 'terminal'}"
    if mode == "bell":
        return True, f"bell ({where}{', forwarded by tmux' if in_tmux(environ) else ''})"
    if not in_tmux(environ):
        return True, f"{mode} escape, straight to {where}"
    if passthrough is False:
        return None, f"{mode} inside tmux: {PASSTHROUGH_OFF}"
    if passthrough is None:
        return None, f"{mode} inside tmux, wrapped in its passthrough; could not ask tmux whether it forwards it"
    return True, f"{mode} inside tmux, wrapped in its passthrough (allow-passthrough on)"


class Notifier:
    """Sends one notification per call through `write` (the terminal driver's writer)."""

    def __init__(self, mode: str, write: Callable[[str], None], environ: Mapping[str, str]) -> None:
        if mode not in MODES:
            raise ValueError(f"notify: unknown mode {mode!r} (one of {', '.join(MODES)})")
        self.mode = mode
        self.write = write
        self.tmux = in_tmux(environ)

    def __call__(self, title: object, body: object = "") -> str:
        seq = sequence(self.mode, title, body, tmux=self.tmux)
        if seq:
            self.write(seq)
        return seq


def summary(notes: list[tuple[str, str]]) -> tuple[str, str] | None:
    """One notification for a poll's ringing notes: the first one's title and text, and how many more."""
    if not notes:
        return None
    title, body = notes[0]
    more = len(notes) - 1
    return title, (f"{body} (+{more} more)" if more else body)


def ring(app: object, notes: list) -> str:
    """The panel's hook: one notification for the notes that ring (`Note.ring`), in the configured mode.

    Duck-typed on the App (settings, `bell`, `_driver`, `is_headless`) so this module never imports
    Textual; headless (tests) writes no OSC. Returns what was sent, for tests and logs.
    """
    import os

    ringing = [(n.title, n.message) for n in notes if getattr(n, "ring", False)]
    found = summary(ringing)
    settings = getattr(app, "settings", None)
    mode = getattr(settings, "notify", None) or ("bell" if getattr(settings, "bell", True) else "off")
    if found is None or mode == "off":
        return ""
    if mode == "bell":
        app.bell()  # type: ignore[attr-defined]  # Textual's own (it writes nothing headless)
        return BEL
    driver = getattr(app, "_driver", None)
    if driver is None or getattr(app, "is_headless", True):
        return ""
    if in_tmux(os.environ):
        # Asked once per panel: a tmux without passthrough drops the OSC and nothing says so.
        if getattr(app, "tmux_passthrough", "unasked") == "unasked":
            app.tmux_passthrough = tmux_passthrough(os.environ)  # type: ignore[attr-defined]
            if app.tmux_passthrough is False:  # type: ignore[attr-defined]
                app.notify(PASSTHROUGH_OFF, severity="warning", timeout=15, markup=False)  # type: ignore[attr-defined]
        if app.tmux_passthrough is False:  # type: ignore[attr-defined]
            app.bell()  # type: ignore[attr-defined]
            return BEL
    return Notifier(mode, driver.write, os.environ)(*found)
