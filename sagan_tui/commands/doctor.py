"""`sagan-tui doctor`: one line per check of config, each source and the cache; non-zero on failure."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sagan_tui.wire.config import ConfigError, check_cache_dir, config_path, default_cache_path
from sagan_tui.core.config_model import load_settings
from sagan_tui.core.models import ErrorKind
from sagan_tui.core.sources.errors import SourceError, scrub
from sagan_tui.wire.fmt import plural


def _line(ok: bool | None, what: str, detail: str) -> str:
    mark = {True: "ok  ", False: "FAIL", None: "warn"}[ok]
    return f"{mark} {what}: {detail}"


async def _checks(settings, secrets: list[str]) -> list[tuple[bool | None, str, str]]:
    from sagan_tui.core.sources.runpod_select import SERVES, make_transports
    from sagan_tui.core.sources.sagan import SaganClient

    out: list[tuple[bool | None, str, str]] = []
    token = settings.sagan_api_token.get_secret_value() if settings.sagan_api_token else None
    if not token:
        out.append((False, "sagan", "no token (set SAGAN_API_TOKEN)"))
    else:
        async with SaganClient(settings.sagan_base_url, token, timeout=settings.request_timeout, retries=0) as c:
            try:
                h = await c.health()
                listing = await c.approvals("pending")  # health is public; this proves the token
                out.append((True, "sagan", f"{settings.sagan_base_url} version {h.get('version', '?')}, "
                                           f"{plural(len(listing.items), 'pending approval')}"))
            except SourceError as exc:
                out.append((False, "sagan", f"{settings.sagan_base_url}: {exc.kind.value}: {exc.message}"))
    transports = make_transports(settings)
    if not transports:
        out.append((False, "runpod", "no account has a key: set RUNPOD_API_KEY_TEAM and/or RUNPOD_API_KEY_PERSONAL"))
    for name, acc in settings.accounts.items():
        if not acc.enabled:
            out.append((None, f"runpod {name}", acc.disabled_reason or "disabled"))
            continue
        t = transports[name]
        in_use_ok = False
        out.append((True, f"runpod {name} transport", f"{t.name}: {SERVES[t.name]}"))
        try:
            snap = await t.snapshot()
            in_use_ok = True
            bal = f"${snap.balance:.2f}" if snap.balance is not None else "?"
            if snap.billing_mode:
                bal += f" ({snap.billing_mode})"
            if snap.balance_note:
                bal = f"{bal} ({snap.balance_note})" if snap.balance is not None else snap.balance_note
            under = ", UNDER BALANCE" if snap.under_balance else ""
            out.append((True, f"runpod {name}", f"{t.name}: {plural(len(snap.pods), 'pod')}, balance {bal}{under}"))
        except SourceError as exc:
            out.append((False, f"runpod {name}", f"{t.name}: {exc.kind.value}: {exc.message}"))
        finally:
            await t.aclose()
        if acc.transport == "auto":
            out.append(await _machines(settings, name))  # auto's GraphQL part: machines, exit reasons
            continue
        other = await _other_transport(settings, name, acc.transport, in_use_ok)
        if other:
            out.append(other)
    return [(ok, what, scrub(detail, secrets)) for ok, what, detail in out]


async def _machines(settings, name: str) -> tuple[bool | None, str, str]:
    """Under `auto`, whether GraphQL still names each pod's machine (REST v2 names none)."""
    from sagan_tui.core.sources.runpod_select import make_transport

    t = make_transport(settings, name, "graphql")
    what = f"runpod {name} machines"
    try:
        money = await t.money()
        return (True, what, f"from GraphQL ({plural(len(set(money.hosts.values())), 'machine')})")
    except SourceError as exc:
        gone = exc.kind == ErrorKind.GONE
        return (None, what, "none: GraphQL retired (410); REST v2 names no machine" if gone
                else f"none for now: GraphQL {exc.kind.value}: {exc.message}")
    finally:
        await t.aclose()


async def _other_transport(settings, name: str, in_use: str,
                           in_use_ok: bool = True) -> tuple[bool | None, str, str] | None:
    """Whether the transport not in use would answer: the way out when one API is retired."""
    from sagan_tui.core.sources.runpod_select import make_transport

    label = "rest-v2" if in_use == "graphql" else "graphql"
    t = make_transport(settings, name, label)
    what = f"runpod {name} ({label}, not in use)"
    try:
        snap = await t.snapshot()
        hint = "" if in_use_ok else (f"; switch to it: RUNPOD_TRANSPORT_{name.upper()}=auto or "
                                     f'[accounts.{name}] transport = "auto"')
        return (True, what, f"answers ({plural(len(snap.pods), 'pod')}){hint}")
    except SourceError as exc:
        if exc.kind == ErrorKind.GONE and in_use == "rest-v2":
            return (True, what, f"retired (410), as expected: this account already uses {in_use}")
        # Not in use, so not a failure of the panel: a warning that the way out is closed too.
        return (None, what, f"{exc.kind.value}: {exc.message}")
    finally:
        await t.aclose()


