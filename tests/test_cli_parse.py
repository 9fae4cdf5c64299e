"""The panel's start parses its flags without the commands' parsers: the same answers as the whole parser."""

from __future__ import annotations

import re

import pytest

from sagan_tui import cli


def test_commands_names_every_subcommand_of_the_whole_parser(capsys):
    """A command added to the parser but not to COMMANDS would be read as an unknown word first."""
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["bogus"])
    listed = re.search(r"choose from (.*)\)", capsys.readouterr().err)
    assert listed is not None
    assert set(re.findall(r"'([a-z]+)'", listed.group(1))) == set(cli.COMMANDS)


@pytest.mark.parametrize("argv", [[], ["--cache", "x.sqlite", "--standalone"], ["--demo", "--scenario", "calm", "--speed", "10"],
                                  ["--read-only", "--no-mouse", "--no-bell", "--color", "256", "--poll-interval", "2"],
                                  ["--cache", "sync"], ["sync", "--once"], ["watch", "--for", "5"]])
def test_the_panels_flags_parse_as_the_whole_parser_reads_them(argv):
    assert vars(cli.parse(argv)) == vars(cli.build_parser().parse_args(argv))


def test_the_top_level_parser_alone_builds_no_command():
    assert "COMMAND" not in cli.build_parser(commands=False).format_help()
    assert "COMMAND" in cli.build_parser().format_help()


@pytest.mark.parametrize("argv", [["bogus"], ["--color", "bad"], ["--speed", "-1"], ["--he"], ["-h"]])
def test_a_word_the_panels_flags_do_not_know_is_answered_by_the_whole_parser(argv, capsys):
    with pytest.raises(SystemExit) as first:
        cli.parse(argv)
    said = capsys.readouterr()
    with pytest.raises(SystemExit) as whole:
        cli.build_parser().parse_args(argv)
    assert (first.value.code, said) == (whole.value.code, capsys.readouterr())
    assert "COMMAND" in said.out + said.err  # the usage (or the help) names the commands
