"""The Timeline's columns, read in C: the same floats as each datetime's own timestamp(), naive ones as UTC."""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui.core.models import Loss
from sagan_tui.core.triage import Timeline
from sagan_tui.core.triage.timeline import posix_seconds, seconds_since

UTC = timezone.utc
AWARE = [datetime(2026, 5, 14, 10, 54, 55, 123457, tzinfo=UTC), datetime(1970, 1, 1, tzinfo=UTC),
         datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
         datetime(2026, 5, 14, 12, 54, 55, 7, tzinfo=timezone(timedelta(hours=2)))]


@pytest.fixture
def not_utc_here(monkeypatch):
    """The process's local time is New York's: a naive datetime's own timestamp() would be 4-5 h off."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def bits(values) -> list[str]:
    return [float(v).hex() for v in values]


def test_posix_seconds_are_each_aware_datetimes_own_timestamp_bit_for_bit():
    assert bits(posix_seconds(AWARE)) == bits(d.timestamp() for d in AWARE)


def test_naive_datetimes_are_read_as_utc_whatever_the_local_time(not_utc_here):
    naive = [d.astimezone(UTC).replace(tzinfo=None) for d in AWARE[:3]]
    assert naive[0].timestamp() != AWARE[0].timestamp()  # the trap: timestamp() reads naive as local
    assert bits(posix_seconds(naive)) == bits(posix_seconds(AWARE[:3]))
    mixed = [AWARE[0], naive[1], AWARE[2]]  # one naive among aware ones
    assert bits(posix_seconds(mixed)) == bits(posix_seconds(AWARE[:3]))


def test_posix_seconds_read_through_a_getter_and_of_nothing():
    losses = [Loss(pod_id=f"p{i:013d}", account="team", lost_at=d) for i, d in enumerate(AWARE)]
    assert bits(posix_seconds(losses, lambda x: x.lost_at)) == bits(d.timestamp() for d in AWARE)
    assert list(posix_seconds([])) == []


def test_seconds_since_subtracts_the_floats_and_gives_nan_for_an_unknown_time(not_utc_here):
    lost = [datetime(2026, 5, 14, 10, 54, 55, 123457, tzinfo=UTC)] * 4
    running = [datetime(2026, 5, 14, 10, 53, 54, 999999, tzinfo=UTC), None,
               datetime(2026, 5, 14, 10, 53, 54, 999999),  # naive: UTC
               datetime(2026, 5, 14, 10, 55, 0, tzinfo=UTC)]  # after the loss: a negative gap
    times = posix_seconds(lost)
    got = list(seconds_since(times, running))
    want = lost[0].timestamp() - running[0].timestamp()  # the floats subtracted, not the exact interval
    assert bits([got[0], got[2]]) == bits([want, want]) and math.isnan(got[1]) and got[3] < 0
    assert bits(seconds_since(times[:1], running[:1])) == bits([want])  # no None: the path in C
    assert all(map(math.isnan, seconds_since(times, [None] * 4)))
    assert list(seconds_since(posix_seconds([]), [])) == []


def test_the_timeline_sorts_ties_in_input_order_and_reads_naive_times_as_utc(not_utc_here):
    t0 = datetime(2026, 5, 14, 10, 54, 55, tzinfo=UTC)
    specs = [("late", 30, 60), ("tie_a", 0, None), ("early", -30, 61), ("tie_b", 0, 59)]

    def losses(naive: bool) -> list[Loss]:
        def as_given(d):
            return d.replace(tzinfo=None) if naive else d
        return [Loss.model_construct(pod_id=p, account="team", lost_at=as_given(t0 + timedelta(seconds=s)),
                                     running_at=None if g is None else as_given(t0 + timedelta(seconds=s - g)))
                for p, s, g in specs]

    aware, naive = Timeline(losses(False)), Timeline(losses(True))
    for tl in (aware, naive):
        assert [x.pod_id for x in tl.sorted_losses()] == ["early", "tie_a", "tie_b", "late"]
        assert tl.sorted_times == (t0.timestamp() - 30, t0.timestamp(), t0.timestamp(), t0.timestamp() + 30)
        gaps = tl.sorted_gaps()
        assert gaps[0] == 61 and math.isnan(gaps[1]) and gaps[2:] == (59, 60)
    assert Timeline(reversed(losses(False))).sorted_losses()[1].pod_id == "tie_b"  # input order among ties


def test_an_empty_timeline_and_one_of_a_single_loss():
    tl = Timeline([])
    assert len(tl) == 0 and tl.sorted_times == () and tl.sorted_gaps() == () and list(tl.order) == []
    assert tl.span(0.0, 1e12) == (0, 0) and tl.sorted_losses() == [] and not tl.any_polled()
    one = Loss(pod_id="onlyone0000001", account="team", lost_at=AWARE[0], last_seen_at=AWARE[0])
    tl = Timeline([one])
    assert tl.sorted_times == (AWARE[0].timestamp(),) and tl.sorted_losses() == [one] and tl.any_polled()
    assert math.isnan(tl.sorted_gaps()[0]) and tl.in_order(["x"]) == ("x",)


@pytest.mark.parametrize("positions", [[], [2], [2, 0], [1, 1, 3, 0]])
def test_gather_reads_the_positions_in_order(positions):
    from array import array

    from sagan_tui.core.triage.timeline import gather

    source = ["a", "b", "c", "d"]
    assert gather(source, positions) == [source[i] for i in positions]
    assert gather(source, array("q", positions)) == [source[i] for i in positions]
