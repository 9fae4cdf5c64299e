"""Pure renderers: records to table rows and to the status line, as plain (text, style) cells."""

from __future__ import annotations

import math
import os
import re
import zlib
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

import msgspec

from sagan_tui.wire.basics import NO_TURN, STOPPED_STATES, HealthState, SourceHealth, as_utc
from sagan_tui.wire.channel.views import CellView, RowView
from sagan_tui.wire.runway import DEFAULT_WARN_HOURS, Runway, runway
from sagan_tui.wire import fmt
from sagan_tui.wire.safe_text import clean, one_line

if TYPE_CHECKING:  # annotations only: the first frame is drawn before pydantic and sqlite-utils are imported
    from sagan_tui.core.models import ApprovalRequest, Experiment, Loss, WorkflowEvent
    from sagan_tui.core.store.cache import CachedPod

# Styles are Rich style strings: they render in 256 colours and in 16 when TERM says so.
OWNER = "bold yellow"
UNKNOWN = "italic magenta"
DIM = "dim"
LOST = "dim red"
STALE = "yellow"
ERROR = "bold red"
OK = "green"
# A fixed palette, picked by a stable hash of the account name: the same account keeps its
# colour across sessions and machines. The first two accounts are pinned apart.
ACCOUNT_COLOURS = ("cyan", "magenta", "green", "blue", "yellow", "bright_red")
_PINNED = {"team": "cyan", "personal": "magenta"}


# A cell is the channel's wire type itself (a msgspec Struct: array-like, untracked by the
# collector): the session renders straight into what it sends, and the UI's table stores what it
# decoded, with no copy of every cell on either side.
Cell = CellView


# One table row is the wire's own (channel/views.py's RowView): the session's renderers make it
# and the channel carries it as it is, so a row has one shape from the renderer to the table.
# `group` sorts before any column (the owner's inbox sits on top); `order` is the default order
# within a group; `until` is when its text may next read differently with time alone.
Row = RowView


class Column(NamedTuple):  # not a dataclass: the first frame imports this (no exec'd methods)
    key: str
    label: str
    width: int | None = None  # None: the label's width (cells are cut to it, never measured)


def account_colour(name: str) -> str:
    return _PINNED.get(name) or ACCOUNT_COLOURS[zlib.crc32(name.encode()) % len(ACCOUNT_COLOURS)]


# --- durations and times: the one formatting module, under the names the panes use --------

coarse, coarse_left, seen_text, since, when = fmt.coarse, fmt.coarse_left, fmt.seen_text, fmt.since, fmt.when
hhmm, hhmmss, money, window = fmt.hm, fmt.hms, fmt.usd, fmt.window


# --- experiments -------------------------------------------------------------------------

EXPERIMENT_COLUMNS = (
    Column("number", "#", 6), Column("status", "status", 23), Column("turn", "whose turn", 21),
    Column("pods", "pods", 4), Column("age", "age", 5), Column("title", "title", 60),
)
# The turn column is narrow: the owner's actions in a few words (the detail view has Sagan's text).
SHORT_TURN = {
    "awaiting_clarifications": "answer questions", "gate_pending": "resolve gate",
    "plan_pending": "approve plan", "awaiting_approval": "approve", "reviewing": "review results",
    "awaiting_promotion": "promote result", "blocked": "unblock / revise",
}
SHORT_SAGAN = {"clarify scope": "clarify", "clarify hypothesis and information gain": "clarify",
               "draft plan": "plan", "run and verify": "run / verify"}


def turn_cell(exp: Experiment, deferred_at: datetime | None = None) -> Cell:
    """Whose turn, short; an owner turn whose request the owner deferred says so and when
    (`YOU: answer questions · deferred 20:31`): still the owner's, but not forgotten."""
    turn = clean(exp.effective_turn)
    who, _, what = turn.partition(":")
    if exp.owner_turn:
        later = f" · deferred {fmt.hm(deferred_at)}" if deferred_at is not None else ""
        return Cell(f"YOU: {SHORT_TURN.get(exp.status, what.strip())}{later}", OWNER, sort=0)
    if who.strip().lower() == "sagan":
        return Cell(f"sagan: {SHORT_SAGAN.get(what.strip(), what.strip())}", DIM, sort=1)
    return Cell("—" if turn == NO_TURN else turn, DIM, sort=2)


