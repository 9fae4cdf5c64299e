"""The night's incident: `W`'s ticket and `report` cover every wave since the owner's last
acknowledgement (`K`), or since a chosen start (`report --since`), or all of them (`--all`).

The three-causes world (tests/triage/incidents.py) on a stepped clock: a dead host (~200), a
balance stop (~400), a reaper (~600). The owner acknowledges the balance stop's wave at t=450;
the reaper's comes after.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sagan_tui.core.actions.guard import export_report
from sagan_tui.core.session.model import PanelModel

from .incidents import BROKE, DEAD_HOST, REAPED, SteppedPolls, settings_for, three_causes

EXE = Path(sys.executable).with_name("sagan-tui")


def report(cache: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(EXE), "report", "--cache", str(cache), *flags], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})


def waves_in(text: str) -> list[set[str]]:
    """The pods each wave section's ticket names."""
    blocks = text.split("**Pod ids for a RunPod support ticket**")[1:]
    return [{line.split()[0] for line in b.split("```text\n")[1].split("```")[0].splitlines()[1:]} for b in blocks]


async def test_the_ticket_and_the_report_cover_every_wave_since_the_last_acknowledgement(sim_factory, tmp_path,
                                                                                       monkeypatch):
    sim = sim_factory(fixture=three_causes())
    rig = SteppedPolls(sim, settings_for(sim, tmp_path), monkeypatch)
    model = PanelModel(rig.settings, rig.cache, clock=rig.now)
    model.load(rig.poller.health)
    try:
        for t in range(0, 451, 10):
            model.apply(await rig.poll_at([t]))
        assert len(model.waves) == 2
        _, before = export_report(rig.cache, rig.now(), tmp_path / "before")
        assert waves_in(before) == [set(DEAD_HOST), set(BROKE)]  # nothing acknowledged: every wave
        model.incident_lines.acknowledge()  # at t=450: the balance stop's wave, the latest on screen
        for t in range(460, 631, 10):
            model.apply(await rig.poll_at([t]))
        assert len(model.waves) == 3
        _, ticket = export_report(rig.cache, rig.now(), tmp_path / "after")
    finally:
        await rig.close()
    assert waves_in(ticket) == [set(REAPED)]  # the waves since the acknowledgement only
    assert not any(p in ticket for p in (*DEAD_HOST, *BROKE))
    cache = rig.settings.cache_path
    out = report(cache)
    assert out.returncode == 0, out.stderr
    assert waves_in(out.stdout) == [set(REAPED)] and "since the last acknowledged wave" in out.stderr
    out = report(cache, "--all")
    assert out.returncode == 0 and waves_in(out.stdout) == [set(DEAD_HOST), set(BROKE), set(REAPED)], out.stderr
    start = sim.clock.at(300).isoformat()  # a chosen start: after the dead host, before the balance stop
    out = report(cache, "--since", start)
    assert out.returncode == 0 and waves_in(out.stdout) == [set(BROKE), set(REAPED)], out.stderr
    assert report(cache, "--all", "--since", start).returncode == 2  # one start or the other
