"""GraphQL and REST v2 against one simulator: the same cache, the same health kinds, and GraphQL's 410."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import ErrorKind, HealthState
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.poller import Poller

# reaping-wave, polled either side of each loss and before Sagan's own watcher notices it
# (20-40 s after), so that the poll and Sagan records meet in the same order on every run.
SCHEDULE = (70, 115, 160, 230, 255, 275, 330, 540, 580, 650)
R4_AND_RECOVERY = {"k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y", "q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s"}
R5 = {"v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn"}
CONTROLS = {"j18eiux6ccekyj", "f6n3kd9sa1qz4w"}
ENV_SECRETISH = "22739aabc8694671e631c74f628095c3b6dd09a7"  # a pod env value both APIs serve
TIME_SLACK_S = 6.0
MIXES = {
    "graphql": {"team": "graphql", "personal": "graphql"},
    "rest-v2": {"team": "rest-v2", "personal": "rest-v2"},
    "team-rest": {"team": "rest-v2", "personal": "graphql"},
    "personal-rest": {"team": "graphql", "personal": "rest-v2"},
}
SMALL = {
    "experiments": [{"number": 192, "title": "a", "status": "running", "runpodAccount": "team"},
                    {"number": 333, "title": "b", "status": "running", "runpodAccount": "personal"}],
    "pods": [
        {"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "created_at": 0, "running_at": 1},
        {"id": "m1ayhl6nsbxw04", "account": "team", "experiment": 192, "created_at": 0, "running_at": 2},
        {"id": "j0xvy1q82ryo8m", "account": "personal", "experiment": 333, "created_at": 0, "running_at": 1},
    ],
}


def _team_failing(kind: str, from_t: float) -> dict:
    """SMALL with the team account failing with `kind` from scenario time `from_t` on."""
    return {**SMALL, "accounts": {"team": {"api_key": "rk-team-x", "failures": [{"from": from_t, "kind": kind}]},
                                  "personal": {"api_key": "rk-personal-x"}}}


@pytest.fixture(scope="module", autouse=True)
def _sdk_loaded():
    # The runpod SDK takes ~2 s to import: not inside a poll whose timing the comparison relies on.
    from sagan_tui.core.sources.runpod_graphql import _load_sdk
    _load_sdk()


def _settings(sim, tmp_path, transports: dict[str, str], **flags):
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml")}
    env.update({f"RUNPOD_TRANSPORT_{name.upper()}": t for name, t in transports.items()})
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=1.0, **flags)
    return settings


def _poller(sim, tmp_path, transports: dict[str, str], **flags) -> tuple[Poller, Cache, object]:
    settings = _settings(sim, tmp_path, transports, **flags)
    cache = Cache(settings.cache_path)
    return Poller(settings, cache), cache, settings


async def _replay(sim_factory, tmp_path, transports: dict[str, str]) -> tuple[Cache, dict, object]:
    sim = sim_factory(scenario="reaping-wave")
    poller, cache, settings = _poller(sim, tmp_path, transports)
    assert {n: a.transport for n, a in settings.accounts.items()} == transports
    assert {n: t.name for n, t in poller.transports.items()} == transports
    try:
        for t in SCHEDULE:
            sim.clock.jump_to(t)
            # Twice: within one cycle Sagan's write and an account's race, and a pod first seen
            # before Sagan's row lands is tagged with its experiment only on the next cycle.
            for _ in range(2):
                changes = await poller.poll_once(force=True)
                assert all(h.state == HealthState.OK for h in changes.health.values()), changes.summary_line()
    finally:
        await poller.aclose()
    return cache, changes.health, settings


def _split(record: dict) -> tuple[dict, dict]:
    """(exact fields, time fields): times differ by how long each API took to answer."""
    times = {k: v for k, v in record.items() if isinstance(v, datetime)}
    return {k: v for k, v in record.items() if k not in times}, times


def _contents(cache: Cache) -> tuple[dict, dict]:
    """What both APIs provide, per pod and per loss (GraphQL-only fields are left out on purpose)."""
    pods = {}
    for p in cache.pods():
        running = p.pod.running
        pods[p.pod_id] = {
            "account": p.account, "experiment": p.experiment, "name": p.pod.name,
            "status": p.pod.desired_status, "gpu": p.pod.gpu, "gpu_count": p.pod.gpu_count,
            "datacenter": p.pod.datacenter, "has_runtime": p.pod.has_runtime,
            # v2's `cost` is the billed rate, and 0 once EXITED (GraphQL keeps the list rate).
            "rate": (p.pod.adjusted_cost_per_hr or p.pod.cost_per_hr) if running else None,
            "gone_reason": p.gone_reason, "first_seen_at": p.first_seen_at, "running_at": p.running_at,
            "last_seen_at": p.last_seen_at, "gone_at": p.gone_at,
        }
    losses = {x.pod_id: {
        "account": x.account, "experiment": x.experiment, "gpu": x.gpu, "datacenter": x.datacenter,
        "cost_per_hr": x.cost_per_hr, "source": x.source, "reason": x.reason, "run_id": x.run_id,
        "running_at": x.running_at, "last_seen_at": x.last_seen_at, "lost_at": x.lost_at,
    } for x in cache.losses()}
    return pods, losses


def _status_histories(cache: Cache) -> dict[str, list[str]]:
    """Each pod's observed statuses in order (GraphQL also logs lastStatusChange text, so runs collapse)."""
    out: dict[str, list[str]] = {}
    with sqlite3.connect(cache.path) as db:
        for pod_id, status in db.execute("select pod_id, desired_status from pod_observations order by at, rowid"):
            seen = out.setdefault(pod_id, [])
            if not seen or seen[-1] != status:
                seen.append(status)
    return out


