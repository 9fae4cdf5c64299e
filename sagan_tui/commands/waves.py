"""`sagan-tui waves`: offline wave analysis of loss records (a JSON Lines file, stdin, or a cache)."""

from __future__ import annotations

import json
import sys
from argparse import Namespace

from sagan_tui.core.models import utcnow


def _fail(message: str) -> int:
    print(f"sagan-tui waves: {message}", file=sys.stderr)
    return 2


def load_input(path: str):
    """The records of a JSON Lines file (`-` is stdin); OSError for a missing or unreadable file."""
    from sagan_tui.core.triage.records import parse_record_lines

    if path == "-":
        return parse_record_lines(sys.stdin)
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_record_lines(f)


def load_cache(path: str):
    """Losses, sightings and health from a cache file, in the shape parse_record_lines gives.

    Read-only: a report never changes the cache it reads (CacheUnusable, naming the cause, when
    the file cannot be read as a cache)."""
    from sagan_tui.core.store.cache import Cache

    cache = Cache(path, read_only=True)
    try:
        return records_from(cache)
    finally:
        cache.close()


def records_from(cache, per_pod: bool = True):
    """Losses, sightings and health of an open cache (load_cache's, and watch's every poll).
    `per_pod` False leaves out what is read for every pod the cache knows (sightings, Sagan's
    dispatches): what grouping the losses needs, not what weighing a verdict needs."""
    from sagan_tui.wire.basics import parse_ts
    from sagan_tui.core.triage import Dispatch
    from sagan_tui.core.triage.records import ParsedLines, refusal

    dispatches = [Dispatch(n, pod_id, _stamp(created, parse_ts))
                  for n, pod_id, created in (cache.sagan_rows.dispatches() if per_pod else ())]
    losses, errors = [], []
    for loss in cache.losses():  # written by any version, or any tool: judged as a file's are
        why = refusal(loss)
        if why:
            errors.append(f"loss of pod {loss.pod_id}: {why}: left out")
        else:
            losses.append(loss)
    return ParsedLines(losses=losses, sightings=cache.sightings() if per_pod else [], health=cache.health(),
                       dispatches=dispatches, balances=cache.balance_history(), errors=errors,
                       withdrawn=cache.losses(states=("withdrawn",)),
                       evidence=cache.loss_rows.evidence(), syslog=cache.loss_rows.syslog())


def _stamp(text, parse_ts):
    try:
        return parse_ts(text)
    except (TypeError, ValueError):  # a record written by another tool: no time, as a lenient parse gives
        return None


def context_for(records, accounts=()):
    """The diagnosis context from what was loaded; dismissed losses are left out."""
    from sagan_tui.core.triage import TriageContext, dispatches_from

    # Only confirmed losses count: a suspicion (missing) or a withdrawn one is in no wave.
    losses = [x for x in records.losses if not x.dismissed and x.state == "confirmed"]
    polled = sorted({*accounts, *(h for h in records.health if h != "sagan"),
                     *(x.account for x in losses), *(s.account for s in records.sightings)})
    return losses, TriageContext(sightings=records.sightings, health=records.health,
                                 dispatches=records.dispatches or dispatches_from(losses, records.sightings),
                                 accounts_polled=polled, losses=losses, balances=records.balances,
                                 evidence=records.evidence, syslog=records.syslog)


def run(args: Namespace) -> int:
    from sagan_tui.core.triage import find_waves, render_report, waves_to_json

    from sagan_tui.core.store.opening import CacheError

    source = args.input if args.input else args.cache
    try:
        records = load_input(args.input) if args.input else load_cache(args.cache)
    except OSError as exc:
        return _fail(f"cannot read {source}: {exc.strerror or exc}")
    except CacheError as exc:
        return _fail(str(exc))
    for err in records.errors:  # already "line N: what was wrong"
        print(err, file=sys.stderr)
    losses, context = context_for(records)
    from sagan_tui.core.triage.forming import find_forming

    waves = find_waves(losses, gap=args.gap, min_losses=args.min_losses, context=context,
                       guard_minutes=args.guard_minutes, horizon_minutes=args.horizon_minutes)
    if args.format == "json":
        withdrawn = [*records.withdrawn, *(x for x in records.losses if x.state == "withdrawn")]
        forming = find_forming(losses, waves, gap=args.gap, min_losses=args.min_losses,
                               horizon_minutes=args.horizon_minutes)
        json.dump(waves_to_json(waves, withdrawn, forming), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_report(waves, context, utcnow(), all_losses=losses))
    return 0
