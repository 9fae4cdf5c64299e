"""Fuzzed replies of Sagan, RunPod GraphQL and REST v2 through the real clients and the poller into a cache.

Each example serves hypothesis-made bodies on loopback and runs one `Poller.poll_once()`:
nothing may raise, no failure may be an unexplained `other`, a bad record is skipped with a
logged reason and every good one is stored, nothing already cached is lost, and a pod seen
before is never lost because of what a hostile reply did.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from sagan_tui.core.models import valid_pod_id
from sagan_tui.core.models import (
    ApprovalRequest, ErrorKind, Experiment, HealthState, PodLifecycle, RunPodPod, WorkflowEvent,
)
from sagan_tui.core.sources.runpod_graphql import flatten_pod
from sagan_tui.core.sources.runpod_rest import flatten_rest_pod

from .conftest import SOAK, open_poller
from .fuzz_replies import (
    BROKEN_BODIES, NOT_JSON, POD_STATUS, REST_STATUS, SAGAN_ROUTES, event, graphql_pod, json_value, one_broken,
    parse_body, records, rest_pod, serialise,
)

# Its @given functions live inside the tests (one rig per run): marked for `make fuzz` by hand.
pytestmark = pytest.mark.hypothesis
EXAMPLES = 1500 if SOAK else 30
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, print_blob=True,
                suppress_health_check=list(HealthCheck))
ANCHORS = ["anchorpod00001", "anchorpod00002"]
MODELS = {"/api/experiments": ("experiments", Experiment), "/api/events": ("events", WorkflowEvent),
          "/api/approval-requests": ("approvalRequests", ApprovalRequest), "/api/pods": ("pods", PodLifecycle)}


# Failing examples the random runs (`make fuzz`) found, pinned: `make test` runs each every time.
# An event whose metadata has a lone surrogate as a key failed every Sagan poll (pydantic's
# serializer refused it) instead of storing that record.
SURROGATE_KEY = {"/api/experiments": serialise({"experiments": []}),
                 "/api/events": serialise({"events": [{**event(0), "metadata": {"\ud800": 0}}]}),
                 "/api/approval-requests": serialise({"approvalRequests": []}), "/api/pods": serialise({"pods": []})}


class Rig:
    """One poller on one cache for a whole hypothesis run, on one event loop."""

    def __init__(self, stub, tmp_path, **env):
        self.loop = asyncio.new_event_loop()
        self.poller, self.cache = open_poller({**stub.env(keys={"team": "rk-team-fuzz"}), **env},
                                              tmp_path / "fuzz.sqlite", retries=0)
        self.cases = 0

    def poll(self):
        self.cases += 1
        return self.loop.run_until_complete(self.poller.poll_once(force=True))

    def close(self):
        self.loop.run_until_complete(self.poller.aclose())
        self.loop.close()
        self.cache.close()

    def ids(self, sql: str) -> set:
        return {r["k"] for r in self.cache.rows(sql)}


def held_at_cursor(rig) -> set[str]:
    """Ids of the events the next poll re-reads at its feed cursor's instant and, being held, does not
    validate again (core/sync/poller.py `known`): a record sent again under such an id changes nothing."""
    from sagan_tui.core.store.cache import parse_ts

    parts = dict(p.split("=", 1) for p in (rig.cache.cursor("sagan") or "").split(";") if "=" in p)
    return rig.cache.event_ids_at(parse_ts(parts["ev"])) if parts.get("ev") else set()


def skipped_logged(caplog) -> int:
    return sum(1 for r in caplog.records if r.getMessage().startswith("skipped record:"))


def test_sagan_replies(stub, tmp_path, caplog, figures):
    caplog.set_level(logging.WARNING)
    rig = Rig(stub, tmp_path)
    failures = {"bad-json": 0, "ok": 0}

    @FUZZ
    @given(bodies=one_broken(SAGAN_ROUTES))
    @example(bodies=SURROGATE_KEY)
    def one(bodies):
        for path, body in bodies.items():
            stub.set(path, body)
        before, held = rig.cache.counts(), held_at_cursor(rig)
        caplog.clear()
        changes = rig.poll()
        h = changes.health["sagan"]
        parsed = {path: parse_body(body) for path, body in bodies.items()}
        after = rig.cache.counts()
        assert all(after[t] >= before[t] for t in before), (before, after)  # nothing cached is lost
        assert not changes.new_losses
        if not all(isinstance(v, dict) for v in parsed.values()):
            assert (h.state, h.error_kind) == (HealthState.ERROR, ErrorKind.BAD_JSON), h
            assert after == before
            failures["bad-json"] += 1
            return
        assert h.state == HealthState.OK, h
        failures["ok"] += 1
        bad = 0
        for path, (key, model) in MODELS.items():
            items = parsed[path].get(key)
            if not isinstance(items, list):
                bad += 1  # "expected a list": skipped with its reason, nothing written
                continue
            for item in items:
                # `make fuzz` found one: a mutation's fixed id ("H" * 300,000) held from an earlier case.
                if model is WorkflowEvent and isinstance(item, dict) and isinstance(item.get("id"), str) \
                        and item["id"] in held:
                    continue
                try:
                    rec = model.model_validate(item)
                except Exception:
                    bad += 1
                    continue
                if model is Experiment:
                    assert rig.cache.experiment(rec.number) is not None
                elif model is WorkflowEvent:
                    assert rec.id in rig.ids("select id k from events")
                elif model is ApprovalRequest:
                    assert rec.id in rig.ids("select id k from approvals")
                else:
                    assert rec.runpod_pod_id in rig.ids("select runpod_pod_id k from sagan_pods")
        assert len(changes.skipped) == bad, changes.skipped
        assert skipped_logged(caplog) == bad

    try:
        one()
    finally:
        rig.close()
    figures["fuzz_sagan_cases"] = rig.cases
    figures["fuzz_sagan_outcomes"] = failures


# Junk where the pod list goes. Never an empty list: that is a truthful "no pods" and would lose the anchors.
JUNK_PODS = st.one_of(json_value.filter(lambda v: not isinstance(v, list)), st.lists(json_value, min_size=1))


def _account_bodies(pod: st.SearchStrategy, wrap) -> st.SearchStrategy[bytes]:
    good = pod.map(lambda recs: serialise(wrap([*({"anchor": a} for a in ANCHORS), *recs])))
    return st.one_of(good, good, good, JUNK_PODS.map(lambda v: serialise(wrap(v))), BROKEN_BODIES)


def _graphql(pods):
    return {"data": {"myself": {"clientBalance": 10.0, "currentSpendPerHr": 1.0, "spendLimit": None,
                                "underBalance": False, "pods": pods}}}


GRAPHQL_BODIES = st.one_of(
    _account_bodies(records(graphql_pod, list(graphql_pod(0)), POD_STATUS), _graphql),
    json_value.map(lambda v: serialise({"data": v})),
    json_value.map(lambda v: serialise({"data": {"myself": v}})),
    json_value.map(lambda v: serialise({"errors": v})),
)
REST_BODIES = _account_bodies(records(rest_pod, list(rest_pod(0)), REST_STATUS), lambda pods: {"pods": pods})


# The anchors run all through the test, so their uptime grows with the wall clock as RunPod's
# would. A fixed uptime reads, `now - uptime`, as a start moving later: a restart in place once a
# hostile reply has made them missing for longer than the start's jitter (a loaded machine's slow
# case), which rightly confirms the run before it lost.
ANCHORS_STARTED = time.monotonic()


def _anchor(kind: str, pod_id: str) -> dict:
    up = 10 + int(time.monotonic() - ANCHORS_STARTED)
    if kind == "graphql":
        return {**graphql_pod(0), "id": pod_id, "name": "anchor", "uptimeSeconds": up,
                "runtime": {"uptimeInSeconds": up}}
    return {**rest_pod(0), "id": pod_id, "name": "anchor", "runtime": {"uptime": up}}


def _with_anchors(body: bytes, kind: str) -> bytes:
    for i, a in enumerate(ANCHORS):
        body = body.replace(serialise({"anchor": a}), serialise(_anchor(kind, ANCHORS[i])))
    return body


def true_read(rig, tries: int = 5) -> None:
    """The true list before a hostile one must be read, or the hostile reply is the second list
    in a row without the anchors, which rightly confirms their loss. A poll may not read it: the
    account can still be backing off after the last case's error (a rate-limit's wait runs on the
    wall clock, so on a loaded machine one poll can fall inside it or not); poll until it reads."""
    for _ in range(tries):
        if rig.poll().health["team"].state == HealthState.OK:
            return
    raise AssertionError(f"the true list was not read in {tries} polls")


@pytest.mark.parametrize("kind", ["graphql", "rest-v2"])
def test_runpod_replies(stub, tmp_path, caplog, figures, kind):
    caplog.set_level(logging.WARNING)
    route = "/graphql" if kind == "graphql" else "/v2/pods"
    rig = Rig(stub, tmp_path, RUNPOD_TRANSPORT_TEAM=kind)
    flatten = (lambda raw: flatten_pod(raw, "team")) if kind == "graphql" else (
        lambda raw: flatten_rest_pod(raw, "team", {}))
    listed = [{"anchor": a} for a in ANCHORS]
    stub.set(route, _with_anchors(serialise(_graphql(listed) if kind == "graphql" else {"pods": listed}), kind))
    first = rig.poll()
    assert first.health["team"].state == HealthState.OK
    assert {p.pod_id for p in rig.cache.pods(include_gone=False)} == set(ANCHORS)
    outcomes: dict[str, int] = {}

    listed_body = serialise(_graphql(listed) if kind == "graphql" else {"pods": listed})

    @FUZZ
    @given(body=GRAPHQL_BODIES if kind == "graphql" else REST_BODIES)
    def one(body):
        # Each hostile reply follows a true one: one reply may make a pod missing, never lost
        # (two lists in a row without it would confirm a loss, as they should).
        stub.set(route, _with_anchors(listed_body, kind))
        true_read(rig)
        body = _with_anchors(body, kind)
        stub.set(route, body)
        caplog.clear()
        changes = rig.poll()
        h = changes.health["team"]
        outcomes[h.error_kind.value if h.error_kind else "ok"] = outcomes.get(
            h.error_kind.value if h.error_kind else "ok", 0) + 1
        assert h.error_kind != ErrorKind.OTHER, h.message
        live = {p.pod_id for p in rig.cache.pods(include_gone=False)}
        assert set(ANCHORS) <= live, "a pod seen before was dropped by a hostile reply"
        assert not {x.pod_id for x in changes.new_losses} & set(ANCHORS)
        if h.state != HealthState.OK:
            assert not changes.new_losses
            # GraphQL's errors are read by kind (issue 15): `myself: null` or an auth-worded error is
            # the key's health, a rate-limit-worded one a backoff; never "other", never a loss.
            assert h.error_kind in (ErrorKind.BAD_JSON, ErrorKind.CLIENT, ErrorKind.AUTH, ErrorKind.RATE_LIMIT), h
            return
        parsed = parse_body(body)
        raw = parsed["data"]["myself"]["pods"] if kind == "graphql" else parsed["pods"]
        bad, good, named = 0, set(), set()
        for item in raw:
            try:
                good.add(RunPodPod.model_validate(flatten(item)).id)
            except Exception:
                bad += 1
                pid = item.get("id") if isinstance(item, dict) else None
                if isinstance(pid, str) and valid_pod_id(pid.strip().lower()):
                    named.add(pid.strip().lower())
        assert good <= {p.pod_id for p in rig.cache.pods()}
        assert len(changes.skipped) == bad and skipped_logged(caplog) == bad
        # An unreadable record hides its own pod, never makes it gone; one naming no pod could be
        # any of them, so this list then confirms no absence at all.
        assert not set(changes.pods_gone) & named and not {x.pod_id for x in changes.new_losses} & named
        if bad > len(named):
            assert not changes.pods_gone

    try:
        one()
    finally:
        rig.close()
    assert parse_body(b"{") is NOT_JSON
    figures[f"fuzz_{kind}_cases"] = rig.cases
    figures[f"fuzz_{kind}_outcomes"] = outcomes
