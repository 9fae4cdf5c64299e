"""reconcile on its own: when a pod read again is the same pod, and when it restarted."""

from datetime import datetime, timedelta, timezone

from sagan_tui.models import RunPodPod
from sagan_tui.sync.detect import Seen, pod_key, reconcile

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
