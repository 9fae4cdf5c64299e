"""Forming clusters: two correlated losses are an early warning; unrelated ones and a single loss are not."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.triage import find_waves
from sagan_tui.core.triage.forming import active_forming, find_forming

from .conftest import R5, at, loss


def forming(losses):
    return find_forming(losses, find_waves(losses))


def test_two_losses_at_the_same_kill_time_are_forming_with_exactly_those_pods():
    pair = [loss("aaaaaaaaaaaa01", running="10:53:00", lost="10:54:00"),
            loss("bbbbbbbbbbbb02", account="personal", dc="EU-RO-1", running="10:53:06", lost="10:54:06")]
    (c,) = forming(pair)
    assert c.pod_ids == ("aaaaaaaaaaaa01", "bbbbbbbbbbbb02")
    assert c.headline == "WATCH: 2 pods lost 6 s apart, both ~60 s after RUNNING"
    assert c.to_json()["pod_ids"] == ["aaaaaaaaaaaa01", "bbbbbbbbbbbb02"]


def test_two_losses_on_one_machine_are_forming_whatever_their_run_times():
    pair = [loss("aaaaaaaaaaaa01", running="10:00:00", lost="10:54:00", host="h-17"),
            loss("bbbbbbbbbbbb02", running="10:30:00", lost="10:54:20", host="h-17")]
    (c,) = forming(pair)
    assert c.reason == "2 pods lost 20 s apart, both on machine h-17"


def test_decoys_an_unrelated_pair_and_a_single_loss_arm_nothing():
    unrelated = [loss("aaaaaaaaaaaa01", account="team", dc="US-KS-2", host="h-1", running="10:00:00", lost="10:54:00"),
                 loss("bbbbbbbbbbbb02", account="personal", dc="EU-RO-1", host="h-2", running="10:52:30",
                      lost="10:54:10")]
    assert forming(unrelated) == [] and find_waves(unrelated) == []
    single = [loss("cccccccccccc03", lost="10:54:00")]
    assert forming(single) == [] and find_waves(single) == []
    apart = [loss("aaaaaaaaaaaa01", running="10:53:00", lost="10:54:00"),
             loss("bbbbbbbbbbbb02", running="10:57:00", lost="10:58:00")]  # same kill time, 4 min apart
    # Issue 42: that is a slow burn's second loss (chains.py), forming; past the horizon it is not.
    assert [c.reason for c in forming(apart)] == ["2 pods lost 4 min apart, both ~60 s after RUNNING"]
    assert find_forming(apart, [], horizon_minutes=3) == []


def test_a_cluster_that_becomes_a_wave_leaves_forming():
    assert [c.pod_ids for c in forming(R5[:2])] == [("m1ayhl6nsbxw04", "v0c7bx292xqvg4")]
    assert forming(R5[:3]) == [] and len(find_waves(R5[:3])) == 1


def test_losses_that_joined_a_wave_are_not_forming_again():
    from .conftest import R4

    late_pair = [loss("q8r1zt5mk0pv3e", running="10:45:00", lost="10:46:01"),
                 loss("b4y7wn2gx6cj9s", running="10:45:15", lost="10:46:16")]
    assert forming(R4 + late_pair) == []


def test_active_forming_within_the_guard_window_only():
    (c,) = forming(R5[:2])
    assert active_forming([c], at("10:56:00")) == [c]
    assert active_forming([c], c.end + timedelta(minutes=15, seconds=1)) == []
    assert active_forming([c], at("10:50:00")) == []  # a replay before it happened
