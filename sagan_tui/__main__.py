"""`python -m sagan_tui` is `sagan-tui`."""

from sagan_tui.cli import main

raise SystemExit(main())