def _cache_check(path, secrets: list[str]) -> list[tuple[bool | None, str, str]]:
    """The cache, opened read-only: a check never changes (nor moves aside) what it checks."""
    from sagan_tui.core.store.cache import Cache, CacheUnusable
    from sagan_tui.core.store.schema import SCHEMA_VERSION

    if not path.exists() and not path.is_symlink():
        try:
            if path != default_cache_path():  # the platform's directory is made; one the owner named is not
                check_cache_dir(str(path))
        except ValueError as exc:
            return [(False, "cache", f"{path}: {exc}")]
        return [(True, "cache", f"{path}: none yet (the panel or `sagan-tui sync` creates it)")]
    try:
        cache = Cache(path, read_only=True)
        try:
            counts = cache.counts()
            flagged, health = cache.flagged_pods(), cache.health()
            confirmed = len(cache.losses())
            phantoms, waiting = cache.pod_rows.phantoms(), cache.loss_rows.waiting()
        finally:
            cache.close()
    except CacheUnusable as exc:
        return [(False, "cache", scrub(str(exc), secrets))]
    except Exception as exc:  # the check reports; it must not crash on what it checks
        return [(False, "cache", f"{path}: {type(exc).__name__}: {scrub(str(exc), secrets)}")]
    others = counts["losses"] - confirmed
    lines = [(True, "cache", f"{path} schema v{SCHEMA_VERSION}, {plural(counts['experiments'], 'experiment')}, "
                             f"{plural(counts['pods'], 'pod')}, {plural(confirmed, 'loss', 'losses')}"
                             + (f" ({others} more missing or withdrawn)" if others else ""))]
    # What the polls could not settle: said once each, as warnings (the panel's rows say it too).
    lines += [(None, "pods", f"pod {pod_id}: {scrub(flag, secrets)}") for pod_id, flag in sorted(flagged.items())]
    lines += [(None, name, f"{h.unreadable} record{'s' if h.unreadable != 1 else ''} of the last poll unreadable"
                           + (f" since {h.unreadable_since:%H:%M} UTC" if h.unreadable_since else ""))
              for name, h in sorted(health.items()) if h.unreadable]
    lines += [(None, name, f"{h.duplicates} pod{'s' if h.duplicates != 1 else ''} listed more than once in the"
                           f" last poll (each read as one)"
                           + (f" since {h.duplicates_since:%H:%M} UTC" if h.duplicates_since else ""))
              for name, h in sorted(health.items()) if h.duplicates]
    lines += [(None, name, f"{n} pod{'s' if n != 1 else ''} listed once and never again (phantoms, never losses)"
                           + (f", the last at {last:%H:%M} UTC" if last else ""))
              for name, (n, last) in sorted(phantoms.items())]
    lines += [(None, "losses", f"pod {pod_id} waits: {scrub(reason or '', secrets)}") for pod_id, _a, reason in waiting]
    return lines


def _notify_check(settings) -> tuple[bool | None, str, str]:
    """The terminal's notification path: the mode, and whether tmux forwards it (panel/notify.py)."""
    import os

    from sagan_tui.panel.notify import notify_path, tmux_passthrough

    mode = getattr(settings, "notify", None) or ("bell" if getattr(settings, "bell", True) else "off")
    ok, words = notify_path(mode, os.environ, tmux_passthrough(os.environ) if mode.startswith("osc") else None)
    return ok, "notify", words


async def _pages_check(settings, send: bool) -> list[tuple[bool | None, str, str]]:
    """watch's page targets, dead-man's switch and auto_contain rules (named by scheme and host at
    most); with `send` (`doctor --page`) a test page to each target, then its end (cleared)."""
    from sagan_tui.commands.watch import checked

    try:
        targets, dead, rules = checked(settings)
    except ValueError as exc:
        return [(False, "pages", str(exc))]
    where = ", ".join(t.shown for t in targets) or "none (page_urls is empty: watch pages nobody)"
    out = [(True if targets else None, "pages", f"to {where}; dead-man's switch {dead.shown if dead else 'off'}; "
                                                 f"auto_contain {', '.join(r.text for r in rules) or 'off'}")]
    if send:
        out += await _test_pages(targets, settings.request_timeout)
    return out


async def _test_pages(targets, timeout: float) -> list[tuple[bool | None, str, str]]:
    import httpx

    from sagan_tui.core.pages.alerts import Page
    from sagan_tui.core.pages.senders import PageFailed, sender_for

    title = "sagan-tui doctor: test page (cleared at once)"
    test = Page("wave", "wave", "doctor-test", "sagan-tui-doctor-test", "open", title, "a test page from "
                "`sagan-tui doctor --page`; nothing is wrong", "default", first_title=title)
    end = Page("wave", "resolved", "doctor-test", "sagan-tui-doctor-test", "resolve",
               "sagan-tui doctor: test over", "the test page is cleared", "low", first_title=title)
    out = []
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        for t in targets:
            sender = sender_for(t, client)
            try:
                await sender.send(test)
                await sender.send(end)
                out.append((True, f"page {t.shown}", "test page sent and cleared"))
            except PageFailed as why:
                out.append((False, f"page {t.shown}", f"paging failed: {why}"))
    return out


def run(args: argparse.Namespace) -> int:
    lines: list[tuple[bool | None, str, str]] = []
    try:
        settings, warnings = load_settings(sagan_tui_cache=getattr(args, "cache", None))
    except ConfigError as exc:
        print(_line(False, "config", str(exc)))
        return 1
    path = config_path()
    lines.append((True, "config", f"{path} ({'found' if path.is_file() else 'not found, using environment'})"))
    lines += [(None, "config", w) for w in warnings if "disabled" not in w]
    secrets = settings.secrets()
    lines += asyncio.run(_checks(settings, secrets))
    lines += [(ok, what, scrub(detail, secrets))
              for ok, what, detail in asyncio.run(_pages_check(settings, bool(getattr(args, "page", False))))]
    lines += _cache_check(settings.cache_path, secrets)
    lines.append(_notify_check(settings))
    for ok, what, detail in lines:
        print(_line(ok, what, detail))
    failed = [w for ok, w, _ in lines if ok is False]
    print(f"{len(lines) - len(failed)} ok, {len(failed)} failed", file=sys.stderr)
    return 1 if failed else 0
