"""RunPod's failures as RunPod answers them, through the real transports against the simulator.

GraphQL's 200 + `errors` for auth and rate limit, its 410 while REST v2 works (the `auto`
transport), REST v2's 403 on an action, an Instant Cluster pod, and a pod that breaks
RunPod's non-null schema: each gives its own health kind or skip, and never a false loss.
"""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import ErrorKind, HealthState
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.poller import Poller

KEYS = {"team": "rk-team-kinds", "personal": "rk-personal-kinds"}
PODS = [
    {"id": "teampodaaa001", "account": "team", "experiment": 1, "created_at": 0, "running_at": 1},
    {"id": "teampodbbb002", "account": "team", "experiment": 1, "created_at": 0, "running_at": 1},
    {"id": "personalpod003", "account": "personal", "experiment": 2, "created_at": 0, "running_at": 1},
]
EXPERIMENTS = [{"number": 1, "title": "a", "status": "running", "runpodAccount": "team"},
               {"number": 2, "title": "b", "status": "running", "runpodAccount": "personal"}]


def fixture(team_failures=(), pods=PODS, team_balance: float = 412.5) -> dict:
    return {"experiments": EXPERIMENTS, "pods": list(pods), "accounts": {
        "team": {"api_key": KEYS["team"], "balance": team_balance, "spend_limit": 80,
                 "failures": list(team_failures)},
        "personal": {"api_key": KEYS["personal"], "balance": 35.0}}}


@pytest.fixture(scope="module", autouse=True)
def _sdk_loaded():
    from sagan_tui.core.sources.runpod_graphql import _load_sdk
    _load_sdk()


def _poller(sim, tmp_path, transport: str | None = None) -> tuple[Poller, Cache]:
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml")}
    if transport:
        env.update({"RUNPOD_TRANSPORT_TEAM": transport, "RUNPOD_TRANSPORT_PERSONAL": transport})
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=1.0)
    cache = Cache(settings.cache_path)
    return Poller(settings, cache), cache


async def _polls(poller: Poller, sim, times) -> list:
    out = []
    try:
        for t in times:
            sim.clock.jump_to(t)
            out.append(await poller.poll_once(force=True))
    finally:
        await poller.aclose()
    return out


def _no_key_in(text: str) -> bool:
    return all(k not in text for k in KEYS.values())


async def test_the_default_transport_is_auto_with_pods_and_balance_over_rest_and_machines_from_graphql(
        sim_factory, tmp_path):
    sim = sim_factory(fixture=fixture())
    poller, cache = _poller(sim, tmp_path)
    first, changes = await _polls(poller, sim, [5, 10])
    # The first poll does not wait for GraphQL: REST v2's pods and balance, nothing else.
    assert first.health["team"].balance == 412.5 and first.health["team"].billing_mode == "PREPAID"
    assert not [r for r in sim.requests if r.api == "graphql" and r.t <= 5]
    team = changes.health["team"]
    assert team.state == HealthState.OK and team.transport == "auto"
    assert (team.balance, team.spend_limit, team.under_balance, team.balance_note) == (412.5, 80.0, False, None)
    assert {p.pod_id for p in cache.pods(account="team")} == {"teampodaaa001", "teampodbbb002"}
    apis = {(r.api, r.path) for r in sim.requests if r.account == "team"}
    assert ("rest", "/v2/pods") in apis and ("rest", "/v2/billing/balance") in apis and ("graphql", "/graphql") in apis
    # GraphQL is asked for each pod's machine (REST v2 names none): the pods come from REST v2.
    gql = [r.body["query"] for r in sim.requests if r.api == "graphql" and r.account == "team"]
    assert gql and all("podHostId" in q and "desiredStatus" not in q for q in gql)


async def test_graphql_410_under_auto_keeps_the_pods_and_the_rest_v2_balance(sim_factory, tmp_path):
    lost = [{**PODS[0], "lost_at": 30}, *PODS[1:]]
    sim = sim_factory(fixture=fixture([{"from": 20, "kind": "410"}], pods=lost))
    poller, cache = _poller(sim, tmp_path)
    _, before, after = await _polls(poller, sim, [5, 10, 40])
    assert before.health["team"].balance == 412.5
    team = after.health["team"]
    assert team.state == HealthState.OK and team.error_kind is None
    assert (team.balance, team.under_balance, team.balance_note) == (412.5, False, None)  # GraphQL's end changes none
    # Nothing else changed: the pod that vanished over REST v2 is a loss, the other is live.
    assert [x.pod_id for x in cache.losses()] == ["teampodaaa001"]
    assert after.pods_gone == ("teampodaaa001",)


