"""ActionRunner against the simulator over loopback: requests, effects after a poll, the audit log, refusals."""

from __future__ import annotations

import asyncio

from sagan_tui.core.actions.results import StopTarget
from sagan_tui.core.actions.runner import ActionRunner

from .conftest import actions_fixture


def _audit(rig, verb: str):
    return [a for a in rig.cache.actions() if a.action == verb]


async def test_hold_sets_blocked_with_the_note(rig):
    r = await rig(fixture=actions_fixture())
    result = await r.runner.hold(502, "reaping wave: hold recovery")
    assert result.ok, result.message
    [req] = r.sent("sagan")
    assert (req.path, req.account, req.body) == (
        "/api/experiments/502/status", "sagan", {"status": "blocked", "note": "reaping wave: hold recovery"})
    assert r.cache.experiment(502).status == "running"  # nothing shown as done before the poll says so
    await r.poll()
    assert r.cache.experiment(502).status == "blocked"
    [a] = _audit(r, "hold")
    assert (a.target, a.account, a.result, a.error) == ("#502", "team", "ok", None)


async def test_redispatch_launches_a_pod_that_the_next_poll_shows(rig):
    r = await rig(fixture=actions_fixture())
    result = await r.runner.redispatch(500, "owner re-dispatch")
    assert result.ok, result.message
    [req] = r.sent("sagan")
    assert (req.path, req.body) == ("/api/experiments/500/launch-pod", {"note": "owner re-dispatch"})
    assert not [p for p in r.cache.pods() if p.experiment == 500]
    r.sim.clock.advance(15)
    await r.poll()
    assert [p.account for p in r.cache.pods() if p.experiment == 500] == ["team"]
    assert _audit(r, "redispatch")[0].result == "ok"


async def test_redispatch_of_a_non_approved_experiment_is_refused_before_sending(rig):
    r = await rig(fixture=actions_fixture())
    result = await r.runner.redispatch(502)
    assert result.refused and not result.ok
    assert "#502 is running, not approved" in result.message
    assert r.sent() == []
    assert _audit(r, "redispatch")[0].result == "refused"


async def test_promote_and_its_refusal(rig):
    r = await rig(fixture=actions_fixture())
    refused = await r.runner.promote(502)
    assert refused.refused and "only an experiment awaiting promotion" in refused.message
    assert r.sent() == []
    result = await r.runner.promote(501)
    assert result.ok, result.message
    assert [q.path for q in r.sent("sagan")] == ["/api/experiments/501/promote"]
    await r.poll()
    assert r.cache.experiment(501).status == "shared"
    assert [a.result for a in _audit(r, "promote")] == ["ok", "refused"]


async def test_textbox_answers_arrive_and_the_approval_leaves_the_inbox(rig):
    r = await rig(fixture=actions_fixture())
    [approval] = r.cache.approvals()
    assert approval.textbox_fields == ["budget-cap-usd", "owner-notes"]
    answers = {"budget-cap-usd": " 40 ", "owner-notes": "go, [b]literal[/b]", "not-a-field": "dropped"}
    result = await r.runner.decide(approval, "approve", answers, "fine")
    assert result.ok, result.message
    [req] = r.sent("sagan")
    assert req.path == "/api/approval-requests/req-503/decision"
    assert req.body == {"decision": "approve", "note": "fine",
                        "textboxAnswers": {"budget-cap-usd": "40", "owner-notes": "go, [b]literal[/b]"}}
    await r.poll()
    assert r.cache.approvals() == []
    assert r.cache.experiment(503).status == "approved"
    [marker] = r.cache.events(503, types=["epm:textbox-answers"])
    assert marker.metadata["answers"]["owner-notes"] == "go, [b]literal[/b]"
    assert _audit(r, "approve")[0].result == "ok"


