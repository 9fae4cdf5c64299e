"""The reaping-wave demo at real speed and at --speed 5 gives the same wave and the same ticket.

Each speed is polled on a stepped clock at the cadence real time gives it: the default 5 s poll
interval is 5 scenario seconds at speed 1 and 25 at speed 5 (the served times, and so the
losses' timestamps, are squeezed five-fold there). Either way: r4, the recovery loop's two
re-dispatches (reaped at r4's kill time minutes later) and r5 (inside r4's guard, the same
reaper) are one wave of two bursts, and `W`'s ticket (the incident report's pod-id block) names
the same ten pods.
"""

from __future__ import annotations

import re

import pytest

from sagan_tui.core.actions.guard import incident_report
from sagan_tui.core.session.model import PanelModel
from sagan_tui.core.triage.verdict import verdict_of

from .incidents import SteppedPolls, settings_for

POLL_INTERVAL = 5.0  # wall seconds: the setting's default, as the demo runs
R4 = ("k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y")
REDISPATCHED = ("q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s")
R5 = ("v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn")


def ticket_pods(report: str) -> list[set[str]]:
    """The pod ids of each wave's ticket block, in report order."""
    blocks = report.split("**Pod ids for a RunPod support ticket**")[1:]
    return [{line.split()[0] for line in b.split("```text\n")[1].split("```")[0].splitlines()[1:]} for b in blocks]


@pytest.mark.parametrize("speed", [1, 5])
async def test_the_demo_at_real_speed_and_at_speed_5_gives_one_wave_of_two_bursts_and_one_ticket(
        sim_factory, tmp_path, monkeypatch, speed):
    sim = sim_factory(scenario="reaping-wave", speed=speed)
    rig = SteppedPolls(sim, settings_for(sim, tmp_path, poll_interval=POLL_INTERVAL), monkeypatch)
    model = PanelModel(rig.settings, rig.cache, clock=rig.now)
    model.load(rig.poller.health)
    cadence = POLL_INTERVAL * speed  # scenario seconds between two polls at this speed
    try:
        t = 0.0
        while t <= 700:
            model.apply(await rig.poll_at([t]))
            t += cadence
        report = incident_report(rig.cache, rig.now(), rig.settings.guard_minutes)
    finally:
        await rig.close()
    (wave,) = model.waves
    assert verdict_of(wave).cause == "platform-reaper", verdict_of(wave).headline
    assert [set(b.pod_ids) for b in wave.bursts] == [{*R4, *REDISPATCHED}, set(R5)]
    assert ticket_pods(report) == [{*R4, *REDISPATCHED, *R5}]
    assert "Losses outside any wave" not in report
    # Each lost pod's system log was read at its loss: the verdict cites the reaper's line, the report quotes it.
    (cited,) = [f.statement for f in verdict_of(wave).for_ if f.kind == "syslog"]
    assert re.fullmatch(r"system log of \w{14}: 'Pod terminated by Runpod \(not requested by the account\)' "
                        r"\d\d:\d\d:\d\d, and 9 other pods alike: the platform stopped it by its own decision", cited)
    quoted = re.findall(r"- (\w{14}) \(the platform stopped it by its own decision\):\n(?:  - .*\n)*?"
                        r"  - \d\d:\d\d:\d\d 'Pod terminated by Runpod \(not requested by the account\)'", report)
    assert set(quoted) == {*R4, *REDISPATCHED, *R5}