async def test_graphql_200_errors_for_auth_is_the_accounts_auth_health_and_no_loss(sim_factory, tmp_path):
    sim = sim_factory(fixture=fixture([{"from": 20, "kind": "graphql-auth"}]))
    poller, cache = _poller(sim, tmp_path, "graphql")
    first, second = await _polls(poller, sim, [10, 30])
    team = second.health["team"]
    assert team.state == HealthState.ERROR and team.error_kind == ErrorKind.AUTH
    assert "the key is not accepted" in team.message and _no_key_in(team.message)
    assert "team=ERR 401" in second.summary_line()
    assert second.health["personal"].state == HealthState.OK
    assert not cache.losses() and not second.pods_gone
    assert {p.pod_id for p in cache.pods(include_gone=False, account="team")} == {"teampodaaa001", "teampodbbb002"}


async def test_graphql_200_errors_rate_limit_backs_off_by_its_hint(sim_factory, tmp_path):
    from sagan_tui.sim.faults import RETRY_AFTER_S

    sim = sim_factory(fixture=fixture([{"from": 20, "kind": "graphql-rate-limit"}]))
    poller, cache = _poller(sim, tmp_path, "graphql")
    _, limited = await _polls(poller, sim, [10, 30])
    team = limited.health["team"]
    assert team.error_kind == ErrorKind.RATE_LIMIT and f"retry in {RETRY_AFTER_S} s" in team.message
    # The next try waits at least the wait RunPod named, even on the first failure.
    assert team.next_attempt - team.last_attempt >= timedelta(seconds=RETRY_AFTER_S)
    assert not cache.losses()


async def test_graphql_rate_limit_under_auto_leaves_the_rest_v2_balance_as_it_is(sim_factory, tmp_path):
    sim = sim_factory(fixture=fixture([{"from": 20, "kind": "graphql-rate-limit"}]))
    poller, cache = _poller(sim, tmp_path)
    _, _, limited = await _polls(poller, sim, [5, 10, 30])
    team = limited.health["team"]
    assert team.state == HealthState.OK and (team.balance, team.balance_note) == (412.5, None)


async def test_a_pod_breaking_the_non_null_schema_is_skipped_with_its_reason_and_nothing_is_lost(sim_factory, tmp_path):
    broken = [PODS[0], {**PODS[1], "null_fields": ["name"]}, PODS[2]]
    sim = sim_factory(fixture=fixture(pods=broken))
    poller, cache = _poller(sim, tmp_path, "graphql")
    first, second = await _polls(poller, sim, [10, 20])
    assert first.health["team"].state == HealthState.OK
    assert any("pods[1].name" in s and "Cannot return null for non-nullable field Pod.name" in s
               for s in first.skipped), first.skipped
    assert {p.pod_id for p in cache.pods(account="team")} == {"teampodaaa001"}
    assert not cache.losses() and not second.pods_gone


async def test_a_pod_that_broke_the_schema_after_being_seen_does_not_look_gone(sim_factory, tmp_path):
    # Seen whole over REST v2 first, then GraphQL nulls it: the poll is partial, no pod is gone.
    broken = [PODS[0], {**PODS[1], "null_fields": ["machineId"]}, PODS[2]]
    sim = sim_factory(fixture=fixture(pods=broken))
    poller, cache = _poller(sim, tmp_path, "rest-v2")
    await _polls(poller, sim, [10])
    assert {p.pod_id for p in cache.pods(account="team")} == {"teampodaaa001", "teampodbbb002"}
    poller, _ = _poller(sim, tmp_path, "graphql")
    (changes,) = await _polls(poller, sim, [20])
    assert changes.health["team"].state == HealthState.OK and changes.skipped
    assert not changes.pods_gone and not cache.losses()