def _assert_same(mine: dict, base: dict, what: str) -> None:
    assert mine.keys() == base.keys(), f"{what}: {sorted(mine.keys() ^ base.keys())}"
    for key in base:
        (exact_m, times_m), (exact_b, times_b) = _split(mine[key]), _split(base[key])
        assert exact_m == exact_b, f"{what} {key}"
        assert times_m.keys() == times_b.keys(), f"{what} {key}: {times_m.keys() ^ times_b.keys()}"
        for k in times_b:
            gap = abs((times_m[k] - times_b[k]).total_seconds())
            assert gap < TIME_SLACK_S, f"{what} {key}.{k} differs by {gap:.1f} s"


@pytest.mark.parametrize("mix", ["rest-v2", "team-rest", "personal-rest"])
async def test_both_transports_fill_the_same_cache(sim_factory, tmp_path, mix):
    base_cache, base_health, _ = await _replay(sim_factory, tmp_path / "graphql", MIXES["graphql"])
    cache, health, settings = await _replay(sim_factory, tmp_path / mix, MIXES[mix])
    pods, losses = _contents(cache)
    base_pods, base_losses = _contents(base_cache)
    # The replay means something: both waves were seen, the controls survived, nothing else lost.
    assert set(losses) == R4_AND_RECOVERY | R5 and not CONTROLS & set(losses)
    assert {losses[p]["account"] for p in R5} == {"team", "personal"}
    assert all(losses[p]["source"].startswith("runpod-poll") for p in R4_AND_RECOVERY | R5)
    _assert_same(pods, base_pods, "pod")
    _assert_same(losses, base_losses, "loss")
    assert _status_histories(cache) == _status_histories(base_cache)
    # Missing from a list, then confirmed gone (by a direct read, or the next list).
    assert _status_histories(cache)["q8r1zt5mk0pv3e"] == ["CREATED", "RUNNING", "MISSING", "GONE"]
    for name, transport in MIXES[mix].items():
        assert health[name].transport == transport and base_health[name].transport == "graphql"
        # REST v2's balance route reads the same balance GraphQL's `myself` did.
        assert health[name].balance == base_health[name].balance is not None
    blob = b"".join(p.read_bytes() for p in (tmp_path / mix).iterdir() if p.name.startswith("cache.sqlite"))
    for secret in [*settings.secrets(), ENV_SECRETISH]:
        assert secret.encode() not in blob


