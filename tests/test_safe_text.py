"""One sanitiser: every hostile string has one answer, on screen, in notifications, reports and the audit log."""

import pytest

from sagan_tui.core.actions.runner import ActionRunner
from sagan_tui.wire.safe_text import clean, one_line
from sagan_tui.panel import heatmap_render, safe_text as ui_safe_text

# (hostile input, what every path shows). One table: a second sanitiser giving another answer fails it.
HOSTILE = [
    ("A100\x1b[31m red", "A100 red"),                           # CSI (SGR colour)
    ("x\x9b31mY", "xY"),                                        # 8-bit CSI
    ("a\x1b]52;c;ZXZpbA==\x07b", "ab"),                         # OSC 52: would write the clipboard
    ("t\x1b]0;PWNED\x1b\\u", "tu"),                             # OSC 0 ended by ST: the terminal title
    ("unterminated \x1b]0;title", "unterminated "),             # an OSC never ended eats the rest
    ("t\x1bP+q544e\x1b\\u", "tu"),                              # DCS
    ("c1\x85\x9d8;;x\x9cend", "c1end"),                          # C1 controls (NEL, 8-bit OSC to ST)
    ("esc\x1bcreset", "escreset"),                              # a bare two-byte escape (RIS)
    ("bidi\u202eevil\u2066x\u2069", "bidievilx"),               # bidi override and isolates
    ("nul\x00byte\x7f", "nulbyte"),                             # NUL and DEL
    ("two\nlines\r\nhere", "two lines here"),                   # newlines fold to one line
    ("[red]markup[/red] [@click=app.quit]q[/]", "[red]markup[/red] [@click=app.quit]q[/]"),  # stays text
    ("plain A100 80GB", "plain A100 80GB"),
]


@pytest.mark.parametrize(("hostile", "shown"), HOSTILE)
def test_every_sanitiser_name_gives_the_one_answer(hostile, shown):
    assert clean(hostile) == shown
    assert one_line(hostile) == " ".join(shown.split())
    assert ui_safe_text.clean(hostile) == shown
    assert ui_safe_text.literal(hostile).plain == shown
    assert not ui_safe_text.literal(hostile).spans  # markup never parsed into styles or actions
    assert heatmap_render.printable(hostile) == shown


@pytest.mark.parametrize(("hostile", "shown"), HOSTILE)
def test_a_server_message_in_an_action_result_carries_the_same_answer(hostile, shown):
    # Private on purpose: the runner's cleaning of a server's words is the rule, without a client or a cache.
    runner = ActionRunner.__new__(ActionRunner)
    runner._secrets = []
    assert runner._clean(hostile) == " ".join(shown.split())


@pytest.mark.parametrize(("hostile", "shown"), HOSTILE)
def test_a_report_cell_carries_the_same_answer(hostile, shown):
    from sagan_tui.core.triage.report import _cell

    assert _cell(hostile) == " ".join(shown.split()).replace("|", "\\|")


def test_the_sanitiser_lives_outside_the_ui_and_imports_no_textual():
    import subprocess
    import sys

    code = "import sys, sagan_tui.wire.safe_text; print(any(m.startswith(('textual', 'rich')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(("hostile", "shown"), [h for h in HOSTILE if "\n" not in h[0]])
def test_a_command_prints_the_same_answer_through_its_clean_stream(hostile, shown):
    import io

    from sagan_tui.wire.safe_text import CleanStream

    sink = io.StringIO()
    out = CleanStream(sink)
    print(hostile, file=out)
    assert sink.getvalue() == shown + "\n"  # a document keeps its lines


def test_a_sequence_split_across_two_writes_is_harmless_in_both():
    import io

    from sagan_tui.wire.safe_text import CleanStream

    sink = io.StringIO()
    out = CleanStream(sink)
    out.write("dc US-KS-2\x1b")
    out.write("]52;c;ZXZpbA==\x07 ok\n")
    assert "\x1b" not in sink.getvalue() and "\x07" not in sink.getvalue()
    assert sink.getvalue().startswith("dc US-KS-2") and sink.getvalue().endswith(" ok\n")
