"""`python -m sagan_tui.session --socket PATH`: the panel's session process (session/serve.py)."""

import sys

from sagan_tui.session.serve import main

if __name__ == "__main__":
    sys.exit(main())
