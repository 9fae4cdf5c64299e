"""What an owner action returns, what a stop aims at, and the text hygiene of both."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagan_tui.store.cache import CachedPod

# C0 controls except tab and newline, DEL, and C1 controls: an ESC or a CSI from a server
# message or a plan body must never reach the terminal as a sequence. The bidi overrides and
# isolates too: they would reorder what the owner reads (ui/safe_text.py strips the same set).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object, *, single_line: bool = False) -> str:
    """Text safe to show: control characters replaced, optionally folded to one line."""
    out = _CONTROL.sub("\N{REPLACEMENT CHARACTER}", "" if text is None else str(text))
    if single_line:
        out = " ".join(out.split())
    return out


@dataclass(frozen=True)
class ActionResult:
    """The outcome of one owner action, as the panel reports it.

    `ok` is True only when the server said so. `refused` means nothing was sent (read-only,
    in flight, a guard or a re-check said no); `server_error` holds the server's own words.
    """

    ok: bool
    message: str
    server_error: str | None = None
    refused: bool = False
    verb: str = ""
    target: str = ""
    account: str | None = None
    audit_id: int | None = None
    parts: tuple["ActionResult", ...] = ()

    @property
    def result(self) -> str:
        """The audit log's word for it."""
        return "ok" if self.ok else ("refused" if self.refused else "error")

    @property
    def failed(self) -> tuple["ActionResult", ...]:
        return tuple(p for p in self.parts if not p.ok)


@dataclass(frozen=True)
class StopTarget:
    """A pod to stop, as the owner saw it when they asked: the re-check compares against this."""

    pod_id: str
    account: str
    expected_status: str = "RUNNING"
    experiment: int | None = None
    name: str | None = None

    @classmethod
    def of(cls, cached: "CachedPod") -> "StopTarget":
        return cls(pod_id=cached.pod_id, account=cached.account, expected_status=cached.pod.desired_status,
                   experiment=cached.experiment, name=cached.pod.name)

    def label(self) -> str:
        exp = f"#{self.experiment}" if self.experiment is not None else "no experiment"
        return f"{self.pod_id} ({self.account}, {exp}, {self.expected_status})"
