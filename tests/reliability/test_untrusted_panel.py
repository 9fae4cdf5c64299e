"""Every text field of every record, and the servers' error messages, full of markup, actions and escapes.

Served by a stub on loopback to the real panel under Pilot: keys pressed and the screen clicked
all over; nothing may act (the app keeps running, the clipboard and title stay untouched), no
escape or control character reaches the screen, and the text is shown literally. tests/ui covers
the simulator's fields; this adds Sagan's pod rows, RunPod's free-text fields, server error
messages, the detail and approval screens, the audit log and mouse clicks.
"""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from sagan_tui.core.models import valid_pod_id
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
from sagan_tui.core.sources.runpod_rest import RestV2Transport
from sagan_tui.panel.safe_text import clean

from tests.harness import notes, poll_now, screen_text, table_rows, toasts, wait_for
from .stub_server import EMPTY_MYSELF

INJECTIONS = [
    "[@click=app.quit]boom[/]",  # a Textual action link
    "[@click=app.bell]ring[/]",
    "[bold red]styled[/]",  # Rich markup
    "[link=http://evil.invalid]click[/link]",
    "[$accent]var[/]",  # Textual content markup variable
    "[/]", "[b]unclosed", "\\[escaped]",
    ":smiley: :warning:",  # Rich emoji codes
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b]0;PWNED-TITLE\x07",  # OSC 0: set the terminal title
    "\x1b]8;;http://evil.invalid\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b[2J\x1b[Hcleared", "\x1b[31mred\x1b[0m", "\x9b31mc1csi", "\x1bP+q544e\x1b\\dcs",
    "\x07bell\x08back\x00nul\r\x0bcr", "\u202egnp.exe\u202c", "line1\nline2\ttab",
    "{{ template }} %s %n $(id) `id`", "x" * 3000,
]
EVIL = INJECTIONS[0]
TEXTISH = [s for s in INJECTIONS if clean(s) == s and "\n" not in s and len(s) < 100]  # shown exactly as given


def world() -> dict[str, object]:
    n = len(INJECTIONS)
    exps = [{"id": f"e{i}", "number": i + 1, "title": s, "status": "blocked" if i % 3 else f"weird{s}",
             "runpodAccount": "team", "tags": [s], "kind": s, "updatedAt": "2026-05-14T10:00:00Z"}
            for i, s in enumerate(INJECTIONS)]
    events = [{"id": f"ev{i}", "entityId": f"e{i}", "experimentNumber": i + 1, "eventType": s if i % 2 else "note",
               "note": s, "fromStatus": s, "toStatus": "running", "actorKind": s,
               "createdAt": f"2026-05-14T10:{i:02d}:00Z"} for i, s in enumerate(INJECTIONS)]
    body = "\n\n".join(f"## {s}\n\n{s} [TEXTBOX:why]" for s in INJECTIONS)
    approvals = [{"id": f"apr{i}", "experimentNumber": i + 1, "title": s, "bodyMd": body, "kind": s,
                  "status": "pending", "requestedBy": s} for i, s in enumerate(INJECTIONS)]
    sagan_pods = [{"id": i, "runpod_pod_id": f"evilpod{i:07d}", "account": "team", "experiment_number": i + 1,
                   "status": "running", "name": s, "last_error": s, "blocked_reason": s} for i, s in enumerate(INJECTIONS)]
    pods = [{"id": f"evilpod{i:07d}", "name": s, "desiredStatus": "RUNNING" if i % 2 else "EXITED",
             "lastStatusChange": s, "costPerHr": 1.49, "gpuCount": 1, "podType": s, "imageName": s,
             "machine": {"gpuDisplayName": s, "dataCenterId": s}, "runtime": {"uptimeInSeconds": 30}}
            for i, s in enumerate(INJECTIONS)]
    view = {"experiment": {**exps[0], "planMd": body, "hypothesis": "\n".join(INJECTIONS), "body": EVIL},
            "events": events[:5], "approvalRequests": approvals[:1]}
    assert n == len(exps)
    return {"/api/experiments": {"experiments": exps}, "/api/events": {"events": events},
            "/api/approval-requests": {"approvalRequests": approvals}, "/api/pods": {"pods": sagan_pods},
            "/graphql": {"data": {"myself": {**EMPTY_MYSELF, "pods": pods}}}, "/api/experiments/1": view}


def assert_no_controls(text: str, where: str) -> None:
    bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f or c in "\u202a\u202b\u202c\u202d\u202e"]
    assert not bad, f"{where}: control characters on screen: {bad[:5]!r}"


