"""The core layers never import Textual (DESIGN.md's layers), checked in a fresh interpreter."""

import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "sagan_tui"
CORE = ["core/sources", "core/store", "core/sync", "core/triage", "core/actions", "core/session", "core/pages"]


def _modules(layer: str) -> list[str]:
    return [
        "sagan_tui." + ".".join(p.relative_to(PKG).with_suffix("").parts).removesuffix(".__init__")
        for p in sorted((PKG / layer).rglob("*.py"))
    ]


@pytest.mark.parametrize("layer", CORE)
def test_core_layer_does_not_import_textual(layer):
    mods = _modules(layer)
    assert mods, f"no modules found under {layer}"
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{layer} pulls in Textual: {out.stdout.strip()}"


def test_triage_does_no_io():
    """triage is pure: no sockets, files, sqlite or HTTP clients."""
    mods = _modules("core/triage")
    assert mods, "no modules found under core/triage"
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in ('httpx', 'sqlite3', 'sqlite_utils', 'runpod', 'requests') if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_import_is_light():
    """Importing the command line must not pull in runpod (~2 s) or Textual."""
    code = "import sys, sagan_tui.cli; print(','.join(m for m in ('runpod','textual') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