def status_cell(status: str, known: bool) -> Cell:
    s = clean(status)
    return Cell(s, "") if known else Cell(f"{s}?", UNKNOWN)


def experiment_row(exp: Experiment, live_pods: int, now: datetime, deferred_at: datetime | None = None,
                   warning: str | None = None) -> Row:
    """`warning`: the session's word that the owner's hold on it did not hold (an override)."""
    age = since(exp.created_at or exp.updated_at, now)
    cells = (
        Cell(f"#{exp.number}", OWNER if exp.owner_turn else "", sort=exp.number),
        status_cell(exp.status, exp.status_known),
        Cell("HOLD OVERRIDDEN", "bold color(231) on color(160)") if warning else turn_cell(exp, deferred_at),
        Cell(str(live_pods) if live_pods else "·", "bold" if live_pods else DIM, sort=live_pods),
        Cell(coarse(age), DIM, sort=-(age or 0)),
        Cell(clean(f"{warning} | {exp.title}" if warning else exp.title)),
    )
    return Row(cells, group=0 if exp.owner_turn else 1, order=-exp.number, until=now.timestamp() + coarse_left(age))


# --- pods --------------------------------------------------------------------------------

POD_COLUMNS = (
    Column("pod", "pod", 14), Column("account", "account", 9), Column("exp", "exp", 5),
    Column("status", "status", 7), Column("uptime", "up", 6), Column("seen", "seen/lost", 9),
    Column("cost", "$/h", 5), Column("note", "how", 36), Column("gpu", "GPU", 16), Column("dc", "DC", 9),
    Column("name", "name", 28),
)


def short_gpu(name: str | None) -> str:
    """`A100 80GB PCIe` for `NVIDIA A100 80GB PCIe`: the vendor is the same on every row."""
    return clean(name or "—").removeprefix("NVIDIA ").removeprefix("GeForce ")


class PodLine(msgspec.Struct, frozen=True, gc=False):
    """What a pod's row shows: the session's CachedPod and its Loss, merged (`pod_line`), or the
    cache's columns as the first frame reads them (sagan_tui/panel/peek.py). `status` is RunPod's
    desired status (None for a pod known only from its loss); `gone_at` is when it was lost or
    went; `lost` is its loss's reason (None: no loss); `cost_per_hr` the adjusted price first."""

    pod_id: str
    account: str
    experiment: int | None = None
    status: str | None = None
    last_status_change: str | None = None
    cluster_id: str | None = None
    flag: str | None = None
    name: str | None = None
    gpu: str | None = None
    datacenter: str | None = None
    cost_per_hr: float | None = None
    running_at: datetime | None = None
    last_seen_at: datetime | None = None
    gone_at: datetime | None = None
    gone_reason: str | None = None
    missing_since: datetime | None = None
    lost: str | None = None


