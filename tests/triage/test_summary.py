"""One incident summary feeds the report's headline and its sections: on the demo's night (the
reaping-wave scenario's losses, docs/reaping-wave-losses.jsonl: one wave of two bursts) the
headline's pods and dollars are the sum of the sections', with or without a start inside the wave
(`K` between the bursts, or `report --since`)."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sagan_tui.core.triage import find_waves, parse_loss_lines, render_report
from sagan_tui.core.triage.gaps import burn
from sagan_tui.core.triage.summary import summarize

NIGHT = Path(__file__).resolve().parents[2] / "docs" / "reaping-wave-losses.jsonl"
BETWEEN_BURSTS = datetime(2026, 5, 14, 10, 50, tzinfo=timezone.utc)  # after r4, before r5
NOW = datetime(2026, 5, 14, 11, 30, tzinfo=timezone.utc)
EXE = Path(sys.executable).with_name("sagan-tui")


def night():
    losses, errors = parse_loss_lines(NIGHT.read_text().splitlines())
    assert not errors and len(losses) == 8
    return losses


def counted(text: str) -> tuple[int, float, int, float]:
    """(headline pods, headline $, the sections' pods, the sections' $) read from the report; the
    sections' dollars come back as an approx that allows each printed term its half cent."""
    head = re.search(r"(\d+) reaping waves?, (\d+) pods? lost, \$(\d+\.\d\d) of GPU time burned", text)
    assert head, text[:400]
    sections = [int(n) for n in re.findall(r"^## Wave \d+: .*\((\d+) pods\)$", text, re.M)]
    dollars = [float(d) for d in re.findall(r"^Total: .*estimate \$(\d+\.\d\d)", text, re.M)]
    outside = text.split("## Losses outside any wave")[1].split("\n## ")[0] if "outside any wave" in text else ""
    singles = len([r for r in outside.splitlines() if r.startswith("| ") and not r.startswith("| run ")])
    dollars += [float(d) for d in re.findall(r"^Burn outside any wave: estimate \$(\d+\.\d\d)", text, re.M)]
    return (int(head.group(2)), float(head.group(3)), sum(sections) + singles,
            pytest.approx(sum(dollars), abs=0.005 * (len(dollars) + 1) + 1e-9))


@pytest.mark.parametrize("since", [None, BETWEEN_BURSTS], ids=["whole-night", "acknowledged-between-bursts"])
def test_the_headline_is_the_sum_of_its_sections_on_the_demos_night(since):
    losses = night()
    waves = find_waves(losses)
    summary = summarize(waves, losses, since)
    assert summary.pods == sum(len(w.losses) for w in summary.waves) + len(summary.singles) == 8
    assert summary.burn_usd == pytest.approx(burn(losses)[0])  # every dollar once, none twice
    pods, usd, section_pods, section_usd = counted(render_report(waves, None, NOW, since=since, all_losses=losses))
    assert pods == section_pods == 8
    assert usd == section_usd  # each printed to the cent
    assert usd == pytest.approx(round(summary.burn_usd, 2))


def test_a_loss_outside_every_wave_counts_once_in_the_headline():
    losses = night()
    lone = losses[0].model_copy(update={"pod_id": "lonelonelone01", "lost_at": NOW.replace(hour=11, minute=20),
                                        "running_at": NOW.replace(hour=11, minute=19)})
    waves = find_waves([*losses, lone])
    summary = summarize(waves, [*losses, lone])
    assert [x.pod_id for x in summary.singles] == ["lonelonelone01"] and summary.pods == 9
    pods, usd, section_pods, section_usd = counted(render_report(waves, None, NOW, all_losses=[*losses, lone]))
    assert pods == section_pods == 9 and usd == section_usd


def test_report_since_between_the_bursts_says_the_whole_wave_in_its_headline(tmp_path):
    from sagan_tui.core.store.cache import Cache

    cache = tmp_path / "cache.sqlite"
    c = Cache(cache)
    with c.transaction() as conn:
        c.upsert_losses(conn, night())
    c.close()
    out = subprocess.run([str(EXE), "report", "--cache", str(cache), "--since", "2026-05-14T10:50:00Z"],
                         capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr
    pods, usd, section_pods, section_usd = counted(out.stdout)
    assert pods == section_pods == 8  # not the 5 losses after the start above a wave section of 8
    assert usd == section_usd


def test_ws_ticket_line_counts_what_the_exported_report_holds():
    from sagan_tui.core.triage.response import propose

    losses = night()
    lone = losses[0].model_copy(update={"pod_id": "lonelonelone01", "lost_at": NOW.replace(hour=11, minute=20),
                                        "running_at": NOW.replace(hour=11, minute=19)})
    waves = find_waves([*losses, lone])
    summary = summarize(waves, [*losses, lone], BETWEEN_BURSTS)
    line = propose(waves[0], {}, ticket=summary).line("ticket")
    pods, _usd, _sp, _su = counted(render_report(waves, None, NOW, since=BETWEEN_BURSTS, all_losses=[*losses, lone]))
    assert line.targets == summary.pod_ids and len(line.targets) == pods == 9
    assert line.label == "Export the ticket for RunPod with 9 pod ids"
