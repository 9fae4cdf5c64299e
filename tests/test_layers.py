"""Two wings on one wire, kept: the three import-linter contracts pass, a module's folder says
which process runs it, triage stays pure, only the sim command imports the simulator, and the
import map has no circle."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "sagan_tui"


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # As the contracts read it: an import under `if TYPE_CHECKING:` names a type and never runs.
    return grimp.build_graph("sagan_tui", include_external_packages=True, exclude_type_checking_imports=True)


def test_the_three_wing_contracts_are_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "lint-imports is not installed: `make install` installs the test extra (import-linter)"
    out = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in out.stdout


def test_the_contracts_are_the_two_wings_and_the_wire():
    by_source = {tuple(c["source_modules"]): set(c["forbidden_modules"]) for c in _contracts()}
    assert {"sagan_tui.core", "sagan_tui.sim"} <= by_source[("sagan_tui.panel",)]
    assert {"sagan_tui.panel", "textual", "sagan_tui.sim"} <= by_source[("sagan_tui.core",)]
    assert {"sagan_tui.core", "sagan_tui.panel", "textual", "pydantic"} <= by_source[("sagan_tui.wire",)]


def test_the_folders_say_which_process_runs_a_module():
    root_modules = sorted(p.name for p in PKG.glob("*.py"))
    assert len(root_modules) <= 6, root_modules
    packages = {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {"panel", "core", "wire", "sim", "commands"}, packages
    # The core's layers all live under core/ (the session process): none is left beside the wings.
    for layer in ("session", "sync", "sources", "store", "triage", "actions", "pages"):
        assert (PKG / "core" / layer / "__init__.py").is_file(), layer


def test_the_app_only_wires():
    """Each job of the panel is its own module's (start, updates, status line, keys, news): the
    App composes them, in under 200 lines."""
    lines = (PKG / "panel" / "app.py").read_text().splitlines()
    assert len(lines) < 200, f"panel/app.py has {len(lines)} lines: give the new job a module of its own"


@pytest.mark.parametrize("forbidden", ["sqlite3", "sqlite_utils", "httpx", "runpod", "requests", "socket"])
def test_triage_is_pure(graph, forbidden):
    if forbidden not in graph.modules:
        return  # nothing in the package imports it at all
    chain = graph.find_shortest_chain(importer="sagan_tui.core.triage", imported=forbidden, as_packages=True)
    assert chain is None, " -> ".join(chain)


def test_only_the_sim_command_imports_the_simulator(graph):
    # --demo runs the simulator as a process of its own.
    importers = {m for s in graph.find_descendants("sagan_tui.sim") | {"sagan_tui.sim"}
                 for m in graph.find_modules_that_directly_import(s)}
    outside = {m for m in importers if not m.startswith("sagan_tui.sim")}
    assert outside <= {"sagan_tui.commands.sim"}, sorted(outside)


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import map's circles: its strongly connected components of more than one module
    (Tarjan's algorithm, iterative), every import counted, a function's own too."""
    mods = sorted(m for m in graph.modules if m.startswith("sagan_tui"))
    edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m) if d.startswith("sagan_tui"))
             for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in mods:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on.add(v)
            if i < len(edges[v]):
                work.append((v, i + 1))
                w = edges[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def test_the_import_map_has_no_circle(graph):
    assert circles(graph) == []


def test_the_circle_finder_finds_one():
    g = grimp.ImportGraph()
    for m in ("sagan_tui", "sagan_tui.a", "sagan_tui.b", "sagan_tui.c"):
        g.add_module(m)
    g.add_import(importer="sagan_tui.a", imported="sagan_tui.b")
    g.add_import(importer="sagan_tui.b", imported="sagan_tui.c")
    g.add_import(importer="sagan_tui.c", imported="sagan_tui.a")
    assert circles(g) == [["sagan_tui.a", "sagan_tui.b", "sagan_tui.c"]]
