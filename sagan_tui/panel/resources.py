"""Finds the shipped `.tcss` files in an editable install (top-level styles/) and in a wheel."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.css.stylesheet import Stylesheet

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


LAYOUTS = "layouts.tcss"  # the incident and zoomed layouts and the filter bar (styles/layouts.tcss)


def read_layouts(sheet: Stylesheet) -> None:
    """Add layouts.tcss to the App's stylesheet, once: after the first frame, and before a layout
    or the filter bar it styles is first shown. Textual parses every rule it holds before its
    first frame (docs/performance.md, `start_to_first_frame`); these match no node until then,
    so no style is worked out again, and the sheets already read are not parsed again (Textual
    keeps each source's rules)."""
    path = stylesheet(LAYOUTS)
    if not sheet.has_source(str(path)):
        sheet.read(path)
        sheet.parse()
