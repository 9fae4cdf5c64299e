"""Shared start-up of the headless commands: settings from env/file/flags, the cache, warnings."""

from __future__ import annotations

import argparse
import sys

from sagan_tui.config import ConfigError, Settings, load_settings


def settings_from_args(args: argparse.Namespace, environ: dict[str, str] | None = None, **extra) -> Settings:
    """Settings with the command line's flags (and `extra` settings, None meaning unset) on top;
    warnings go to stderr, never a secret."""
    flags = {
        "sagan_tui_cache": getattr(args, "cache", None),
        "poll_interval": getattr(args, "poll_interval", None),
        "read_only": getattr(args, "read_only", None),
        **extra,
    }
    try:
        settings, warnings = load_settings(environ, **flags)
    except ConfigError as exc:
        print(f"sagan-tui: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for w in warnings:
        print(f"sagan-tui: warning: {w}", file=sys.stderr)
    return settings
