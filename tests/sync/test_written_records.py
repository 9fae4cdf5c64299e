"""What an account's poll hands the session (ChangeSet.pods_written) is what a read of the cache gives.

The session takes the pods its own poll wrote as the poll hands them over instead of reading
them back (core/session/model.py): each record must equal a fresh `cache.pods()` read of the
same pod, field for field, after every kind of change; and what a write keeps of the row before
it (core/store/pod_rows.py merged()) must be kept in both.
"""

from dataclasses import fields
from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import RunPodPod, SourceHealth
from sagan_tui.core.sources.runpod_base import AccountSnapshot
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.store.pod_rows import CachedPod
from sagan_tui.core.sync.account_poll import AccountPoller
from sagan_tui.core.sync.changes import SourceResult
from sagan_tui.core.sync.poll_context import PollContext

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
STEADY, STARTS, BACK, HOSTED, STOPS, FLAGGED, SHORT = (
    "steady000000001", "starts000000002", "back0000000003", "hosted00000004", "stops000000005",
    "flagged0000006", "short000000007")
NEW = "late0000000008"


def pod(pid: str, status: str = "RUNNING", started: datetime | None = None, host: str | None = None,
        now: datetime = T0, name: str = "exp7-train") -> RunPodPod:
    """A pod as listed at `now`: `started`, its runtime's start (none yet: the poll that first
    saw it RUNNING dates it)."""
    uptime = None if started is None else int((now - started).total_seconds())
    return RunPodPod(id=pid, account="team", name=name, desired_status=status, gpu="A100",
                     datacenter="EU-RO-1", cost_per_hr=1.5, uptime_seconds=uptime, has_runtime=started is not None,
                     host=host)