async def test_approve_with_an_empty_textbox_sends_nothing_but_reject_may(rig):
    r = await rig(fixture=actions_fixture())
    [approval] = r.cache.approvals()
    refused = await r.runner.decide(approval, "approve", {"budget-cap-usd": "40", "owner-notes": "  "})
    assert refused.refused and "empty: owner-notes" in refused.message
    assert r.sent() == []
    rejected = await r.runner.decide(approval, "reject", {"budget-cap-usd": "40"}, "too costly")
    assert rejected.ok, rejected.message
    [req] = r.sent("sagan")
    assert req.body["decision"] == "reject" and req.body["textboxAnswers"] == {"budget-cap-usd": "40"}


async def test_stop_uses_the_pods_own_account_after_a_recheck(rig):
    r = await rig(fixture=actions_fixture())
    result = await r.runner.stop_pod("perspod504bbbb", "personal", "RUNNING", 504)
    assert result.ok, result.message
    [recheck] = r.graphql("pod(input")
    [stop] = r.graphql("podStop")
    assert recheck.account == stop.account == "personal"
    assert 'podId: "perspod504bbbb"' in stop.body["query"]
    assert r.sim.requests.index(recheck) < r.sim.requests.index(stop)
    assert not [q for q in r.sent("graphql") if q.account == "team"]
    await r.poll()
    [pod] = [p for p in r.cache.pods() if p.pod_id == "perspod504bbbb"]
    assert pod.pod.desired_status == "EXITED"
    assert "perspod504bbbb" in r.cache.owner_stops()
    assert r.cache.losses() == []  # a stop the owner asked for is never a loss
    [a] = _audit(r, "stop")
    assert (a.target, a.account, a.result) == ("perspod504bbbb", "personal", "ok")


async def test_stop_refused_when_the_pod_changed_since_the_poll(rig):
    r = await rig(fixture=actions_fixture())
    await r.poller.transports["team"].stop("teampod502aaaa")  # someone else stopped it meanwhile
    r.since_now()
    result = await r.runner.stop_pod("teampod502aaaa", "team", "RUNNING")
    assert result.refused and "is now EXITED, not RUNNING" in result.message
    assert r.graphql("podStop") == []


async def test_stop_refused_when_the_target_vanished(rig):
    """reaping-wave: the pod is RUNNING at the last poll, then reaped (t=574) before the stop is sent."""
    r = await rig(scenario="reaping-wave", at=550)
    [pod] = [p for p in r.cache.pods() if p.pod_id == "m1ayhl6nsbxw04"]
    assert pod.pod.desired_status == "RUNNING" and pod.gone_at is None
    r.sim.clock.jump_to(600)
    result = await r.runner.stop_pod("m1ayhl6nsbxw04", "team", "RUNNING", 363)
    assert result.refused and not result.ok
    assert "no longer exists in account team" in result.message
    assert len(r.graphql("pod(input")) == 1 and r.graphql("podStop") == []
    [a] = _audit(r, "stop")
    assert a.result == "refused" and "no longer exists" in a.error
    await r.poll()  # the refused stop is not an owner stop: the pod counts as lost
    assert "m1ayhl6nsbxw04" in {x.pod_id for x in r.cache.losses()}


async def test_stop_refused_when_the_last_poll_saw_it_gone(rig):
    r = await rig(scenario="reaping-wave", at=550)
    r.sim.clock.jump_to(600)
    await r.poll()
    r.since_now()
    result = await r.runner.stop_pod("v0c7bx292xqvg4", "team")
    assert result.refused and "the last poll saw v0c7bx292xqvg4 gone" in result.message
    assert r.sent("graphql") == []  # not even the re-check: the cache already knows


async def test_guard_requires_the_typed_number_during_the_r5_wave(rig):
    r = await rig(scenario="reaping-wave", at=550)
    r.sim.clock.jump_to(600)
    await r.poll()  # the r5 pods are gone: a wave in both accounts, now
    await r.poller.sagan.set_status(192, "approved", "test setup: restored by the owner elsewhere")
    await r.poll()
    assert r.cache.experiment(192).status == "approved"
    r.since_now()
    from sagan_tui.core.actions.guard import dispatch_verdict
    from sagan_tui.core.models import utcnow

    verdict = dispatch_verdict(r.cache, 192, utcnow(), r.settings.guard_minutes)
    assert verdict.needs_typed_confirmation and verdict.wave is not None
    assert set(verdict.wave.accounts) == {"team", "personal"}
    for typed in (None, "", "19", "193"):
        refused = await r.runner.redispatch(192, confirm=typed)
        assert refused.refused and "dispatch guard" in refused.message and "type 192" in refused.message
    assert r.sent() == []
    result = await r.runner.redispatch(192, "through the guard", confirm="192")
    assert result.ok, result.message
    assert [q.path for q in r.sent("sagan")] == ["/api/experiments/192/launch-pod"]
    assert [a.result for a in _audit(r, "redispatch")] == ["ok", "refused", "refused", "refused", "refused"]


