"""The alerts' lifecycle, pure: one alert (one sequence id) per wave from forming to its end, growth
paged in place, hysteresis on confidence and on a wave that flickers out, withdrawal, the owner's
acknowledgement, blind sources and short runways, and a restart that does not page again."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from sagan_tui.core.pages.alerts import Alert, FormingFacts, Lifecycle, Seen, WaveFacts

T0 = datetime(2026, 5, 14, 10, 39, tzinfo=timezone.utc)
PODS = ("k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y", "q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s")


def wave(n: int = 3, cause: str = "platform-reaper", confidence: str = "medium", active: bool = True) -> WaveFacts:
    return WaveFacts(PODS[0], PODS[:n], ("team",), (192,), cause, confidence,
                     f"{cause.upper()}, {confidence}: hold re-dispatch", "10:39-10:41", 1.25, active)


def seen(i: int, *waves: WaveFacts, **kw) -> Seen:
    return Seen(T0 + timedelta(seconds=5 * i), tuple(waves), **kw)


def events(pages) -> list[tuple[str, str, str]]:
    return [(p.event, p.action, p.seq) for p in pages]


def test_a_forming_cluster_becomes_its_wave_under_one_sequence_id_then_grows_in_place():
    life = Lifecycle()
    first = life.step(seen(0, forming=(FormingFacts(PODS[0], PODS[:2], "2 pods lost 6 s apart"),)))
    assert events(first) == [("forming", "open", PODS[0])]
    assert events(life.step(seen(1, wave(3)))) == [("wave", "update", PODS[0])]
    assert life.step(seen(2, wave(3))) == []  # nothing new: nothing paged
    grew = life.step(seen(3, wave(5)))
    assert events(grew) == [("growth", "update", PODS[0])] and "now 5 pods" in grew[0].title
    assert all(p in grew[0].text for p in PODS) and "$1.25" in grew[0].text and "PLATFORM-REAPER" in grew[0].text


def test_a_confidence_rise_is_paged_only_once_it_has_held_for_two_polls():
    life = Lifecycle()
    life.step(seen(0, wave(confidence="low")))
    assert life.step(seen(1, wave(confidence="medium"))) == []  # one poll: may be noise
    assert life.step(seen(2, wave(confidence="low"))) == []  # and it was: quiet
    assert life.step(seen(3, wave(confidence="medium"))) == []
    rose = life.step(seen(4, wave(confidence="medium")))
    assert [p.title.split(": ", 1)[1] for p in rose] == ["confidence low -> medium"]
    assert life.step(seen(5, wave(confidence="low"))) == []  # a fall is never paged


def test_a_new_cause_is_paged_at_once():
    life = Lifecycle()
    life.step(seen(0, wave()))
    changed = life.step(seen(1, wave(cause="account-stop")))
    assert events(changed) == [("growth", "update", PODS[0])] and "cause platform-reaper -> account-stop" in changed[0].title


def test_a_wave_that_flickers_out_for_one_poll_is_not_resolved_and_not_paged_again():
    life = Lifecycle()
    life.step(seen(0, wave()))
    assert life.step(seen(1)) == []  # absent once: a flapping source, not an end
    assert life.step(seen(2, wave())) == []  # back, unchanged: nothing to say
    life.step(seen(3))
    gone = life.step(seen(4))
    assert events(gone) == [("resolved", "resolve", PODS[0])]


def test_a_wave_whose_losses_are_disproved_is_withdrawn_naming_its_first_page():
    life = Lifecycle()
    life.step(seen(0, wave()))
    out = life.step(seen(1, withdrawn=frozenset(PODS[:1])))
    assert events(out) == [("withdrawn", "withdraw", PODS[0])]
    assert out[0].title.startswith("withdrawn: false alarm (WAVE 10:39-10:41")


def test_an_acknowledged_wave_is_resolved_and_paged_again_only_for_a_new_burst_or_cause():
    life = Lifecycle()
    life.step(seen(0, wave(3)))
    acks = {PODS[0]: (3, "platform-reaper")}
    assert events(life.step(seen(1, wave(3), acks=acks))) == [("resolved", "resolve", PODS[0])]
    assert life.step(seen(2, wave(3, confidence="high"), acks=acks)) == []
    assert life.step(seen(3, wave(3, confidence="high"), acks=acks)) == []  # a rise alone: still acknowledged
    again = life.step(seen(4, wave(4), acks=acks))
    assert events(again) == [("growth", "open", PODS[0])] and "now 4 pods" in again[0].title


def test_guard_over_resolves_and_old_waves_at_the_first_start_are_not_news():
    life = Lifecycle()
    assert life.step(seen(0, replace(wave(), active=False))) == []  # history in the cache
    fresh = Lifecycle()
    fresh.step(seen(0, wave()))
    assert events(fresh.step(seen(1, replace(wave(), active=False)))) == [("resolved", "resolve", PODS[0])]


def test_blind_and_runway_open_once_and_resolve_when_they_clear():
    life = Lifecycle()
    at = T0.replace(hour=3, minute=12)
    out = life.step(seen(0, blind={"team": at}, low={"personal": "LOW 5 h left"}))
    assert sorted(p.title for p in out) == ["runway of personal: LOW 5 h left", "watch cannot see team since 03:12"]
    assert life.step(seen(1, blind={"team": at}, low={"personal": "LOW 4 h left"})) == []
    out = life.step(seen(2, blind={"team": at}, low={"personal": "OUT: $0, RunPod stops its pods"}))
    assert events(out) == [("runway", "update", "runway-personal")]
    out = life.step(seen(3))
    assert sorted(events(out)) == [("resolved", "resolve", "blind-team"), ("resolved", "resolve", "runway-personal")]


def test_a_restarted_watch_with_the_persisted_alerts_does_not_page_again():
    life = Lifecycle()
    life.step(seen(0, wave(3)))
    kept = {a.key: a.to_json() for a in life.take_changed()}
    again = Lifecycle({k: Alert.from_json(v) for k, v in kept.items()})
    assert again.step(seen(1, wave(3))) == []
    assert events(again.step(seen(2, wave(4)))) == [("growth", "update", PODS[0])]


def test_containment_is_recorded_once_and_paged_as_an_update():
    life = Lifecycle()
    life.step(seen(0, wave()))
    page = life.contained(PODS[0], "held #192, stopped 1 starting pod", wave())
    assert events([page]) == [("contained", "update", PODS[0])] and "contained: held #192" in page.text
    assert life.contained(PODS[0], "again", wave()) is None and life.is_contained(PODS[0])