def pod_line(cp: CachedPod | None, loss: Loss | None) -> PodLine:
    """A cached pod and its loss as one line: the pod's record first, the loss's where the record
    says nothing; a pod Sagan reported lost that no poll of ours saw has its loss alone."""
    if cp is None:
        assert loss is not None
        return PodLine(loss.pod_id, loss.account, loss.experiment, gpu=loss.gpu, datacenter=loss.datacenter,
                       cost_per_hr=loss.cost_per_hr, running_at=loss.running_at, last_seen_at=loss.last_seen_at,
                       gone_at=loss.lost_at, lost=loss.reason or loss.source)
    pod = cp.pod
    if loss is None:
        return PodLine(pod.id, pod.account, cp.experiment, pod.desired_status, pod.last_status_change, pod.cluster_id,
                       cp.flag, pod.name, pod.gpu, pod.datacenter, pod.adjusted_cost_per_hr or pod.cost_per_hr,
                       cp.running_at, cp.last_seen_at, cp.gone_at, cp.gone_reason, cp.missing_since)
    return PodLine(pod.id, pod.account, cp.experiment, pod.desired_status, pod.last_status_change, pod.cluster_id,
                   cp.flag, pod.name, pod.gpu or loss.gpu, pod.datacenter or loss.datacenter,
                   pod.adjusted_cost_per_hr or pod.cost_per_hr, cp.running_at or loss.running_at,
                   cp.last_seen_at or loss.last_seen_at, loss.lost_at or cp.gone_at, cp.gone_reason, cp.missing_since,
                   loss.reason or loss.source)


def pod_row(cp: CachedPod | None, loss: Loss | None, now: datetime, stale: bool = False,
            seen_by_account: bool = False) -> Row:
    """The row of a cached pod, its loss, or both (`pod_line`, `line_row`)."""
    return line_row(pod_line(cp, loss), now, stale, seen_by_account)


def line_row(p: PodLine, now: datetime, stale: bool = False, seen_by_account: bool = False) -> Row:
    """A pod's row: live pods plain; lost or gone ones dimmed, with when and how they went.

    `seen_by_account`: "seen" is the account's last successful poll, so the row's `until`
    leaves it out (the panel redraws an account's rows when that reads differently).
    """
    gone_at, lost = p.gone_at, p.lost is not None
    base = LOST if lost else (DIM if gone_at else "")
    stopped = not gone_at and p.status in STOPPED_STATES
    missing = p.missing_since if not gone_at else None
    running = p.status == "RUNNING"
    if lost:
        status = Cell("LOST", "bold red")
        note = Cell(clean(p.lost), LOST)
    elif missing:
        # Absent from its account's last list, not (yet) confirmed lost: a direct read or the next list decides.
        status = Cell("MISSING?", "bold yellow")
        note = Cell(f"MISSING? since {hhmmss(missing)}: not in the last list", "yellow")
    elif gone_at:
        status = Cell("gone", DIM)
        note = Cell(clean(p.gone_reason or ""), DIM)
    else:
        ds = "?" if p.status is None else clean(p.status)
        status = Cell(ds, "green" if ds == "RUNNING" else "yellow")
        # RunPod's lastStatusChange is news only when the pod is not running ("Exited by ...").
        note = Cell(clean(p.last_status_change or "") if not running else "", DIM)
        if p.flag and not running:
            note = Cell(clean(p.flag), "yellow")  # e.g. "exited, cause unknown": no one asked for it
        if p.cluster_id and not note.text:
            note = Cell(f"cluster {clean(p.cluster_id)}", DIM)  # an Instant Cluster member (REST v2)
    if p.flag and not lost and note.text != clean(p.flag):  # Sagan and RunPod disagree, two keys list it
        note = Cell(clean(f"⚠ {p.flag}" + (f"; {note.text}" if note.text else "")), "bold yellow")
    up_s = since(p.running_at, gone_at or now) if p.running_at else None
    seen_s = since(p.last_seen_at, now)
    left = coarse_left(up_s) if up_s is not None and not gone_at else math.inf
    if gone_at:
        # When it was lost (the first poll that missed it), to the second: waves are minutes long.
        # ✗ is a loss's only: a pod the owner stopped (or that ended without a loss) reads ■, an end.
        seen = Cell(f"{'✗' if lost else END_MARK}{hhmmss(gone_at)}", "red" if lost else DIM,
                    sort=-(since(gone_at, now) or 0))
    elif stale:  # the account's polls are failing: say how old this row really is
        age = f"{int(seen_s)}s" if seen_s is not None and seen_s < 60 else coarse(seen_s)
        seen = Cell(f"{age}!", STALE, sort=-(seen_s or 0))
        left = min(left, 1.0 if seen_s is not None and seen_s < 60 else coarse_left(seen_s))
    else:
        seen = Cell(seen_text(seen_s), DIM, sort=-(seen_s or 0))
        if seen_s is not None and not seen_by_account:
            left = min(left, 60 - seen_s if seen_s < 60 else coarse_left(seen_s))
    exp, cost, account = p.experiment, p.cost_per_hr, p.account
    cells = (
        Cell(p.pod_id, base or "bold"),
        Cell(clean(account), f"{account_colour(account)}" + (" dim" if gone_at else "")),
        Cell("—" if exp is None else f"#{exp}", base, sort=exp if exp is not None else -1),
        status,
        Cell(coarse(up_s), base, sort=up_s or 0),
        seen,
        # A stopped pod (EXITED) bills no GPU hour: its list price would read as a running cost.
        Cell("—", DIM, sort=0) if stopped else Cell(f"{cost:.2f}" if cost is not None else "—", base, sort=cost or 0),
        note,
        Cell(short_gpu(p.gpu), base),
        Cell(clean(p.datacenter or "—"), base),
        Cell(clean(p.name or ""), base or DIM),
    )
    # Live pods first, then losses (newest first), then other gone pods.
    group = 2 if gone_at and not lost else (1 if lost else 0)
    return Row(cells, group=group, order=(-(as_utc(gone_at).timestamp()) if gone_at else 0, account, p.pod_id),
               until=now.timestamp() + left)


