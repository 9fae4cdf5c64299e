"""`python -m sagan_tui.core.session --socket PATH`: the panel's session process (core/session/serve.py)."""

import logging
import os
import sys

from sagan_tui.core.session.serve import main

if __name__ == "__main__":
    code = main()
    # The session is closed by now: its cache closed, its last writes done, its channel gone. A
    # worker thread may still wait in a blocking RunPod request (the SDK's, up to the request's
    # deadline), and the interpreter's exit would wait for it; the panel's grace would then kill
    # this process instead. Nothing is left to do, so the process ends here.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
