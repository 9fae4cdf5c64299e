"""The incident report: DOMAIN.md's table to the letter, pod ids to paste, next steps, no secrets."""

from __future__ import annotations

import re

from sagan_tui.core.triage import TriageContext, find_waves, render_report
from sagan_tui.core.triage.report import TABLE_HEAD

from .conftest import CONTROL, HEALTH, R4, R5, at, loss

NOW = at("10:57:30")
CTX = TriageContext(sightings=(CONTROL,), health=HEALTH, accounts_polled=("team", "personal"), losses=R4 + R5)


BURN_HEAD = "| pod | account | billed by RunPod |"


def report(losses=R4 + R5, guard_minutes=0, **kw) -> str:
    """Without following by default: these tests read r4 and r5 as two sections."""
    waves = find_waves(losses, context=CTX, guard_minutes=guard_minutes)
    return render_report(waves, CTX, NOW, all_losses=losses, **kw)


def test_table_is_domain_md_shape():
    text = report()
    assert "| run | exp | pod | account | RUNNING at | lost at | gap |\n|---|---|---|---|---|---|---|" in text
    for row in ("| 3d8f3042 | #192 | v0c7bx292xqvg4 | team | 10:53:54 | 10:54:55 | ~61 s |",
                "| 6e8a0593 | #363 | m1ayhl6nsbxw04 | team | 10:53:54 | 10:54:54 | ~60 s |",
                "| 9e039246 | #366 | lqpfpmbytlgded | team | 10:44:53 | 10:54:54 | long-running, killed in the same window |",
                "| 32e93989 | #333 | j0xvy1q82ryo8m | personal | 10:53:55 | 10:54:54 | ~59 s |",
                "| 32e93989 | #333 | cv13x9s487tvwn | personal | 10:53:55 | 10:54:54 | ~59 s |"):
        assert row in text.splitlines()
    # Every row of the loss tables (the burn table beside them has its own four columns).
    rows = [l for l in text.splitlines() if l.startswith("| ") and not l.startswith(TABLE_HEAD[0])
            and not l.startswith(BURN_HEAD)]
    rows = [r for r in rows if len(r.split(" | ")) != 4]
    assert rows and all(len(r.split(" | ")) == 7 for r in rows)


def test_sections_ids_and_next_steps():
    text = report()
    assert text.startswith("# Pod losses: 2026-05-14 10:41-10:54 UTC")
    assert "## Wave 1: 2026-05-14 10:41:02-10:43:41 UTC, team (3 pods)" in text
    assert "**Active**" in text and text.count("**Active**") == 1  # only r5, 2.5 min ago
    ticket = text.split("```text\n")[2].split("```")[0]
    for pod in ("v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn"):
        assert pod in ticket
    steps = text.split("## Next steps (owner)")[1]
    assert "Open the RunPod console of **team**, audit log for 2026-05-14 10:40-10:44 UTC, 2026-05-14 10:53-10:55 UTC" \
        in steps
    assert "Hold recovery and re-dispatch of #192, #333, #363, #366" in steps
    assert "j18eiux6ccekyj" in steps and "(last polled: team $412.50, personal $35.00)" in steps
    assert "spans both accounts (team, personal): not an account-only cause" in text


def test_no_wave_says_so_and_lists_the_losses():
    lonely = [loss("aaaaaaaaaaaaaa", lost="09:00:00"), loss("bbbbbbbbbbbbbb", lost="10:00:00")]
    text = render_report(find_waves(lonely), None, NOW, all_losses=lonely)
    assert "No reaping wave" in text and "## Losses outside any wave" in text
    assert "aaaaaaaaaaaaaa" in text and "bbbbbbbbbbbbbb" in text and "Next steps" not in text
    assert "# Pod losses: no losses" in render_report([], None, NOW)


def test_since_leaves_earlier_waves_out():
    text = report(since=at("10:50:00"))
    assert "since 2026-05-14 10:50:00 UTC" in text and text.count("## Wave ") == 1
    assert "| a41c9e07 |" not in text and "| 3d8f3042 |" in text


def test_a_followed_wave_is_one_section_listing_its_bursts_and_every_pod_in_its_ticket():
    text = report(guard_minutes=15)
    assert text.count("## Wave ") == 1 and "## Wave 1: 2026-05-14 10:41:02-10:54:55 UTC, team, personal (8 pods)" in text
    assert "**2 bursts**" in text and "- 10:41:02-10:43:41 UTC: 3 pods (team): x3k9qa7m2tbw5e" in text
    ticket = text.split("```text\n")[1].split("```")[0]
    assert all(x.pod_id in ticket for x in R4 + R5)
    assert "Losses outside any wave" not in text
    # --since inside the wave keeps it whole: the same incident, not a smaller one
    assert "| a41c9e07 |" in report(guard_minutes=15, since=at("10:50:00"))


def test_untrusted_text_cannot_break_the_table():
    nasty = [loss(f"pod{i:010d}", run="ab|cd\nef", lost="10:54:54") for i in range(3)]
    text = render_report(find_waves(nasty), None, NOW, all_losses=nasty)
    rows = [l for l in text.splitlines() if l.startswith("| ab")]
    assert rows and all(r.startswith("| ab\\|cd e") for r in rows)


def test_no_secret_looking_strings():
    text = report()
    # Key-shaped values (RunPod keys, bearer tokens, long opaque strings), not the words
    # "API-key revocations" the next steps rightly contain.
    for pattern in (r"\brk-\w+", r"\bsk-\w+", r"(?i)bearer\s+\S", r"(?i)api_key\s*[=:]", r"\brpa_\w+",
                    r"[A-Za-z0-9_\-]{32,}"):
        assert not re.search(pattern, text), pattern


def test_each_wave_section_opens_with_its_verdict_then_for_and_against():
    ctx = TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=("team", "personal"))
    text = render_report(find_waves(R4 + R5, context=ctx, guard_minutes=0), ctx, at("10:56:00"))
    for section in text.split("\n## Wave ")[1:]:
        body = section.split("\n")[2:]  # after the heading and its blank line
        assert body[0].startswith("**PLATFORM REAPER, ") and "hold re-dispatch, ticket to RunPod" in body[0]
        assert body[2] == "For:" and body.index("For:") < next(i for i, x in enumerate(body) if x.startswith("Scope:"))
    assert "**PLATFORM REAPER, high**: hold re-dispatch, ticket to RunPod with 5 pod ids" in text