# --- timeline ----------------------------------------------------------------------------

TIMELINE_COLUMNS = (
    Column("at", "at (UTC)", 11), Column("exp", "exp", 5), Column("type", "type", 20),
    Column("what", "what", 24), Column("note", "note", 60),
)
EVENT_KINDS = ("all", "state", "markers", "notes", "pods")
POD_EVENT_TYPES = frozenset({"runpod_status", "runpod_stop_requested", "runpod_stopped",
                             "runpod_stop_failed", "cancelled", "pod_lost"})


def event_kind(event_type: str) -> str:
    if event_type.startswith("epm:"):
        return "markers"
    if event_type == "state_changed":
        return "state"
    if event_type in POD_EVENT_TYPES or event_type.startswith("runpod"):
        return "pods"
    return "notes"


def transition(from_status: str | None, to_status: str | None) -> str:
    """`queued → running`; `→ approved` when the event does not say where it came from; ''
    when nothing changed (`blocked → blocked` is no transition) or no status is given."""
    a, b = clean(from_status or ""), clean(to_status or "")
    if not b or a == b:
        return ""
    return f"{a} → {b}" if a else f"→ {b}"


def event_row(ev: WorkflowEvent, now: datetime) -> Row:
    kind = event_kind(ev.event_type)
    what = transition(ev.from_status, ev.to_status) or clean(ev.actor_kind or "")
    style = {"markers": "cyan", "state": "bold", "pods": "yellow"}.get(kind, "")
    ts = as_utc(ev.created_at).timestamp()  # type: ignore[union-attr]
    cells = (
        Cell(when(ev.created_at, now), DIM, sort=ts),
        Cell("—" if ev.experiment_number is None else f"#{ev.experiment_number}", "",
             sort=ev.experiment_number or -1),
        Cell(clean(ev.event_type), style),
        Cell(what),
        Cell(clean(ev.note or "")),
    )
    return Row(cells, order=(-ts, ev.id))


def loss_event_row(loss: Loss, now: datetime) -> Row:
    ts = loss.lost_at.timestamp()
    gap = loss.gap_s
    cells = (
        Cell(when(loss.lost_at, now), DIM, sort=ts),
        Cell("—" if loss.experiment is None else f"#{loss.experiment}", "", sort=loss.experiment or -1),
        Cell("pod_lost", "bold red"),
        Cell(f"{loss.pod_id} ({clean(loss.account)})", account_colour(loss.account)),
        Cell(clean(f"{loss.reason or loss.source}" + (f", {gap:.0f} s after RUNNING" if gap is not None else ""))),
    )
    return Row(cells, order=(-ts, loss.pod_id))