class Account:
    """One account's polls written as the poller writes them, each list given by the test."""

    def __init__(self, tmp_path):
        settings, _ = load_settings({"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "RUNPOD_API_KEY_TEAM": "k"},
                                    sagan_tui_cache=str(tmp_path / "cache.sqlite"))
        self.cache = Cache(settings.cache_path)
        ctx = PollContext(settings, self.cache, lambda: T0, health={"team": SourceHealth(source="team")})
        self.poller = AccountPoller(ctx, {})
        self.n = 0

    def poll(self, listing: dict[str, dict], **snap) -> tuple[datetime, SourceResult]:
        """A poll listing these pods (id -> pod()'s arguments), 30 s after the last."""
        self.n += 1
        now = T0 + timedelta(seconds=30 * self.n)
        pods = [pod(pid, **kw, now=now) for pid, kw in listing.items()]
        res = self.poller._write("team", AccountSnapshot(account="team", pods=pods, **snap), now)
        self.check(res)
        return now, res

    def check(self, res: SourceResult) -> None:
        """Every record handed over is the cache's, field for field, and is one of the pods written."""
        assert res.written, "the poll handed nothing over"
        fresh = {c.pod_id: c for c in self.cache.pods(pod_ids=list(res.written))}
        for pid, w in res.written.items():
            for f in fields(CachedPod):
                assert getattr(w.pod, f.name) == getattr(fresh[pid], f.name), (pid, f.name)
            assert w.pod == fresh[pid]
        assert set(res.written) <= set(res.pods_changed) | set(res.pods_gone)

    def sighting(self, pid: str):
        return next(s for s in self.cache.sightings() if s.pod_id == pid)

    def flag(self, pid: str, flag: str) -> None:
        with self.cache.transaction() as conn:  # another rule's flag (Sagan disagreeing, an exit)
            self.cache.pod_rows.flag(conn, {pid: flag})


@pytest.fixture
def account(tmp_path):
    a = Account(tmp_path)
    yield a
    a.cache.close()


def test_every_kind_of_change_hands_over_what_the_cache_holds(account):
    fleet = {pid: {} for pid in (STEADY, STARTS, BACK, HOSTED, STOPS, FLAGGED, SHORT)}
    t1, first = account.poll(fleet)  # every pod new
    assert set(first.written) == set(fleet)

    # Listed again complete: most unchanged (only `account_seen` says they were seen); one that
    # had no runtime dated by its uptime now; a host appearing; one stopped.
    fleet[STARTS], fleet[HOSTED], fleet[STOPS] = {"started": t1 - timedelta(seconds=10)}, {"host": "h-1"}, \
        {"status": "EXITED"}
    t2, res = account.poll(fleet)
    assert set(res.written) == {STARTS, HOSTED, STOPS}
    assert res.written[STARTS].pod.running_at == t1 - timedelta(seconds=10)
    assert account.sighting(STOPS).running_seen_at == t1  # a later stop keeps when it last ran
    assert account.sighting(STOPS).last_seen_at == t2

    # Another rule flags a pod, which then changes; a list naming no machine leaves the host
    # out; BACK vanishes.
    account.flag(FLAGGED, "exited, cause unknown")
    fleet[FLAGGED], fleet[HOSTED] = {"started": t2}, {}
    t3, res = account.poll({pid: kw for pid, kw in fleet.items() if pid != BACK})
    assert {FLAGGED, HOSTED, BACK} <= set(res.written) and res.missing == [BACK]
    assert res.written[FLAGGED].pod.flag == "exited, cause unknown"  # a write keeps another rule's flag
    assert res.written[FLAGGED].pod.first_seen_at == t1
    assert res.written[HOSTED].pod.pod.host is None
    assert account.sighting(HOSTED).host == "h-1"  # a host a list leaves out is not forgotten
    assert res.written[BACK].pod.missing_since == t3

    # An incomplete list: what it lists unchanged is only touched, what changed is written;
    # nothing absent is missing, and no list vouches for a pod first seen in it.
    t4, res = account.poll({STEADY: {}, SHORT: {"status": "EXITED"}, NEW: {}}, incomplete="a page cut short")
    assert set(res.written) == {SHORT, NEW}
    assert res.written[NEW].pod.counted_at is None
    assert account.sighting(STEADY).last_seen_at == t4  # touched

    # BACK missing from a second complete list: lost, gone as of the first list without it.
    fleet[SHORT], fleet[NEW] = {"status": "EXITED"}, {}
    _, res = account.poll({pid: kw for pid, kw in fleet.items() if pid != BACK})
    assert res.pods_gone == [BACK] and res.written[BACK].pod.gone_at == t3

    # Listed again, stopped, by an incomplete list: a new row over the gone one keeps its first
    # sighting, its start (this list dates none) and the list that first vouched for it.
    _, res = account.poll({STEADY: {}, BACK: {"status": "EXITED"}}, incomplete="a page cut short")
    back = res.written[BACK].pod
    assert back.gone_at is None and back.first_seen_at == t1
    assert back.running_at == t1 and back.counted_at == t1


def test_a_pod_the_view_would_date_is_left_to_be_read(account):
    """A live pod written without this list dating it (listed, its record unreadable) is dated
    by `pods_seen` from the account's complete list: the poll does not hand it over (the session
    reads it), where a record as written would say it was last seen a poll earlier."""
    t1, _ = account.poll({STEADY: {}, STARTS: {}})
    t2, res = account.poll({STEADY: {"host": "h-2"}}, unreadable={STARTS: "a record that did not parse"})
    assert STARTS not in res.written
    (read,) = account.cache.pods(pod_ids=[STARTS])
    assert read.counted_at != t1  # written: a complete list named it again, so it exists
    assert read.last_seen_at == t2  # not as written (t1): the account's complete list dates it


def test_the_session_takes_what_was_handed_over_unless_it_read_the_pod_since(account, tmp_path):
    """Sources are polled apart: an account's poll may be applied after a Sagan poll that wrote
    the same pod later (its experiment adopted) and was applied first. The record handed over
    is older than what the session read then, and is not taken over it."""
    from sagan_tui.core.models import PodLifecycle
    from sagan_tui.core.session.model import PanelModel

    cache = account.cache
    model = PanelModel(account.poller.ctx.settings, cache, clock=lambda: T0)
    model.load()
    now, res = account.poll({STEADY: {"name": "worker"}, STARTS: {}})  # a name no experiment's
    assert res.written[STEADY].pod.pod.experiment is None  # Sagan named it to no experiment yet
    with cache.transaction() as conn:  # Sagan's poll, written after it
        cache.sagan_rows.upsert_pods(conn, [PodLifecycle(id="lc1", runpod_pod_id=STEADY, account="team",
                                                         experiment_number=42, status="running")])
        adopted = cache.pod_rows.adopt_experiments(conn)
    assert adopted == [STEADY]
    model.apply(SourceResult(pods_changed=adopted).changes("sagan", now, 0.0, {}))
    model.apply(res.changes("team", now, 0.0, {}))
    assert model.pods[STEADY].pod.experiment == 42
    assert model.pods[STARTS] == res.written[STARTS].pod  # taken as handed over
    assert model.pods == {c.pod_id: c for c in cache.pods()}


def test_a_pod_two_sources_wrote_in_one_cycle_is_read_back():
    """`sync` merges a cycle's sources: which wrote a pod last is not known there."""
    from sagan_tui.core.sync.changes import Written, merged

    a = SourceResult(pods_changed=[STEADY, STARTS], written={
        pid: Written(1, CachedPod(pod=pod(pid), first_seen_at=T0, running_at=T0, last_seen_at=T0, gone_at=None,
                                  gone_reason=None)) for pid in (STEADY, STARTS)})
    b = SourceResult(flagged=[STARTS])
    both = merged([a.changes("team", T0, 0.0, {}), b.changes("personal", T0, 0.0, {})], T0, 0.0, {})
    assert set(both.pods_written) == {STEADY} and both.pods_flagged == (STARTS,)
