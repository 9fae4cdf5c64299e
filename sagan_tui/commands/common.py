"""Shared start-up of the commands: settings from env/file/flags, and the warnings about them."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from sagan_tui.wire.config import ConfigError, Draft, gather

if TYPE_CHECKING:
    from sagan_tui.core.config_model import Settings


def draft_from_args(args: argparse.Namespace, environ: dict[str, str] | None = None, **extra) -> Draft:
    """The settings gathered with the command line's flags (and `extra` settings, None meaning
    unset) on top, not validated yet; warnings go to stderr, never a secret."""
    flags = {
        "sagan_tui_cache": getattr(args, "cache", None),
        "poll_interval": getattr(args, "poll_interval", None),
        "read_only": getattr(args, "read_only", None),
        **extra,
    }
    try:
        draft = gather(environ, **flags)
        draft.check_cache_dir()
    except ConfigError as exc:
        print(f"sagan-tui: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for w in draft.warnings:
        print(f"sagan-tui: warning: {w}", file=sys.stderr)
    return draft


def settings_from_args(args: argparse.Namespace, environ: dict[str, str] | None = None, **extra) -> "Settings":
    """`draft_from_args`, validated: a bad setting exits with code 2 and names it."""
    from sagan_tui.core.config_model import validate

    draft = draft_from_args(args, environ, **extra)
    try:
        return validate(draft)
    except ConfigError as exc:
        print(f"sagan-tui: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