# --- approvals ---------------------------------------------------------------------------

APPROVAL_COLUMNS = (Column("exp", "exp", 5), Column("kind", "kind", 16), Column("title", "title", 36),
                    Column("fields", "fields", 6))


def approval_row(a: ApprovalRequest) -> Row:
    fields = a.textbox_fields
    cells = (
        Cell("—" if a.experiment_number is None else f"#{a.experiment_number}", OWNER,
             sort=a.experiment_number or -1),
        Cell(clean(a.kind)),
        Cell(clean(a.title)),
        Cell(str(len(fields)) if fields else "·", DIM, sort=len(fields)),
    )
    ts = as_utc(a.created_at).timestamp() if a.created_at else 0
    return Row(cells, order=(-ts, a.id))


# --- the status line ---------------------------------------------------------------------

Segment = tuple[str, str]


# The Linux console's font has no ✓ or ✗: there a source's health is a word, not a missing glyph.
OK_MARK, FAIL_MARK = ("ok", "x") if os.environ.get("TERM") == "linux" else ("✓", "✗")
END_MARK = "-" if os.environ.get("TERM") == "linux" else "■"  # a pod that ended, not lost (pod_row)


def source_segments(h: SourceHealth, now: datetime, poll_interval: float, spend: bool = True,
                    warn_hours: float = DEFAULT_WARN_HOURS) -> list[Segment]:
    """One source's health: ok, stale since T, or its error kind; an account's money beside it
    (its spend rate too unless `spend` is false) and its runway (runway.py)."""
    name = clean(h.source)
    colour = "bold" if h.source == "sagan" else f"bold {account_colour(h.source)}"
    out: list[Segment] = [(name, colour), (" ", "")]
    if h.state == HealthState.DISABLED:
        out.append(("off", DIM))
    elif h.state == HealthState.ERROR:
        kind = h.error_kind.value if h.error_kind else "error"
        out.append((f"{FAIL_MARK}{kind}", "bold white on red"))
        if h.last_success:
            out.append((f" since {hhmm(h.last_success)}", "red"))
    elif h.state == HealthState.UNKNOWN and h.last_success is None:
        out.append(("…", DIM))
    elif h.stale(now, poll_interval):
        out.append((f"stale since {hhmm(h.last_success)}", f"bold {STALE}"))
    elif h.unreadable:
        # Some of its pods are not known: never a plain OK while that lasts.
        n = h.unreadable
        since_text = f" since {hhmm(h.unreadable_since)}" if h.unreadable_since else ""
        out.append((f"⚠ {n} record{'s' if n != 1 else ''} unreadable{since_text}", f"bold {STALE}"))
    elif h.duplicates:
        # A pod listed twice is read as one; the account's list still counts, but it is not a plain OK.
        n = h.duplicates
        since_text = f" since {hhmm(h.duplicates_since)}" if h.duplicates_since else ""
        out.append((f"⚠ {'' if n == 1 else f'{n} '}duplicate record{'s' if n != 1 else ''}{since_text}",
                    f"bold {STALE}"))
    else:
        out.append((OK_MARK, OK))
    if h.phantoms and h.state != HealthState.DISABLED:
        n = h.phantoms
        plural = "s" if n != 1 else ""
        out.append((f" {n} pod{plural} listed once and never again" if spend else f" {n} phantom{plural}", STALE))
    if h.under_balance:
        out += [(" ", ""), ("UNDER BALANCE", "bold reverse red")]
    if h.balance is not None:
        out.append((f" {money(h.balance)}", "bold red" if h.under_balance else ""))
    if h.balance_note and h.state != HealthState.ERROR:
        # Why the balance is missing or old (auto/rest-v2 transports); narrow lines say less.
        full = f" balance {h.balance_note}" if h.balance is None else f" ({h.balance_note})"
        out.append((full if spend else (" bal n/a" if h.balance is None else " (old)"), DIM))
    if spend and h.spend_per_hr is not None:
        out.append((f" -{money(h.spend_per_hr, per_hour=True)}", DIM))
    r = runway(h, warn_hours)
    if r is not None and not (r.state == "unknown" and (h.balance_note or h.state == HealthState.ERROR)):
        out += runway_segments(r, compact=not spend)  # an unreadable balance's reason is shown above
    return out