async def test_bulk_hold_holds_every_marked_experiment(rig):
    r = await rig(fixture=actions_fixture())
    result = await r.runner.bulk_hold([502, 504, 502], "bulk")
    assert result.ok and len(result.parts) == 2, result.message
    assert result.message.startswith("2 of 2 held")
    assert sorted(q.path for q in r.sent("sagan")) == ["/api/experiments/502/status", "/api/experiments/504/status"]
    await r.poll()
    assert [r.cache.experiment(n).status for n in (502, 504)] == ["blocked", "blocked"]
    assert sorted(a.target for a in _audit(r, "hold")) == ["#502", "#504"]


async def test_bulk_stop_sends_each_stop_with_its_own_account(rig):
    r = await rig(fixture=actions_fixture())
    pods = {p.pod_id: p for p in r.cache.pods()}
    targets = [StopTarget.of(pods[i]) for i in ("teampod502aaaa", "perspod504bbbb")]
    result = await r.runner.bulk_stop(targets)
    assert result.ok, result.message
    stops = r.graphql("podStop")
    assert sorted((q.account, q.body["query"].split('"')[1]) for q in stops) == [
        ("personal", "perspod504bbbb"), ("team", "teampod502aaaa")]
    await r.poll()
    assert {p.pod_id: p.pod.desired_status for p in r.cache.pods()}["teampod502cccc"] == "RUNNING"
    assert sorted(a.target for a in _audit(r, "stop") if a.result == "ok") == ["perspod504bbbb", "teampod502aaaa"]


async def test_read_only_refuses_every_mutation(rig):
    r = await rig(fixture=actions_fixture(), read_only=True)
    [approval] = r.cache.approvals()
    pod = StopTarget("perspod504bbbb", "personal", experiment=504)
    results = [
        await r.runner.decide(approval, "approve", {"budget-cap-usd": "1", "owner-notes": "x"}),
        await r.runner.decide(approval, "reject"),
        await r.runner.hold(502), await r.runner.redispatch(500, confirm="500"), await r.runner.promote(501),
        await r.runner.stop_pod(pod.pod_id, pod.account), await r.runner.bulk_hold([502, 504]),
        await r.runner.bulk_stop([pod]),
    ]
    for res in results:
        assert res.refused and not res.ok and "read-only" in res.message, res
    assert r.sent() == [] and r.sent("graphql") == []
    assert {a.result for a in r.cache.actions()} == {"refused"}
    assert r.cache.owner_stops() == set()  # a refused stop must not hide a later loss


async def test_a_double_press_sends_once(rig):
    r = await rig(fixture=actions_fixture(), latency=0.3)
    first, second = await asyncio.gather(r.runner.hold(502, "one"), r.runner.hold(502, "two"))
    assert first.ok and second.refused and "already in flight" in second.message
    assert len(r.sent("sagan")) == 1
    again = await r.runner.hold(502, "later")  # once the first finished, a new one may go
    assert again.ok


async def test_server_500_is_reported_and_changes_nothing(rig):
    r = await rig(fixture=actions_fixture([{"from": 1000, "to": 1100, "kind": "500"}]))
    r.sim.clock.jump_to(1000)
    result = await r.runner.hold(502, "during the outage")
    assert not result.ok and not result.refused
    assert "HTTP 500" in result.message and result.server_error
    assert len(r.sent("sagan")) == 1  # mutations are never retried behind the owner's back
    r.sim.clock.jump_to(1200)
    await r.poll()
    assert r.cache.experiment(502).status == "running"
    [a] = _audit(r, "hold")
    assert a.result == "error" and "HTTP 500" in a.error


