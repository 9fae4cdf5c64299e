"""SaganClient over real HTTP against the simulator: every route, typed errors, no token in text."""

import pytest

from sagan_tui.core.models import ErrorKind
from sagan_tui.core.sources.errors import AuthError, RequestRejected, ServerError, SourceTimeout
from sagan_tui.core.sources.sagan import SaganClient

FIXTURE = {
    "sagan": {"failures": [{"from": 1000, "to": 1100, "kind": "500"}, {"from": 2000, "to": 2100, "kind": "timeout"},
                           {"from": 3000, "to": 3100, "kind": "bad-json"}]},
    "experiments": [
        {"number": 192, "title": "approved one", "status": "approved", "runpodAccount": "team"},
        {"number": 193, "title": "running one", "status": "running", "runpodAccount": "team"},
        {"number": 194, "title": "ready", "status": "awaiting_promotion", "runpodAccount": "personal"},
    ],
    "approvalRequests": [{"id": "apr-1", "experiment": 193, "title": "Plan",
                          "bodyMd": "Budget? [TEXTBOX:budget] and [TEXTBOX:owner-decision]"}],
    "events": [{"at": 1, "experiment": 193, "eventType": "note", "note": "hello"}],
    "pods": [{"id": "v0c7bx292xqvg4", "account": "team", "experiment": 193, "created_at": 0, "running_at": 1}],
}


@pytest.fixture
def sim(sim_factory):
    s = sim_factory(fixture=FIXTURE)
    s.clock.jump_to(10)
    return s


@pytest.fixture
async def client(sim):
    c = SaganClient(sim.base_url, sim.sagan_token, timeout=2, retries=1)
    yield c
    await c.aclose()


async def test_reads(client):
    assert (await client.health())["ok"] is True
    exps = await client.experiments()
    assert {e.number for e in exps.items} == {192, 193, 194} and not exps.skipped
    view = await client.view(193)
    assert view.experiment.number == 193 and any(e.note == "hello" for e in view.events)
    assert view.approval_requests[0].textbox_fields == ["budget", "owner-decision"]
    evs = await client.events(limit=50)
    assert any(e.event_type == "note" for e in evs.items)
    pend = await client.approvals()
    assert [a.id for a in pend.items] == ["apr-1"]
    pods = await client.pods()
    assert [p.runpod_pod_id for p in pods.items] == ["v0c7bx292xqvg4"]


async def test_mutations_reach_the_server_and_change_state(client, sim):
    r = await client.set_status(193, "blocked", note="hold: wave")
    assert r["ok"] and r["experiment"]["status"] == "blocked"
    assert (await client.view(193)).experiment.status == "blocked"
    r = await client.marker(193, "epm:progress", note="n", metadata={"a": 1})
    assert r["ok"] and r["id"]
    r = await client.launch_pod(192, note="retry")
    assert r["ok"] and r["agentRunId"]
    assert (await client.promote(194))["ok"]
    r = await client.decide("apr-1", "approve", {"budget": "$40", "owner-decision": "go"}, note="ok")
    assert r["ok"] and r["approvalRequest"]["status"] != "pending"
    body = next(q.body for q in sim.requests if q.path.endswith("/decision"))
    assert body["textboxAnswers"] == {"budget": "$40", "owner-decision": "go"}


async def test_server_refusals_are_typed(client):
    with pytest.raises(RequestRejected) as e:
        await client.marker(193, "epm:pod-dispatched")
    assert e.value.status == 400 and e.value.code == "unknown_marker_type" and "/markers" in str(e.value)
    with pytest.raises(RequestRejected) as e:
        await client.launch_pod(193)
    assert e.value.status == 409
    await client.decide("apr-1", "reject")
    with pytest.raises(RequestRejected) as e:
        await client.decide("apr-1", "approve")
    assert e.value.status == 409
    with pytest.raises(ValueError):
        await client.decide("apr-1", "maybe")


async def test_bad_token(sim):
    async with SaganClient(sim.base_url, "wrong-token-xyz", timeout=2) as c:
        with pytest.raises(AuthError) as e:
            await c.experiments()
    assert "wrong-token-xyz" not in str(e.value) and e.value.kind == ErrorKind.AUTH


@pytest.mark.parametrize("t,exc", [(1050, ServerError), (2050, SourceTimeout)])
async def test_faults(sim, t, exc):
    sim.clock.jump_to(t)
    async with SaganClient(sim.base_url, sim.sagan_token, timeout=0.5, retries=1) as c:
        with pytest.raises(exc):
            await c.experiments()
    gets = [q for q in sim.requests if q.path == "/api/experiments"]
    assert len(gets) == 2  # one retry for an idempotent GET


async def test_bad_json_and_mutation_not_retried(sim):
    sim.clock.jump_to(3050)
    async with SaganClient(sim.base_url, sim.sagan_token, timeout=1, retries=2) as c:
        with pytest.raises(Exception) as e:
            await c.experiments()
        assert e.value.kind == ErrorKind.BAD_JSON
        with pytest.raises(Exception):
            await c.set_status(193, "blocked")
    assert len([q for q in sim.requests if q.path.endswith("/status")]) == 1


def test_a_client_used_on_one_loop_then_on_another_keeps_working(sim):
    """The tests' rigs poll once on pytest's loop, then hand the poller to the panel, whose session
    runs its own loop in its own thread: a pooled connection of the first loop reused on the
    second failed every request of the source ("bound to a different event loop")."""
    import asyncio
    import threading

    c = SaganClient(sim.base_url, sim.sagan_token, timeout=2, retries=0)
    first = asyncio.new_event_loop()
    try:
        assert first.run_until_complete(c.health())["ok"] is True  # a keep-alive connection stays pooled
        out: list = []

        def on_another_loop() -> None:
            async def go():
                try:
                    return (await c.health())["ok"], (await c.experiments())
                finally:
                    await c.aclose()
            try:
                out.append(asyncio.run(go()))
            except Exception as exc:  # noqa: BLE001 - the assertion below names it
                out.append(exc)

        t = threading.Thread(target=on_another_loop)
        t.start()
        t.join(30)
        ok, exps = out[0] if isinstance(out[0], tuple) else (out[0], None)
        assert ok is True, ok
        assert {e.number for e in exps.items} == {192, 193, 194}
        first.run_until_complete(c.aclose())  # closed on its loop already: nothing left to do here
    finally:
        first.close()