RUNWAY_STYLE = {"ok": OK, "low": "bold reverse red", "out": "bold reverse red", "idle": DIM, "unknown": STALE}


def runway_segments(r: Runway | None, compact: bool = False) -> list[Segment]:
    """` 23 h left`, ` LOW 5 h left` (the words say it where colour does not show)."""
    if r is None:
        return []
    return [(" ", ""), (r.short if compact else r.text, RUNWAY_STYLE[r.state])]


# A poll running longer than this is shown as such; a shorter one is not shown at all.
SLOW_POLL_S = 10.0
WATCH_STYLE = "bold color(16) on color(214)"  # a forming cluster: the wave panel's WATCH line's colours


def status_segments(health: Mapping[str, SourceHealth], now: datetime, *, poll_interval: float,
                    paused: bool, read_only: bool, polling_for: float | None = None,
                    slow_poll_s: float = SLOW_POLL_S, clock: str | None = None,
                    width: int | None = None, wave: tuple[str, str] | None = None,
                    warn_hours: float = DEFAULT_WARN_HOURS, watch: str | None = None,
                    verdict: str | None = None, demo: str | None = None,
                    paging: tuple[str, ...] = (), attached: bool = False) -> list[Segment]:
    """The header: every source, the poll interval or the paused state, read-only, the clock.

    `polling_for` is how long the current poll has run (None: none runs). An ordinary poll
    leaves the line as it was: marking every start and end rewrote it twice per poll, most
    of what an idle panel sent over SSH. A poll past `slow_poll_s` is named, so a stuck one shows.

    `wave` is the active wave's words, long and short (("WAVE 5 lost · guard until 10:09",
    "WAVE 5 · guard 10:09")): the header says so whatever pane is in view. `watch` is a forming
    cluster's line ("WATCH: 2 pods lost 6 s apart, both ~60 s after RUNNING", core/triage/forming.py)
    while no wave is active: the early warning, in the header too ("WATCH" alone where the line
    does not fit). `verdict` (given on narrow screens, where the loss area is small) is a second line.

    Given a `width` the line does not fit, it says less, in this order: the spend rates, the
    long wave words and the clock's "UTC" (at 80 columns "UTC" alone went to a second line);
    then the balances (a runway's short form stays: `LOW 7.8h`); then the clock; then an error's
    start time and UNDER BALANCE (the runway says OUT). Never dropped:
    each source's health, the runway, the wave's count and guard time, PAUSED, READ-ONLY, and
    `demo` (the simulator's scenario under --demo: `DEMO reaping-wave`, `DEMO` where narrow).
    `paging` is what `watch` last met paging ("paging failed: ntfy ntfy.sh 403", one per target
    whose last page failed): the guard cannot reach the owner's phone, so it is never dropped
    (`PAGING FAILED` where the line is short). `attached`: the polls are a running `watch`'s, which
    this panel is attached to (`watch polls 5s`, `watch 5s` where short). A `poll_interval` of
    math.inf: a watch was found and has not answered yet (`attaching to watch`; nothing is stale by it).
    """
    args = (health, now, poll_interval, paused, read_only, polling_for, slow_poll_s, clock, wave, warn_hours, watch,
            paging, attached)
    for level in range(5):
        # First, under --demo: what the panel shows is the simulator's, not the owner's fleet.
        lead = [] if demo is None else [("DEMO" if level else f"DEMO {demo}", "bold reverse magenta"), (" ", "")]
        out = lead + _status(*args, level=level)
        if width is None or sum(len(t) for t, _ in out) <= width:
            break
    if verdict:
        out += [("\n", ""), (one_line(verdict, max(20, width or 200)), "bold")]
    return out


