"""The dead-man's switch: a scheduled ntfy message watch keeps pushing back, or a heartbeat URL it pings.

If the machine or the process dies, nobody re-arms the ntfy message and it arrives: "sagan-tui
watch has not checked in since 03:12". A heartbeat URL (a healthchecks-style ping) is the same
idea kept by the other side: it alarms when the pings stop. Failures are said, never raised.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Callable

import httpx

from sagan_tui.core.pages.senders import NtfySender, PageFailed, _request
from sagan_tui.core.pages.targets import Target, TargetError, parse_target

SEQ = "sagan-tui-deadman"
# Re-armed after a poll at most this often: ntfy.sh limits a client's requests, and a switch due
# in minutes loses nothing by being pushed back every half minute instead of every 5 s poll.
REARM_S = 30.0


def parse_deadman(url: str) -> Target:
    """The `deadman_url` setting: an ntfy topic or an http(s) heartbeat URL (TargetError otherwise)."""
    target = parse_target(url, 1, "deadman_url")
    if target.scheme not in ("ntfy", "ntfys", "http", "https"):
        raise TargetError(f"deadman_url: entry 1 (scheme {target.scheme!r}): expected ntfy://, ntfys:// or an http(s) URL")
    if target.scheme in ("http", "https"):
        host = target.url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
        return Target(target.scheme, f"{target.scheme} {host.split(':')[0]}", frozenset(), target.url)
    return target


class DeadMan:
    def __init__(self, target: Target, client: httpx.AsyncClient, *, minutes: float,
                 say: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.t, self.client, self.minutes, self.say, self.clock = target, client, minutes, say, clock
        self._armed_at: float | None = None
        self._failing = False

    async def beat(self, now: datetime) -> None:
        if self._armed_at is not None and self.clock() - self._armed_at < REARM_S:
            return
        try:
            if self.t.scheme in ("ntfy", "ntfys"):
                text = f"sagan-tui watch has not checked in since {now.astimezone().strftime('%H:%M')}"
                await NtfySender(self.t, self.client).schedule(SEQ, "sagan-tui watch is silent", text,
                                                               int(self.minutes * 60))
            else:
                reply = await _request(self.t.scheme, self.client, "GET", self.t.url)
                if reply.status_code >= 300:
                    raise PageFailed(f"heartbeat {reply.status_code}")
        except PageFailed as why:
            self.say(f"dead-man's switch failed: {why} ({self.t.shown})")
            self._failing = True
            return
        if self._armed_at is None or self._failing:
            self.say(f"dead-man's switch armed: {self.t.shown}, {self.minutes:g} min")
        self._failing = False
        self._armed_at = self.clock()

    async def disarm(self) -> None:
        """A watch stopped on purpose cancels its scheduled message (a heartbeat just stops)."""
        if self._armed_at is None or self.t.scheme not in ("ntfy", "ntfys"):
            return
        try:
            await NtfySender(self.t, self.client).cancel(SEQ)
            self.say("dead-man's switch disarmed (watch stopped)")
        except PageFailed as why:
            self.say(f"dead-man's switch not disarmed: {why} (it will fire)")
