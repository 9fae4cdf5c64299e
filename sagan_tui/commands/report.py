"""`sagan-tui report`: the incident report (Markdown) from the cache, to stdout or a file."""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from datetime import datetime
from pathlib import Path

from sagan_tui.core.models import as_utc, utcnow
from sagan_tui.wire.safe_text import clean_document


def _fail(message: str) -> int:
    print(f"sagan-tui report: {message}", file=sys.stderr)
    return 2


def parse_since(text: str) -> datetime:
    """ISO 8601; a trailing Z and a date alone are accepted; naive means UTC."""
    return as_utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00")))


def is_the_cache(output: str, cache: str) -> bool:
    """Whether writing `output` would overwrite the cache or its -wal/-shm: by a symlink, a hard
    link or another spelling of its path too."""
    for suffix in ("", "-wal", "-shm"):
        try:
            if os.path.samefile(output, str(Path(cache).expanduser()) + suffix):
                return True
        except OSError:  # either is missing: not the same file
            continue
    return False


def _last_acknowledged(path: str) -> datetime | None:
    from sagan_tui.core.store.cache import Cache
    cache = Cache(path, read_only=True)
    try:
        return cache.incident_rows.last_acknowledged()
    finally:
        cache.close()


def run(args: Namespace) -> int:
    from sagan_tui.commands.waves import context_for, load_cache
    from sagan_tui.core.triage import find_waves, render_report

    since = None
    if args.since:
        try:
            since = parse_since(args.since)
        except ValueError:
            return _fail(f"--since: not an ISO 8601 time: {args.since!r} (e.g. 2026-05-14T10:30:00Z)")
    path = args.cache
    if not path:
        from sagan_tui.core.config_model import ConfigError, load_settings

        try:
            path = str(load_settings()[0].cache_path)
        except ConfigError as exc:
            return _fail(str(exc))
    from sagan_tui.core.store.opening import CacheError

    if args.output and is_the_cache(args.output, path):
        return _fail(f"--output {args.output} is the cache itself ({path}): give another file")
    try:
        records = load_cache(path)
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror or exc}")
    except CacheError as exc:
        return _fail(str(exc))
    for err in records.errors:
        print(f"sagan-tui report: {err}", file=sys.stderr)
    if since is None and not args.all_waves:
        # The night's incident, as `W`'s ticket has it: every wave since the owner last
        # acknowledged one (every wave when none was).
        since = _last_acknowledged(path)
        if since is not None:
            print(f"sagan-tui report: since the last acknowledged wave ({since.isoformat().replace('+00:00', 'Z')}); "
                  "--all for every wave, --since for another start", file=sys.stderr)
    losses, context = context_for(records)
    # Waves are found over every loss, then those still going at `since` are kept whole: a wave
    # that began before the chosen start is the same incident, not a smaller one.
    waves = find_waves(losses, context=context)
    # RunPod's and Sagan's strings are in it (a data centre, a GPU, a note): cleaned once for
    # both sinks, the terminal and the file.
    text = clean_document(render_report(waves, context, utcnow(), since=since, all_losses=losses))
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
