"""The system log's word on how each lost pod ended (read once at its loss, core/sync/system_log.py), weighed.

A stop line of RunPod's `source=system` log is classified into one kind (`classify`):
- `platform`: the platform stopped it by its own decision ("terminated by Runpod (not requested
  ...)", "Exited by Runpod", "stopped by platform", a preemption or reclaim): for a reaper;
- `host`: the machine failed or became unreachable ("Host h stopped responding"): for a host failure;
- `owner`: the owner or an API key asked ("terminated by request of ...", "Exited by user"): for
  the account's own action;
- `balance`: the account's balance ran out ("insufficient balance"): for an account stop.
A pod's kind is its last classified line (the stop comes last); a line that names no stop
(created, pulling, started) says nothing.

Weight: +1 to the cause a kind names, once per wave however many pods' lines name it, and
never one of the "two kinds of evidence agreeing" that a high confidence needs (verdict.py): a
line is one piece of evidence among others, so it breaks a tie but never turns a verdict the
rest of the evidence makes clear, and a log that lies (a proxy's) cannot do more. A line naming
another cause than the verdict's is shown against the verdict, weighing nothing. Lines are only
ever read for confirmed losses, so no line can make a loss or a wave. A log not read (refused,
failed, timed out, no longer served) is missing evidence, said so.

Pure: the wave and the cache's `loss_syslog` rows in, points and Markdown out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from sagan_tui.core.triage.diagnosis import Finding
from sagan_tui.wire import fmt
from sagan_tui.wire.safe_text import one_line

if TYPE_CHECKING:
    from sagan_tui.core.triage.waves import Wave

KIND = "syslog"
SHOWN = 3  # lines of each pod the report quotes
# (kind, what it means, patterns in a lowered line); the first kind that matches wins, so a
# balance stop "by Runpod" is a balance stop and "not requested by the account" is the platform's.
_KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("balance", "stopped for the account's balance",
     ("insufficient balance", "insufficient funds", "out of balance", "out of funds", "balance ran out",
      "spend limit")),
    ("host", "the machine failed or became unreachable",
     ("stopped responding", "not responding", "unreachable", "host fail", "machine fail", "host down",
      "hardware fail", "lost contact", "lost connection to host", "node fail")),
    ("platform", "the platform stopped it by its own decision",
     ("not requested", "by runpod", "by platform", "by the platform", "preempt", "reclaim", "evict")),
    ("owner", "stopped at the account's own request",
     ("by request", "by user", "requested by", "by api key", "by the account", "user request")),
)
MEANING = {kind: meaning for kind, meaning, _ in _KINDS}
_STOP = re.compile(r"stop|terminat|exit|kill|evict|preempt|reclaim|fail|unreachable|respond|lost|down", re.I)
_CLOCK = re.compile(r"\d\d:\d\d:\d\d")


def classify(message: str) -> str | None:
    """The kind of stop a system line tells, or None when it tells none."""
    low = message.lower()
    if not _STOP.search(low):
        return None
    return next((kind for kind, _m, pats in _KINDS if any(p in low for p in pats)), None)


def _clock(stamp: str) -> str:
    m = _CLOCK.search(stamp or "")
    return m.group(0) if m else one_line(stamp, 40)


def _quote(pod_id: str, line: tuple[str, str]) -> str:
    """`system log of v0c7bx292xqvg4: 'container stopped by platform' 10:54:55`."""
    stamp, message = line
    return f"system log of {pod_id}: '{one_line(message, 200)}' {_clock(stamp)}".rstrip()


def stop_line(row: Mapping[str, Any] | None) -> tuple[str, tuple[str, str]] | None:
    """(kind, (timestamp, message)) of the pod's last stop line, when its log was read and tells one."""
    if not row or row.get("state") != "read":
        return None
    for stamp, message in reversed(list(row.get("lines") or ())):
        kind = classify(str(message))
        if kind is not None:
            return kind, (str(stamp), str(message))
    return None


def syslog_points(wave: Wave, syslog: Mapping[str, Mapping[str, Any]], causes: Mapping[str, str]
                  ) -> tuple[list[tuple[str, int, str, Finding]], list[str]]:
    """(points as (cause, weight, kind, finding), missing) from the wave's pods' system logs.
    `causes`: kind -> the verdict's cause it speaks for."""
    by_kind: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    unread: dict[str, list[str]] = {}
    for x in wave.losses:
        row = syslog.get(x.pod_id)
        if row and row.get("state") != "read":
            unread.setdefault(one_line(row.get("note") or "not read", 160), []).append(x.pod_id)
        said = stop_line(row)
        if said is not None:
            by_kind.setdefault(said[0], []).append((x.pod_id, said[1]))
    points = []
    for kind, said in by_kind.items():
        pod, line = said[0]
        more = f", and {len(said) - 1} other pod{'s' * (len(said) > 2)} alike" if len(said) > 1 else ""
        f = Finding(KIND, f"{_quote(pod, line)}{more}: {MEANING[kind]}",
                    tuple(fmt.capped(said, show=lambda s: _quote(*s))))
        points.append((causes[kind], 1, KIND, f))
    missing = [f"system log not read for {fmt.listed(pods, 3)}: {note}" for note, pods in unread.items()]
    return points, missing


def contrary(points: Sequence[tuple[str, int, str, Finding]], cause: str) -> list[Finding]:
    """The log's findings that name another cause than the verdict's: shown against it."""
    return [f for c, _w, _k, f in points if c != cause]


def syslog_section(wave: Wave, syslog: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The report's quote of each lost pod's system log (its last lines), or why it was not read;
    empty when no log was asked for (a GraphQL account, a JSON Lines input)."""
    rows = [(x.pod_id, syslog.get(x.pod_id)) for x in wave.losses]
    if not any(r for _, r in rows):
        return []
    out = ["**System log (RunPod's `source=system` lines, read at the loss)**", ""]
    for pod, row in rows:
        if not row:
            out.append(f"- {pod}: not asked for")
        elif row.get("state") != "read":
            out.append(f"- {pod}: system log not read ({one_line(row.get('note') or 'no reason given', 160)})")
        elif not row.get("lines"):
            out.append(f"- {pod}: no system line served")
        else:
            said = stop_line(row)
            tail = f" ({MEANING[said[0]]})" if said else ""
            out.append(f"- {pod}{tail}:")
            out += [f"  - {_clock(stamp)} '{one_line(message, 200)}'" for stamp, message in list(row["lines"])[-SHOWN:]]
    return [*out, ""]
