"""What the Sagan and account pollers share: the settings, the cache, the clock, where the cache is
written, and each source's health as the last poll of it left it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Awaitable, Callable

from sagan_tui.core.config_model import Settings
from sagan_tui.core.models import HealthState, SourceHealth
from sagan_tui.core.store.cache import Cache


@dataclass
class PollContext:
    settings: Settings
    cache: Cache
    clock: Callable[[], datetime]  # when a poll happened: a test steps it with the simulator's served time
    # Where the cache is written (a thread); the panel's session gives its one writer thread.
    offload: Callable[..., Awaitable[Any]] = asyncio.to_thread
    health: dict[str, SourceHealth] = field(default_factory=dict)

    def ok(self, name: str, now: datetime, started: datetime | None = None, commit: bool = True,
           **money: object) -> SourceHealth:
        """`started`: when the poll that succeeded at `now` began (its duration counts in staleness).
        `commit=False`: the health to set once the poll's write has succeeded."""
        h = replace(self.health[name], state=HealthState.OK, error_kind=None, message=None, last_success=now,
                    last_attempt=started or now, consecutive_failures=0, next_attempt=None, **money)
        if commit:
            self.health[name] = h
        return h
