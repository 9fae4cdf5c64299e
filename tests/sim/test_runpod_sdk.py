"""The real runpod SDK (1.12) against the simulator's GraphQL, per account, over loopback."""

from __future__ import annotations

import httpx
import pytest

runpod = pytest.importorskip("runpod")
from runpod import error as rp_error  # noqa: E402
from runpod.api import ctl_commands  # noqa: E402
from runpod.api.graphql import run_graphql_query  # noqa: E402
from runpod.api.mutations import pods as pod_mutations  # noqa: E402

TEAM_PODS = {"r7c2m9xk4q0wza", "h1b8x6tz3kq5ve", "q3z8w1nd6ym2ap"}
PERSONAL_PODS = {"p9r2s5jc0ku8tl", "s0k7d3gv1xe4nb"}


@pytest.fixture
def sim(calm_sim, monkeypatch):
    # The SDK reads RUNPOD_API_BASE_URL from os.environ on every call.
    monkeypatch.setenv("RUNPOD_API_BASE_URL", calm_sim.base_url)
    assert not runpod.api_key, "tests must never set the process-wide key"
    return calm_sim


def test_get_pods_lists_each_accounts_own_pods(sim):
    team = ctl_commands.get_pods(api_key=sim.account_keys["team"])
    personal = ctl_commands.get_pods(api_key=sim.account_keys["personal"])
    assert {p["id"] for p in team} == TEAM_PODS
    assert {p["id"] for p in personal} == PERSONAL_PODS
    pod = next(p for p in team if p["id"] == "h1b8x6tz3kq5ve")
    assert pod["desiredStatus"] == "RUNNING" and pod["costPerHr"] == 2.99
    assert pod["machine"] == {"gpuDisplayName": "NVIDIA H100 80GB HBM3"}
    assert pod["lastStatusChange"].startswith("Rented by User: ")
    assert pod["runtime"]["ports"][0]["privatePort"] == 22
    # the request reached the simulator under the account's name, with the SDK's query
    rec = [r for r in sim.requests if r.api == "graphql"]
    assert [r.account for r in rec] == ["team", "personal"]
    assert "myself" in rec[0].body["query"] and rec[0].status == 200
    assert all(sim.account_keys["team"] not in repr(r) for r in rec)


def test_get_pod_is_scoped_to_the_key(sim):
    pod = ctl_commands.get_pod("p9r2s5jc0ku8tl", api_key=sim.account_keys["personal"])
    assert pod["id"] == "p9r2s5jc0ku8tl" and pod["machine"]["gpuDisplayName"] == "NVIDIA A100 80GB PCIe"
    assert ctl_commands.get_pod("p9r2s5jc0ku8tl", api_key=sim.account_keys["team"]) is None
    assert ctl_commands.get_pod("zzzzzzzzzzzzzz", api_key=sim.account_keys["team"]) is None


def test_unknown_key_is_401(sim):
    with pytest.raises(rp_error.AuthenticationError):
        ctl_commands.get_pods(api_key="rk-not-a-key")
    assert sim.requests[-1].status == 401 and sim.requests[-1].account is None


def test_fields_beyond_the_sdk_query_and_balances(sim):
    query = """query { myself { id clientBalance currentSpendPerHr spendLimit underBalance
        pods { id desiredStatus lastStatusChange uptimeSeconds adjustedCostPerHr podType
               machine { gpuDisplayName dataCenterId podHostId location }
               runtime { uptimeInSeconds gpus { id gpuUtilPercent memoryUtilPercent } } } } }"""
    me = run_graphql_query(query, api_key=sim.account_keys["team"])["data"]["myself"]
    assert (me["clientBalance"], me["spendLimit"], me["underBalance"]) == (412.5, 80, False)
    assert me["currentSpendPerHr"] == pytest.approx(1.49 + 2.99 + 1.49)
    pod = next(p for p in me["pods"] if p["id"] == "r7c2m9xk4q0wza")
    assert pod["machine"]["dataCenterId"] == "US-KS-2" and pod["podType"] == "RESERVED"
    # runtime uptime is wall seconds since RUNNING (t=-5360 at speed 1)
    assert 5355 <= pod["runtime"]["uptimeInSeconds"] <= 5400
    assert 0 <= pod["runtime"]["gpus"][0]["gpuUtilPercent"] <= 100
    personal = run_graphql_query(query, api_key=sim.account_keys["personal"])["data"]["myself"]
    assert personal["clientBalance"] == 35.0


