"""safe_text: escapes and control characters never reach the terminal; markup stays text."""

from hypothesis import given, strategies as st
from rich.text import Text

from sagan_tui.panel.safe_text import clean, literal, one_line

NASTY = ["[@click=app.quit]boom[/]", "[/]", "[bold red]x", "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J\x1b[H",
         "\x9b31m", "\x1bP+q544e\x1b\\", "a\u202eb", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\"]


def test_escape_sequences_are_stripped():
    assert clean("a\x1b]52;c;ZXZpbA==\x07b") == "ab"  # OSC 52 would write the clipboard
    assert clean("\x1b[31mred\x1b[0m") == "red"
    assert clean("x\x9b31mY") == "xY"  # 8-bit CSI
    assert clean("t\x1bP+q544e\x1b\\u") == "tu"  # DCS
    assert clean("unterminated \x1b]0;title") == "unterminated "
    assert clean("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert clean("bidi\u202eevil") == "bidievil"


def test_newlines_only_when_asked():
    assert clean("a\r\nb\tc") == "a b    c"
    assert clean("a\r\nb", multiline=True) == "a\nb"


def test_markup_stays_literal():
    t = literal("[@click=app.quit]boom[/] [bold red]x")
    assert isinstance(t, Text)
    assert t.plain == "[@click=app.quit]boom[/] [bold red]x"
    assert not t.spans  # nothing was parsed into a style or an action


def test_one_line_cuts():
    assert one_line("a\nb   c") == "a b c"
    assert one_line("x" * 300, 10) == "x" * 9 + "…"


@given(st.text(alphabet=st.sampled_from(["a", "[", "/", "]", "\x1b", "\x07", "\x9b", "\x9d", "\n", "\r",
                                         "\x00", "\x7f", "m", ";", "\\", "\u202e", "P", "é"]), max_size=60))
def test_clean_leaves_no_control_characters(s):
    out = clean(s)
    assert not any(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f for ch in out)
    assert "\u202e" not in out


def test_clean_of_every_nasty_string_is_printable():
    for s in NASTY:
        assert clean(s).isprintable(), s
