"""`sagan-tui`: the panel against the configured Sagan and RunPod accounts."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from typing import TYPE_CHECKING

from sagan_tui.commands.common import draft_from_args
from sagan_tui.startup import release_gc

if TYPE_CHECKING:
    from sagan_tui.config import Draft, Settings


def settings_for(args: argparse.Namespace, environ: dict[str, str] | None = None, **extra) -> Draft:
    """The panel's settings with its flags on top, gathered and not yet validated (the panel
    validates them right after its first frame); warnings printed before the screen takes over."""
    return draft_from_args(
        args, environ, mouse=False if getattr(args, "no_mouse", False) else None,
        bell=False if getattr(args, "no_bell", False) else None, color_system=getattr(args, "color", None),
        **extra)


class _ScrubbingFormatter(logging.Formatter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        from sagan_tui.sources.errors import scrub

        return scrub(super().format(record), self.secrets)


def log_to_file(settings: Settings | Draft) -> Path:
    """Warnings go to a file beside the cache, never to the terminal the panel is drawing on.

    Taken before anything else configures logging: the runpod SDK calls basicConfig with a
    stderr handler when imported, which would then be a no-op instead of writing over the screen.
    """
    path = settings.cache_path.with_name("panel.log")
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(_ScrubbingFormatter(settings.secrets()))
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    return path


def run_panel(settings: Settings | Draft) -> int:
    """Run the app until quit; its session opens the cache and the poller after the first frame
    and closes them when the app ends."""
    log_to_file(settings)
    if settings.color_system != "auto":
        # Textual reads this once, when it is first imported: set it before that.
        os.environ["TEXTUAL_COLOR_SYSTEM"] = settings.color_system
    from sagan_tui.ui.app import SaganApp

    app = SaganApp(settings)
    try:
        app.run(mouse=settings.mouse)
    finally:
        release_gc()  # if the app stopped before its first frame
    return app.return_code or 0


def run(args: argparse.Namespace) -> int:
    return run_panel(settings_for(args))
