"""The hysteresis of a wave's announcements (core/triage/hysteresis.py), poll by poll."""

from __future__ import annotations

from dataclasses import replace

from sagan_tui.core.triage.hysteresis import Heard, Look, news

BASE = Look(5, ("personal", "team"), "platform-reaper", "high", 1)


def polls(looks, acked=None, start=BASE):
    """What each poll announces, feeding the rule its own memory as the watch does."""
    heard, said = Heard(start), []
    for look in looks:
        changed, heard = news(heard, look, acked)
        said.append(changed)
    return said


def conf(c: str, **kw) -> Look:
    return replace(BASE, confidence=c, **kw)


def test_high_medium_high_is_never_news():
    assert polls([conf("medium"), conf("high"), conf("high"), conf("medium"), conf("high"), conf("high")]) \
        == [[]] * 6


def test_a_rise_is_news_only_once_it_held_for_two_polls():
    start = conf("low")
    assert polls([conf("medium"), conf("low"), conf("medium"), conf("medium"), conf("medium")], start=start) \
        == [[], [], [], ["confidence low -> medium"], []]


def test_a_new_cause_or_more_pods_is_news_at_once():
    assert polls([replace(BASE, cause="account-stop", confidence="medium")]) \
        == [["cause platform-reaper -> account-stop"]]
    assert polls([replace(BASE, pods=8, accounts=("personal", "team", "x"))]) == [["5 -> 8 pods", "now in x too"]]


def test_an_acknowledged_wave_speaks_only_for_a_new_burst_or_a_new_cause():
    acked = conf("high")
    quiet = [conf("medium"), conf("high"), conf("high"), replace(BASE, pods=6)]  # a loss in the same burst
    assert polls(quiet, acked=acked) == [[]] * 4
    assert polls([replace(BASE, pods=8, bursts=2)], acked=acked) == [["5 -> 8 pods"]]
    assert polls([replace(BASE, cause="host-failure")], acked=acked) == [["cause platform-reaper -> host-failure"]]


def test_an_acknowledgement_read_back_without_bursts_counts_pods():
    acked = replace(BASE, bursts=0)
    assert polls([replace(BASE, pods=6)], acked=acked) == [["5 -> 6 pods"]]


def test_growth_announces_the_verdict_as_it_stands_and_its_confidence_is_not_news_again():
    start = conf("low")
    grown = conf("medium", pods=8)
    assert polls([grown, grown, grown], start=start) == [["5 -> 8 pods"], [], []]