def _status(health: Mapping[str, SourceHealth], now: datetime, poll_interval: float, paused: bool, read_only: bool,
            polling_for: float | None, slow_poll_s: float, clock: str | None, wave: tuple[str, str] | None,
            warn_hours: float, watch: str | None, paging: tuple[str, ...] = (), attached: bool = False, *,
            level: int) -> list[Segment]:
    compact = level >= 1
    out: list[Segment] = []
    for h in health.values():
        if out:
            out.append(("  " if level < 2 else " ", ""))
        segs = source_segments(h, now, poll_interval, spend=not compact, warn_hours=warn_hours)
        if level >= 2:  # no balances: the runway's short form says what matters of them
            segs = [seg for seg in segs if not _is_money(seg[0])]
        if level >= 4:  # an error's start time, and UNDER BALANCE beside a runway that says OUT
            segs = [seg for seg in segs if not seg[0].startswith(" since ") and seg[0] != "UNDER BALANCE"]
        out += segs
    out.append(("  │ " if level < 2 else " │ ", DIM))
    if paused:
        out.append(("PAUSED", "bold reverse yellow"))
    elif poll_interval == math.inf:  # attaching: the watch's interval is its own to say
        out.append(("attaching to watch" if level < 2 else "attaching", ""))
    else:
        polls = "watch polls" if attached else "poll"
        out.append((f"{polls} {poll_interval:g}s" if level < 2 else f"{'watch ' if attached else ''}{poll_interval:g}s", ""))
        if polling_for is not None and polling_for >= slow_poll_s:
            out.append((f" · polling for {int(polling_for)}s", f"bold {STALE}"))
    if wave:
        out += [(" ", ""), (wave[1] if compact else wave[0], "bold reverse red")]
    elif watch:
        out += [(" ", ""), ("WATCH" if compact else watch, WATCH_STYLE)]
    if paging:
        out += [(" ", ""), ("; ".join(paging) if level < 2 else "PAGING FAILED", "bold reverse red")]
    if read_only:
        out += [(" ", ""), ("READ-ONLY" if level < 2 else "RO", "bold reverse blue")]
    if level < 3:
        out.append((f"  {clock if clock is not None else now.strftime('%H:%M')}{'' if compact else ' UTC'}", DIM))
    return out


def _is_money(text: str) -> bool:
    t = text.strip()
    return t.startswith("$") or t.startswith("-$") or t == "(old)"  # "bal n/a" stays: it is a reason


def live_pod_counts(pods: Iterable[CachedPod]) -> dict[int, int]:
    """Pods still listed and not stopped, per experiment (an EXITED pod is listed but not live)."""
    out: dict[int, int] = {}
    for p in pods:
        if p.gone_at is None and p.experiment is not None and p.pod.desired_status not in STOPPED_STATES:
            out[p.experiment] = out.get(p.experiment, 0) + 1
    return out


# --- the `/` filter ----------------------------------------------------------------------

def compile_filter(query: str):
    """`text` (substring), `re:pattern` (regex), either prefixed with `!` to invert; case-insensitive.

    Returns a predicate over a row's search text, or None for an empty query. A bad regex
    raises ValueError with a message fit to show.
    """
    q = query.strip()
    invert = q.startswith("!")
    if invert:
        q = q[1:].lstrip()
    if not q:
        return None
    if q.startswith("re:"):
        try:
            rx = re.compile(q[3:], re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"bad regex {q[3:]!r}: {exc}") from None
        match = lambda s: rx.search(s) is not None  # noqa: E731
    else:
        needle = q.lower()
        match = lambda s: needle in s  # noqa: E731
    return (lambda s: not match(s)) if invert else match
