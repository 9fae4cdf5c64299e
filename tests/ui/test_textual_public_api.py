"""No module of sagan_tui overrides or reads a private member of a Textual class, but those listed with the Textual issue that needs them."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

import textual.app
import textual.dom
import textual.screen
import textual.scroll_view
import textual.widget

import sagan_tui

# "path: name" -> the link to the Textual issue that makes the member necessary. At most three;
# an upgrade that fixes the issue takes its line out.
ALLOWED: dict[str, str] = {}
ROOT = Path(sagan_tui.__file__).parent
COMMON = (textual.app.App, textual.widget.Widget, textual.screen.Screen, textual.dom.DOMNode,
          textual.scroll_view.ScrollView)


@functools.cache
def _private(cls: type) -> frozenset[str]:
    """The `_`-prefixed (not dunder) names a Textual class defines or sets on self."""
    names = {n for n in vars(cls) if n.startswith("_") and not n.startswith("__")}
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return frozenset(names)
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.value.id == "self" and n.attr.startswith("_") and not n.attr.startswith("__")}
    return frozenset(names)


def _textual(cls: object) -> set[str]:
    """The private names of a class's Textual bases (none for a class that has none)."""
    if not inspect.isclass(cls):
        return set()
    return set().union(*(_private(c) for c in cls.__mro__ if c.__module__.startswith("textual")))


def uses(source: str, namespace: dict) -> list[tuple[int, str]]:
    """Where `source` (a module whose globals are `namespace`) overrides or touches a private
    member of a Textual class: a class's methods and `self.` attributes against its own Textual
    bases; any other `x._name` against every Textual class the module names or builds on."""
    anywhere = set().union(*map(_textual, COMMON), *map(_textual, namespace.values()))
    found: set[tuple[int, str]] = set()
    on_self: set[int] = set()

    def visit(node: ast.ClassDef, cls: object) -> None:
        own = _textual(cls)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in own:
                found.add((item.lineno, item.name))  # a private method overridden
            elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                found.update((t.lineno, t.id) for t in targets if isinstance(t, ast.Name) and t.id in own)
            elif isinstance(item, ast.ClassDef):
                visit(item, getattr(cls, item.name, None))
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self" \
                    and id(sub) not in on_self:
                on_self.add(id(sub))
                if sub.attr in own:
                    found.add((sub.lineno, sub.attr))
            name = _named(sub)
            if name in own:
                found.add((sub.lineno, name))

    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            visit(node, namespace.get(node.name))
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Attribute) and id(sub) not in on_self and sub.attr in anywhere:
            found.add((sub.lineno, sub.attr))
        name = _named(sub)
        if name in anywhere:
            found.add((sub.lineno, name))
    return sorted(found)


def _named(node: ast.AST) -> str | None:
    """The member a getattr/setattr/hasattr/delattr call names by a string, if it is private (a
    test's `monkeypatch.setattr(Input, "_name", ...)` too)."""
    called = node.func if isinstance(node, ast.Call) else None
    by_name = isinstance(called, ast.Name) and called.id in ("getattr", "setattr", "hasattr", "delattr")
    by_method = isinstance(called, ast.Attribute) and called.attr in ("setattr", "delattr")
    if ((by_name or by_method) and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
            and node.args[1].value.startswith("_") and not node.args[1].value.startswith("__")):
        return node.args[1].value
    return None


def test_the_check_finds_a_private_read_an_override_and_a_reach_into_an_app():
    """Each way to reach a private member it knows: a method overridden, a class attribute
    overridden, a read on self, a reach into another object, and the same by name (getattr,
    setattr)."""
    from textual.widget import Widget

    planted = ("class T(Widget):\n    def _compose(self): ...\n    def f(self): return self._dirty_regions\n"
               "def g(app): return app._keymap\n"
               "class U(Widget):\n    _render_cache = None\n    def h(self): return getattr(self, '_dirty_regions')\n"
               "def k(app): setattr(app, '_keymap', {})\n"
               "def m(monkeypatch): monkeypatch.setattr(Widget, '_compose', None)\n")
    namespace = {"Widget": Widget}
    exec(compile(planted, "planted", "exec"), namespace)
    assert uses(planted, namespace) == [(2, "_compose"), (3, "_dirty_regions"), (4, "_keymap"),
                                        (6, "_render_cache"), (7, "_dirty_regions"), (8, "_keymap"),
                                        (9, "_compose")]
    own = "class Mine:\n    def _compose(self): return self._dirty_regions\n"  # not a Textual class
    assert uses(own, {"Mine": type("Mine", (), {})}) == []


def test_no_module_reaches_into_textual_private_members_but_the_listed_ones():
    found: dict[str, list[int]] = {}
    for mod in pkgutil.walk_packages(sagan_tui.__path__, "sagan_tui."):
        path = ROOT.parent / (mod.name.replace(".", "/") + ("/__init__.py" if mod.ispkg else ".py"))
        source = path.read_text()
        if "textual" not in source:  # the core never imports it (the layer contracts)
            continue
        for line, name in uses(source, vars(importlib.import_module(mod.name))):
            found.setdefault(f"{path.relative_to(ROOT)}: {name}", []).append(line)
    unexplained = {k: v for k, v in found.items() if k not in ALLOWED}
    assert unexplained == {}, f"Textual private members used (file: name -> lines): {unexplained}"
    assert len(ALLOWED) <= 3 and all("github.com/Textualize/textual/" in v for v in ALLOWED.values())


# The tests read the panel through public seams (tests/harness.py) too. "path: name" -> why a
# name that Textual also uses privately is the test's own (its own class's attribute, the project's).
TESTS_ALLOWED: dict[str, str] = {}
TESTS = ROOT.parent / "tests"
NOT_IMPORTED = {"tests/process/ui_run.py"}  # a child process's main: importing it installs its import hook


def private_modules(source: str) -> list[tuple[int, str]]:
    """Where `source` imports a private module of Textual (`textual._compositor`, `textual.widgets._toast`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [(node.lineno, n) for n in names
                  if n.split(".")[0] == "textual" and any(p.startswith("_") for p in n.split(".")[1:])]
    return found


def test_the_tests_check_finds_a_private_module_of_textual():
    planted = "import textual._compositor\nfrom textual.widgets._toast import Toast\nfrom textual.widgets import Input\n"
    assert private_modules(planted) == [(1, "textual._compositor"), (2, "textual.widgets._toast")]


def test_no_test_reaches_into_textual_private_members():
    """As above, over tests/: a read of the App's toasts, the screen's compositor and the like would come
    back here first (a check through a private breaks on a Textual upgrade, not on a bug)."""
    found: dict[str, list[int]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        name = str(path.relative_to(TESTS.parent))
        module = name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        namespace = {} if name in NOT_IMPORTED else vars(importlib.import_module(module))
        source = path.read_text()
        for line, member in [*uses(source, namespace), *private_modules(source)]:
            found.setdefault(f"{name}: {member}", []).append(line)
    unexplained = {k: v for k, v in found.items() if k not in TESTS_ALLOWED}
    assert unexplained == {}, f"Textual private members used in tests (file: name -> lines): {unexplained}"
    assert len(TESTS_ALLOWED) <= 5, "the list is for a name the project shares with Textual, not a way around it"
