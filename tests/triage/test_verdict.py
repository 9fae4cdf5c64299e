"""The verdict, pure: DOMAIN.md's waves, missing and bad evidence, and the properties of its weighing."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from sagan_tui.core.models import Loss, PodSighting, SourceHealth
from sagan_tui.core.triage import TriageContext, Wave, find_waves
from sagan_tui.core.triage.verdict import LEVELS, headline, verdict
from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of

from .conftest import CONTROL, HEALTH, R4, R5, at

PERSONAL_CONTROL = PodSighting(pod_id="f6n3kd9sa1qz4w", account="personal", experiment=361,
                               first_seen_at=at("10:10:00"), running_at=at("10:10:38"), last_seen_at=at("10:57:10"),
                               desired_status="RUNNING")
BOTH = ("team", "personal")


def test_r5_with_its_controls_is_a_platform_reaper_with_high_confidence():
    ctx = TriageContext(sightings=[CONTROL, PERSONAL_CONTROL], health=HEALTH, accounts_polled=BOTH)
    v = verdict(Wave.of(R5), ctx)
    assert (v.cause, v.confidence) == ("platform-reaper", "high")
    assert v.headline == "PLATFORM REAPER, high: hold re-dispatch, ticket to RunPod with 5 pod ids"
    assert [f.kind for f in v.for_][:2] == ["gaps", "survivors"] and not v.against
    assert v.to_json()["for"][0].startswith("killed 60 s after RUNNING")


def test_r4_on_team_alone_with_a_team_survivor_is_a_platform_reaper_not_an_account_stop():
    (w,) = find_waves(R4, context=TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=BOTH))
    assert verdict_of(w).cause == "platform-reaper"
    assert headline(w).startswith("PLATFORM REAPER, ")
    # the finding that once led ("only account team: check that account") no longer comes first
    assert diagnosis_of(w)[0].kind == "gaps" and diagnosis_of(w)[1].kind == "survivors"


def test_an_account_under_balance_outweighs_clustered_gaps():
    broke = {**HEALTH, "team": SourceHealth(source="team", state="ok", last_success=at("10:55:00"), balance=0.0,
                                            under_balance=True)}
    (w,) = find_waves(R4, context=TriageContext(health=broke, accounts_polled=BOTH))
    v = verdict_of(w)
    assert v.cause == "account-stop"
    assert v.broke and v.broke[0][0] == "team" and "top up team" in v.next_step


def test_a_rest_v2_account_says_which_evidence_it_lacks():
    rest = {a: SourceHealth(source=a, state="ok", last_success=at("10:57:10"), transport="rest-v2") for a in BOTH}
    v = verdict(Wave.of(R5), TriageContext(sightings=[CONTROL], health=rest, accounts_polled=BOTH))
    said = " ".join(v.missing)
    assert "balance of team not readable: REST v2's balance route did not answer it" in said
    assert "REST v2, which names no machine" in said and "data centre stands in" in said
    assert v.cause == "platform-reaper"  # the gaps and the survivor still tell
    assert any(x.startswith("missing: ") for x in v.to_json()["against"])


def test_bad_or_missing_evidence_gives_unclear_or_low_never_an_exception():
    odd = [Loss(pod_id=f"oddpod{i:04d}", account=f"nobody{i}", lost_at=at("10:54:54") + timedelta(seconds=i),
                host="", datacenter=None, running_at=None) for i in range(4)]
    health = {"nobody0": SourceHealth(source="nobody0", balance=None, under_balance=None, spend_per_hr=5.0,
                                      spend_limit=0.0)}
    weird = [PodSighting(pod_id="weirdpod01", account="nobody1"), PodSighting(pod_id="weirdpod02", account="x",
                                                                              running_at=at("11:00:00"))]
    for ctx in (None, TriageContext(), TriageContext(sightings=weird, health=health, balances={"nobody0": [
            (at("10:00:00"), None, None), (at("10:50:00"), float("nan"), None)]})):
        v = verdict(Wave.of(odd), ctx)
        assert v.cause == "unclear" or v.confidence == "low"
        assert v.missing and v.to_json()["next_step"]


def test_a_balance_that_ran_out_is_dated_from_the_history():
    steps = [(at("10:00:00"), 2.4, False), (at("10:54:30"), 0.0, True)]
    ctx = TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=BOTH, balances={"personal": steps})
    v = verdict(Wave.of([x for x in R5 if x.account == "personal"] + [R5[0].model_copy(update={
        "pod_id": "p3x9q0w2e4r6t8", "account": "personal", "lost_at": at("10:54:56")})]), ctx)
    assert v.cause == "account-stop" and "personal ran out at 10:54:30 UTC (under balance ($0.00))" in v.for_[0].statement


# --- properties ----------------------------------------------------------------------------

ACCOUNTS = ("team", "personal")
HOSTS = ("h1", "h2", None)
DCS = ("US-KS-2", "EU-RO-1", None)


@st.composite
def scenes(draw):
    n = draw(st.integers(3, 6))
    losses = []
    for i in range(n):
        gap = draw(st.sampled_from((60, 61, 62, 90, 200, 600)))
        lost = at("10:54:50") + timedelta(seconds=draw(st.integers(0, 40)))
        losses.append(Loss(pod_id=f"lostpod{i:03d}", account=draw(st.sampled_from(ACCOUNTS)), experiment=100 + i,
                           running_at=lost - timedelta(seconds=gap), last_seen_at=lost - timedelta(seconds=5),
                           lost_at=lost, host=draw(st.sampled_from(HOSTS)), datacenter=draw(st.sampled_from(DCS))))
    sightings = [PodSighting(pod_id=f"ctrlpod{i:03d}", account=draw(st.sampled_from(ACCOUNTS)),
                             running_at=at("10:00:00"), last_seen_at=at("10:58:00"), desired_status="RUNNING",
                             host=draw(st.sampled_from(HOSTS)), datacenter=draw(st.sampled_from(DCS)))
                 for i in range(draw(st.integers(0, 3)))]
    health = {a: SourceHealth(source=a, state="ok", last_success=at("10:58:00"),
                              balance=draw(st.sampled_from((0.0, 3.0, 400.0, None))),
                              under_balance=draw(st.sampled_from((True, False, None))))
              for a in ACCOUNTS if draw(st.booleans())}
    return losses, sightings, health


def _rank(v) -> int:
    return LEVELS.index(v.confidence) + 1 if v.cause == "account-stop" else 0


@settings(max_examples=150, deadline=None)
@given(scenes(), st.randoms(use_true_random=False))
def test_the_verdict_does_not_depend_on_the_order_of_the_losses(scene, rnd: random.Random):
    losses, sightings, health = scene
    a = verdict(Wave.of(losses), TriageContext(sightings=sightings, health=health))
    shuffled, seen = losses[:], sightings[:]
    rnd.shuffle(shuffled)
    rnd.shuffle(seen)
    b = verdict(Wave.of(shuffled), TriageContext(sightings=seen, health=health))
    assert a == b


@settings(max_examples=150, deadline=None)
@given(scenes(), st.sampled_from(HOSTS), st.sampled_from(DCS))
def test_a_survivor_in_the_hit_account_never_raises_account_stop(scene, host, dc):
    losses, sightings, health = scene
    wave = Wave.of(losses)
    survivor = PodSighting(pod_id="survivor01", account=wave.accounts[0], running_at=at("10:00:00"),
                           last_seen_at=at("10:58:00"), desired_status="RUNNING", host=host, datacenter=dc)
    before = verdict(wave, TriageContext(sightings=sightings, health=health))
    after = verdict(wave, TriageContext(sightings=[*sightings, survivor], health=health))
    # Account-stop's own score never rises. The verdict may still turn to it when the survivor
    # speaks against another cause more (a pod that lived on the lost pods' one machine is
    # against host-failure: hypothesis found both accounts at $0 doing that, read account-stop,
    # low); so the rank is held only where account-stop already led.
    assert dict(after.scores)["account-stop"] <= dict(before.scores)["account-stop"]
    if before.cause == "account-stop":
        assert _rank(after) <= _rank(before)


@settings(max_examples=150, deadline=None)
@given(scenes())
def test_hiding_the_balance_never_raises_account_stop(scene):
    losses, sightings, health = scene
    wave = Wave.of(losses)
    hidden = {a: SourceHealth(source=a, state="ok", last_success=h.last_success) for a, h in health.items()}
    shown = verdict(wave, TriageContext(sightings=sightings, health=health))
    for ctx in (TriageContext(sightings=sightings, health=hidden), TriageContext(sightings=sightings)):
        assert _rank(verdict(wave, ctx)) <= _rank(shown)


def test_a_balance_read_long_after_the_wave_says_nothing_about_it():
    later = {a: SourceHealth(source=a, state="ok", last_success=at("13:00:00"), balance=0.0, under_balance=True)
             for a in BOTH}
    v = verdict(Wave.of(R5), TriageContext(sightings=[CONTROL], health=later, accounts_polled=BOTH))
    assert v.cause == "platform-reaper" and not v.broke
    assert any("too far from the wave to judge it" in m for m in v.missing)


def test_evidence_moved_when_a_balance_or_its_flag_changes_not_when_only_a_poll_time_does():
    from dataclasses import replace

    from sagan_tui.core.triage.evidence import evidence_moved

    later = {a: replace(h, last_success=at("10:58:00")) for a, h in HEALTH.items()}
    assert not evidence_moved(HEALTH, later)
    broke = {**later, "personal": replace(later["personal"], balance=0.0, under_balance=True)}
    assert evidence_moved(later, broke) and evidence_moved({}, HEALTH)


def test_a_pod_the_latest_poll_saw_running_is_never_called_stopped():
    """A team pod ran beside R4 and was last seen RUNNING inside the window (its next sighting not
    yet in): it did not stop, so "every running pod of team went ... stopped too" is not said."""
    from sagan_tui.core.triage.verdict import _account_points

    listed = PodSighting(pod_id="s7illrunn1ng01", account="team", experiment=370, first_seen_at=at("10:20:00"),
                         running_at=at("10:20:41"), last_seen_at=at("10:42:00"), desired_status="RUNNING")
    stopped = replace(listed, pod_id="st0pped0000001", gone=True)

    def weighed(sightings):
        points, missing = _account_points(Wave.of(R4), TriageContext(sightings=sightings, health=HEALTH,
                                                                     accounts_polled=BOTH))
        return [p.finding.statement for p in points], missing

    said, missing = weighed([listed])
    assert not any("stopped too" in s for s in said)
    assert any("still listed RUNNING" in m and "s7illrunn1ng01" in m for m in missing)
    said, _ = weighed([stopped])
    assert any("every running pod of team went" in s and "stopped too" in s for s in said)