@pytest.mark.parametrize("account, pod_id, number", [("team", "r7c2m9xk4q0wza", 201),
                                                     ("personal", "p9r2s5jc0ku8tl", 202)])
def test_stop_resume_terminate_through_the_sdk_builders(sim, account, pod_id, number):
    key = sim.account_keys[account]
    stopped = run_graphql_query(pod_mutations.generate_pod_stop_mutation(pod_id), api_key=key)
    assert stopped["data"]["podStop"] == {"id": pod_id, "desiredStatus": "EXITED"}
    pod = ctl_commands.get_pod(pod_id, api_key=key)
    assert (pod["desiredStatus"], pod["lastStatusChange"], pod["runtime"]) == ("EXITED", "Exited by user", None)
    t = sim.clock.now_t()
    assert sim.state.pods[pod_id].sagan_row(t, sim.clock, number)["status"] == "stop_requested"
    sim.clock.jump_to(t + 5)
    t = sim.clock.now_t()
    assert sim.state.pods[pod_id].sagan_row(t, sim.clock, number)["status"] == "stopped"
    exp = sim.state.experiments[number]
    assert exp.status_at(t) == "blocked"
    assert sim.state.events_for(number, t)[-1].note == "RunPod pod stopped; volume preserved."

    resumed = run_graphql_query(pod_mutations.generate_pod_resume_mutation(pod_id, 1), api_key=key)
    assert resumed["data"]["podResume"]["desiredStatus"] == "RUNNING"
    assert resumed["data"]["podResume"]["machine"]["podHostId"].startswith(pod_id)

    gone = run_graphql_query(pod_mutations.generate_pod_terminate_mutation(pod_id), api_key=key)
    assert gone == {"data": {"podTerminate": None}}
    assert ctl_commands.get_pod(pod_id, api_key=key) is None
    assert pod_id not in {p["id"] for p in ctl_commands.get_pods(api_key=key)}
    bodies = [r.body["query"] for r in sim.requests if r.account == account and "mutation" in r.body["query"]]
    assert len(bodies) == 3 and "podStop" in bodies[0] and "podTerminate" in bodies[2]


def test_mutation_on_another_accounts_pod_is_an_error(sim):
    with pytest.raises(rp_error.QueryError, match="not found"):
        run_graphql_query(pod_mutations.generate_pod_stop_mutation("p9r2s5jc0ku8tl"),
                          api_key=sim.account_keys["team"])
    assert ctl_commands.get_pod("p9r2s5jc0ku8tl", api_key=sim.account_keys["personal"])["desiredStatus"] == "RUNNING"


def test_deploy_creates_a_pod_that_runs_ten_seconds_later(sim):
    query = pod_mutations.generate_pod_deployment_mutation(
        "scratch", "runpod/pytorch", gpu_type_id="NVIDIA H100 80GB HBM3", gpu_count=1, env={"A": "1"})
    made = run_graphql_query(query, api_key=sim.account_keys["personal"])["data"]["podFindAndDeployOnDemand"]
    assert len(made["id"]) == 14 and made["env"] == ["A=1"] and made["imageName"] == "runpod/pytorch"
    assert ctl_commands.get_pod(made["id"], api_key=sim.account_keys["personal"])["desiredStatus"] == "CREATED"
    sim.clock.advance(11)
    pod = ctl_commands.get_pod(made["id"], api_key=sim.account_keys["personal"])
    assert pod["desiredStatus"] == "RUNNING" and pod["costPerHr"] == 2.99
    assert made["id"] not in {r["runpod_pod_id"] for r in sim.state.pod_rows(sim.clock.now_t())}  # Sagan never knew


