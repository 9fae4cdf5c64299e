"""What an owner action returns and what a stop aims at: the channel's own Structs, so that the
session sends a result as it is and the UI reads the type the core made (wire/channel/views.py)."""

from __future__ import annotations

from sagan_tui.wire.channel.views import ActionResultView as ActionResult
from sagan_tui.wire.channel.views import StopTargetView as StopTarget

__all__ = ["ActionResult", "StopTarget"]
