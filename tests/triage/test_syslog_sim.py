"""A lost pod's system log as verdict evidence, read by the real poller from the simulator over a hostile proxy.

The three-causes night (incidents.py) is polled every 10 s through a loopback proxy that lies
about some logs: one refused (500), one no longer served (404), two that name a host failure
for reaped pods, one whose line carries escape sequences, and the control pods' logs, which
claim the platform killed them. The truth: h-dead's log says it stopped responding.
"""

from __future__ import annotations

import re

import pytest

from sagan_tui.core.actions.guard import incident_report, triage_context
from sagan_tui.core.triage import find_waves
from sagan_tui.core.triage.verdict import verdict_of
from tests.reliability.hostile_proxy import NOT_FOUND, HostileProxy, Reply

from .incidents import BROKE, CONTROLS, DEAD_HOST, REAPED, SteppedPolls, settings_for, three_causes

EVERY = 10
ESCAPED = "\x1b]52;c;ZXZpbA==\x07Pod terminated by Runpod: insufficient balance \x1b[2J\x1b[31mnow\x1b[0m"


def _log(pod_id: str) -> str:
    return f"/v2/pods/{pod_id}/logs"


def _says(message: str):
    """A lie: the log's last system line rewritten to `message` (as JSON, so the escapes stay escapes)."""
    import json

    def told(text: str) -> str:
        events = [e for e in text.split("\n\n") if e.strip() and not e.startswith("retry")]
        head, _, data = events[-1].partition("data: ")
        line = json.loads(data)
        events[-1] = head + "data: " + json.dumps({**line, "message": message})
        return "\n\n".join(events) + "\n\n"
    return told


@pytest.fixture
async def night(sim_factory, tmp_path, monkeypatch):
    sim = sim_factory(fixture=three_causes())
    proxy = HostileProxy(sim).start()
    many = 1000  # a lie told on every read: how many reads each log got is then `proxy.told`
    proxy.lie(_log(REAPED[0]), lambda _: Reply.of({"title": "Internal", "detail": "log store down"}, 500),
              times=many)
    proxy.lie(_log(REAPED[1]), lambda _: NOT_FOUND, times=many)
    for pid in REAPED[2:]:
        proxy.lie(_log(pid), _says("Host h-r9 stopped responding; pod terminated"), times=many)
    proxy.lie(_log(BROKE[0]), _says(ESCAPED), times=many)
    for pid in (*DEAD_HOST, *CONTROLS):
        proxy.lie(_log(pid), (lambda t: t) if pid in DEAD_HOST else _says("Pod terminated by Runpod"), times=many)
    rig = SteppedPolls(sim, settings_for(proxy, tmp_path), monkeypatch)
    await rig.poll_at(range(0, 701, EVERY))
    yield rig, proxy
    await rig.close()
    proxy.stop()


def _wave(cache, pods):
    ctx = triage_context(cache)
    (w,) = [w for w in find_waves(ctx.losses, context=ctx) if set(w.pod_ids) == set(pods)]
    return w


async def test_the_system_log_is_read_once_per_lost_pod_and_never_for_a_live_one(night):
    rig, proxy = night
    reads = [path for path, _key in proxy.told]
    assert {p: reads.count(_log(p)) for p in (*DEAD_HOST, *REAPED)} == {p: 1 for p in (*DEAD_HOST, *REAPED)}
    assert not {_log(p) for p in CONTROLS} & set(reads)  # a live pod's (lying) log is never read
    assert set(rig.cache.loss_rows.syslog()) == {*DEAD_HOST, *BROKE, *REAPED}


async def test_a_host_failure_cites_the_hosts_line(night):
    rig, _ = night
    v = verdict_of(_wave(rig.cache, DEAD_HOST))
    assert (v.cause, v.confidence) == ("host-failure", "high"), v
    (said,) = [f.statement for f in v.for_ if f.kind == "syslog"]
    assert re.fullmatch(r"system log of deadhost0\d: 'Host h-dead stopped responding; pod terminated' "
                        r"\d\d:\d\d:\d\d, and 2 other pods alike: the machine failed or became unreachable", said), said


async def test_unread_and_lying_logs_leave_the_reapers_verdict_and_say_so(night):
    rig, _ = night
    v = verdict_of(_wave(rig.cache, REAPED))
    # Two reaped pods' logs claim a dead host: one point, shown against, and the verdict stands.
    assert v.cause == "platform-reaper" and v.confidence in ("medium", "high"), v
    assert any("Host h-r9 stopped responding" in f.statement for f in v.against)
    assert not any(f.kind == "syslog" for f in v.for_)
    assert any(m.startswith(f"system log not read for {REAPED[0]}: ") and "500" in m for m in v.missing), v.missing
    assert f"system log not read for {REAPED[1]}: RunPod no longer serves its log (404)" in v.missing


@pytest.mark.parametrize("how", ["W's ticket", "sagan-tui report"])
async def test_the_report_quotes_the_lines_and_no_escape_reaches_it(night, how, capsys):
    rig, _ = night
    if how == "W's ticket":
        report = incident_report(rig.cache, rig.now())  # the text before the file's own cleaning
    else:
        from sagan_tui.cli import main

        capsys.readouterr()
        assert main(["report", "--cache", str(rig.settings.cache_path)]) == 0
        report = capsys.readouterr().out
    assert "**System log (RunPod's `source=system` lines, read at the loss)**" in report
    assert re.search(r"- deadhost01 \(the machine failed or became unreachable\):\n(  - .*\n)*"
                     r"  - \d\d:\d\d:\d\d 'Host h-dead stopped responding; pod terminated'", report)
    assert f"- {REAPED[1]}: system log not read (RunPod no longer serves its log (404))" in report
    assert re.search(rf"- {BROKE[0]} \(stopped for the account's balance\):\n(  - .*\n)*"
                     r"  - \d\d:\d\d:\d\d 'Pod terminated by Runpod: insufficient balance now'", report)
    assert "\x1b" not in report and "ZXZpbA" not in report and "\x07" not in report
