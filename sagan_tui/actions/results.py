"""What an owner action returns and what a stop aims at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagan_tui.store.cache import CachedPod

@dataclass(frozen=True)
class ActionResult:
    """The outcome of one owner action, as the panel reports it.

    `ok` is True only when the server said so. `refused` means nothing was sent (read-only,
    in flight, a guard or a re-check said no); `cancelled` that the owner backed out of a
    dialog (nothing sent either); `server_error` holds the server's own words. A bulk action
    holds one result per target in `parts`, and `did` is its verb's past tense ("stopped").
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
    cancelled: bool = False
    did: str = ""

    @property
    def result(self) -> str:
        """The audit log's word for it."""
        if self.ok:
            return "ok"
        return "cancelled" if self.cancelled else ("refused" if self.refused else "error")

    @property
    def failed(self) -> tuple["ActionResult", ...]:
        return tuple(p for p in self.parts if not p.ok)

    @property
    def title(self) -> str:
        """The notification's title: `2 of 3 stopped` for a bulk action, else one word."""
        if self.parts:
            return f"{sum(p.ok for p in self.parts)} of {len(self.parts)} {self.did or 'done'}"
        if self.ok:
            return "Done"
        return "Cancelled" if self.cancelled else ("Refused" if self.refused else "Failed")

    @property
    def severity(self) -> str:
        """`information` when all went through, `error` when nothing did through a failure;
        `warning` for the rest: a refusal, a cancel, or a bulk action that partly went through."""
        if self.ok:
            return "information"
        if self.refused or self.cancelled or any(p.ok for p in self.parts):
            return "warning"
        return "error"


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
