"""reconcile on its own: when a pod read again is the same pod, and when it restarted."""

from datetime import datetime, timedelta, timezone

from sagan_tui.core.models import RunPodPod
from sagan_tui.core.sync.detect import ListFacts, Seen, pod_key, reconcile

T0 = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)
STARTED = T0 - timedelta(hours=1)


def _pod(uptime: int) -> RunPodPod:
    return RunPodPod(id="podaaa000001", account="team", desired_status="RUNNING", uptime_seconds=uptime,
                     has_runtime=True)


def _seen(pod: RunPodPod) -> dict[str, Seen]:
    return {pod.id: Seen(pod_key(pod), pod.uptime_seconds, STARTED, STARTED, T0)}


def test_a_pod_read_by_a_slow_poll_is_the_same_pod_not_a_restart():
    # The reply took 8 s to arrive: its uptime was written 8 s before `now`, so now - uptime
    # reads the start 8 s late. That is the poll's latency, not a new start.
    now = T0 + timedelta(seconds=60)
    pod = _pod(uptime=3600 + 60 - 8)
    rec = reconcile("team", [pod], _seen(_pod(3600)), now, set(), set(), took=timedelta(seconds=9))
    assert rec.changed == [] and rec.upserts == [] and [t[0] for t in rec.touched] == [pod.id]
    assert rec.live[pod.id].running_at == STARTED


def test_a_start_that_moved_more_than_the_polls_own_latency_is_a_restart():
    now = T0 + timedelta(seconds=60)
    pod = _pod(uptime=30)  # restarted in place half a minute ago
    rec = reconcile("team", [pod], _seen(_pod(3600)), now, set(), set(), took=timedelta(seconds=9))
    assert rec.changed == [pod.id] and rec.upserts[0].running_at == now - timedelta(seconds=30)
    # And a fast poll still tells a start 8 s later from the same one.
    rec = reconcile("team", [_pod(3600 + 60 - 8)], _seen(_pod(3600)), now, set(), set())
    assert rec.changed == [pod.id]


def test_a_pod_absent_from_one_complete_list_is_missing_and_from_two_is_lost():
    pod = _pod(3600)
    prev = _seen(pod)
    now = T0 + timedelta(seconds=2)
    rec = reconcile("team", [], prev, now, set(), set())
    assert rec.missing == [pod.id] and rec.gone == []
    [suspect] = rec.losses
    assert suspect.state == "missing" and suspect.lost_at == now
    later = now + timedelta(seconds=2)
    rec = reconcile("team", [], rec.live, later, set(), set())
    [loss] = rec.losses
    assert loss.state == "confirmed" and loss.lost_at == now and loss.confirmed_by == "missing from two lists"
    assert rec.gone == [pod.id] and rec.upserts[0].gone_at == now


def test_an_incomplete_list_or_an_unreadable_record_makes_no_pod_missing():
    pod = _pod(3600)
    now = T0 + timedelta(seconds=2)
    for facts in (ListFacts(incomplete="page 2 truncated"), ListFacts(unreadable=frozenset({pod.id})),
                  ListFacts(also_listed=frozenset({pod.id}))):
        rec = reconcile("team", [], _seen(pod), now, set(), set(), facts)
        assert rec.missing == [] and rec.losses == [] and pod.id in rec.live, facts


def test_a_record_naming_no_pod_stops_the_list_confirming_a_missing_pod():
    pod = _pod(3600)
    missing = {pod.id: _seen(pod)[pod.id]._replace(missing_since=T0)}
    rec = reconcile("team", [], missing, T0 + timedelta(seconds=2), set(), set(), ListFacts(unnamed=1))
    assert rec.losses == [] and rec.still_missing == [pod.id]


def test_a_pod_last_seen_in_a_status_the_panel_does_not_know_is_missing_when_it_vanishes():
    pod = RunPodPod(id="podaaa000001", account="team", desired_status="MIGRATING")
    rec = reconcile("team", [], {pod.id: Seen(pod_key(pod), None, STARTED, None, T0)}, T0 + timedelta(seconds=2),
                    set(), set())
    assert rec.missing == [pod.id] and rec.losses[0].reason == "vanished while MIGRATING"


def test_a_missing_pod_listed_again_continuing_is_withdrawn_and_one_restarted_is_lost():
    pod = _pod(3600)
    missing = {pod.id: _seen(pod)[pod.id]._replace(missing_since=T0 + timedelta(seconds=2))}
    now = T0 + timedelta(seconds=4)
    rec = reconcile("team", [_pod(3604)], missing, now, set(), set())
    assert rec.withdrawn == [(pod.id, "listed RUNNING again at 10:00:04")] and rec.losses == []
    assert rec.upserts[0].missing_since is None
    rec = reconcile("team", [_pod(1)], missing, now, set(), set())
    [loss] = rec.losses
    assert rec.withdrawn == [] and loss.state == "confirmed" and loss.lost_at == T0 + timedelta(seconds=2)


