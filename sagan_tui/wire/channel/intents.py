"""The owner's intents, UI to session: one Struct per intent, each with the type of its answer.

`INTENTS` registers them all (the session's table of handlers, core/session/answers.py, must cover
every one: a test checks it). A Struct's `result` class attribute is the type its Reply's result
is decoded as, so a caller gets a typed value or a validation error, never a guess.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Union

import msgspec

from sagan_tui.wire.channel.views import (ActionResultView, ApprovalView, AuditView, DetailView, Done, FailedView,
                                     PodDetailView, ProposalView, ReadyView, StopTargetView, VerdictView)


class Intent(msgspec.Struct, frozen=True, tag=True):
    """Base of every intent; the tag is the class name."""

    result: ClassVar[Any] = Done


# --- the start: the settings' layers as the panel gathered them ----------------------------

class Open(Intent, frozen=True):
    """Validate these layers (config.py's Draft: values and accounts) and open the cache. Sent once,
    first; the answer is the whole panel or why it cannot run. The layers may hold the token and
    keys: they cross only this owner-only socket, and are never logged."""

    values: dict[str, Any]
    accounts: dict[str, dict[str, Any]]
    poll: bool = True  # False: no poll until a refresh (tests, --no-poll)
    clock: datetime | None = None  # a held session clock (tests, replays); None: the wall's
    # The layer that set each value (config.py's Draft.origins: "flag --cache", "config file
    # PATH"): a config error in the panel names where to mend it, as the headless commands do.
    origins: dict[str, str] = {}
    result: ClassVar[Any] = Union[ReadyView, FailedView]


class PreOpen(Intent, frozen=True):
    """Open on these layers now, ahead of the Open (a panel attaching to a `watch` sends it as it
    connects, before it imports Textual). Answered as the Open is (the whole panel, or why not), as
    soon as the session has it: the answer waits in the socket while the panel imports Textual, and
    its first frame is the watch's state; the panel then sends no Open (one on the same layers
    would be answered by the same session). None: no session was started by it (one was open
    already, or it could not start): the panel's Open opens it and says why."""

    values: dict[str, Any]
    accounts: dict[str, dict[str, Any]]
    origins: dict[str, str] = {}
    result: ClassVar[Any] = Union[ReadyView, FailedView, None]


# --- the polls and what the panes ask for ---------------------------------------------------

class Refresh(Intent, frozen=True):
    """Poll every source now, backoff or not; `at` as Tick's (the poll reads the moved clock)."""

    at: datetime | None = None


class Pause(Intent, frozen=True):
    paused: bool


class SetInterval(Intent, frozen=True):
    seconds: float


class WatchTimeline(Intent, frozen=True):
    """Send `tag`'s timeline rows for this scope now, and again whenever they change."""

    tag: str
    experiment: int | None
    kind: str


class ForgetTimeline(Intent, frozen=True):
    tag: str


class WatchHeatmap(Intent, frozen=True):
    """Send the loss heatmap's grid for this scope now (rows by `dimension`, the last `window_s`
    seconds or every loss when None, `width` characters), and again whenever the losses change."""

    dimension: str
    window_s: float | None
    width: int


class FollowPod(Intent, frozen=True):
    """Read this pod's log and GPU figures now and every few seconds, sending what is new as
    updates, until ForgetPod (a pod's screen is open)."""

    pod_id: str
    account: str


class ForgetPod(Intent, frozen=True):
    pod_id: str


class ViewPod(Intent, frozen=True):
    """A pod's record from the cache (RunPod's and Sagan's), its cost so far and its losses."""

    pod_id: str
    result: ClassVar[Any] = PodDetailView


class Tick(Intent, frozen=True):
    """Re-render the rows whose text time alone changed. `at`: the panel's reading of a held
    session clock (a replay, a test), which moves it; None on a live clock."""

    at: datetime | None = None


class KeyPressed(Intent, frozen=True):
    """The owner is at the keyboard (for "since you last looked"); `at` as Tick's."""

    at: datetime | None = None


# --- the panes' own changes, answered in words ------------------------------------------------

class Dismiss(Intent, frozen=True):
    pod_id: str
    result: ClassVar[Any] = str


class ToggleDismissed(Intent, frozen=True):
    result: ClassVar[Any] = str


class AcknowledgeWave(Intent, frozen=True):
    result: ClassVar[Any] = str


class StartCanary(Intent, frozen=True):
    number: int
    result: ClassVar[Any] = str


# --- what the dialogs read --------------------------------------------------------------------

class HeldNow(Intent, frozen=True):
    result: ClassVar[Any] = tuple[int, ...]


class CanaryRest(Intent, frozen=True):
    result: ClassVar[Any] = tuple[int, ...]


class BlockedBy(Intent, frozen=True):
    numbers: tuple[int, ...]
    result: ClassVar[Any] = dict[int, str]