async def test_a_cluster_pod_is_listed_only_with_the_flag_and_the_panel_sees_it(sim_factory, tmp_path):
    cluster_pod = {"id": "clusterpod0004", "account": "team", "experiment": 1, "created_at": 0, "running_at": 1,
                   "cluster": "cluster_abc123", "lost_at": 40}
    sim = sim_factory(fixture=fixture(pods=[*PODS, cluster_pod]))
    sim.clock.jump_to(10)
    headers = {"Authorization": f"Bearer {KEYS['team']}"}
    async with httpx.AsyncClient(base_url=sim.base_url, headers=headers) as c:
        plain = (await c.get("/v2/pods")).json()["pods"]
        flagged = (await c.get("/v2/pods", params={"includeClusterPods": "true"})).json()["pods"]
    assert "clusterpod0004" not in {p["id"] for p in plain}
    member = next(p for p in flagged if p["id"] == "clusterpod0004")
    assert member["cluster"]["id"] == "cluster_abc123"
    poller, cache = _poller(sim, tmp_path, "rest-v2")
    await _polls(poller, sim, [10, 50])
    seen = {p.pod_id: p for p in cache.pods(account="team")}
    assert seen["clusterpod0004"].pod.cluster_id == "cluster_abc123"
    # Lost like any pod.
    assert [x.pod_id for x in cache.losses()] == ["clusterpod0004"]


async def test_the_pods_table_shows_a_live_cluster_pods_cluster_id(sim_factory, tmp_path):
    from sagan_tui.core.models import utcnow
    from sagan_tui.wire.render import pod_row

    cluster_pod = {"id": "clusterpod0004", "account": "team", "experiment": 1, "created_at": 0, "running_at": 1,
                   "cluster": "cluster_abc123"}
    sim = sim_factory(fixture=fixture(pods=[*PODS, cluster_pod]))
    poller, cache = _poller(sim, tmp_path)
    await _polls(poller, sim, [10])
    cp = next(p for p in cache.pods(account="team") if p.pod_id == "clusterpod0004")
    assert "cluster cluster_abc123" in [c.text for c in pod_row(cp, None, utcnow()).cells]


async def test_a_403_on_a_rest_action_is_no_access_not_a_revoked_key(sim_factory, tmp_path):
    from sagan_tui.core.actions.runner import ActionRunner

    sim = sim_factory(fixture=fixture([{"from": 0, "kind": "403"}]))
    poller, cache = _poller(sim, tmp_path)
    sim.clock.jump_to(10)
    try:
        changes = await poller.poll_once(force=True)
        assert changes.health["team"].state == HealthState.OK  # reads are allowed: only the action is refused
        result = await ActionRunner.for_poller(poller.settings, cache, poller).stop_pod(
            "teampodaaa001", "team", experiment=1)
    finally:
        await poller.aclose()
    assert not result.ok
    assert "key has no access to POST /v2/pods/teampodaaa001/action" in result.message, result.message
    assert "401" not in result.message and "rejected the API key" not in result.message
    assert _no_key_in(result.message)


async def test_doctor_says_which_api_serves_what_for_each_account(sim_factory, tmp_path):
    from sagan_tui.commands.doctor import _checks

    sim = sim_factory(fixture=fixture([{"from": 0, "kind": "410"}]))
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml"), "RUNPOD_TRANSPORT_PERSONAL": "graphql"}
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"))
    lines = {what: (ok, detail) for ok, what, detail in await _checks(settings, settings.secrets())}
    assert lines["runpod team transport"] == (True, "auto: pods, balance, billing, audit log and actions over "
                                                    "REST v2; machines and exit reasons from GraphQL while it answers")
    assert lines["runpod team"] == (True, "auto: 2 pods, balance $412.50 (PREPAID)")  # REST v2's balance route
    assert lines["runpod team machines"] == (None, "none: GraphQL retired (410); REST v2 names no machine")
    assert lines["runpod personal transport"] == (True, "graphql: pods, balance, machines and actions over "
                                                        "GraphQL; billing and audit log: none")
    assert lines["runpod personal"] == (True, "graphql: 1 pod, balance $35.00")  # GraphQL names no billing mode
    assert "runpod team (graphql, not in use)" not in lines  # auto already asks both


async def test_under_auto_a_pod_runpod_exits_while_listed_is_a_loss_while_graphql_answers(sim_factory, tmp_path):
    # REST v2 says only EXITED; GraphQL's lastStatusChange says RunPod did it: a loss, not a stop.
    reaped = [{**PODS[0], "exited_at": 20, "exit_reason": "Exited by Runpod"}, *PODS[1:]]
    sim = sim_factory(fixture=fixture(pods=reaped))
    poller, cache = _poller(sim, tmp_path)
    await _polls(poller, sim, [10, 30])
    (loss,) = cache.losses()
    assert loss.pod_id == "teampodaaa001" and "Exited by Runpod" in (loss.reason or "")
