"""Finds the shipped `.tcss` files in an editable install (top-level styles/) and in a wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # sagan_tui/ (this module is in sagan_tui/panel/)


def styles_dir() -> Path:
    # A wheel carries them as sagan_tui/styles; an editable install reads the checkout's styles/.
    for candidate in (_PACKAGE / "styles", _PACKAGE.parent / "styles"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("sagan_tui styles/ directory not found (broken install?)")


def stylesheet(name: str) -> Path:
    path = styles_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"stylesheet {name} not found in {path.parent}")
    return path
