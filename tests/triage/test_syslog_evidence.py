"""The system log's lines, pure: how a stop line is classified, what is kept, and what one can weigh."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagan_tui.core.sync.system_log import KEEP, LINE_LIMIT, system_lines
from sagan_tui.core.triage import TriageContext, Wave
from sagan_tui.core.triage.syslog_evidence import classify, syslog_points
from sagan_tui.core.triage.verdict import SYSLOG_CAUSES, verdict

from .conftest import CONTROL, HEALTH, R5
from .test_verdict import scenes

LINES = {  # the simulator's (sim/pod_logs.py), and the example
    "Pod terminated by Runpod (not requested by the account)": "platform",
    "Container stopped: Exited by Runpod": "platform",
    "container stopped by platform": "platform",
    "Host h-dead stopped responding; pod terminated": "host",
    "Pod terminated by request of alice@example.com": "owner",
    "Container stopped: Exited by user": "owner",
    "Pod terminated by Runpod: insufficient balance": "balance",
    "Container stopped: Exited by Runpod: insufficient balance": "balance",
    "Pod v0c7bx292xqvg4 created on host h-dead": None,
    "Pulling image runpod/pytorch:2.4.0-download": None,
    "Container started (1 GPU)": None,
}


@pytest.mark.parametrize("line,kind", LINES.items())
def test_a_stop_line_is_classified_by_what_it_says(line, kind):
    assert classify(line) == kind


def _event(n: int, source: str, message: str) -> str:
    return f"id: {n}\ndata: {json.dumps({'timestamp': '2026-12-07T10:54:55Z', 'source': source, 'message': message})}\n\n"


def test_only_the_last_system_lines_are_kept_cleaned_and_cut():
    body = "".join(_event(n, "system" if n % 3 else "container", f"\x1b[31mline {n}\x1b[0m \x1b]0;title\x07" + "x" * 900)
                   for n in range(1, 51))
    kept = system_lines(body + "retry: 2000\n\n")
    assert len(kept) == KEEP
    assert [m.split()[1] for _, m in kept] == [str(n) for n in range(1, 51) if n % 3][-KEEP:]
    assert all(len(m) <= LINE_LIMIT and "\x1b" not in m and "title" not in m for _, m in kept)


def test_a_wave_whose_every_pod_says_the_platform_stopped_it_gets_one_point():
    rows = {x.pod_id: {"state": "read", "lines": [("2026-12-07T10:54:55Z", "Pod terminated by Runpod")]} for x in R5}
    wave = Wave.of(R5)
    points, missing = syslog_points(wave, rows, SYSLOG_CAUSES)
    assert [(c, w) for c, w, *_ in points] == [("platform-reaper", 1)] and not missing
    assert points[0][3].statement.startswith(f"system log of {wave.losses[0].pod_id}: 'Pod terminated by Runpod' 10:54:55, "
                                             "and 4 other pods alike")


def test_a_log_not_read_is_missing_evidence_and_the_verdict_still_comes():
    rows = {x.pod_id: {"state": "unread", "note": "GET /v2/pods/x/logs: timed out", "lines": []} for x in R5[:2]}
    v = verdict(Wave.of(R5), TriageContext(sightings=[CONTROL], health=HEALTH, syslog=rows))
    assert v.cause == "platform-reaper"
    assert f"system log not read for {R5[1].pod_id}, {R5[0].pod_id}: GET /v2/pods/x/logs: timed out" in v.missing


LIES = st.sampled_from([None, "Host h-x stopped responding", "Pod terminated by Runpod", "Exited by user",
                        "insufficient balance: pod terminated", ("unread", "refused"), ("gone", "404")])


@settings(max_examples=150, deadline=None)
@given(scenes(), st.lists(LIES, min_size=6, max_size=6))
def test_no_log_line_turns_a_verdict_of_medium_or_better_nor_makes_one_surer(scene, lies):
    """Any lines at all (a proxy's lies) move each cause's score by one at most: a verdict the rest
    of the evidence makes medium or high keeps its cause, and its confidence."""
    losses, sightings, health = scene
    rows = {}
    for x, lie in zip(losses, lies):
        if isinstance(lie, tuple):
            rows[x.pod_id] = {"state": lie[0], "note": lie[1], "lines": []}
        elif lie is not None:
            rows[x.pod_id] = {"state": "read", "lines": [("2026-12-07T10:55:00Z", lie)]}
    wave = Wave.of(losses)
    before = verdict(wave, TriageContext(sightings=sightings, health=health))
    after = verdict(wave, TriageContext(sightings=sightings, health=health, syslog=rows))
    moved = {c: abs(n - dict(before.scores)[c]) for c, n in after.scores}
    assert max(moved.values()) <= 1
    if before.confidence != "low":
        assert after.cause == before.cause
    # The confidence is the rest's: a line picks a cause only where the rest ties, and then says low.
    assert after.confidence == (before.confidence if after.cause == before.cause else "low")
