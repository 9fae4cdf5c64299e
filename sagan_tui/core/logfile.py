"""The panel's log file beside the cache, scrubbed of secrets: the panel and its session process write it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagan_tui.wire.config import Draft
    from sagan_tui.core.config_model import Settings


class _ScrubbingFormatter(logging.Formatter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        from sagan_tui.core.sources.errors import scrub

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
