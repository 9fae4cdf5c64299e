"""Finds the shipped `.tcss` files in an editable install (top-level styles/) and in a wheel."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def styles_dir() -> Path:
    for candidate in (_HERE / "styles", _HERE.parent / "styles"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("sagan_tui styles/ directory not found (broken install?)")


def stylesheet(name: str) -> Path:
    path = styles_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"stylesheet {name} not found in {path.parent}")
    return path
