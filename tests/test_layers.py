"""The layer contracts of DESIGN.md, as import-linter contracts in pyproject.toml, kept: `lint-imports` passes."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_every_layer_contract_is_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "lint-imports is not installed: `make install` installs the test extra (import-linter)"
    out = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in out.stdout


def test_the_contracts_name_every_core_layer_and_the_simulator():
    core = next(c for c in _contracts() if "sagan_tui.ui" in c["forbidden_modules"] and "textual" in c["forbidden_modules"]
                and "sagan_tui.sources" in c["source_modules"])
    for layer in ("sources", "store", "sync", "triage", "actions"):
        assert f"sagan_tui.{layer}" in core["source_modules"], layer
    session = "sagan_tui.session" if (ROOT / "sagan_tui" / "session").is_dir() else "sagan_tui.session.**"
    assert session in core["source_modules"], (
        f"the session package {'exists' if session == 'sagan_tui.session' else 'does not exist yet'}: "
        f"name it {session!r} in pyproject.toml's import-linter contracts")
    pure = next(c for c in _contracts() if c["source_modules"] == ["sagan_tui.triage"])
    assert {"sqlite3", "httpx", "sqlite_utils", "runpod"} <= set(pure["forbidden_modules"])
    ui = next(c for c in _contracts() if c["source_modules"] == ["sagan_tui.ui"])
    assert "sagan_tui.collector_pause" in ui["forbidden_modules"]  # no collector tuning in the UI process
    sim = [c for c in _contracts() if c["forbidden_modules"] == ["sagan_tui.sim"]]
    # --demo runs the simulator as a process of its own: only the sim command imports it.
    assert sim and sim[0]["ignore_imports"] == ["sagan_tui.commands.sim -> sagan_tui.sim"]