async def test_rest_accounts_speak_only_v2(sim_factory, tmp_path):
    sim = sim_factory(fixture=SMALL)
    sim.clock.jump_to(10)
    poller, _, _ = _poller(sim, tmp_path, MIXES["team-rest"])
    try:
        await poller.poll_once()
    finally:
        await poller.aclose()
    by_account = {}
    for r in sim.requests:
        if r.account in ("team", "personal"):
            by_account.setdefault(r.account, set()).add((r.api, r.method, r.path))
    assert by_account["team"] <= {("rest", "GET", "/v2/pods"), ("rest", "GET", "/v2/catalog/gpus"),
                                  ("rest", "GET", "/v2/billing/balance")}
    assert ("rest", "GET", "/v2/pods") in by_account["team"]
    assert by_account["personal"] == {("graphql", "POST", "/graphql")}


FAULT_KINDS = [("401", ErrorKind.AUTH), ("429", ErrorKind.RATE_LIMIT), ("500", ErrorKind.SERVER),
               ("timeout", ErrorKind.TIMEOUT), ("bad-json", ErrorKind.BAD_JSON)]


@pytest.mark.parametrize("transport", ["graphql", "rest-v2"])
@pytest.mark.parametrize("kind, health_kind", FAULT_KINDS, ids=[k for k, _ in FAULT_KINDS])
async def test_faults_are_the_same_health_and_never_losses(sim_factory, tmp_path, transport, kind, health_kind):
    fixture = _team_failing(kind, from_t=20)
    sim = sim_factory(fixture=fixture)
    both = {"team": transport, "personal": transport}
    poller, cache, settings = _poller(sim, tmp_path, both, request_timeout=1.0)
    try:
        sim.clock.jump_to(10)
        await poller.poll_once()
        seen = {p.pod_id for p in cache.pods(include_gone=False, account="team")}
        assert seen == {"v0c7bx292xqvg4", "m1ayhl6nsbxw04"}
        sim.clock.jump_to(30)
        changes = await poller.poll_once(force=True)
    finally:
        await poller.aclose()
    team = changes.health["team"]
    assert (team.state, team.error_kind, team.transport) == (HealthState.ERROR, health_kind, transport)
    assert changes.health["personal"].state == HealthState.OK
    if kind == "429":
        assert team.next_attempt is not None  # Retry-After is honoured by the backoff
    # A failed poll says nothing about the pods: still listed, not gone, no loss.
    assert {p.pod_id for p in cache.pods(include_gone=False, account="team")} == seen
    assert not changes.new_losses and not cache.losses()
    assert "rk-team-x" not in (team.message or "")


async def test_graphql_410_says_switch_to_rest_and_is_no_loss(sim_factory, tmp_path):
    fixture = _team_failing("410", from_t=20)
    sim = sim_factory(fixture=fixture)
    poller, cache, settings = _poller(sim, tmp_path, MIXES["graphql"])
    try:
        sim.clock.jump_to(10)
        await poller.poll_once()
        sim.clock.jump_to(30)
        changes = await poller.poll_once(force=True)
        again = await poller.poll_once(force=True)
    finally:
        await poller.aclose()
    team = changes.health["team"]
    assert team.state == HealthState.ERROR and team.error_kind == ErrorKind.GONE
    assert "this RunPod API has been retired; switch account team to rest-v2" in team.message
    assert cache.health()["team"].error_kind == ErrorKind.GONE
    assert not changes.new_losses and not again.new_losses and not cache.losses()
    assert len(cache.pods(include_gone=False, account="team")) == 2
    assert changes.health["personal"].state == HealthState.OK


async def test_after_410_the_same_account_on_rest_v2_answers(sim_factory, tmp_path):
    # The way out the message names: the retirement is GraphQL's, REST v2 keeps answering.
    fixture = _team_failing("410", from_t=0)
    sim = sim_factory(fixture=fixture)
    sim.clock.jump_to(10)
    poller, cache, settings = _poller(sim, tmp_path, MIXES["team-rest"])
    try:
        changes = await poller.poll_once()
    finally:
        await poller.aclose()
    assert changes.health["team"].state == HealthState.OK
    assert {p.pod_id for p in cache.pods(account="team")} == {"v0c7bx292xqvg4", "m1ayhl6nsbxw04"}


