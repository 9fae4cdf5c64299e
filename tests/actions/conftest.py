"""Owner-action rigs: a simulator on loopback, a real cache and poller, the ActionRunner and a small host app."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from sagan_tui.core.actions.runner import ActionRunner
from sagan_tui.core.config_model import Settings, load_settings
from sagan_tui.core.store.cache import Cache, CachedPod
from sagan_tui.core.sync.poller import Poller
from sagan_tui.core.session.loopback import InProcessSession
from sagan_tui.panel.messages import Updated
from sagan_tui.panel.owner_desk import owner_desk
from sagan_tui.panel.registry import DESK_GROUPS, desk_bindings, offering
from sagan_tui.panel.view import PanelView

BODY = """# Plan for #503: sparse probes

## Goal

Decide whether the probe direction is real. This [b]bold[/b] and [@click=app.quit]x[/] stay literal.\x1b[31m

## Owner inputs

**budget cap**

[TEXTBOX:budget-cap-usd]

**notes**

[TEXTBOX:owner-notes]

| arm | seed | metric |
|---|---|---|
| fact | 42 | accuracy@1 |
| control | 137 | accuracy@5 |
"""


def actions_fixture(sagan_failures: list[dict] | None = None) -> dict[str, Any]:
    """Small, deterministic world: one experiment per action, pods in both accounts."""
    return copy.deepcopy({
        "name": "actions",
        "sagan": {"token": "sagan-actions-token", "failures": sagan_failures or []},
        "accounts": {"team": {"api_key": "rk-team-actions", "balance": 400.0},
                     "personal": {"api_key": "rk-personal-actions", "balance": 35.0}},
        "experiments": [
            {"number": 500, "title": "Approved, waiting for a pod", "status": "approved", "runpodAccount": "team",
             "podSpec": {"gpuType": "A100", "gpuCount": 1, "name": "exp500-run"}},
            {"number": 501, "title": "Clean result to promote", "status": "awaiting_promotion",
             "runpodAccount": "team", "hasCleanResult": True},
            {"number": 502, "title": "Running on team [b]not bold[/b]", "status": "running", "runpodAccount": "team"},
            {"number": 503, "title": "Plan waiting for the owner", "status": "plan_pending",
             "runpodAccount": "personal"},
            {"number": 504, "title": "Running on personal", "status": "running", "runpodAccount": "personal"},
        ],
        "approvalRequests": [{"id": "req-503", "experiment": 503, "kind": "experiment_plan",
                              "title": "Plan: sparse probes [b]literal[/b]", "bodyMd": BODY, "status": "pending",
                              "approvedState": "approved", "at": -60}],
        "pods": [
            {"id": "teampod502aaaa", "account": "team", "experiment": 502, "name": "exp502-run",
             "created_at": -600, "running_at": -560},
            {"id": "teampod502cccc", "account": "team", "experiment": 502, "name": "exp502-eval",
             "created_at": -500, "running_at": -460},
            {"id": "perspod504bbbb", "account": "personal", "experiment": 504, "name": "exp504-run",
             "created_at": -600, "running_at": -560, "datacenter": "EU-RO-1"},
        ],
    })


def sim_settings(sim, tmp: Path, transport: str = "graphql", **flags: Any) -> Settings:
    # These tests read the mutations by their GraphQL text; tests/sync/test_transports.py and
    # tests/sync/test_runpod_kinds.py cover the same actions over REST v2 and `auto`.
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml"),
           **{f"RUNPOD_TRANSPORT_{name.upper()}": transport for name in sim.account_keys}}
    flags.setdefault("poll_interval", 60.0)
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp / "cache.sqlite"), bell=False, **flags)
    return settings


@dataclass
class Rig:
    sim: Any
    settings: Settings
    cache: Cache
    poller: Poller
    runner: ActionRunner
    mark: int = 0  # index into sim.requests: what the test has already looked at

    def sent(self, api: str | None = None, method: str = "POST") -> list[Any]:
        """Requests received since the last `since_now()`: of one API, or every mutation of either.

        GraphQL reads are POSTs too; without `api` only its mutations count (a poll is no action).
        """
        def mutation(r) -> bool:
            return r.api != "graphql" or "mutation" in str((r.body or {}).get("query", ""))

        return [r for r in self.sim.requests[self.mark:] if r.method == method
                and (r.api == api if api is not None else mutation(r))]

    def since_now(self) -> None:
        self.mark = len(self.sim.requests)

    def graphql(self, word: str) -> list[Any]:
        """GraphQL requests since the mark whose query text holds `word` (podStop, pod(...))."""
        return [r for r in self.sim.requests[self.mark:]
                if r.api == "graphql" and isinstance(r.body, dict) and word in str(r.body.get("query", ""))]

    async def poll(self) -> Any:
        return await self.poller.poll_once(force=True)


@pytest.fixture
async def rig(sim_factory, tmp_path) -> Callable[..., Any]:
    """`await rig(scenario=... | fixture=..., at=t, **settings_flags)` -> a Rig polled once at scenario time t."""
    made: list[Rig] = []

    async def make(*, scenario: str | None = None, fixture: dict | None = None, at: float | None = None,
                   latency: float = 0.0, **flags: Any) -> Rig:
        sim = sim_factory(scenario=scenario, fixture=fixture if scenario is None else None, latency=latency)
        if at is not None:
            sim.clock.jump_to(at)
        settings = sim_settings(sim, tmp_path / f"rig{len(made)}", **flags)
        cache = Cache(settings.cache_path)
        poller = Poller(settings, cache)
        r = Rig(sim, settings, cache, poller, ActionRunner.for_poller(settings, cache, poller))
        made.append(r)
        await poller.poll_once()
        r.since_now()
        return r

    yield make
    for r in made:
        await r.poller.aclose()
        r.cache.close()


@offering(*DESK_GROUPS)
class HostScreen(Screen):
    """The owner's desk (its keys from the registry) on a bare screen: the selection and marks are the test's."""

    BINDINGS = desk_bindings()

    def __init__(self) -> None:
        super().__init__()
        self.desk = owner_desk(self, self)

    def on_owner_action_done(self, event) -> None:
        self.desk.done(event)

    def compose(self) -> ComposeResult:
        yield Static("host", id="host")
        yield Footer()

    def selected_experiment(self):
        n = self.app.selected
        return self.app.view.experiments.get(n) if n is not None else None

    def selected_pod(self) -> CachedPod | None:
        return self.app.view.pods.get(self.app.pod_id) if self.app.pod_id else None

    def marked_experiments(self) -> list[int]:
        return list(self.app.exp_marks)

    def marked_pods(self) -> list[str]:
        return list(self.app.pod_marks)

    def clear_marks(self) -> None:
        self.app.exp_marks.clear()
        self.app.pod_marks.clear()

    def hidden_marks(self, pane: str) -> tuple[list[str], str]:
        return [], ""  # no filter here hides a mark


class HostApp(App):
    """A minimal host of the owner-action keys over a real session (cache, poller, runner) served
    by its real host over a socketpair, spoken to as the panel speaks to it (core/session/loopback.py)."""

    def __init__(self, settings: Settings, cache: Cache, poller: Poller):
        super().__init__()
        self.settings = settings
        self.view = PanelView()
        # The rig's poller has run on the test's loop: the session makes its own clients for its loop.
        del poller
        self.session = InProcessSession(settings, cache, poll=False)
        self.refreshes = 0
        refresh = self.session.core.refresh

        def counted(at=None) -> None:  # the refreshes the session was asked for, counted where it does them
            self.refreshes += 1
            refresh(at)

        self.session.core.refresh = counted  # type: ignore[method-assign]
        self.view.apply(self.session.open_now(lambda u: self.post_message(Updated(u))).first)
        self.selected: int | None = None
        self.pod_id: str | None = None
        self.exp_marks: list[int] = []
        self.pod_marks: list[str] = []
        self.notes: list[tuple[str, str]] = []  # (severity, "title: message") of every notification

    def get_default_screen(self) -> HostScreen:
        return HostScreen()

    def on_mount(self) -> None:
        self.session.start()

    async def on_unmount(self) -> None:
        await self.session.close()

    def on_updated(self, message: Updated) -> None:
        self.view.apply(message.update)

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout=None,
               markup: bool = True) -> None:
        assert markup is False, f"notification with markup: {message!r}"
        self.notes.append((severity, f"{title}: {message}" if title else message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)


async def wave_with_192_approved(rig):
    """The reaping-wave world at t=600 with #192 approved: `r` on it goes through the guard."""
    r = await rig(scenario="reaping-wave", at=550)
    r.sim.clock.jump_to(600)
    await r.poll()
    await r.poller.sagan.set_status(192, "approved", "test setup")
    await r.poll()
    r.since_now()
    return r
