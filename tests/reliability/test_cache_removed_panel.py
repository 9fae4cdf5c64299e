"""The panel's cache file removed under it: said on screen within a watch tick, put back from what the
session holds, and `report` afterwards still lists every loss the panel had."""

from __future__ import annotations

import os
import subprocess

from tests.harness import notes, poll_now, wait_for

from .processes import EXE, command_env


async def test_the_panel_says_its_cache_was_removed_and_report_still_lists_its_losses(sim_factory, panel, tmp_path,
                                                                                      figures):
    sim = sim_factory(scenario="reaping-wave")
    app, cache = panel(sim.env())
    async with app.run_test(size=(200, 50)) as pilot:
        for t in (60, 130, 560, 600, 620):  # before r4, after it, after r5
            sim.clock.jump_to(t)
            await poll_now(pilot, app)
        lost = {x.pod_id for x in cache.losses()}
        assert len(lost) >= 3, lost
        for suffix in ("", "-wal", "-shm"):  # `rm panel.sqlite*`: the losses are only in the open file now
            os.remove(f"{cache.path}{suffix}")
        await wait_for(pilot, lambda: any(n.title == "Cache file removed" for n in notes(app)),
                       what="the notification that the cache file was removed")
        said = next(n for n in notes(app) if n.title == "Cache file removed")
        assert said.severity == "warning" and f"{cache.path} was removed" in said.message
        assert f"recreated from what it held ({len(lost)} losses" in said.message, said.message
        assert cache.path.is_file() and cache.moved() is None
        sim.clock.jump_to(640)
        await poll_now(pilot, app)  # the panel goes on polling into the recreated file
    report = subprocess.run([*EXE, "report", "--cache", str(cache.path)], env=command_env(sim.env(), cache.path),
                            capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    assert all(p in report.stdout for p in lost), (lost, report.stdout[:2000])
    assert "0 pods lost" not in report.stdout
    figures["cache_removed_under_panel"] = {"losses_held": len(lost), "listed_by_report_after": len(lost)}


async def test_a_cache_file_that_cannot_be_put_back_is_an_error_said_once_and_the_panel_goes_on(sim_factory, panel):
    sim = sim_factory(scenario="calm")
    app, cache = panel(sim.env())
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        os.remove(cache.path)
        cache.path.mkdir()  # something that is no cache file took its name
        await wait_for(pilot, lambda: any(n.title == "Cache file replaced" for n in notes(app)),
                       what="the notification that the cache file could not be put back")
        said = [n for n in notes(app) if n.title == "Cache file replaced"]
        assert said[0].severity == "error" and f"could not be put back: cache {cache.path}: is a directory" in said[0].message
        await poll_now(pilot, app)  # the panel goes on, on the file it had
        assert len([n for n in notes(app) if n.title == "Cache file replaced"]) == 1
        cache.path.rmdir()
    cache.close()  # puts the file back (test_cache_moved.py checks what it holds)
    assert cache.path.is_file() and cache.moved() is None