class HoldNote(Intent, frozen=True):
    result: ClassVar[Any] = str


class WaveResponse(Intent, frozen=True):
    """The response the wave on screen calls for (W's dialog); None when there is no wave."""

    result: ClassVar[Any] = ProposalView | None


class DispatchVerdict(Intent, frozen=True):
    number: int
    result: ClassVar[Any] = VerdictView


class DispatchGuard(Intent, frozen=True):
    """The guard one dispatch path meets (verb: approve, release, redispatch, canary) for these
    experiments: the verdict the session's runner enforces, with the token to type."""

    verb: str
    numbers: tuple[int, ...]
    result: ClassVar[Any] = VerdictView


class ApprovalsOf(Intent, frozen=True):
    number: int
    status: str = "pending"
    result: ClassVar[Any] = tuple[ApprovalView, ...]


class AuditLog(Intent, frozen=True):
    limit: int = 500
    result: ClassVar[Any] = tuple[AuditView, ...]


class BalanceHistory(Intent, frozen=True):
    """account -> its (at, balance, under_balance, spend_per_hr, spend_limit) rows, oldest first,
    for the account view's sparkline."""

    result: ClassVar[Any] = dict[str, tuple[tuple[datetime, float | None, bool | None, float | None,
                                                  float | None], ...]]


class ViewExperiment(Intent, frozen=True):
    """One experiment as Sagan serves it now (the detail screen's plan)."""

    number: int
    result: ClassVar[Any] = DetailView


class ExportReport(Intent, frozen=True):
    directory: str
    source: str = "export"  # the audit's verb: `e`'s export, or W's "ticket"
    result: ClassVar[Any] = tuple[str, str]  # (the file written, what was said)


# --- the owner's actions, each answered with its result ----------------------------------------

class Refuse(Intent, frozen=True):
    """A mutating key in read-only: refused out loud and audited."""

    what: str
    target: str = "-"  # what the key was pressed on (#192, a pod id, the marked rows); "-": nothing
    result: ClassVar[Any] = ActionResultView


class Decide(Intent, frozen=True):
    approval_id: str
    decision: str  # approve, reject, defer
    answers: dict[str, str]
    note: str
    confirm: str | None = None  # the guard's token, as typed (approving during a wave)
    result: ClassVar[Any] = ActionResultView


class Hold(Intent, frozen=True):
    """Containment: hold, stop the starting and doomed pods but `keep`, verify; `origin` is audited."""

    numbers: tuple[int, ...]
    note: str
    origin: str = "h"
    keep: tuple[str, ...] = ()
    result: ClassVar[Any] = ActionResultView


class StopTargets(Intent, frozen=True):
    """The pods a hold of `numbers` would stop now, for the dialog to list before Send."""

    numbers: tuple[int, ...]
    result: ClassVar[Any] = tuple[StopTargetView, ...]


class Release(Intent, frozen=True):
    numbers: tuple[int, ...]
    note: str = ""
    confirm: str | None = None  # the guard's token, as typed (releasing during a wave)
    result: ClassVar[Any] = ActionResultView


class ReleaseRefused(Intent, frozen=True):
    number: int
    result: ClassVar[Any] = ActionResultView


class Canary(Intent, frozen=True):
    number: int
    confirm: str | None = None
    result: ClassVar[Any] = ActionResultView


class Redispatch(Intent, frozen=True):
    number: int
    note: str
    confirm: str | None = None
    result: ClassVar[Any] = ActionResultView


class Promote(Intent, frozen=True):
    number: int
    result: ClassVar[Any] = ActionResultView


class Stop(Intent, frozen=True):
    targets: tuple[StopTargetView, ...]
    result: ClassVar[Any] = ActionResultView


class RecordCancelled(Intent, frozen=True):
    """An action the owner backed out of in its dialog, audited (nothing is sent)."""

    verb: str
    target: str
    account: str | None = None
    detail: str | None = None
    result: ClassVar[Any] = ActionResultView


INTENTS: tuple[type[Intent], ...] = (
    Open, PreOpen, Refresh, Pause, SetInterval, WatchTimeline, ForgetTimeline, WatchHeatmap, FollowPod, ForgetPod, ViewPod, Tick, KeyPressed,
    Dismiss, ToggleDismissed, AcknowledgeWave, StartCanary,
    HeldNow, CanaryRest, BlockedBy, StopTargets, HoldNote, WaveResponse, DispatchVerdict, DispatchGuard, ApprovalsOf, AuditLog, BalanceHistory, ViewExperiment,
    ExportReport,
    Refuse, Decide, Hold, Release, ReleaseRefused, Canary, Redispatch, Promote, Stop, RecordCancelled,
)
AnyIntent = Union[INTENTS]  # type: ignore[valid-type]
