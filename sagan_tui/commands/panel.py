"""`sagan-tui`: the panel against the configured Sagan and RunPod accounts."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from sagan_tui.commands.common import draft_from_args
from sagan_tui.wire.config import ConfigError
from sagan_tui.core.logfile import log_to_file

if TYPE_CHECKING:
    from sagan_tui.wire.config import Draft
    from sagan_tui.core.config_model import Settings


def settings_for(args: argparse.Namespace, environ: dict[str, str] | None = None, **extra) -> Draft:
    """The panel's settings with its flags on top, gathered and not yet validated (the panel
    validates them right after its first frame); warnings printed before the screen takes over."""
    return draft_from_args(
        args, environ, mouse=False if getattr(args, "no_mouse", False) else None,
        bell=False if getattr(args, "no_bell", False) else None, color_system=getattr(args, "color", None),
        **extra)


NO_TERMINAL = ("sagan-tui: the panel needs a terminal, and standard {which} not one. Without a screen: "
               "`sagan-tui sync` fills the cache, `sagan-tui report` and `sagan-tui waves --cache PATH` read it.")


def refuse_without_terminal() -> int | None:
    """2 (after saying why) when standard input or output is not a terminal: the panel would draw
    escape codes into a file or a pipe and wait forever for keys that cannot come."""
    missing = [name for name, stream in (("input", sys.stdin), ("output", sys.stdout))
               if stream is None or not stream.isatty()]
    if not missing:
        return None
    which = " and ".join(missing) + (" are" if len(missing) == 2 else " is")
    print(NO_TERMINAL.format(which=which), file=sys.stderr)
    return 2


def run_panel(settings: Settings | Draft, standalone: bool = False) -> int:
    """Run the app until quit (or a stop signal, which ends it as `q` does); its session opens the
    cache and the poller after the first frame and closes them when the app ends."""
    from sagan_tui.commands.stop_signals import exit_on_stop_signals

    try:
        if hasattr(settings, "check_cache_path"):
            settings.check_cache_path()
        log_to_file(settings)
    except ConfigError as exc:
        print(f"sagan-tui: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"sagan-tui: cannot write the panel's log beside the cache {settings.cache_path}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    if settings.color_system != "auto":
        # Textual reads this once, when it is first imported: set it before that.
        os.environ["TEXTUAL_COLOR_SYSTEM"] = settings.color_system
    elif os.environ.get("TERM") == "dumb":
        # A dumb terminal takes no colour: Textual would still send 24-bit codes. NO_COLOR is the
        # convention Textual honours (it drops every hue), and the fewest codes for what is left.
        os.environ.setdefault("NO_COLOR", "1")
        os.environ["TEXTUAL_COLOR_SYSTEM"] = "standard"
    from sagan_tui.wire.channel.early import attach_or_start_early

    # A `watch` on this cache is attached to (its polls serve every panel); otherwise the session
    # process starts before Textual is imported, opened on these layers: its start and first poll
    # run beside the UI's start instead of after the first frame (wire/channel/early.py).
    why = attach_or_start_early(settings if hasattr(settings, "values") else None, settings.cache_path, standalone)
    if why is not None:
        print(f"sagan-tui: {why}; this panel polls on its own", file=sys.stderr)
    from sagan_tui.panel.app import SaganApp

    # The imports' objects (36,000, 28,000 of them Textual's) live as long as the process: no
    # collection can free one. Frozen once, here, every later full collection stops walking them
    # (the one met before the first frame, and the worst keys' pauses: docs/performance.md).
    # Everything made from here on is collected as before (from the first frame on: `run`), no threshold changed.
    gc.freeze()
    app = SaganApp(settings)
    with exit_on_stop_signals(app):
        app.run(mouse=settings.mouse)
    return app.return_code or 0


def run(args: argparse.Namespace) -> int:
    refused = refuse_without_terminal()
    if refused is not None:
        return refused
    from sagan_tui.panel import collection_hold

    collection_hold.hold()  # no collection until the first frame is drawn (panel/collection_hold.py)
    return run_panel(settings_for(args), standalone=bool(getattr(args, "standalone", False)))