async def test_doctor_names_the_transport_and_the_way_out(sim_factory, tmp_path):
    from sagan_tui.commands.doctor import _checks

    fixture = _team_failing("410", from_t=0)
    sim = sim_factory(fixture=fixture)
    settings = _settings(sim, tmp_path, MIXES["personal-rest"])
    lines = {what: (ok, detail) for ok, what, detail in await _checks(settings, settings.secrets())}
    ok, detail = lines["runpod team"]
    assert ok is False and detail.startswith("graphql: 410-gone") and "switch account team to rest-v2" in detail
    ok, detail = lines["runpod team (rest-v2, not in use)"]
    assert ok is True and "answers (2 pods)" in detail and "RUNPOD_TRANSPORT_TEAM=auto" in detail
    ok, detail = lines["runpod personal"]
    assert ok is True and detail.startswith("rest-v2: 1 pod,") and "balance $100.00 (PREPAID)" in detail
    assert lines["runpod personal transport"] == (True, "rest-v2: pods, balance, billing, audit log and actions "
                                                        "over REST v2; machines: none (REST v2 names none)")
    ok, detail = lines["runpod personal (graphql, not in use)"]
    assert ok is True and "switch" not in detail
    assert not any("rk-team-x" in d or "rk-personal-x" in d for _, d in lines.values())
    # Once moved to rest-v2, GraphQL's 410 is the expected state, not a warning.
    settings = _settings(sim, tmp_path / "moved", MIXES["rest-v2"])
    lines = {what: (ok, detail) for ok, what, detail in await _checks(settings, settings.secrets())}
    assert lines["runpod team"][0] is True
    assert lines["runpod team (graphql, not in use)"] == (True, "retired (410), as expected: this account already "
                                                                "uses rest-v2")


async def test_owner_stop_through_rest_v2_is_applied_and_no_loss(sim_factory, tmp_path):
    from sagan_tui.core.actions.runner import ActionRunner

    sim = sim_factory(fixture=SMALL)
    sim.clock.jump_to(10)
    poller, cache, settings = _poller(sim, tmp_path, MIXES["team-rest"])
    try:
        await poller.poll_once()
        result = await ActionRunner.for_poller(settings, cache, poller).stop_pod("v0c7bx292xqvg4", "team",
                                                                                 experiment=192)
        assert result.ok, result.message
        assert "RunPod says EXITED" in result.message
        sim.clock.jump_to(20)
        await poller.poll_once(force=True)
    finally:
        await poller.aclose()
    stopped = next(p for p in cache.pods() if p.pod_id == "v0c7bx292xqvg4")
    assert stopped.pod.desired_status == "EXITED" and not cache.losses()
    sent = [(r.method, r.path, r.body) for r in sim.requests if r.api == "rest" and r.method == "POST"]
    assert sent == [("POST", "/v2/pods/v0c7bx292xqvg4/action", {"action": "stop"})]


def test_transport_per_account_from_env_and_the_rest_base(tmp_path):
    from sagan_tui.wire.config import ConfigError
    from sagan_tui.core.sources.runpod_rest import RestV2Transport
    from sagan_tui.core.sync.poller import make_transports

    env = {"SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml"), "RUNPOD_API_KEY_TEAM": "rk-a",
           "RUNPOD_API_KEY_PERSONAL": "rk-b", "RUNPOD_TRANSPORT_TEAM": "rest-v2"}
    settings, _ = load_settings(env)
    made = make_transports(settings)
    # `auto` unless the config names another: REST v2 for pods and actions, GraphQL for the balance.
    assert isinstance(made["team"], RestV2Transport) and made["personal"].name == "auto"
    # REST v2 is served beside GraphQL on api.runpod.io, under /v2 (rest.runpod.io was v1).
    assert made["team"].base_url == "https://api.runpod.io"
    settings, _ = load_settings({**env, "RUNPOD_REST_BASE_URL": "http://127.0.0.1:9/"})
    assert make_transports(settings)["team"].base_url == "http://127.0.0.1:9"
    with pytest.raises(ConfigError) as err:
        load_settings({**env, "RUNPOD_TRANSPORT_TEAM": "rest-v1"})
    assert "transport" in str(err.value) and "rk-a" not in str(err.value)
