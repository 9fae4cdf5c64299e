"""A pod's log tail from REST v2 (`GET /v2/pods/{id}/logs`, server-sent events): parsed, cleaned, bounded.

Each event is `id: <n>` and `data: {"timestamp", "source", "message"}` (sim/pod_logs.py says why
that shape); a data line that is not that JSON is kept as a container line of its text, since a
log that changes shape should still be read. Every field passes the one sanitiser here, before it
is kept, so nothing downstream sees an escape sequence from a pod. A reply ends; the next read
resumes with `Last-Event-ID`, so a tail never repeats or loses a line across reads.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Protocol

from sagan_tui.wire.safe_text import one_line

KEEP = 500  # lines kept per pod: what a screen shows, far below RunPod's 5,000-line tail
FIRST_TAIL = 200  # lines asked for on the first read
MESSAGE_LIMIT = 500  # characters kept of one line


@dataclass(frozen=True, slots=True)
class LogLine:
    event_id: str
    timestamp: str
    source: str  # "system" | "container" (anything else is shown as RunPod named it, cleaned)
    message: str


class LogReader(Protocol):
    async def pod_log(self, pod_id: str, last_event_id: str | None, tail: int) -> str: ...


def parse_events(text: str) -> list[LogLine]:
    """The events of an SSE body, cleaned; comments, `retry:` and unknown fields skipped."""
    out: list[LogLine] = []
    event_id, data = "", []
    for raw in text.replace("\r\n", "\n").split("\n"):
        if raw == "":
            if data:
                out.append(_line(event_id, "\n".join(data)))
            event_id, data = "", []
            continue
        name, _, value = raw.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "id":
            event_id = one_line(value, 40)
        elif name == "data":
            data.append(value)
    if data:
        out.append(_line(event_id, "\n".join(data)))
    return out


def _line(event_id: str, data: str) -> LogLine:
    try:
        fields = json.loads(data)
    except (ValueError, RecursionError):
        fields = None
    if not isinstance(fields, dict):
        return LogLine(event_id, "", "container", one_line(data, MESSAGE_LIMIT))
    return LogLine(event_id, one_line(fields.get("timestamp") or "", 40), one_line(fields.get("source") or "", 20),
                   one_line(fields.get("message") or "", MESSAGE_LIMIT))


class PodLogTail:
    """The last `keep` lines of one pod's log, read a reply at a time."""

    def __init__(self, pod_id: str, keep: int = KEEP) -> None:
        self.pod_id = pod_id
        self.lines: deque[LogLine] = deque(maxlen=keep)
        self.last_event_id: str | None = None

    async def read(self, reader: LogReader) -> list[LogLine]:
        """Read what is new (raises the reader's SourceError); the new lines."""
        new = parse_events(await reader.pod_log(self.pod_id, self.last_event_id, FIRST_TAIL))
        self.lines.extend(new)
        ids = [line.event_id for line in new if line.event_id]
        if ids:
            self.last_event_id = ids[-1]
        return new
