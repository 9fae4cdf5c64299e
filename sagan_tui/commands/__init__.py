"""Subcommands of the command line, one module each, imported lazily by cli.py."""
