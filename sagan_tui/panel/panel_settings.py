"""The settings the panel reads: its own copy of what the session validated (config.UiSettings)."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class PanelSettings:
    """The UI's own copy of the values it reads (config.UiSettings): the interval keys change its
    poll_interval here and tell the session; the session owns the settings it validated."""

    cache_path: Any
    poll_interval: float
    read_only: bool
    guard_minutes: float
    color_system: str
    mouse: bool
    notify: str
    runway_warn_hours: float
    notice_seconds: float
    keymap: tuple
    secrets: tuple
    request_timeout: float

    @classmethod
    def of(cls, ui: Any) -> "PanelSettings":
        return cls(**{f.name: getattr(ui, f.name) for f in dataclasses.fields(cls)})
