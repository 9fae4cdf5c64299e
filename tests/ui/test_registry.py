"""The action registry (panel/registry.py): one entry per binding id of keymap.py, each declared by one host that can run it; read-only refuses every mutating entry."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter

from textual.binding import Binding

import sagan_tui.panel
from sagan_tui.wire.keymap import BY_ID, KEYS
from sagan_tui.panel.owner_desk import JOBS
from sagan_tui.panel.panel_keys import PanelKeys
from sagan_tui.panel.registry import APP, BY_ENTRY_ID, DESK, DESK_GROUPS, ENTRIES, OWN, mutating_ids
from tests.harness import SIZE, notes, polled, wait_for


def declarers() -> dict[str, list[type]]:
    """Every class of the UI that declares a binding, by the binding's id."""
    found: dict[str, list[type]] = {}
    for mod in pkgutil.walk_packages(sagan_tui.panel.__path__, "sagan_tui.panel."):
        module = importlib.import_module(mod.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for b in cls.__dict__.get("BINDINGS", []):
                if isinstance(b, Binding):
                    found.setdefault(b.id, []).append(cls)
    return found


def test_every_keymap_binding_is_exactly_one_registry_entry():
    ids = Counter(e.id for e in ENTRIES)
    assert [i for i, n in ids.items() if n > 1] == []
    assert set(ids) == {k.id for k in KEYS}


def test_each_entry_is_declared_with_keymaps_keys_by_hosts_that_run_it():
    found = declarers()
    for e in ENTRIES:
        hosts = found.get(e.id, [])
        assert hosts, f"{e.id} is declared nowhere"
        for host in hosts:
            binding = next(b for b in host.__dict__["BINDINGS"] if b.id == e.id)
            assert (binding.key, binding.action, binding.description) == (BY_ID[e.id].keys, e.action, e.label)
            assert callable(getattr(host, f"action_{e.name}", None)), f"{host.__name__} cannot run {e.id}"
        if e.runner == DESK:  # the desk's job for the group has the handler the generated action calls
            assert e.group in DESK_GROUPS and callable(getattr(JOBS[e.group], e.name, None)), e.id
        elif e.runner == APP:
            assert callable(getattr(PanelKeys, e.name, None)), e.id
        else:  # a widget's or a screen's own key: exactly one class declares it
            assert e.runner == OWN and len(hosts) == 1, (e.id, hosts)


def test_what_mutates_is_the_desks_or_a_pane_heard_by_the_desk_never_the_apps():
    mutating = {e.id: e for e in ENTRIES if e.mutating}
    assert {i for i, e in mutating.items() if e.runner == APP} == set()
    # The widgets' mutating keys reach the desk's gate: `x` through the main screen, the approval
    # dialog's decisions through the refusal the desk gave it.
    assert {i for i, e in mutating.items() if e.runner == OWN} == {
        "pods.dismiss", "approval.approve", "approval.reject", "approval.defer"}
    assert mutating_ids() == set(mutating)


async def test_read_only_refuses_every_mutating_desk_entry_on_a_panel_over_the_simulator(sim_factory, panel):
    """Driven over the registry: each mutating entry's key (keymap.py) on the real panel against
    the simulator says "read-only: <verb> refused", opens no dialog, and the session audits it."""
    app = panel(sim_factory(scenario="calm"), read_only=True)
    desk = [e for e in ENTRIES if e.mutating and e.runner == DESK]
    assert len(desk) >= 2
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        app.experiments_table.focus()
        for e in desk:
            key = BY_ID[e.id].keys.split(",")[0]
            await pilot.press(key)
            await wait_for(pilot, lambda: any(f"read-only: {e.mutating} refused" in n.message for n in notes(app)),
                           what=f"{e.id} refused")
            assert not app.screen.is_modal, e.id  # refused before any dialog
        audit = await app.session.audit_log()
    refused = Counter(a.action for a in audit if a.result == "refused")
    assert refused == Counter(e.mutating.replace(" ", "-") for e in desk)


async def test_a_mutating_entry_runs_when_not_read_only(sim_factory, panel):
    """The gate's other side: the same registry entry (`h`, hold) opens its dialog and refuses nothing."""
    from sagan_tui.panel.screens.hold import HoldScreen

    app = panel(sim_factory(scenario="calm"))
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        app.experiments_table.focus()
        await pilot.press(BY_ID["panel.hold"].keys)
        await wait_for(pilot, lambda: isinstance(app.screen, HoldScreen), what="the hold dialog")
        assert BY_ENTRY_ID["panel.hold"].mutating == "hold"
        assert not any("refused" in n.message for n in notes(app))
        await pilot.press("escape")
