"""Held-out incidents (tests/triage/heldout.py) played by the simulator at speed 1, polled every 5 s
(the default poll interval) on a stepped clock through the real poller, the panel model and
`waves --cache --format json`: late re-dispatches of the reaper join the active wave; two
correlated losses are `forming` with exactly those pods; decoys show nothing forming and no wave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sagan_tui.core.session.model import PanelModel
from sagan_tui.core.triage.verdict import verdict_of

from . import heldout as H
from .incidents import SteppedPolls, settings_for

EXE = Path(sys.executable).with_name("sagan-tui")
CADENCE = 5  # seconds between polls: the default poll_interval at speed 1


def waves_json(cache_path: Path) -> dict:
    out = subprocess.run([str(EXE), "waves", "--cache", str(cache_path), "--format", "json"], capture_output=True,
                         text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


class Played:
    """A held-out world polled on a stepped clock; what the panel model held after each poll."""

    def __init__(self, sim, tmp: Path, monkeypatch):
        self.rig = SteppedPolls(sim, settings_for(sim, tmp, poll_interval=CADENCE), monkeypatch)
        self.model = PanelModel(self.rig.settings, self.rig.cache, clock=self.rig.now)
        self.model.load(self.rig.poller.health)
        self.seen: dict[int, tuple[list[tuple[str, ...]], list[tuple[str, ...]]]] = {}

    async def until(self, end: int) -> None:
        start = max(self.seen, default=-CADENCE) + CADENCE
        for t in range(start, end + 1, CADENCE):
            self.model.apply(await self.rig.poll_at([t]))
            self.seen[t] = ([tuple(sorted(w.pod_ids)) for w in self.model.waves],
                            [tuple(sorted(c.pod_ids)) for c in self.model.active_forming()])

    def cli(self) -> dict:
        return waves_json(self.rig.settings.cache_path)


@pytest.fixture
async def play(sim_factory, tmp_path, monkeypatch):
    made: list[Played] = []

    def make(fixture: dict) -> Played:
        p = Played(sim_factory(fixture=fixture), tmp_path / f"w{len(made)}", monkeypatch)
        made.append(p)
        return p

    yield make
    for p in made:
        await p.rig.close()


def _pods(doc: dict) -> tuple[list[set[str]], list[set[str]]]:
    return ([{x["pod_id"] for x in w["losses"]} for w in doc["waves"]], [set(c["pod_ids"]) for c in doc["forming"]])


async def test_late_re_dispatches_at_the_kill_time_join_the_active_wave(play):
    p = play(H.late_redispatch())
    first_two, founding = set(H.REAPED[:2]), set(H.REAPED)
    whole = founding | set(H.REDISPATCHED)
    await p.until(215)  # the second loss (191) confirmed, the third (219) not yet
    assert p.seen[215] == ([], [tuple(sorted(first_two))])  # the early warning at the second loss
    assert _pods(p.cli()) == ([], [first_two])
    await p.until(300)  # the third loss: a wave, and the cluster leaves forming
    assert p.seen[300] == ([tuple(sorted(founding))], [])
    await p.until(450)  # the loop's two re-dispatches, reaped 140 s and 168 s after the third loss
    waves, forming = p.seen[450]
    assert waves == [tuple(sorted(whole))] and forming == []  # joined, not a second wave, not forming
    assert all(p.seen[t][1] == [] for t in p.seen if t >= 225)  # the re-dispatched pair never "forming"
    (wave,) = p.model.waves
    assert verdict_of(wave).cause == "platform-reaper", verdict_of(wave).headline
    assert wave.end == max(x.lost_at for x in wave.losses) and wave.losses[-1].pod_id == H.REDISPATCHED[1]
    assert p.model.active_wave() is wave  # the guard runs from the last re-dispatch's loss
    doc = p.cli()
    assert _pods(doc) == ([whole], [])  # offline, the same answer as the panel
    await p.until(660)  # the hour-long team pod lost 6.5 min later: not the wave's signature
    (wave,) = p.model.waves
    assert set(wave.pod_ids) == whole and H.LATE_DECOY not in wave.pod_ids
    assert any(x.pod_id == H.LATE_DECOY for x in p.model.losses)
    assert _pods(p.cli()) == ([whole], [])
    assert p.seen[660][1] == []


async def test_two_correlated_losses_are_forming_with_exactly_those_pods(play):
    p = play(H.correlated_pair())
    await p.until(330)
    assert p.seen[330] == ([], [tuple(sorted(H.PAIR))])
    assert not any(p.seen[t][1] for t in p.seen if t < 281)  # one loss is no warning
    doc = p.cli()
    assert _pods(doc) == ([], [set(H.PAIR)])
    (c,) = doc["forming"]
    assert c["accounts"] == ["personal", "team"] and "after RUNNING" in c["reason"], c


@pytest.mark.parametrize("fixture", [H.unrelated_pair, H.single_loss], ids=["unrelated-pair", "single-loss"])
async def test_decoys_show_nothing_forming_and_no_wave(play, fixture):
    p = play(fixture())
    await p.until(360)
    lost = {x.pod_id for x in p.model.losses if x.state == "confirmed"}
    assert lost == (set(H.UNRELATED) if fixture is H.unrelated_pair else {H.SINGLE})  # the losses were seen
    assert all(v == ([], []) for v in p.seen.values())
    assert _pods(p.cli()) == ([], [])


async def test_the_panels_status_line_says_watch_for_the_correlated_pair(play):
    from sagan_tui.panel.widgets.status_bar import StatusBar
    from tests.harness import panel_on, wait_for

    p = play(H.correlated_pair())
    await p.until(300)
    rig = p.rig
    app, _ = panel_on(rig.settings, cache=rig.cache, clock=rig.now, poll=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.view.loss_view is not None and app.view.loss_view.forming, what="forming")
        await wait_for(pilot, lambda: "WATCH: 2 pods lost" in app.query_one(StatusBar).plain, what="WATCH in the header")
        assert "after RUNNING" in app.query_one(StatusBar).plain and "WAVE" not in app.query_one(StatusBar).plain
