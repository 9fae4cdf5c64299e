"""Figure: pods dispatched and dollars burned into the wave AFTER the owner's response, by kind.

The `reaper-recovery` scenario (a reaper killing `team` pods 60 s after RUNNING, Sagan's recovery
loop re-dispatching #10-#12 20 s after each loss) runs in the simulator on loopback with its clock
held and stepped (no wall-clock waits); the real poller, cache, runner and containment
(core/actions/contain.py) answer at t=150 s, when each held experiment has a recovery pod starting:
- `hold-only` (the baseline, the behaviour before containment): a hold that stops nothing;
- `W` (and `H`, the same operation on marked experiments): containment of #10-#12;
- `canary-fails`: `W`, then at t=200 #10 released and re-dispatched as the canary into the reaper,
  held again by containment (origin `canary`) in the poll that sees its pod lost.
Counted over the next 10 simulated minutes: pods created for #10-#12 after the response (the
canary's own pod excepted) and what every pod of theirs cost while RUNNING after the response.
Target: 0 pods and $0.00 after `W`.
"""

from __future__ import annotations

import asyncio

from common import Figure, main, quiet_logging, settings_for_sim, temp_dir

WAVE = (10, 11, 12)
RESPOND_AT, WATCH_S, STEP_S = 150.0, 600.0, 15.0
CANARY_AT = 200.0


def _burn(sim, after: float, until: float, skip: set[str]) -> tuple[int, float]:
    """(pods created after `after`, dollars billed while RUNNING in (after, until]) for the wave's experiments."""
    pods, usd = 0, 0.0
    for p in sim.state.pods.values():
        s = p.spec
        if s.experiment not in WAVE or s.id in skip:
            continue
        pods += s.created_at > after
        t, step = after, 1.0
        while t < until:  # 1 s resolution: the state answers per time, scripted and actions alike
            st = p.runpod_state(t)
            if st is not None and st.get("status") == "RUNNING":
                usd += s.cost_per_hr * step / 3600.0
            t += step
    return pods, usd


async def _respond(kind: str, home) -> dict:
    from sagan_tui.core.actions.contain import Containment, stop_targets
    from sagan_tui.core.actions.runner import ActionRunner
    from sagan_tui.sim import SimServer
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    with SimServer(scenario="reaper-recovery") as sim:
        sim.clock.hold(RESPOND_AT - 30)
        settings = settings_for_sim(sim.env(), home / f"{kind}.sqlite", poll_interval=60.0)
        clock = lambda: sim.clock.at(sim.clock.now_t())  # noqa: E731 - the simulator's served now
        cache = Cache(settings.cache_path)
        poller = Poller(settings, cache, clock=clock)
        runner = ActionRunner.for_poller(settings, cache, poller, clock=clock)
        contain = Containment(runner, guard_minutes=WATCH_S / 60)
        try:
            await poller.poll_once(force=True)
            sim.clock.hold(RESPOND_AT)
            await poller.poll_once(force=True)
            targets = stop_targets(cache.pods(), WAVE, clock(), 60.0) if kind != "hold-only" else []
            await contain.contain(WAVE, targets, origin="W", note="Held by the owner: platform-reaper.")
            canary: set[str] = set()
            t = RESPOND_AT
            while t < RESPOND_AT + WATCH_S:
                t += STEP_S
                sim.clock.hold(t)
                await poller.poll_once(force=True)
                if kind == "canary-fails" and t >= CANARY_AT and not canary:
                    before = {p.spec.id for p in sim.state.pods.values()}
                    await runner.canary(10, confirm="10")
                    canary = {p.spec.id for p in sim.state.pods.values()} - before
                    contain.released(10)
                lost = {x.pod_id for x in cache.losses()}
                if canary and canary & lost and 10 not in contain.watched:
                    await contain.contain([10], stop_targets(cache.pods(), [10], clock(), 60.0),
                                          origin="canary", note="Held again: the canary was lost.")
                statuses = {n: (e.status, e.updated_at, None) for n in contain.watched if (e := cache.experiment(n))}
                await contain.step(clock(), statuses, cache.pods())
            pods, usd = _burn(sim, RESPOND_AT, RESPOND_AT + WATCH_S, canary)
            reheld = [a.origin for a in cache.actions() if a.action == "hold" and a.result == "ok"].count("canary")
            return {"pods": pods, "usd": round(usd, 2), "canary_pods": len(canary), "canary_reheld": reheld}
        finally:
            await poller.aclose()
            cache.close()


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    home = temp_dir("sagan-bench-contain-")
    kinds = ("hold-only", "W", "canary-fails")
    detail = {k: asyncio.run(_respond(k, home)) for k in kinds}
    w, before = detail["W"], detail["hold-only"]
    return [
        Figure("contain_pods_after_W", "pods dispatched into the wave after W (reaper-recovery)",
               float(w["pods"]), float(before["pods"]), "pods", "<= 0 pods", 0, on="value", detail=detail),
        Figure("contain_usd_after_W", "dollars burned into the wave after W (reaper-recovery)",
               w["usd"], before["usd"], "$", "<= 0 $", 0, on="value", detail=detail),
    ]


if __name__ == "__main__":
    main(run)
