"""The panel over a cache a test holds: its session in the test's own process, on the test's loop,
served by the session process's real host over a socketpair (sagan_tui/core/session/loopback.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Callable


def panel_app(settings, cache, poller=None, *, clock: Callable[[], datetime] | None = None, poll: bool = True,
              app_class=None):
    """A SaganApp (or `app_class`) whose session is opened now on `cache` (and `poller`, if given),
    with `clock` for both the session and the panel."""
    from sagan_tui.wire.basics import utcnow
    from sagan_tui.core.session.loopback import InProcessSession
    from sagan_tui.panel.app import SaganApp

    session = InProcessSession(settings, cache, poller, clock=clock or utcnow, poll=poll)
    return (app_class or SaganApp)(settings, session, clock=clock, poll=poll)
