"""Replies that lie for one poll: a false loss is never confirmed, and a real one still is, at once.

A hostile proxy (loopback) sits between the real poller and the simulator. Each lie is told once;
two good polls follow. Meanwhile one pod of team really vanishes, and must be confirmed within
the poll that finds it missing (a direct read of it says not found).
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import httpx
import pytest

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.poller import Poller
from tests.reliability.hostile_proxy import NOT_FOUND, HostileProxy, graphql_pods, half, sagan_row_lie

REAL = "r3all0st0pod01"
TEAM = ["t3ampod0000a1", "t3ampod0000b2", "t3ampod0000c3", "t3ampod0000d4"]
PERSONAL = ["p3rsonal000a1", "p3rsonal000b2", "p3rsonal000c3"]
FIXTURE = {
    "experiments": [{"number": 190 + i, "title": f"run {i}", "status": "running",
                     "runpodAccount": "team" if i < 5 else "personal"} for i in range(8)],
    "pods": [
        *({"id": pid, "account": "team", "experiment": 190 + i, "name": f"exp{190 + i}-a",
           "created_at": 0, "running_at": 1 + 3 * i, "costPerHr": 1.49} for i, pid in enumerate(TEAM)),
        *({"id": pid, "account": "personal", "experiment": 195 + i, "name": f"exp{195 + i}-a",
           "created_at": 0, "running_at": 2 + 3 * i, "costPerHr": 2.99} for i, pid in enumerate(PERSONAL)),
        {"id": REAL, "account": "team", "experiment": 194, "name": "exp194-a", "created_at": 0,
         "running_at": 5, "lost_at": 70, "costPerHr": 1.49},
    ],
}


@pytest.fixture
def rig(sim_factory, tmp_path):
    sim = sim_factory(fixture=FIXTURE)
    proxy = HostileProxy(sim).start()
    made: list[Poller] = []

    def poller(transport: str = "rest-v2") -> tuple[Poller, Cache]:
        env = {**proxy.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"),
               "RUNPOD_TRANSPORT_TEAM": transport, "RUNPOD_TRANSPORT_PERSONAL": transport}
        settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=1.0)
        cache = Cache(settings.cache_path)
        made.append(Poller(settings, cache))
        return made[-1], cache

    yield sim, proxy, poller
    proxy.stop()


async def _close(poller: Poller) -> None:
    await poller.aclose()


def _rest_pods(sim, account: str) -> list[dict]:
    key = sim.account_keys[account]
    return httpx.get(f"{sim.base_url}/v2/pods", headers={"Authorization": f"Bearer {key}"}).json()["pods"]


def _waves_json(cache_path: str) -> dict:
    from sagan_tui.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["waves", "--cache", cache_path, "--format", "json"]) == 0
    return json.loads(out.getvalue())


def _lies(sim):
    team, personal = sim.account_keys["team"], sim.account_keys["personal"]
    empty = {"pods": []}
    return {
        "empty list, team": [("/v2/pods", lambda r: empty, team)],
        "empty list, both accounts": [("/v2/pods", lambda r: empty, team), ("/v2/pods", lambda r: empty, personal)],
        "half a list": [("/v2/pods", half, team)],
        "half with a pagination hint": [
            ("/v2/pods", lambda r: {**half(r), "pagination": {"nextCursor": "c2", "truncated": True}}, team)],
        "a team pod under the personal key": [
            ("/v2/pods", lambda r: {"pods": [*r["pods"], *_rest_pods(sim, "team")[:1]]}, personal)],
    }


LIES = ["empty list, team", "empty list, both accounts", "half a list", "half with a pagination hint",
        "a team pod under the personal key"]


@pytest.mark.parametrize("lie", LIES)
async def test_a_lie_told_once_records_no_loss_and_a_real_loss_is_still_confirmed_at_once(rig, lie):
    sim, proxy, make = rig
    poller, cache = make()
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        for path, told, key in _lies(sim)[lie]:
            proxy.lie(path, told, key=key)
        lied = await poller.poll_once()
        assert proxy.told, "the lie was told"
        assert not lied.new_losses
        await poller.poll_once()
        await poller.poll_once()
        assert cache.losses() == [], f"{lie}: a false loss"
        assert all(p.account == "team" for p in cache.pods() if p.pod_id in TEAM), "a pod changed account"
        assert {p.pod_id for p in cache.pods(include_gone=False)} >= {*TEAM, *PERSONAL}
        assert all(p.missing_since is None for p in cache.pods() if p.pod_id in {*TEAM, *PERSONAL})
        # A real loss in the same run: confirmed by the poll that finds it missing (a direct read).
        sim.clock.jump_to(75)
        found = await poller.poll_once()
        assert [x.pod_id for x in found.new_losses] == [REAL]
        [loss] = cache.losses()
        assert loss.pod_id == REAL and loss.confirmed_by == "read directly: not found"
    finally:
        await poller.aclose()
    assert _waves_json(str(cache.path))["waves"] == []


async def test_a_pod_listed_by_the_other_accounts_key_is_flagged_not_moved(rig):
    sim, proxy, make = rig
    poller, cache = make()
    stray = TEAM[0]
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/v2/pods", lambda r: {"pods": [*r["pods"], *(p for p in _rest_pods(sim, "team") if p["id"] == stray)]},
                  key=sim.account_keys["personal"])
        lied = await poller.poll_once()
    finally:
        await poller.aclose()
    assert any("listed by the team key too" in s for s in lied.skipped)
    assert cache.flagged_pods()[stray] == "listed by both team and personal keys"
    [row] = cache.pods(pod_ids=[stray])
    assert row.account == "team" and row.gone_at is None
    from sagan_tui.commands.doctor import _cache_check

    assert (None, "pods", f"pod {stray}: listed by both team and personal keys") in _cache_check(cache.path, [])


@pytest.mark.parametrize("transport", ["graphql", "auto"])
async def test_an_empty_list_on_the_other_transports_records_no_loss(rig, transport):
    sim, proxy, make = rig
    poller, cache = make(transport)
    team = sim.account_keys["team"]
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        if transport == "graphql":
            proxy.lie("/graphql", graphql_pods(lambda pods: []), key=team)
        else:  # REST lies; the same poll's GraphQL reply still lists every pod
            proxy.lie("/v2/pods", lambda r: {"pods": []}, key=team)
        lied = await poller.poll_once()
        await poller.poll_once()
        await poller.poll_once()
    finally:
        await poller.aclose()
    assert proxy.told and cache.losses() == []
    if transport == "auto":
        assert lied.pods_missing == (), "a pod GraphQL listed in the same poll is not missing"


async def test_sagans_terminated_while_runpod_lists_the_pod_running_is_no_loss(rig):
    sim, proxy, make = rig
    poller, cache = make()
    victim = TEAM[1]
    token = sim.sagan_token
    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/api/pods", sagan_row_lie(sim, victim, status="terminated", terminated_at="now", updated_at="now",
                                             last_error=f"Pod {victim} not found in account=team"), key=token)
        await poller.poll_source("sagan")
        assert cache.losses() == []
        assert "Sagan says not found" in cache.flagged_pods()[victim]
        await poller.poll_once()
        await poller.poll_once()
    finally:
        await poller.aclose()
    assert cache.losses() == []
    withdrawn = _waves_json(str(cache.path))["withdrawn"]
    assert [w["pod_id"] for w in withdrawn] == [victim] and "RunPod listed it RUNNING" in withdrawn[0]["reason"]


async def test_a_confirmed_loss_listed_running_again_is_withdrawn_from_waves_and_report(rig, tmp_path):
    """Both the list and the direct reads lie (every pod of team gone, each read not found): the
    losses are confirmed and make a wave; the next true list withdraws every one of them."""
    from sagan_tui.core.session.model import PanelModel, announcements

    sim, proxy, make = rig
    poller, cache = make()
    team = sim.account_keys["team"]
    model = PanelModel(poller.settings, cache)
    victims = sorted([*TEAM, REAL])  # every pod of team, all running at t=20
    try:
        sim.clock.jump_to(20)
        model.apply(await poller.poll_once())
        proxy.lie("/v2/pods", lambda r: {"pods": []}, key=team)
        for pid in victims:
            proxy.lie(f"/v2/pods/{pid}", lambda r: NOT_FOUND, key=team)
        lied = await poller.poll_once()
        delta = model.apply(lied)
        assert sorted(x.pod_id for x in cache.losses()) == victims, "the lie was believed: the rig works"
        [wave] = delta.new_waves
        assert {x.pod_id for x in wave.losses} == set(victims)
        before = {n: h.state for n, h in model.health.items()}
        truth = await poller.poll_once()
        delta = model.apply(truth)
        notes = announcements(delta, before, model.health)
        # The rows of the withdrawn pods come with it, as rows (the panel applies them by key).
        assert set(victims) <= set(delta.pods) and all(hasattr(r, "cells") for r in delta.pods.values())
    finally:
        await poller.aclose()
    assert set(truth.withdrawn) == set(victims) and cache.losses() == [] and model.waves == []
    assert all(cache.pods(pod_ids=[pid])[0].gone_at is None for pid in victims), "the rows read RUNNING again"
    [retraction] = [n for n in notes if n.title == "Loss withdrawn"]
    assert "False alarm" in retraction.message and all(pid in retraction.message for pid in victims)
    out = _waves_json(str(cache.path))
    assert out["waves"] == [] and sorted(w["pod_id"] for w in out["withdrawn"]) == victims
    assert all(w["reason"].startswith("listed RUNNING again at") for w in out["withdrawn"])
    from sagan_tui.cli import main

    report = io.StringIO()
    with redirect_stdout(report):
        assert main(["report", "--cache", str(cache.path)]) == 0
    assert not any(pid in report.getvalue().split("## Withdrawn")[0] for pid in victims)


@pytest.mark.parametrize("bad", ["absurd uptime", "numeric id"])
async def test_a_record_unreadable_for_a_whole_run_hides_no_real_loss(rig, bad):
    sim, proxy, make = rig
    poller, cache = make()
    team = sim.account_keys["team"]

    def spoil(reply: dict) -> dict:
        pods = [dict(p) for p in reply["pods"]]
        target = next(p for p in pods if p["id"] == TEAM[0])
        if bad == "absurd uptime":
            target["runtime"] = {**(target.get("runtime") or {}), "uptime": 10**12}
        else:
            pods.append({**target, "id": 12345})
        return {**reply, "pods": pods}

    try:
        sim.clock.jump_to(20)
        await poller.poll_once()
        proxy.lie("/v2/pods", spoil, key=team, times=10**6)  # from here to the end of the run
        await poller.poll_once()
        await poller.poll_once()
        sim.clock.jump_to(75)
        found = await poller.poll_once()
    finally:
        await poller.aclose()
    assert [x.pod_id for x in found.new_losses] == [REAL]
    assert [x.pod_id for x in cache.losses()] == [REAL]
    health = cache.health()["team"]
    assert health.unreadable == 1 and health.unreadable_since is not None
    if bad == "absurd uptime":  # its pod is listed (unreadable), never missing
        [row] = cache.pods(pod_ids=[TEAM[0]])
        assert row.gone_at is None and row.missing_since is None
