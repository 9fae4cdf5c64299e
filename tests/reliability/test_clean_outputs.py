"""RunPod's data centre and GPU full of escapes, through the real `sync`: no raw ESC/BEL/C1 byte
leaves the process by `report`, `waves` (markdown and json), `doctor`, `sync`'s lines, the
exported incident file or the OSC 52 payload of the panel's copy."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from .test_untrusted_panel import INJECTIONS

# The escapes RunPod's strings carried in #46 (OSC 52, OSC 8, ESC[2J), then the rest of the matrix.
ESCAPES = [s for s in INJECTIONS if any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f or c in "\u202e\u202c" for c in s)]
DATACENTER = "US-KS-2\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil.invalid\x1b\\dc\x1b]8;;\x1b\\\x1b[2J"
GPU = "A100\x1b]0;PWNED-TITLE\x07\x9b31m 80GB\u202e"


def _world() -> dict:
    pods = [{"id": f"evil{i:02d}pod{i:06d}", "account": "team", "experiment": 192, "created_at": 0,
             "running_at": 1 + i, "lost_at": 61 + i, "datacenter": DATACENTER, "gpu": GPU, "costPerHr": 1.49}
            for i in range(3)]
    # One survivor in each odd field of the matrix: the diagnosis names survivors and their places.
    pods += [{"id": f"live{i:02d}pod{i:06d}", "account": "team", "experiment": 193, "created_at": 0,
              "running_at": 1, "datacenter": s[:80], "gpu": s[:80]} for i, s in enumerate(ESCAPES)]
    return {"experiments": [{"number": 192, "title": "persona spread", "status": "running", "runpodAccount": "team"},
                            {"number": 193, "title": "control", "status": "running", "runpodAccount": "team"}],
            "pods": pods}


def raw_controls(text: str | bytes) -> list[str]:
    """The bytes a terminal would act on: C0 but newline, DEL, C1, and the bidi overrides."""
    s = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return sorted({repr(c) for c in s if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                   or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})


@pytest.fixture
def synced(sim_factory, tmp_path, monkeypatch, capsys):
    """The fixture's world after the three losses, polled by the real `sync`, and its output."""
    from sagan_tui.cli import main

    sim = sim_factory(fixture=_world())
    sim.clock.jump_to(100)  # one jump, then polls: both sides of a jump are two frames
    for k in [k for k in os.environ if k.startswith(("SAGAN", "RUNPOD"))]:
        monkeypatch.delenv(k)
    for k, v in {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml"),
                 "SAGAN_TUI_CACHE": str(tmp_path / "c.sqlite")}.items():
        monkeypatch.setenv(k, v)
    outputs = {}
    for n in range(2):
        code = main(["sync", "--once"])
        out = capsys.readouterr()
        outputs[f"sync {n}"] = (code, out.out, out.err)
    return tmp_path / "c.sqlite", outputs


def test_no_raw_escape_in_any_output_of_runpod_strings(synced, capsys, tmp_path):
    from sagan_tui.cli import main

    cache, outputs = synced
    report_file = tmp_path / "report.md"
    runs = {"report": ["report", "--all"], "report file": ["report", "--all", "-o", str(report_file)],
            "report --since": ["report", "--since", "2000-01-01"], "doctor": ["doctor"],
            "waves markdown": ["waves", "--cache", str(cache), "--format", "markdown"],
            "waves json": ["waves", "--cache", str(cache), "--format", "json"]}
    for name, argv in runs.items():
        code = main(argv)
        out = capsys.readouterr()
        outputs[name] = (code, out.out, out.err)
    assert outputs["report"][0] == 0, outputs["report"]
    # The report did read RunPod's fields: what is left of them after cleaning is there.
    report = outputs["report"][1]
    assert "US-KS-2dc" in report and "A100 80GB" in report, report
    assert "US-KS-2dc" in outputs["waves markdown"][1]
    waves = json.loads(outputs["waves json"][1])
    assert waves["waves"], outputs["waves json"][1]
    outputs["report file"] = (0, report_file.read_text(encoding="utf-8"), "")
    for name, (_code, out, err) in outputs.items():
        assert raw_controls(out + err) == [], f"{name}: {raw_controls(out + err)}"


def test_the_exported_file_and_its_osc52_payload_are_clean(synced, tmp_path):
    from sagan_tui.core.actions.guard import export_report
    from sagan_tui.core.models import utcnow
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.panel.clipboard import copy, osc52

    cache = Cache(synced[0])
    try:
        path, text = export_report(cache, utcnow(), tmp_path / "exports")
    finally:
        cache.close()
    written = path.read_bytes()
    assert b"US-KS-2dc" in written
    assert raw_controls(written) == [] and raw_controls(text) == []

    class Terminal:  # stands where the App is: what its driver would be asked to write
        copied: list[str] = []

        def copy_to_clipboard(self, s: str) -> None:
            self.copied.append(osc52(s))

    term = Terminal()
    assert copy(term, text + DATACENTER) is None  # even a text that was never cleaned
    sequence = term.copied[0]
    assert sequence.startswith("\x1b]52;c;") and sequence.endswith("\a")
    payload = base64.b64decode(sequence[len("\x1b]52;c;"):-1]).decode("utf-8")
    assert "US-KS-2dc" in payload and raw_controls(payload) == []


async def test_the_panels_export_its_osc52_copy_and_its_toasts_are_clean(synced, tmp_path,
                                                                              monkeypatch):
    """The panel on the cache `sync` filled: `e` writes the incident (into SAGAN_TUI_DATA_DIR) and
    copies it by OSC 52; a toast quoting a source's words is cleaned as well."""
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.core.store.cache import Cache
    from tests.harness import notes, panel_on, wait_for

    monkeypatch.setenv("SAGAN_TUI_DATA_DIR", str(tmp_path / "exports"))
    settings, _ = load_settings(sagan_tui_cache=str(synced[0]), bell=False, poll_interval=60.0)
    cache = Cache(settings.cache_path)
    try:
        app, _ = panel_on(settings, cache=cache, poll=False)
        async with app.run_test(size=(200, 50)) as pilot:
            await wait_for(pilot, lambda: app.loaded, what="the whole panel")
            await pilot.press("e")
            await wait_for(pilot, lambda: any("written to" in n.message for n in notes(app)), what="export")
            app.notify(f"RunPod says {DATACENTER} {GPU}", title=f"pod in {DATACENTER}", markup=False)
            await pilot.pause()
            copied = app.clipboard
            toasts = [f"{n.title}\n{n.message}" for n in notes(app)]
    finally:
        cache.close()
    [written] = list((tmp_path / "exports").glob("incident-*.md"))
    assert "US-KS-2dc" in copied and "US-KS-2dc" in written.read_text(encoding="utf-8")
    assert raw_controls(copied) == [] and raw_controls(written.read_bytes()) == []
    assert any("US-KS-2dc" in t for t in toasts)
    assert all(raw_controls(t) == [] for t in toasts), [raw_controls(t) for t in toasts]