async def test_server_409_shows_sagans_own_words(rig):
    r = await rig(fixture=actions_fixture())
    # Another session moved #500 on; this panel's cache still says approved.
    await r.poller.sagan.set_status(500, "running", "test setup: dispatched elsewhere")
    r.since_now()
    result = await r.runner.redispatch(500)
    assert not result.ok and not result.refused
    assert "HTTP 409 not_approved: Experiment #500 is running, not approved; nothing launched" in result.message
    assert _audit(r, "redispatch")[0].result == "error"


async def test_timeout_is_reported_as_maybe_applied(rig):
    r = await rig(fixture=actions_fixture([{"from": 1000, "to": 1100, "kind": "timeout"}]), request_timeout=1.0)
    r.sim.clock.jump_to(1000)
    result = await r.runner.promote(501)
    assert not result.ok and "timed out" in result.message and "next poll will tell" in result.message
    assert len(r.sent("sagan")) == 1
    r.sim.clock.jump_to(1200)
    await r.poll()
    assert r.cache.experiment(501).status == "awaiting_promotion"


async def test_no_secret_in_results_or_the_audit_log(rig):
    r = await rig(fixture=actions_fixture([{"from": 1000, "to": 1100, "kind": "500"}]))
    r.sim.clock.jump_to(1000)
    results = [await r.runner.hold(502), await r.runner.stop_pod("teampod502aaaa", "team"),
               await r.runner.stop_pod("perspod504bbbb", "team")]  # the wrong account
    assert results[2].refused and "lists perspod504bbbb under account personal, not team" in results[2].message
    text = repr(results) + repr(r.cache.actions())
    for secret in r.settings.secrets():
        assert secret not in text


async def test_unknown_account_and_bad_pod_id_are_refused(rig):
    r = await rig(fixture=actions_fixture())
    assert "no key configured" in (await r.runner.stop_pod("teampod502aaaa", "lab")).message
    bad = await r.runner.stop_pod('x" } mutation {', "team")
    assert bad.refused and "not a RunPod pod id" in bad.message
    assert r.sent("graphql") == []


def test_runner_needs_no_textual():
    assert "textual" not in ActionRunner.__module__


async def test_a_bulk_stop_where_one_of_three_is_refused_is_titled_2_of_3_stopped_as_a_warning(rig):
    r = await rig(fixture=actions_fixture())
    pods = {p.pod_id: p for p in r.cache.pods()}
    targets = [StopTarget.of(pods[i]) for i in ("teampod502aaaa", "perspod504bbbb")]
    targets.append(StopTarget("teampod999zzzz", "team"))  # not in the cache: refused, nothing sent
    result = await r.runner.bulk_stop(targets)
    assert (result.title, result.severity) == ("2 of 3 stopped", "warning"), result.message
    assert result.message.startswith("2 of 3 stopped") and "teampod999zzzz" in result.message
    assert len(r.graphql("podStop")) == 2


async def test_release_restores_a_held_experiment_to_approved_at_the_simulator_and_names_who_held_it(rig):
    from sagan_tui.core.actions.holds import blocked_by

    r = await rig(fixture=actions_fixture())
    assert (await r.runner.hold(502, "reaping wave: hold recovery")).ok
    await r.poll()
    assert blocked_by(r.cache, [502]) == {502: "h (the owner)"}
    refused = await r.runner.release(500)  # not blocked: nothing sent
    assert refused.refused and "not blocked" in refused.message
    result = await r.runner.release(502)
    assert result.ok, result.message
    assert r.sent("sagan")[-1].body == {"status": "approved", "note": "Released by the owner from sagan-tui."}
    await r.poll()
    assert r.cache.experiment(502).status == "approved"
    assert r.sim.state.experiments[502].status_at(r.sim.clock.now_t()) == "approved"
    assert [a.result for a in _audit(r, "release")] == ["ok", "refused"]
