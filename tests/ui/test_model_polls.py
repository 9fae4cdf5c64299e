"""The panel's model, kept by polls (re-reading only what each poll names), reads as one loaded afresh."""

from __future__ import annotations

from datetime import datetime, timezone

from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.poller import Poller
from sagan_tui.core.session.model import PanelModel

from tests.harness import sim_settings


def drawn(rows):
    return {k: [(c.text, c.style) for c in r.cells] for k, r in rows.items()}


async def test_a_model_kept_by_polls_reads_as_one_loaded_afresh(sim_factory, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    settings = sim_settings(sim, tmp_path)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    now = [datetime.now(timezone.utc)]
    model = PanelModel(settings, cache, clock=lambda: now[0])
    model.load(poller.health)
    changed, handed, handed_exps = set(), set(), set()
    try:
        for t in (5, 60, 200, 330, 400, 600):
            sim.clock.jump_to(t)
            changes = await poller.poll_once()
            now[0] = datetime.now(timezone.utc)
            changed |= {*changes.pods_changed, *changes.pods_gone}
            model.apply(changes)
            fresh = PanelModel(settings, cache, clock=lambda: now[0])
            fresh.load(changes.health)
            assert drawn(model.pod_rows()) == drawn(fresh.pod_rows()), t
            # The pods the poll handed over, taken as they are, are the cache's, field for field.
            handed |= set(changes.pods_written)
            for pid in {*changes.pods_changed, *changes.pods_gone}:
                assert model.pods.get(pid) == fresh.pods.get(pid), (t, pid)
            assert drawn(model.experiment_rows()) == drawn(fresh.experiment_rows()), t
            # And so are the experiments it handed over.
            handed_exps |= set(changes.experiments_written)
            for n in changes.experiments:
                assert model.experiments.get(n) == fresh.experiments.get(n), (t, n)
            assert [x.pod_id for x in model.losses] == [x.pod_id for x in fresh.losses]
            assert [w.losses for w in model.waves] == [w.losses for w in fresh.waves]
    finally:
        await poller.aclose()
        cache.close()
    assert model.losses and model.waves and len(changed) > 3  # the wave came, pods came and went
    assert len(handed) > 3 and handed_exps


def test_a_dismissal_kept_in_hand_reads_as_the_cache_loaded_afresh(tmp_path):
    """The model flags the loss it dismissed in the losses it holds (no read back of every loss):
    its losses, waves and pod rows read as a model loaded from the cache after the write."""
    from .frozen import LOST, NOW, fill, settings

    s = settings(tmp_path)
    cache = Cache(s.cache_path)
    fill(cache)
    model = PanelModel(s, cache, clock=lambda: NOW)
    model.load()
    gone = LOST[1][0]
    said, delta = model.dismiss(gone)
    fresh = PanelModel(s, cache, clock=lambda: NOW)
    fresh.load()

    def flags(m: PanelModel) -> list:
        return [(x.pod_id, x.dismissed) for x in m.losses]

    assert "dismissed lost pod" in said and (gone, True) in flags(model)
    assert flags(model) == flags(fresh) and model.dismissed == fresh.dismissed == {gone}
    assert [[(x.pod_id, x.dismissed) for x in w.losses] for w in model.waves] == \
        [[(x.pod_id, x.dismissed) for x in w.losses] for w in fresh.waves]
    assert drawn(model.pod_rows()) == drawn(fresh.pod_rows()) and gone not in model.pod_rows()
    assert delta.pods_removed == (gone,)
    cache.close()


def test_sightings_read_from_the_columns_are_the_pods_the_cache_holds(tmp_path):
    """Cache.sightings reads the pods table's columns, not each pod's record: the same values."""
    from sagan_tui.core.models import PodSighting

    from .frozen import fill, settings

    cache = Cache(settings(tmp_path).cache_path)
    fill(cache)
    want = [PodSighting(pod_id=c.pod_id, account=c.account, experiment=c.experiment, first_seen_at=c.first_seen_at,
                        running_at=c.running_at, last_seen_at=c.last_seen_at, desired_status=c.pod.desired_status,
                        gpu=c.pod.gpu, datacenter=c.pod.datacenter, cost_per_hr=c.pod.cost_per_hr,
                        gone=c.gone_at is not None, host=c.pod.host,
                        running_seen_at=c.last_seen_at if c.pod.desired_status == "RUNNING" else None)
            for c in cache.pods()]
    assert want and cache.sightings() == want
    assert any(s.gone for s in want) and any(s.experiment is not None for s in want)
    cache.close()


def test_a_new_wave_is_announced_with_its_verdict_not_its_first_finding():
    from sagan_tui.core.triage import TriageContext, Wave
    from sagan_tui.core.session.model import Delta, announcements

    from ..triage.conftest import CONTROL, HEALTH, R5

    wave = Wave.of(R5, TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=("team", "personal")))
    [note] = announcements(Delta(new_waves=(wave,)), {}, {})
    assert note.title == "Reaping wave" and note.ring
    assert note.message.endswith("PLATFORM REAPER, high: hold re-dispatch, ticket to RunPod with 5 pod ids")


async def test_a_poll_that_moves_only_an_accounts_balance_weighs_the_waves_again(sim_factory, tmp_path):
    """A wave's verdict reads the accounts' balances: a later poll with no loss but a balance that
    moved re-weighs the waves; one that moved nothing leaves them as they were."""
    from dataclasses import replace

    sim = sim_factory(scenario="reaping-wave")
    settings = sim_settings(sim, tmp_path)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    model = PanelModel(settings, cache)
    model.load(poller.health)
    try:
        # Listed twice (so established: a jumped clock serves Sagan's rows of them as older than
        # its cursor), seen RUNNING, then gone.
        for t in (5, 30, 60, 200):
            sim.clock.jump_to(t)
            last = await poller.poll_once()
            model.apply(last)
    finally:
        await poller.aclose()
    try:
        assert model.waves, "the r4 wave is in by t=200"
        quiet = replace(last, experiments=(), approvals_changed=False, pods_changed=(), pods_gone=(), new_losses=())
        before = model.waves
        model.apply(quiet)
        assert model.waves is before  # nothing moved: not weighed again
        team = quiet.health["team"]
        ran_out = replace(quiet, health={**quiet.health, "team": replace(team, balance=0.0, under_balance=True)})
        model.apply(ran_out)
        assert model.waves is not before and [w.losses for w in model.waves] == [w.losses for w in before]
    finally:
        cache.close()
