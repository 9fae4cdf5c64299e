"""The `sagan-tui` command line: parses arguments, then imports only the subcommand it runs.

Imports stay lazy so the panel's first frame never waits on the simulator, the runpod SDK
or the analysis code.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from typing import Sequence


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):  # nan passes `<= 0`, and inf is no interval either
        raise argparse.ArgumentTypeError(f"must be a finite number > 0: {text!r}")
    return value


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {text!r}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 (a free one) to 65535: {text!r}")
    return value


def _int_at_least_1(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text!r}")
    return value


# The commands without a screen: everything they print passes the one sanitiser on its way out
# (safe_text.CleanStream), whichever source's string it carries (#46). The panel's terminal is
# Textual's, and its screen cleans every untrusted string as it draws it.
HEADLESS = ("sync", "waves", "report", "doctor", "sim", "watch")

# The simulator's scenarios (sim/scenarios: SCENARIOS), named here so --help needs no import of
# the simulator; tests/sim/test_cli.py holds the two equal.
SCENARIO_NAMES = ("calm", "reaping-wave", "reaper-recovery", "auth-revoked", "flaky", "large-fleet")


COMMANDS = ("sim", "sync", "watch", "waves", "report", "doctor")


class _NotTopLevel(Exception):
    """The command line is not the panel's flags alone: the whole parser reads it (and says why not)."""


class _TopLevel(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise _NotTopLevel(message)


def build_parser(commands: bool = True) -> argparse.ArgumentParser:
    """The command line's parser; without `commands`, the panel's flags alone (no help either:
    `-h` and any word it does not know are read again by the whole parser)."""
    if not commands:
        p: argparse.ArgumentParser = _TopLevel(prog="sagan-tui", add_help=False)
        p.set_defaults(command=None)
    else:
        p = argparse.ArgumentParser(prog="sagan-tui", description="Control panel for Sagan and its RunPod pods.")
    p.add_argument("--demo", action="store_true", help="run the panel on the built-in simulator")
    p.add_argument("--scenario", default="reaping-wave",
                   help=f"simulator scenario for --demo: {', '.join(SCENARIO_NAMES)} (default: reaping-wave)")
    p.add_argument("--speed", type=_positive, default=1.0, help="simulator speed for --demo")
    p.add_argument("--read-only", action="store_true", default=None, help="refuse every mutating action")
    p.add_argument("--poll-interval", type=_positive, help="seconds between polls")
    p.add_argument("--cache", help="the SQLite cache file")
    p.add_argument("--no-mouse", action="store_true", help="do not ask the terminal for mouse events")
    p.add_argument("--color", choices=["auto", "256", "truecolor", "standard"], help="colour system")
    p.add_argument("--no-bell", action="store_true", help="no terminal bell on new owner items or waves")
    p.add_argument("--standalone", action="store_true",
                   help="poll on its own even when `sagan-tui watch` runs on the same cache (default: attach to it)")
    if not commands:
        return p
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("sim", help="the simulator alone, on 127.0.0.1")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--scenario", dest="sim_scenario", default=None, help=", ".join(SCENARIO_NAMES))
    g.add_argument("--fixture", help="a JSON fixture file")
    s.add_argument("--port", type=_port, default=0, help="port (default: a free one)")
    s.add_argument("--speed", dest="sim_speed", type=_positive, default=1.0, help="time scale")
    s.add_argument("--latency", type=_non_negative, default=0.0, help="seconds added to every reply")
    # --demo's own: one JSON line (the URL, the scenario, the panel's environment), then serve
    # until standard input ends (the panel gone, however it went) or SIGTERM/SIGHUP.
    s.add_argument("--for-panel", action="store_true", help=argparse.SUPPRESS)

    s = sub.add_parser("sync", help="the poller without a screen")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--once", action="store_true", help="one poll, then exit")
    g.add_argument("--for", dest="for_seconds", type=_positive, help="poll for this many seconds")
    s.add_argument("--cache", dest="sub_cache", help="the SQLite cache file")
    s.add_argument("--poll-interval", dest="sub_poll_interval", type=_positive, help="seconds between polls")

    s = sub.add_parser("watch", help="the guard, unattended: polls, pages with a lifecycle, dead-man's switch")
    s.add_argument("--for", dest="for_seconds", type=_positive, help="watch for this many seconds, then stop")
    s.add_argument("--cache", dest="sub_cache", help="the SQLite cache file")
    s.add_argument("--poll-interval", dest="sub_poll_interval", type=_positive, help="seconds between polls")
    s.add_argument("--read-only", dest="sub_read_only", action="store_true", default=None,
                   help="page, but never contain (auto_contain is refused)")

    s = sub.add_parser("waves", help="offline wave analysis of loss records")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--input", help="loss records, JSON Lines")
    g.add_argument("--cache", dest="sub_cache", help="the losses of this cache")
    s.add_argument("--format", choices=["json", "markdown"], default="markdown")
    s.add_argument("--gap", type=_positive, default=90.0, help="seconds between losses of one wave")
    s.add_argument("--min-losses", type=_int_at_least_1, default=3, help="losses that make a wave")
    s.add_argument("--guard-minutes", type=_non_negative, default=15.0,
                   help="how long a wave follows its cause after its last loss (0: no following)")
    s.add_argument("--horizon", dest="horizon_minutes", type=_non_negative, default=30.0,
                   help="minutes across which lone losses of one kill time chain into one wave (0: none)")

    s = sub.add_parser("report", help="the incident report (markdown) from the cache")
    s.add_argument("--cache", dest="sub_cache", help="the SQLite cache file")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--since", help="the waves still going at or after this ISO time, and the losses since "
                                   "(default: since the last acknowledged wave, `K` in the panel)")
    g.add_argument("--all", dest="all_waves", action="store_true", help="every wave the cache holds")
    s.add_argument("--output", "-o", help="write to this file instead of stdout")

    s = sub.add_parser("doctor", help="check config, each source and the cache")
    s.add_argument("--page", action="store_true", help="send a test page to every page_urls target, then clear it")
    return p


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The arguments; the panel's start (no command named) parses its flags without building the
    six commands' parsers first (docs/performance.md, `start_to_first_frame`)."""
    words = sys.argv[1:] if argv is None else list(argv)
    if not any(w in COMMANDS for w in words):
        try:
            return build_parser(commands=False).parse_args(words)
        except _NotTopLevel:
            pass  # the whole parser says what is wrong, or answers -h, as it always has
    return build_parser().parse_args(words)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    # Subcommand flags that share a name with a top-level flag land in sub_* to keep both.
    for name in ("cache", "poll_interval", "read_only"):
        sub_value = getattr(args, f"sub_{name}", None)
        if sub_value is not None:
            setattr(args, name, sub_value)
    command = args.command or ("demo" if args.demo else "panel")
    if command != "doctor":  # doctor says it as its `FAIL config` line
        from sagan_tui.wire.config import config_problem

        problem = config_problem()
        if problem:  # even a command that reads no setting: a config path that is wrong is wrong everywhere
            print(f"sagan-tui: {problem}", file=sys.stderr)
            return 2
    module = importlib.import_module(f"sagan_tui.commands.{command}")
    streams = sys.stdout, sys.stderr
    if command in HEADLESS:
        from sagan_tui.wire.safe_text import CleanStream

        sys.stdout, sys.stderr = CleanStream(sys.stdout), CleanStream(sys.stderr)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        sys.stdout, sys.stderr = streams


if __name__ == "__main__":
    sys.exit(main())