async def test_every_field_and_error_message_is_shown_literally_and_nothing_acts(stub, panel, figures):
    for path, body in world().items():
        stub.set(path, body)
    app, cache = panel(stub.env(keys={"team": "rk-team-evil"}))
    screens: list[str] = []

    def look(where: str) -> str:
        text = screen_text(app)
        assert_no_controls(text, where)
        assert "PWNED" not in text or "PWNED-TITLE" in text  # shown as text if at all, never a title
        screens.append(text)
        return text

    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        main = look("main")
        for literal_text in ("[@click=app.quit]boom[/]", "[bold red]styled[/]", "[link=http://evil"):
            assert literal_text in main, literal_text
        titles = table_rows(app.experiments_table)
        assert len(titles) == len(INJECTIONS)
        shown = {c for row in titles.values() for c in row}
        for s in TEXTISH:
            assert any(s in c for c in shown), s

        # Keys around the panel: detail (plan, raw plan), approval, help, audit, incident, filter.
        app.experiments_table.focus()
        app.experiments_table.select_key("1")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Plan" in type(app.screen).__name__ or "Detail" in type(app.screen).__name__,
                       what="detail")
        await pilot.pause(0.5)
        look("detail")
        await pilot.press("m")
        await pilot.pause(0.2)
        assert EVIL in look("detail raw plan")
        await pilot.press("escape")
        for key in ("a", "question_mark", "A"):
            await pilot.press(key)
            await pilot.pause(0.3)
            look(f"screen after {key}")
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("I")
        look("incident")
        await pilot.press("I")

        # Click everywhere on the main screen; close whatever a click opened.
        clicks = 0
        for y in (5, 20, 35):
            for x in (10, 70, 130, 190):
                await pilot.click(offset=(x, y))
                clicks += 1
                if app.screen is not app.screen_stack[0]:
                    look(f"after click at {x},{y}")
                    await pilot.press("escape")
        assert app.is_running and app.return_code is None

        # The servers' own error messages, full of the same strings.
        stub.set("/graphql", {"errors": [{"message": " ".join(INJECTIONS[:12])}]}, status=500)
        stub.set("/api/experiments", {"error": EVIL, "message": " ".join(INJECTIONS[:12])}, status=503)
        stub.set("/api/experiments/2/status", {"error": EVIL, "message": " ".join(INJECTIONS)}, status=409)
        await poll_now(pilot, app)
        app.experiments_table.focus()
        app.experiments_table.select_key("2")
        await pilot.press("h")
        await pilot.pause(0.2)
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: any("hold #2 failed" in n.message for n in notes(app)), what="failure")
        await pilot.pause(0.2)
        errors_screen = look("errors")
        assert "[@click=app.quit]boom[/]" in errors_screen
        for note in toasts(app):  # the notification area draws plain Text: a toast must ask for it
            assert note.markup is False, note.message
        for note in notes(app):
            assert_no_controls(note.message, "notification")
        assert any(EVIL in n.message for n in notes(app))
        await pilot.press("A")
        await pilot.pause(0.3)
        look("audit with the failure")
        await pilot.press("escape")

        assert app.is_running and app.return_code is None
        assert app.clipboard == "" and app.title == "sagan-tui"
    figures["injection_strings"] = len(INJECTIONS)
    figures["injection_fields_per_string"] = 24
    figures["injection_clicks"] = clicks
    figures["injection_screens_checked"] = len(screens)


ID_CHARS = st.sampled_from(list("abcdefxyz0189\"'{}()\\\n $#:,\u0430"))
HOSTILE_IDS = st.sampled_from(['abcdef") { x } #', "abc}\n}def", "aaaaaa\naaaaaa", "v0c7bx292xqvg4\"", "../../x",
                              "v0c7bx292xqvg4\n"])  # `$` in a regex matches before a final newline


@settings(max_examples=30, deadline=None)
@given(pod_id=st.one_of(st.text(ID_CHARS, max_size=20), st.text(max_size=20), HOSTILE_IDS))
def test_a_pod_id_that_is_not_one_never_reaches_graphql_or_a_url(pod_id):
    import asyncio

    async def attempt() -> list[str]:
        refused = []
        for t in (GraphQLTransport("team", "rk-x", base_url="http://127.0.0.1:9"),
                  RestV2Transport("team", "rk-x", base_url="http://127.0.0.1:9")):
            for call in (t.get_pod, t.stop, t.resume, t.terminate):
                try:
                    await call(pod_id)
                except ValueError:
                    refused.append(call.__name__)
                except Exception:  # a valid id goes out (to a closed port) and fails there
                    pass
            await t.aclose()
        return refused

    refused = asyncio.run(attempt())
    assert len(refused) == (0 if re.fullmatch(r"[a-z0-9]{6,32}", pod_id) else 8), refused
    assert valid_pod_id(pod_id) == bool(re.fullmatch(r"[a-z0-9]{6,32}", pod_id))


def test_every_graphql_query_carries_only_valid_pod_ids_as_strings():
    """The queries the transport can send: constants, with at most a checked pod id pasted in."""
    from runpod.api.mutations import pods as mutations

    from sagan_tui.core.sources.runpod_graphql import ACCOUNT_QUERY, POD_FIELDS, POD_QUERY

    pid = "v0c7bx292xqvg4"
    for query in (ACCOUNT_QUERY, POD_QUERY % (pid, POD_FIELDS), mutations.generate_pod_stop_mutation(pid),
                  mutations.generate_pod_resume_mutation(pid, 1), mutations.generate_pod_terminate_mutation(pid)):
        assert all(valid_pod_id(s) for s in re.findall(r'"([^"]*)"', query)), query
