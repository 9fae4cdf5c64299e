"""What the owner is told as an incident lives: growth once per change, acknowledgements, forming once,
overrides of holds, and what happened while away. Driven on a held, stepped clock."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.session.incident import IncidentWatch
from sagan_tui.core.triage import find_waves
from sagan_tui.core.triage.forming import find_forming

from .conftest import R4, R5, at, loss

NOW = at("10:56:00")


def test_a_growing_wave_is_announced_again_once_per_change_with_what_changed():
    w = IncidentWatch()
    (r4,) = find_waves(R4)
    w.seen([r4])
    assert w.growth([r4], NOW) == []
    (grown,) = find_waves(R4 + R5)
    (line,) = w.growth([grown], NOW)
    assert line.startswith("Wave 10:41-10:54 UTC grew: 3 -> 8 pods; now in personal too")
    assert w.growth([grown], NOW) == []  # once per change


def test_an_acknowledged_wave_is_quiet_until_a_new_burst():
    w = IncidentWatch()
    (r4,) = find_waves(R4)
    w.seen([r4])
    w.acknowledge(r4)
    assert w.is_acknowledged(r4)
    same = find_waves(R4 + [loss("dup0000000001", running="10:42:39", lost="10:43:40")])[0]
    assert len(same.losses) == 4 and len(same.bursts) == 1
    assert w.growth([same], NOW) == [] and w.is_acknowledged(same)  # one more pod in the same burst: quiet
    (grown,) = find_waves(R4 + R5)
    assert len(grown.bursts) == 2 and w.growth([grown], NOW) != []  # the second burst: news again
    w.acknowledge(grown)
    assert w.growth([grown], NOW) == [] and w.is_acknowledged(grown)


def test_an_acknowledged_wave_that_shrinks_and_comes_back_is_not_news_but_an_unacknowledged_one_is():
    """A loss withdrawn then seen again (RunPod listed the pod once more, then not): the wave
    falls back to 3 pods and returns to 4. Acknowledged at 4, that is nothing new; not
    acknowledged, it was announced at 4 and is announced again on coming back."""
    four = find_waves(R4 + [loss("dup0000000001", running="10:42:39", lost="10:43:40")])[0]
    (three,) = find_waves(R4)
    acked, plain = IncidentWatch(), IncidentWatch()
    for w in (acked, plain):
        w.seen([three])
        assert w.growth([four], NOW) != []
    acked.acknowledge(four)
    assert acked.growth([three], NOW) == [] and plain.growth([three], NOW) == []  # shrinking is no news
    assert acked.growth([four], NOW) == [] and acked.is_acknowledged(four)
    (line,) = plain.growth([four], NOW)
    assert "3 -> 4 pods" in line


def test_a_forming_cluster_is_notified_once():
    w = IncidentWatch()
    clusters = find_forming(R5[:2], [])
    assert w.forming_news(clusters) == ["WATCH: 2 pods lost 1 s apart, both ~60 s after RUNNING"]
    assert w.forming_news(clusters) == []


def test_a_hold_that_does_not_hold_warns_once_on_its_row():
    w = IncidentWatch()
    w.held(192, at("06:05:20"))
    line = "hold on #192 overridden: queued -> running at 06:05:37; h stops its pods and holds again"
    assert w.overrides({192: ("queued", "running", at("06:05:37"))}, {}, at("06:05:40")) == [line]
    assert w.warnings[192] == line
    assert w.overrides({192: ("queued", "running", at("06:05:37"))}, {}, at("06:05:50")) == []
    w.held(363, at("06:05:20"))
    assert w.overrides({}, {363: [("newpod00000001", at("06:06:00"))]}, at("06:06:05")) == [
        "hold on #363 overridden: new pod newpod00000001 at 06:06:00; h stops its pods and holds again"]
    w.held(366, at("06:05:20"))
    assert w.overrides({366: ("approved", "blocked", at("06:05:20"))}, {}, at("06:06:05")) == []


def test_since_you_last_looked_counts_what_happened_during_an_absence_and_a_key_clears_it():
    w = IncidentWatch()
    t = at("06:00:00")
    w.key_pressed(t)
    w.losses_seen(2, t + timedelta(minutes=3))
    assert w.since_you_looked(t + timedelta(minutes=5)) == ""  # not away yet
    w.happened.append((t + timedelta(minutes=8), "wave"))
    assert w.since_you_looked(t + timedelta(minutes=12)) == "since you last looked (06:00:00): 2 new losses, 1 wave"
    w.key_pressed(t + timedelta(minutes=12))  # back: they have looked
    assert w.since_you_looked(t + timedelta(minutes=13)) == ""
    # away again: only what happened after that key counts
    w.losses_seen(1, t + timedelta(minutes=14))
    assert w.since_you_looked(t + timedelta(minutes=23)) == "since you last looked (06:12:00): 1 new loss"


def test_an_owner_who_never_pressed_a_key_is_away_from_the_panels_opening():
    w = IncidentWatch()
    t = at("06:00:00")
    w.opened(t)
    w.losses_seen(3, t + timedelta(minutes=1))
    assert w.since_you_looked(t + timedelta(minutes=9)) == ""
    assert w.since_you_looked(t + timedelta(minutes=10)) == "since you last looked (06:00:00): 3 new losses"
    w.opened(t + timedelta(minutes=11))  # only the first opening counts as a look
    assert w.last_key == t
