"""Every dispatch path through the guard during a wave (approve, release, canary), against the
simulator over loopback: refused in the runner without the typed token, sent with it, untouched
outside a wave; and the pure rules (accounts aimed at, the token, an armed reason)."""

from __future__ import annotations

from sagan_tui.core.triage.guard import GuardVerdict, aimed_at, confirm_token, joined, plan_accounts

from .conftest import actions_fixture

PLAN_367 = "252bf40a-5512-45ea-a8f4-9db84af6112b"  # reaping-wave's pending plan, on team
ANSWERS = {"budget-cap-usd": "40", "preferred-account": "team"}


def _audit(rig, verb: str):
    return [a for a in rig.cache.actions() if a.action == verb]


async def _in_the_r5_wave(rig):
    r = await rig(scenario="reaping-wave", at=550)
    r.sim.clock.jump_to(600)
    await r.poll()  # the r5 pods are gone: a wave in both accounts, now
    r.since_now()
    return r


async def test_approving_a_plan_during_the_wave_needs_its_number_typed(rig):
    r = await _in_the_r5_wave(rig)
    [plan] = [a for a in r.cache.approvals() if a.id == PLAN_367]
    for typed in (None, "", "36", "192"):
        refused = await r.runner.decide(plan, "approve", ANSWERS, "go", confirm=typed)
        assert refused.refused and "dispatch guard" in refused.message and "type 367" in refused.message
    assert r.sent() == []  # approval is what makes Sagan dispatch: nothing reached it
    done = await r.runner.decide(plan, "approve", ANSWERS, "go", confirm="367")
    assert done.ok, done.message
    assert [q.path for q in r.sent("sagan")] == [f"/api/approval-requests/{PLAN_367}/decision"]
    assert [a.result for a in _audit(r, "approve")] == ["ok", "refused", "refused", "refused", "refused"]


async def test_rejecting_or_deferring_during_the_wave_dispatches_nothing_and_is_not_guarded(rig):
    r = await _in_the_r5_wave(rig)
    [plan] = [a for a in r.cache.approvals() if a.id == PLAN_367]
    deferred = await r.runner.decide(plan, "defer", {}, "later")
    assert deferred.ok, deferred.message


async def test_approving_outside_a_wave_is_one_decision_as_before(rig):
    r = await rig(fixture=actions_fixture())
    [approval] = r.cache.approvals()
    result = await r.runner.decide(approval, "approve", {"budget-cap-usd": "40", "owner-notes": "n/a"}, "fine")
    assert result.ok, result.message


async def test_releasing_during_the_wave_needs_the_number_and_several_need_their_count(rig):
    r = await _in_the_r5_wave(rig)
    for n in (363, 366):
        assert (await r.runner.hold(n, "test: held in the wave")).ok
    await r.poll()
    r.since_now()
    refused = await r.runner.release(363)
    assert refused.refused and "dispatch guard" in refused.message and "type 363" in refused.message
    bulk = await r.runner.bulk_release([363, 366], confirm="363")
    assert not bulk.ok and all(p.refused and "type 2 to confirm" in p.message for p in bulk.parts)
    assert r.sent() == []
    assert (await r.runner.release(363, confirm="363")).ok
    assert (await r.runner.bulk_release([366], confirm="366")).ok
    await r.poll()
    assert {r.cache.experiment(n).status for n in (363, 366)} == {"approved"}


async def test_a_bulk_release_with_the_count_typed_releases_them_all(rig):
    r = await _in_the_r5_wave(rig)
    for n in (363, 366):
        assert (await r.runner.hold(n, "test: held in the wave")).ok
    await r.poll()
    result = await r.runner.bulk_release([363, 366], confirm="2")
    assert result.ok, result.message


async def test_the_canary_during_the_wave_needs_its_number(rig):
    r = await _in_the_r5_wave(rig)
    assert (await r.runner.hold(363, "test: held in the wave")).ok
    await r.poll()
    r.since_now()
    refused = await r.runner.canary(363)
    assert refused.refused and "type 363" in refused.message and r.sent() == []
    assert (await r.runner.canary(363, confirm="363")).ok


async def test_a_lost_canary_arms_the_release_guard_even_without_a_wave(rig):
    r = await rig(fixture=actions_fixture())
    assert (await r.runner.hold(502, "test")).ok
    await r.poll()
    lost = "canary #500 was lost (podx): the wave still kills, nothing more is released"
    refused = await r.runner.release(502, armed=lost)
    assert refused.refused and "canary #500 was lost" in refused.message and "type 502" in refused.message
    assert (await r.runner.release(502, confirm="502", armed=lost)).ok


# --- the pure rules ------------------------------------------------------------------------------

def _needs(accounts=("team",), lost_two=()) -> GuardVerdict:
    class W:  # a wave is read only for its accounts here
        pass

    w = W()
    w.accounts = list(accounts)
    return GuardVerdict(True, ("a wave",), w, 1.0, "a wave", lost_two=lost_two, token="7")


def test_a_plan_aimed_at_another_account_than_the_waves_is_not_guarded():
    assert not aimed_at(_needs(("personal",)), frozenset({"team"})).needs_typed_confirmation
    assert aimed_at(_needs(("personal", "team")), frozenset({"team"})).needs_typed_confirmation
    assert aimed_at(_needs(("personal",)), None).needs_typed_confirmation  # no account info: every account
    # the experiment's own recovery loop guards it wherever the wave is
    assert aimed_at(_needs(("personal",), lost_two=("a", "b")), frozenset({"team"})).needs_typed_confirmation


def test_plan_accounts_read_the_pod_spec_then_the_experiment():
    assert plan_accounts({"substitution_policy": {"allowed_accounts": ["team", "personal"]}}, "team") \
        == frozenset({"team", "personal"})
    assert plan_accounts({"gpuType": "A100"}, "personal") == frozenset({"personal"})
    assert plan_accounts(None, None) is None


def test_the_token_is_the_number_or_the_count_and_an_armed_reason_demands_it():
    assert confirm_token([192]) == "192" and confirm_token([192, 363, 192]) == "2"
    quiet = GuardVerdict(False, (), None, 0.0, "")
    assert not joined([quiet], "5").needs_typed_confirmation
    armed = joined([quiet], "5", "canary #5 was lost")
    assert armed.needs_typed_confirmation and armed.summary == "canary #5 was lost" and armed.token == "5"
