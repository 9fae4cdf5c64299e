"""`sagan-tui` run as another user (uid 65534), for the tests of files that user may not write.

Root ignores file modes, so as root those tests run the command as nobody. Nobody must then read
the interpreter, its packages and sagan_tui: a checkout in a directory only its owner can read (a
`chmod 700` home, `mktemp -d`) hides them all. When it does, what the command imports is copied to
a directory nobody can read (hard links where the file system allows: no bytes copied), removed
when the session ends; when even that cannot run, the tests skip, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SETPRIV = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# What the commands the tests run import: every module of sagan_tui (the panel, sync, report).
_PROBE = """
import importlib, pkgutil, sys, sagan_tui
for m in pkgutil.walk_packages(sagan_tui.__path__, "sagan_tui."):
    if not m.name.startswith(("sagan_tui.sim", "sagan_tui.__main__")):
        importlib.import_module(m.name)
for mod in list(sys.modules.values()):
    f = getattr(mod, "__file__", None)
    if f:
        print(f)
"""


@dataclass
class OtherUser:
    """`command` runs `python -m sagan_tui` as the other user (none of it when not root); `env` is
    added to the command's environment and `cwd` is a directory that user can enter."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    skip: str | None = None  # why the tests cannot run as another user here
    copy: Path | None = None


def _runs(cmd: list[str], env: dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([*cmd, "-c", "import sagan_tui.cli, sagan_tui.commands.sync, sqlite3, ssl"],
                          env={**os.environ, **env}, cwd=cwd, capture_output=True, text=True, timeout=120)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links
        shutil.copy2(src, dst)


def _copy_for_other_user() -> tuple[Path, list[Path]]:
    """A directory nobody can read holding sagan_tui and the packages it imports (as `site/`)."""
    import sagan_tui

    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300, check=True)
    site = Path(next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())).resolve()
    tops = {Path(f).resolve().relative_to(site).parts[0] for f in out.stdout.split()
            if Path(f).resolve().is_relative_to(site)}
    root = Path(tempfile.mkdtemp(prefix="sagan-tui-other-user-"))
    root.chmod(0o755)
    dest = root / "site"
    dest.mkdir()
    for top in sorted(tops) + [p.name for p in site.glob("*.dist-info")]:
        src = site / top
        if src.is_dir():
            shutil.copytree(src, dest / top, copy_function=_link_or_copy, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            _link_or_copy(str(src), str(dest / top))
    pkg = Path(sagan_tui.__file__).resolve().parent
    shutil.copytree(pkg, dest / "sagan_tui", copy_function=_link_or_copy, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d, dirs, files in os.walk(root):  # hard links keep their modes: make sure nobody can read them
        os.chmod(d, 0o755)
        for f in files:
            p = os.path.join(d, f)
            if not os.stat(p).st_mode & 0o004:
                shutil.copy2(p, p + ".tmp")
                os.replace(p + ".tmp", p)
                os.chmod(p, 0o644)
    return root, [dest]


def other_user() -> OtherUser:
    exe = [sys.executable, "-m", "sagan_tui"]
    if os.geteuid() != 0:
        return OtherUser(exe)  # not root: modes already bind this user
    here = _runs([*SETPRIV, sys.executable], {}, "/")
    if here.returncode == 0:
        return OtherUser([*SETPRIV, *exe], cwd="/")
    # The interpreter outside the checkout's venv, with what the commands import on PYTHONPATH.
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    root, paths = _copy_for_other_user()
    env = {"PYTHONPATH": os.pathsep.join(map(str, paths)), "PYTHONDONTWRITEBYTECODE": "1"}
    probe = _runs([*SETPRIV, base, "-s"], env, str(root))
    if probe.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        why = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        return OtherUser([], skip=f"uid 65534 cannot run {base} with sagan_tui copied to a directory it can"
                                  f" read ({why}); run the suite as a user other than root, or from a"
                                  " checkout that user can read")
    return OtherUser([*SETPRIV, base, "-s", "-m", "sagan_tui"], env, str(root), copy=root)