def test_a_reply_that_drops_most_live_pods_at_once_is_doubtful():
    pods = [RunPodPod(id=f"podaaa00000{i}", account="team", desired_status="RUNNING") for i in range(4)]
    prev = {p.id: Seen(pod_key(p), None, STARTED, STARTED, T0) for p in pods}
    rec = reconcile("team", pods[:1], prev, T0 + timedelta(seconds=2), set(), set())
    assert rec.doubtful == "3 of 4 live pods unlisted at once" and len(rec.missing) == 3
    assert all(x.state == "missing" for x in rec.losses)


def test_an_uptime_past_any_pods_life_makes_the_record_unreadable_not_the_poll_fail():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="uptime"):
        RunPodPod(id="podaaa000001", uptime_seconds=10**12)


def test_direct_reads_never_spend_what_the_accounts_own_lists_need():
    from sagan_tui.core.sources.rest_shapes import RateWindow
    from sagan_tui.core.sync.poller import read_allowance

    minute = lambda left, reset: RateWindow("minute", left, reset)  # noqa: E731
    assert read_allowance([], 2.0) == 12  # no rate limit said: the bound alone
    assert read_allowance([minute(59, 60)], 2.0) == 12  # 31 lists to go, 28 spare
    assert read_allowance([minute(36, 40)], 2.0) == 12  # 21 lists to go: 15 spare, the bound caps it
    assert read_allowance([minute(25, 40)], 2.0) == 4  # 21 lists to go, 4 spare
    assert read_allowance([minute(20, 40)], 2.0) == 4  # lists will run out anyway: a quarter, less one
    assert read_allowance([minute(3, 40)], 2.0) == 0
    assert read_allowance([minute(59, 60), RateWindow("hour", 0, 900)], 2.0) == 0


def _fresh(pod_id: str, **fields) -> RunPodPod:
    return RunPodPod(**{"id": pod_id, "account": "team", "desired_status": "RUNNING", "name": f"exp1-{pod_id}",
                        "gpu": "A100", "datacenter": "US-KS-2", "uptime_seconds": 600, "has_runtime": True,
                        **fields})


def test_a_pod_listed_once_and_gone_is_a_phantom_unless_sagan_knows_it():
    once, known = _fresh("podonce00001"), _fresh("podknown0001")
    first = reconcile("team", [once, known], {}, T0, set(), set())
    assert first.doubtful is None and all(c.counted_at == T0 for c in first.upserts)
    gone = reconcile("team", [], first.live, T0 + timedelta(seconds=5), set(), set(),
                     established={known.id})
    assert gone.phantoms == [once.id] and gone.missing == [known.id]
    assert [x.pod_id for x in gone.losses] == [known.id]
    [row] = [c for c in gone.upserts if c.pod_id == once.id]
    assert row.gone_reason == "listed once and never again"


def test_a_pod_listed_in_two_complete_lists_is_established():
    pod = _fresh("podtwice0001")
    first = reconcile("team", [pod], {}, T0, set(), set())
    second = reconcile("team", [pod.model_copy(update={"uptime_seconds": 605})], first.live,
                       T0 + timedelta(seconds=5), set(), set())
    assert second.live[pod.id].established and second.upserts == []  # derived: no row written for it
    gone = reconcile("team", [], second.live, T0 + timedelta(seconds=10), set(), set())
    assert gone.missing == [pod.id] and gone.phantoms == []


def test_new_pods_twinning_listed_ones_or_outnumbering_them_make_a_doubtful_list_that_establishes_nothing():
    pods = [_fresh(f"podreal0000{i}", experiment=1) for i in range(4)]
    first = reconcile("team", pods, {}, T0, set(), set())
    # A copied record: another id, the same start (its uptime grown with the original's).
    twin = pods[0].model_copy(update={"id": "tw1n00000001", "experiment": None, "uptime_seconds": 605})
    later = [p.model_copy(update={"uptime_seconds": 605}) for p in pods]
    lied = reconcile("team", [*later, twin], first.live, T0 + timedelta(seconds=5), set(), set())
    assert lied.doubtful == "1 new pod twinning a listed pod under another id"
    assert lied.live[twin.id].counted_at is None
    # A sibling dispatch shares the name, but starts on its own: no twin.
    sibling = twin.model_copy(update={"id": "s1bling000001", "uptime_seconds": 20})
    assert reconcile("team", [*later, sibling], first.live, T0 + timedelta(seconds=5), set(), set()).doubtful is None
    flood = [_fresh(f"f4ke{i:08d}", name=f"n{i}") for i in range(5)]
    lied = reconcile("team", [*pods, *flood], first.live, T0 + timedelta(seconds=5), set(), set())
    assert lied.doubtful == "5 new pods beside 4 listed before"
    later = reconcile("team", [*pods, *flood], lied.live, T0 + timedelta(seconds=10), set(), set())
    assert later.doubtful is None and not any(later.live[p.id].established for p in flood)
