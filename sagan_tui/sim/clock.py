"""The simulator's clock: scenario seconds from the start, served as wall-clock time."""

from __future__ import annotations

import time
from datetime import datetime, timezone


class SimClock:
    """Maps scenario time `t` (seconds from the start) to served time `start + t / speed`.

    Served "now" is always the wall clock: jumping moves the start back, so the past a
    client sees is what a real service would show after that much time.
    """

    def __init__(self, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be > 0")
        self.speed = float(speed)
        self.start = time.time()
        # Bumped whenever the mapping changes, so caches of served timestamps know to refresh.
        self.epoch = 0
        self.held: float | None = None  # scenario time stands still here (tests step it): see hold()

    def reset(self) -> None:
        """Scenario time 0 is now."""
        self.jump_to(0.0)

    def now_t(self) -> float:
        if self.held is not None:
            return self.held
        return (time.time() - self.start) * self.speed

    def hold(self, t: float) -> None:
        """Scenario time stands at `t` until held elsewhere: served times keep one frame (`at(t)`),
        so a client stepping its own clock to `at(t)` sees minutes pass between its polls, where a
        jump would squeeze them into the milliseconds a test takes."""
        self.held = float(t)

    def jump_to(self, t: float) -> None:
        self.held = None
        self.start = time.time() - t / self.speed
        self.epoch += 1

    def advance(self, seconds: float) -> None:
        """Move scenario time forward by `seconds` (scenario seconds)."""
        self.jump_to(self.now_t() + seconds)

    def at(self, t: float) -> datetime:
        """The served (wall-clock, UTC) time of scenario time `t`."""
        return datetime.fromtimestamp(self.start + t / self.speed, tz=timezone.utc)

    def t_of(self, when: datetime) -> float:
        """The scenario time of a served timestamp (naive ones are UTC)."""
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return (when.timestamp() - self.start) * self.speed

    def wall_seconds(self, t_from: float, t_to: float) -> float:
        """Served (wall) seconds between two scenario times."""
        return (t_to - t_from) / self.speed
