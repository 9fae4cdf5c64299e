"""`sagan-tui watch`: the guard headless and long-running: polls, weighs waves, pages with a lifecycle,
keeps a dead-man's switch and applies the opt-in `auto_contain` rules. One line per event."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from dataclasses import replace
from datetime import datetime, timedelta

from sagan_tui.commands.common import settings_from_args
from sagan_tui.core.heap import few_heaps, give_back
from sagan_tui.core.pages.pager import MIN_GAP_S

HISTORY_MINUTES = 60.0  # waves that ended this long before the guard window are history, not alerts
DRAIN_S = 10.0  # at the end, what is still queued has this long to go out
RETRIAGE_S = 300.0  # with no loss changed, the waves' verdicts are weighed again this often
REWEIGH_S = MIN_GAP_S  # a wave that only grew is weighed again this often: its page could not go sooner


def _fail(message: str) -> int:
    print(f"sagan-tui watch: {message}", file=sys.stderr)
    return 2


class Say:
    """One line per event on stdout and in the log, scrubbed of every secret and control character."""

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = secrets
        self.log = logging.getLogger("sagan_tui.watch")
        self.log.setLevel(logging.INFO)

    def __call__(self, line: str) -> None:
        from sagan_tui.wire.safe_text import one_line
        from sagan_tui.core.sources.errors import scrub

        text = one_line(scrub(line, self.secrets), limit=400)
        print(f"{datetime.now().strftime('%H:%M:%S')} {text}", flush=True)
        self.log.info("%s", text)


def checked(settings) -> tuple[list, object | None, list]:
    """The page targets (apprise's known to it), the dead-man's target and the rules; TargetError
    or ValueError naming the setting and scheme when one cannot be used (watch's and doctor's start)."""
    from sagan_tui.core.actions.auto_contain import parse_rules
    from sagan_tui.core.pages.deadman import parse_deadman
    from sagan_tui.core.pages.targets import check_with_apprise

    targets = settings.page_targets()
    check_with_apprise(targets)
    dead = parse_deadman(settings.deadman_url.get_secret_value()) if settings.deadman_url else None
    return targets, dead, parse_rules(settings.auto_contain)


async def _loop(args: argparse.Namespace) -> int:
    import sqlite3

    from sagan_tui.core.logfile import log_to_file
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.store.opening import CacheError, unusable

    settings = settings_from_args(args)
    try:
        targets, dead, rules = checked(settings)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        cache = Cache(settings.cache_path)
    except CacheError as exc:
        return _fail(str(exc))
    log_to_file(settings)
    try:
        return await Watch(args, settings, cache, targets, dead, rules).run()
    except sqlite3.Error as exc:
        return _fail(f"{unusable(settings.cache_path, exc)} (what earlier polls wrote is kept)")


class Watch:
    """The loop: poll, observe, step the alerts, contain, page, re-arm the switch."""

    def __init__(self, args, settings, cache, targets, dead, rules, *, clock=None, poller=None) -> None:
        import httpx

        from sagan_tui.core.actions.auto_contain import AutoContainment
        from sagan_tui.core.actions.runner import ActionRunner
        from sagan_tui.core.pages.alerts import Alert, Lifecycle
        from sagan_tui.core.pages.deadman import DeadMan
        from sagan_tui.core.pages.pager import Pager
        from sagan_tui.core.pages.senders import sender_for
        from sagan_tui.core.session.db import SQLiteWorker
        from sagan_tui.core.sync.poller import Poller

        self.args, self.settings, self.cache, self.rules = args, settings, cache, rules
        self.say = Say(settings.secrets())
        # a test steps the clock with the simulator's; the bench gives a poller with its own servers
        # The poll's writes in one SQLite thread, another process's lock waited out on this loop (core/session/db.py).
        self.db = SQLiteWorker()
        self.poller = poller or Poller(settings, cache, clock=clock, offload=self.db.run)
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(settings.request_timeout), follow_redirects=False)
        self.pager = Pager(targets, [sender_for(t, self.client) for t in targets], say=self.say, status=self._health)
        self.dead = DeadMan(dead, self.client, minutes=settings.deadman_minutes, say=self.say) if dead else None
        self.life = Lifecycle({k: Alert.from_json(v) for k, v in cache.page_rows.load_alerts().items()})
        self.contain = AutoContainment(ActionRunner.for_poller(settings, cache, self.poller, clock=self.poller.clock),
                                       settings.guard_minutes)
        self.targets = targets
        self.hub = None  # panels attached over the session channel (core/session/hub.py), made by run()
        self._poll_now = asyncio.Event()  # an attached panel asked for a poll (its refresh, an action)
        self._told_read_only = False
        self._triage_memo: dict = {}

    def _health(self, shown: str, error: str | None) -> None:
        from sagan_tui.core.models import utcnow

        self.cache.page_rows.record_health(shown, error, utcnow())

    def _hello(self) -> None:
        where = ", ".join(t.shown for t in self.targets) or "nowhere (page_urls is empty)"
        rules = ", ".join(r.text for r in self.rules) or "off"
        for t in self.targets:
            if t.scheme == "ntfy" and t.shown.split()[-1] not in ("127.0.0.1", "localhost", "::1"):
                self.say(f"warning: {t.shown} is plain http (ntfy://): the topic travels in clear; ntfys:// is https")
        self.say(f"watching {self.settings.cache_path.name} every {self.settings.poll_interval:g} s; pages to {where}; "
                 f"auto_contain {rules}{' (read-only: never)' if self.settings.read_only and self.rules else ''}; "
                 f"dead-man's switch {self.dead.t.shown if self.dead else 'off'}; "
                 f"{'panels attach at ' + str(self.hub.path) if self.hub else 'no panel can attach'}")

    async def run(self) -> int:
        from sagan_tui.commands.sync import Interrupt, file_check

        for notice in self.cache.notices:
            print(f"sagan-tui: {notice}", file=sys.stderr)
        stop = Interrupt()  # before the start line: a Ctrl+C as soon as it is read stops the loop cleanly
        from sagan_tui.core.session.hub import WatchRunning

        try:
            self.open_hub()
        except WatchRunning as exc:  # refused before anything is polled or paged: two would page twice
            stop.close()
            await self.close()
            return _fail(str(exc))
        self._hello()
        deadline = time.monotonic() + (self.args.for_seconds or float("inf"))
        try:
            while not stop.asked:
                started = time.monotonic()
                if await stop.unless_asked(self.poll_once()) is None:
                    break
                file_check(self.cache)
                if time.monotonic() >= deadline:
                    break
                pause = min(self.settings.poll_interval - (time.monotonic() - started), deadline - time.monotonic())
                if pause > 0:
                    await stop.unless_asked(self._until_due(pause))
        finally:
            stop.close()
            await self.close()
        self.say(f"watch stopped: {self.pager.sent} page(s) sent, {self.pager.failed} failed")
        if stop.asked:
            from sagan_tui.commands.stop_signals import exit_code

            return exit_code(stop.signal)
        return 0

    def open_hub(self) -> None:
        """Panels on this cache attach here instead of polling on their own. WatchRunning when
        another watch has the cache; a runtime directory that is not safe only means no panel
        can attach (said), never that nobody is paged."""
        from sagan_tui.core.session.hub import WatchHub
        from sagan_tui.wire.channel.runtime_dir import ChannelRefused

        hub = WatchHub(self.settings.cache_path, self._poll_now.set, self.settings.poll_interval, self.say)
        try:
            hub.open()
        except (ChannelRefused, OSError) as exc:  # a directory it may not make or use: paging goes on
            # A lock taken before the failure stays held while this watch runs (it still watches the cache).
            self.say(f"warning: panels cannot attach: {exc}")
            return
        self.hub = hub

    async def _until_due(self, pause: float) -> None:
        """The pause between polls, cut short when an attached panel asks for a poll now."""
        self._poll_now.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(pause):
                await self._poll_now.wait()

    async def poll_once(self) -> bool:
        """One poll and what follows it; True (None only when Ctrl+C cancelled it)."""
        changes = await self.poller.poll_once()
        await self.after_poll(changes.at)
        return True

    async def close(self, drain_s: float = DRAIN_S) -> None:
        if self.hub is not None:
            await self.hub.close()  # the attached panels hear the end and start their own sessions
        await self.pager.drain(drain_s)
        if self.dead is not None:
            await self.dead.disarm()
        await self.client.aclose()
        await self.poller.aclose()
        self.db.shutdown()
        self.cache.close()

    async def after_poll(self, now: datetime) -> None:
        following = any(a.state == "open" and a.kind in ("wave", "forming") for a in self.life.alerts.values())
        seen, waves = observe(self.cache, self.settings, now, following, self._triage_memo)
        pages = self.life.step(seen)
        for page in pages:
            self.say(page.line)
        pages += await self._contain(waves, now)
        await self._verify(now)
        changed = ((a.key, a.kind, a.state, a.to_json()) for a in self.life.take_changed())
        self.cache.page_rows.save_alerts(changed, now)
        self.pager.submit(pages)
        self.pager.flush()
        if self.dead is not None:
            await self.dead.beat(now)
        if self.hub is not None:
            await self.hub.after_poll()
        give_back()  # the poll's transient memory, before the pause (core/heap.py)

    async def _contain(self, waves, now: datetime) -> list:
        from sagan_tui.core.actions.auto_contain import matching
        from sagan_tui.core.actions.contain import stop_targets

        out = []
        for w, facts in waves:
            alert = self.life.alerts.get(facts.key)
            if not self.rules or alert is None or alert.state != "open" or alert.contained or not facts.active:
                continue
            rule = matching(self.rules, facts.cause, facts.confidence)
            if rule is None:
                continue
            if self.settings.read_only:
                if not self._told_read_only:
                    self._told_read_only = True
                    self.say(f"auto_contain {rule.text} matches wave {facts.key}: not applied (read-only)")
                continue
            pods = self.cache.pods(include_gone=False)
            targets = stop_targets(pods, facts.experiments, now, w.gap_median_s)
            known = {n: {p.pod_id for p in pods if p.experiment == n} for n in facts.experiments}
            done = await self.contain(facts.experiments, targets, origin="watch", rule=rule.text, known_pods=known)
            self.say(f"containment {'done' if done.ok else 'incomplete'} for wave {facts.key} "
                     f"(rule {rule.text}): {done.summary}")
            page = self.life.contained(facts.key, done.summary, facts)
            if page is not None:
                out.append(page)
        return out


    async def _verify(self, now: datetime) -> None:
        """Containment's step after each poll, as the session does: stops that failed are tried again,
        and a held experiment that leaves `blocked` or gets a new pod is an override, said and paged."""
        watched = self.contain.operation.watched
        if not watched:
            return
        statuses = {e.number: (e.status, e.updated_at, None) for e in self.cache.experiments() if e.number in watched}
        for line in await self.contain.step(now, statuses, self.cache.pods(include_gone=False)):
            self.say(line)


def observe(cache, settings, now: datetime, following: bool = True, memo: dict | None = None):
    """One poll's picture for the alerts (core/pages/alerts.Seen) from the cache's confirmed losses,
    the same triage the session and `waves` run, and each source's health; with the waves.
    `following`: a wave or cluster alert is open (the triage runs whatever the losses' times);
    `memo`: kept between polls by the caller (see _triaged)."""
    from sagan_tui.core.pages.alerts import FormingFacts, WaveFacts
    from sagan_tui.core.session.incident import wave_key
    from sagan_tui.wire import fmt
    from sagan_tui.core.triage.forming import find_forming
    from sagan_tui.core.triage.verdict import verdict_of

    guard = settings.guard_minutes
    recent = now - timedelta(minutes=guard + HISTORY_MINUTES)
    if not following and not cache.losses(since=recent, states=("confirmed", "withdrawn")):
        # No recent loss and no wave or cluster being followed: no alert can come of the triage, whose
        # read of every pod's record is most of watch's cost on a quiet fleet (docs/performance.md).
        return _seen(now, (), (), frozenset(), cache, settings, cache.health()), []
    found, losses, withdrawn = _triaged(cache, guard, now, memo if memo is not None else {})
    waves = []
    for w in found:
        if w.end < recent:
            continue
        v = verdict_of(w)
        # No `start <= now` (triage's active_wave has it against replays): a loss confirmed later
        # in the same poll is dated after the poll's start, and a live wave is never a replay.
        active = w.end >= now - timedelta(minutes=guard)
        waves.append((w, WaveFacts(wave_key(w), tuple(x.pod_id for x in w.losses), tuple(w.accounts),
                                   tuple(w.experiments), v.cause, v.confidence, v.headline,
                                   fmt.window(w.start, w.end), float(w.burn_usd or 0.0), active)))
    forming = [FormingFacts(c.pod_ids[0], c.pod_ids, c.reason)
               for c in find_forming(losses, found) if c.end >= now - timedelta(minutes=guard)]
    return _seen(now, tuple(f for _, f in waves), tuple(forming), withdrawn, cache, settings, cache.health()), waves


def _triaged(cache, guard: float, now: datetime, memo: dict):
    """The waves (their verdicts weighed once each), the confirmed losses and the withdrawn pods:
    from `memo` while no loss changed and the last triage is younger than RETRIAGE_S (evidence
    such as survivors still moves a verdict), else triaged afresh. At 10,000 pods one verdict
    against every sighting took tens of seconds: not after every poll.

    A wave that only grew is Alertmanager's group_interval case: the losses are grouped again
    (cheap: no pod's sighting read), and while that shows every wave and cluster the memo knows,
    each holding at least its pods, and no other, the memo stands until it is REWEIGH_S old.
    A new wave or cluster, a loss withdrawn or dismissed, a wave split or ended is triaged at
    once. A grown wave's page could not go sooner anyway (the pager's MIN_GAP_S per alert)."""
    stamp = cache.loss_rows.stamp()
    age = now - memo["at"] if memo else None
    if age is not None and age < timedelta(seconds=RETRIAGE_S):
        if memo["stamp"] == stamp:
            return memo["found"], memo["losses"], memo["withdrawn"]
        if age < timedelta(seconds=REWEIGH_S) and _grew_only(cache, guard, memo):
            return memo["found"], memo["losses"], memo["withdrawn"]
    found, losses, withdrawn = _grouped(cache, guard, weigh_since=now - timedelta(minutes=guard + HISTORY_MINUTES))
    memo.update(stamp=stamp, at=now, found=found, losses=losses, withdrawn=withdrawn,
                clusters=_cluster_pods(losses, found))
    return found, losses, withdrawn


def _grouped(cache, guard: float, weigh_since: datetime | None):
    """find_waves over the cache's confirmed losses, with the withdrawn pods. With `weigh_since`:
    against every pod's sighting, the verdicts of the waves that end after it weighed; without:
    grouped only (see records_from)."""
    from sagan_tui.commands.waves import context_for, records_from
    from sagan_tui.core.triage import find_waves
    from sagan_tui.core.triage.verdict import weighed

    records = records_from(cache, per_pod=weigh_since is not None)
    losses, context = context_for(records)
    withdrawn = frozenset(x.pod_id for x in (*records.withdrawn, *records.losses) if x.state == "withdrawn")
    del records
    found = find_waves(losses, context=context, guard_minutes=guard)
    if weigh_since is None:
        return found, losses, withdrawn
    # Kept until the next triage: the waves that may still be alerts with their verdicts weighed
    # now (no later poll of this memo weighs one), none with the context, which holds a record
    # of every pod the cache knows (a tenth of watch's memory at 10,000 pods).
    return [weighed(w) if w.end >= weigh_since else replace(w, context=None) for w in found], losses, withdrawn


def _cluster_pods(losses, found) -> dict[str, frozenset[str]]:
    """Every wave's and forming cluster's key -> its pods."""
    from sagan_tui.core.session.incident import wave_key
    from sagan_tui.core.triage.forming import find_forming

    out = {wave_key(w): frozenset(w.pod_ids) for w in found}
    out.update((c.pod_ids[0], frozenset(c.pod_ids)) for c in find_forming(losses, found))
    return out


def _grew_only(cache, guard: float, memo: dict) -> bool:
    """Whether the losses, grouped again, hold the memo's waves and clusters and no other, each
    with at least the pods it had (and no loss newly withdrawn)."""
    found, losses, withdrawn = _grouped(cache, guard, weigh_since=None)
    if withdrawn != memo["withdrawn"]:
        return False
    now, then = _cluster_pods(losses, found), memo["clusters"]
    return now.keys() == then.keys() and all(then[k] <= pods for k, pods in now.items())


def _seen(now, waves, forming, withdrawn, cache, settings, health):
    """The Seen of these waves and clusters, with the owner's acknowledgements and the sources' health."""
    from sagan_tui.wire.basics import HealthState
    from sagan_tui.core.pages.alerts import Seen
    from sagan_tui.wire.runway import LOW, OUT, runway

    acks = {k: (a[1], a[3]) for k, a in cache.incident_rows.wave_acks().items()}
    blind, low = {}, {}
    for name, h in health.items():
        if h.state == HealthState.ERROR and h.consecutive_failures >= settings.blind_polls:
            blind[name] = h.last_success
        r = runway(h, settings.runway_warn_hours)
        if r is not None and r.state in (LOW, OUT):
            low[name] = r.text
    return Seen(now, waves, forming, withdrawn, acks, blind, low)


def run(args: argparse.Namespace) -> int:
    few_heaps()  # before any thread (core/heap.py)
    return asyncio.run(_loop(args))
