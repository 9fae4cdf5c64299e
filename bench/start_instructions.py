"""The UI process's instructions from exec to its first frame, by phase, against the bare app's (valgrind).

`python bench/start_instructions.py [--phases]` (valgrind on PATH; one run a phase). Not a figure
of `make bench`: a diagnosis for `start_to_first_frame`. A time on a shared 2-core machine moves with
every other process (and with the session process, which starts beside the UI and competes for the
cores); an instruction count under callgrind does not: the same tree counts the same to a few
tenths of a percent, so a change to the start-up path reads as its own cost. The panel runs as
bench_start runs it (`python -m sagan_tui`, process mode, the warm large-fleet cache, a 200x50 pty);
the child process is not counted. Each phase is one run that exits at its checkpoint.
"""

from __future__ import annotations

import compileall
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import PY, ROOT, clean_env, unreachable_env, warm_cache
from ptyrun import PtyProcess

# Checkpoint -> (module, class.method, before|after) where the run exits; the first frame is the
# first write of a screen (Textual's App._display, patched here, in a measuring process only).
PHASES = {
    "imports": ("sagan_tui.panel.app", "", "after"),
    "app made": ("sagan_tui.panel.app", "SaganApp.__init__", "after"),
    "panes mounted": ("sagan_tui.panel.app", "SaganApp.panes_mounted", "before"),
    "first rows painted": ("sagan_tui.panel.app", "SaganApp.panes_mounted", "after"),
    "layout": ("textual.screen", "Screen._refresh_layout", "before"),
    "render": ("textual.screen", "Screen._compositor_refresh", "before"),
    "first frame": ("textual.app", "App._display", "after"),
}

EXIT_AT = r'''
import os, sys, importlib.util
mod, qual, when = sys.argv.pop(1).split("|")
class Hook:
    def find_spec(self, name, path, target=None):
        if name != mod:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            if not qual:
                os._exit(0)
            cls, meth = qual.split(".")
            owner = getattr(module, cls)
            f = owner.__dict__[meth]
            def at(*a, **k):
                if when == "after":
                    f(*a, **k)
                os._exit(0)
            setattr(owner, meth, at)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())
import runpy
if sys.argv[1] == "-m":
    sys.argv = sys.argv[2:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
'''


def instructions(argv: list[str], env: dict[str, str], at: tuple[str, str, str], work: Path) -> int:
    """Callgrind's instruction count of `argv` (run under a 200x50 pty) until it exits at `at`."""
    script, out = work / "exit_at.py", work / "callgrind.out"
    script.write_text(EXIT_AT)
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--trace-children=no",
           PY, str(script), "|".join(at), *argv]
    with PtyProcess(cmd, env, size=(200, 50), cwd=str(ROOT)) as p:
        deadline = time.monotonic() + 600
        while p.proc.poll() is None and time.monotonic() < deadline:
            p.pump(0.2)
    found = re.search(r"^(?:summary|totals):\s*(\d+)", out.read_text(errors="replace"), re.M)
    if found is None:
        raise RuntimeError(f"no callgrind count for {at}: {p.output[-500:]!r}")
    return int(found.group(1))


def main() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH")
    phases = list(PHASES) if "--phases" in sys.argv[1:] else ["first frame"]
    compileall.compile_dir(str(ROOT / "sagan_tui"), quiet=1)  # as bench_start: no compiling counted
    work = Path(tempfile.mkdtemp(prefix="sagan-bench-instr-"))  # removed below, as soon as it is done with
    try:
        cache = work / "cache.sqlite"
        shutil.copy(warm_cache(), cache)
        env = clean_env(work, **unreachable_env())
        bare = instructions([str(ROOT / "bench" / "baseline_apps.py"), "bare"], env, PHASES["first frame"], work)
        print(f"{'bare app, first frame':28s} {bare / 1e6:8.1f} M")
        last = 0
        for name in phases:
            n = instructions(["-m", "sagan_tui", "--cache", str(cache)], {**env, "SAGAN_TUI_SESSION": "process"},
                             PHASES[name], work)
            print(f"{'panel, ' + name:28s} {n / 1e6:8.1f} M  (+{(n - last) / 1e6:.1f} M)  {n / bare:.3f}x bare")
            last = n
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
