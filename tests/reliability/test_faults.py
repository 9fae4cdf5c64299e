"""Sources failing on schedule in the simulator, through the poller as `sync` runs it.

Each fault: no crash, the failing source's health says what happened (and so does the sync
line), the others stay live, cached data is kept, no loss is inferred, the first good poll
recovers, and the failing source is asked less and less often (counted on the simulator).
"""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from sagan_tui.core.models import ErrorKind, HealthState
from sagan_tui.core.store.cache import Cache

from .conftest import SOAK, open_poller

WORLD = {
    "experiments": [
        {"number": 192, "title": "persona spread", "status": "running", "runpodAccount": "team"},
        {"number": 333, "title": "personal run", "status": "running", "runpodAccount": "personal"},
        {"number": 365, "title": "plan", "status": "plan_pending", "runpodAccount": "team"},
    ],
    "approvalRequests": [{"id": "apr-365", "experiment": 365, "title": "Plan", "bodyMd": "x [TEXTBOX:why]"}],
    "events": [{"at": 2, "experiment": 192, "eventType": "state_changed", "fromStatus": "queued",
                "toStatus": "running", "note": "RunPod pod is running."}],
    "pods": [
        {"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "created_at": 0, "running_at": 1},
        {"id": "m1ayhl6nsbxw04", "account": "team", "experiment": 192, "created_at": 0, "running_at": 2},
        {"id": "j0xvy1q82ryo8m", "account": "personal", "experiment": 333, "created_at": 0, "running_at": 1},
    ],
}
FAIL_FROM, FAIL_TO = 20, 100_000  # scenario seconds; the tests jump past FAIL_TO to recover
KIND = {"401": ErrorKind.AUTH, "429": ErrorKind.RATE_LIMIT, "500": ErrorKind.SERVER, "timeout": ErrorKind.TIMEOUT,
        "bad-json": ErrorKind.BAD_JSON, "410": ErrorKind.GONE, "unreachable": ErrorKind.UNREACHABLE}
# (failing source, fault kind): the schedule of issue #7
FAULTS = [("sagan", "500"), ("sagan", "timeout"), ("sagan", "429"), ("sagan", "bad-json"), ("sagan", "401"),
          ("sagan", "unreachable"),
          ("personal", "401"), ("team", "500"), ("team", "timeout"), ("team", "429"), ("team", "bad-json"),
          ("team", "410"), ("personal", "bad-json")]


FLAKY_TIMES = range(5, 1200 if SOAK else 400, 10 if SOAK else 20)


def world_failing(source: str, kind: str) -> dict:
    window = [{"from": FAIL_FROM, "to": FAIL_TO, "kind": kind}]
    accounts = {"team": {"api_key": "rk-team-faults"}, "personal": {"api_key": "rk-personal-faults"}}
    sagan = {"token": "sagan-faults"}
    if kind != "unreachable":
        if source == "sagan":
            sagan["failures"] = window
        else:
            accounts[source]["failures"] = window
    return {**WORLD, "sagan": sagan, "accounts": accounts}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_poller(sim, tmp_path, *, sagan_down: bool = False, **flags):
    # GraphQL for every account: `asked` counts one GraphQL request per poll, and a 410 is the
    # account's health only there (under `auto` it is "balance n/a": tests/sync/test_runpod_kinds.py).
    env = {**sim.env(), **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    if sagan_down:  # nothing listens there: connection refused, as when Sagan's host is down
        env["SAGAN_BASE_URL"] = f"http://127.0.0.1:{free_port()}"
    flags.setdefault("poll_interval", 0.05)
    # A fault's timeout is waited out on every attempt; a loaded machine must not make a good reply time out.
    flags.setdefault("request_timeout", 3.0)
    # retries=0: the poller's own backoff is what is measured here
    return open_poller(env, tmp_path / "cache.sqlite", retries=0, **flags)


def snapshot(cache: Cache) -> dict:
    # pod_observations is left out: a clock jump moves what lastStatusChange says, a real change.
    return {"counts": {k: v for k, v in cache.counts().items() if k not in ("actions", "pod_observations")},
            "live": {p.pod_id for p in cache.pods(include_gone=False)},
            "pending": {a.id for a in cache.approvals()},
            "experiments": {e.number: e.status for e in cache.experiments()}}


# Sagan's poll sends these three at once, and each ends before the poll does, failed or not
# (core/sync/poller.py `_together`): every Sagan poll reaches the simulator three times.
SAGAN_LISTS = ("/api/experiments", "/api/pods", "/api/approval-requests")


def per_poll(source: str) -> int:
    return len(SAGAN_LISTS) if source == "sagan" else 1


def asked(sim, source: str, since: int) -> int:
    """Poll requests for `source` the simulator received after request number `since`: an
    account's poll is one GraphQL request, Sagan's is its three list requests."""
    reqs = sim.requests[since:]
    if source == "sagan":
        return sum(1 for r in reqs if r.api == "sagan" and r.path in SAGAN_LISTS)
    return sum(1 for r in reqs if r.api == "graphql" and r.account == source)


@pytest.mark.parametrize("source, kind", FAULTS, ids=[f"{s}-{k}" for s, k in FAULTS])
async def test_fault_is_health_not_loss_and_recovers(sim_factory, tmp_path, figures, source, kind):
    sim = sim_factory(fixture=world_failing(source, kind))
    timeout = 1.0 if kind == "timeout" else 3.0
    poller, cache = make_poller(sim, tmp_path, request_timeout=timeout)
    try:
        sim.clock.jump_to(10)
        good = await poller.poll_once()
        assert all(h.state == HealthState.OK for h in good.health.values()), good.summary_line()
        kept = snapshot(cache)
        assert kept["live"] and kept["pending"] == {"apr-365"}

        if kind == "unreachable":
            await poller.aclose()
            poller, cache = make_poller(sim, tmp_path, sagan_down=True, request_timeout=timeout)
        sim.clock.jump_to(FAIL_FROM + 5)
        before = len(sim.requests)
        bad = await poller.poll_once(force=True)
        h = bad.health[source]
        assert (h.state, h.error_kind) == (HealthState.ERROR, KIND[kind]), bad.summary_line()
        assert h.message and "rk-" not in h.message and "sagan-faults" not in h.message
        assert all(o.state == HealthState.OK for n, o in bad.health.items() if n != source), bad.summary_line()
        line = bad.summary_line()
        assert f"{source}=ERR {KIND[kind].value}" in line, line
        if kind != "unreachable":
            # One try, as configured (retries=0), and for a timeout the simulator still holds it
            # (it would answer 504 after a minute): the poll ended on the client's own timeout.
            tries = [r for r in sim.requests[before:] if (r.api == "sagan") == (source == "sagan")
                     and (source == "sagan" or r.account == source)]
            assert len(tries) == per_poll(source), [(r.api, r.path, r.status) for r in tries]
            if kind == "timeout":
                assert all(r.status is None for r in tries)
        # Cached data kept and marked as such: nothing dropped, no loss, last success remembered.
        assert snapshot(cache) == kept
        assert not bad.new_losses and not cache.losses() and not bad.pods_gone
        remembered = cache.health()[source]
        assert remembered.state == HealthState.ERROR and remembered.last_success < bad.at

        # Backoff: keep cycling for a while; the failing source is asked far less often.
        mark, failed_before = len(sim.requests), poller.health[source].consecutive_failures
        cycles, t_end = 0, time.monotonic() + 1.0
        while time.monotonic() < t_end:
            changes = await poller.poll_once()
            cycles += 1
            await asyncio.sleep(0.03)
        healthy = next(n for n in ("sagan", "team", "personal") if n != source)
        attempts = changes.health[source].consecutive_failures - failed_before
        assert attempts <= max(4, cycles // 4), (attempts, cycles)
        if kind != "unreachable":
            assert asked(sim, healthy, mark) == cycles * per_poll(healthy)
            assert asked(sim, source, mark) == attempts * per_poll(source)
        figures.setdefault("backoff", {})[f"{source}:{kind}"] = f"{attempts} requests in {cycles} poll cycles"
        if kind == "429":  # the simulator says Retry-After: 2: nothing is sent before it has passed
            assert changes.health[source].next_attempt is not None
        assert snapshot(cache)["live"] == kept["live"] and not cache.losses()

        # Recovery on the first good poll (forced, as the owner's refresh is; backoff is the test above).
        if kind == "unreachable":
            await poller.aclose()
            poller, cache = make_poller(sim, tmp_path)
        sim.clock.jump_to(FAIL_TO + 10)
        back = await poller.poll_once(force=True)
        h = back.health[source]
        assert (h.state, h.error_kind, h.consecutive_failures, h.next_attempt) == (HealthState.OK, None, 0, None), \
            back.summary_line()
        assert f"{source}=ok" in back.summary_line()
    finally:
        await poller.aclose()
    figures.setdefault("faults_survived", []).append(f"{source}:{kind}")


async def test_a_source_flapping_on_the_flaky_scenario_never_loses_a_pod(sim_factory, tmp_path, figures):
    """The `flaky` scenario's first ten minutes, polled every 10 scenario seconds: faults come and go."""
    sim = sim_factory(scenario="flaky")
    poller, cache = make_poller(sim, tmp_path, request_timeout=1.0)
    kinds: dict[str, set[str]] = {}
    try:
        for t in FLAKY_TIMES:
            sim.clock.jump_to(t)
            changes = await poller.poll_once(force=True)
            for name, h in changes.health.items():
                if h.state == HealthState.ERROR:
                    kinds.setdefault(name, set()).add(h.error_kind.value)
                    assert h.error_kind != ErrorKind.OTHER, h.message
    finally:
        await poller.aclose()
    assert set(kinds) == {"sagan", "team", "personal"}, kinds
    assert not cache.losses()  # calm underneath: every pod alive
    live = {p.pod_id for p in cache.pods(include_gone=False)}
    assert live == {p.spec.id for a in ("team", "personal") for p in sim.state.account_pods(a, sim.clock.now_t())}
    figures["flaky_polls"] = len(FLAKY_TIMES)
    figures["flaky_error_kinds"] = {k: sorted(v) for k, v in kinds.items()}
