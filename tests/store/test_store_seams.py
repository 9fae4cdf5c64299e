"""The store owns every SQL statement (#43): none in sync/, and no import circle among store/ and sync/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp

import sagan_tui

SYNC = Path(sagan_tui.__file__).parent / "core" / "sync"
# A statement as the store writes them (lower case): what a string in sync/ must not hold.
SQL = re.compile(r"\b(select\s.+\sfrom|insert\s+(or\s+\w+\s+)?into|update\s+\w+\s+set|delete\s+from)\b", re.S)
# A connection's or the cache's own ways to run a statement.
RUNS_SQL = {"execute", "executemany", "executescript", "rows", "tuples", "_rows", "_tuples"}


def sql_in(source: str) -> list[str]:
    """Where `source` holds a statement, runs one, or uses sqlite3 beyond catching its error."""
    tree, found = ast.parse(source), []
    caught = {id(n.type) for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and n.type is not None}
    caught |= {id(e) for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and isinstance(n.type, ast.Tuple)
               for e in n.type.elts}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"line {node.lineno}: a statement: {node.value[:60]!r}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNS_SQL:
            found.append(f"line {node.lineno}: .{node.func.attr}(...)")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sqlite3"
              and id(node) not in caught):
            found.append(f"line {node.lineno}: sqlite3.{node.attr} beyond an except clause")
    return found


def test_no_module_of_sync_holds_or_runs_sql():
    assert sorted(SYNC.glob("*.py")), f"no module found in {SYNC}"
    found = {p.name: hits for p in sorted(SYNC.glob("*.py")) if (hits := sql_in(p.read_text()))}
    assert found == {}


def test_the_check_finds_sql_written_as_sync_once_held_it():
    """The shapes the poll modules held before the repositories: each is found."""
    held = '''
import sqlite3
def write(conn, cache, name):
    conn.execute(f"update pods set experiment = {known} where experiment is null")
    rows = cache._tuples("select loss from pending_exits where account = ?", (name,))
    if isinstance(conn, sqlite3.Connection):
        pass
    try:
        pass
    except (OSError, sqlite3.Error):
        pass
'''
    hits = sql_in(held)
    assert [h.split(":")[0] for h in hits].count("line 4") == 2 and len(hits) == 5, hits
    assert not any("line 10" in h for h in hits)


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Each import circle among `modules` found by a depth-first walk (one per back edge)."""
    found, state = [], {}  # state: 1 on the walk's path, 2 done

    def walk(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph.find_modules_directly_imported_by(m) & modules):
            if state.get(n) == 1:
                found.append([*path[path.index(n):], m, n] if n in path else [m, n])
            elif n not in state:
                walk(n, [*path, m])
        state[m] = 2

    for m in sorted(modules):
        if m not in state:
            walk(m, [])
    return found


def test_no_import_circle_among_the_store_and_the_poller():
    graph = grimp.build_graph("sagan_tui")  # type-checking imports count too: a circle there is one still
    ours = {m for m in graph.modules if m.startswith(("sagan_tui.core.store", "sagan_tui.core.sync"))}
    assert "sagan_tui.core.store.cache" in ours and "sagan_tui.core.sync.poller" in ours
    assert cycles(graph, ours) == []


def test_the_circle_check_finds_one():
    graph = grimp.ImportGraph()
    for m in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(m)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.z")
    assert cycles(graph, {"a.x", "a.y", "a.z"}) == []
    graph.add_import(importer="a.z", imported="a.x")
    assert cycles(graph, {"a.x", "a.y", "a.z"}) == [["a.x", "a.y", "a.z", "a.x"]]