def test_malformed_and_invalid_queries_get_graphql_errors(sim):
    with pytest.raises(rp_error.QueryError):
        run_graphql_query("query { myself { pods { id noSuchField } } }", api_key=sim.account_keys["team"])
    with pytest.raises(rp_error.QueryError):
        run_graphql_query("query { myself { pods { id ", api_key=sim.account_keys["team"])
    headers = {"Authorization": f"Bearer {sim.account_keys['team']}"}
    r = httpx.post(sim.base_url + "/graphql", json={"query": "mutation { podStop(input: {}) { id } }"},
                   headers=headers)
    assert r.status_code == 400 and r.json()["errors"][0]["message"]
    r = httpx.post(sim.base_url + "/graphql", content=b"{not json", headers=headers)
    assert r.status_code == 400 and "errors" in r.json()
    r = httpx.post(sim.base_url + "/graphql", json={"query": "{ myself { id } }"})
    assert r.status_code == 401


def test_gpu_types_query_of_the_sdk_validates(sim):
    from runpod.api.queries import gpus

    got = run_graphql_query(gpus.generate_gpu_query("NVIDIA A100 80GB PCIe"), api_key=sim.account_keys["team"])
    assert got["data"]["gpuTypes"][0]["securePrice"] == 1.49


async def test_hosts_and_balance_steps_are_served_over_graphql(sim_factory):
    """`pods[].host` comes back as machine.podHostId, the balance step in force as clientBalance."""
    from sagan_tui.core.sources.runpod_graphql import GraphQLTransport

    sim = sim_factory(fixture={
        "accounts": {"team": {"api_key": "rk-team-steps", "balance": 50.0},
                     "personal": {"api_key": "rk-personal-steps",
                                  "balance": [{"at": 0, "balance": 2.4}, {"at": 30, "balance": 0.0}]}},
        "pods": [{"id": "hostpod00001", "account": "personal", "running_at": 5, "host": "h-dead"},
                 {"id": "hostpod00002", "account": "personal", "running_at": 5}]})
    gql = GraphQLTransport("personal", "rk-personal-steps", base_url=sim.base_url)
    sim.clock.hold(10)
    early = await gql.snapshot()
    sim.clock.hold(31)
    late = await gql.snapshot()
    assert (early.balance, early.under_balance) == (2.4, False)
    assert (late.balance, late.under_balance) == (0.0, True)
    hosts = {p.id: p.host for p in late.pods}
    assert hosts["hostpod00001"] == "h-dead"
    assert hosts["hostpod00002"] and hosts["hostpod00002"] != "h-dead"  # one machine per pod by default


async def test_auto_takes_each_pods_machine_from_graphql_beside_rest_v2(sim_factory):
    """REST v2 names no machine: under `auto` the balance query also reads machine.podHostId."""
    from sagan_tui.core.sources.runpod_auto import AutoTransport
    from sagan_tui.core.sources.runpod_rest import RestV2Transport

    sim = sim_factory(fixture={
        "accounts": {"team": {"api_key": "rk-team-auto"}, "personal": {"api_key": "rk-personal-auto"}},
        "pods": [{"id": "hostpod00001", "account": "team", "running_at": 5, "host": "h-dead"}]})
    sim.clock.hold(10)
    rest = RestV2Transport("team", "rk-team-auto", base_url=sim.base_url)
    auto = AutoTransport("team", "rk-team-auto", base_url=sim.base_url, rest_base_url=sim.base_url)
    try:
        assert [p.host for p in (await rest.snapshot()).pods] == [None]
        cold = await auto.snapshot()  # the first poll does not wait for GraphQL (nor the SDK's import)
        assert [p.host for p in cold.pods] == [None] and cold.balance == 100.0
        snap = await auto.snapshot()
        assert [(p.id, p.host) for p in snap.pods] == [("hostpod00001", "h-dead")]
        assert snap.balance == 100.0 and snap.billing_mode == "PREPAID"
    finally:
        await rest.aclose()
        await auto.aclose()
