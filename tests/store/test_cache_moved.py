"""The cache file removed or replaced under an open Cache: noticed, and put back from what it holds."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sagan_tui.core.models import Action, Loss
from sagan_tui.core.store import opening
from sagan_tui.core.store.cache import Cache, CacheUnusable

T0 = datetime(2026, 5, 14, 10, 54, 55, tzinfo=timezone.utc)
R5 = ["v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m", "cv13x9s487tvwn"]


def loss(pod_id: str, account: str = "team") -> Loss:
    return Loss(pod_id=pod_id, account=account, lost_at=T0, source="runpod", reason="vanished while RUNNING")


def held_only_in_the_wal(c: Cache) -> None:
    """The r5 wave's five losses and two audit rows, committed to the WAL and never checkpointed
    (the file alone holds none of them: only the open connection can still give them back)."""
    c.db.conn.execute("pragma wal_autocheckpoint = 0")
    with c.transaction() as conn:
        c.upsert_losses(conn, [loss(p, "personal" if p.startswith(("j0", "cv")) else "team") for p in R5])
    c.audit(Action(at=T0, action="hold", target="#192", result="ok"))
    c.audit(Action(at=T0, action="hold", target="#363", result="ok"))


def read_back(path) -> tuple[set[str], list[str]]:
    """What `report` would read: a new read-only Cache on the path."""
    r = Cache(path, read_only=True)
    try:
        return {x.pod_id for x in r.losses()}, sorted(a.target for a in r.actions())
    finally:
        r.close()


def sound(path) -> bool:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("pragma quick_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("removed", [("",), ("", "-wal", "-shm")], ids=["the file", "the file, its -wal and -shm"])
def test_a_cache_file_removed_under_a_writer_is_recreated_with_every_loss_and_audit_row(tmp_path, removed):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    assert c.moved() is None and c.recreate() is None
    for suffix in removed:
        os.remove(f"{path}{suffix}")
    assert c.moved() == "removed"
    said = c.recreate()
    assert said.startswith(f"cache file {path} was removed") and "5 losses, 2 audit rows" in said
    assert c.moved() is None
    assert read_back(path) == (set(R5), ["#192", "#363"])
    # It goes on writing to the recreated file, which a new connection reads and checks sound.
    c.audit(Action(at=T0, action="stop", target="j18eiux6ccekyj", result="ok"))
    assert read_back(path)[1] == ["#192", "#363", "j18eiux6ccekyj"]
    c.close()
    assert sound(path) and read_back(path) == (set(R5), ["#192", "#363", "j18eiux6ccekyj"])
    assert sorted(p.name for p in tmp_path.iterdir() if ".recreating-" in p.name or ".held-" in p.name) == []


def test_a_writer_closed_after_its_file_was_removed_puts_it_back_first(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    os.remove(path)
    c.close()  # a `sync --once` or a panel quitting before its next look
    assert read_back(path) == (set(R5), ["#192", "#363"])


def test_a_cache_directory_removed_whole_is_recreated(tmp_path):
    path = tmp_path / "cache" / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    for f in path.parent.iterdir():
        f.unlink()
    path.parent.rmdir()
    assert "was removed" in c.recreate()
    c.close()
    assert read_back(path) == (set(R5), ["#192", "#363"])


def test_a_cache_replaced_by_another_file_is_used_and_what_it_lacks_is_kept_beside_it(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    other = Cache(tmp_path / "other.sqlite")
    with other.transaction() as conn:
        other.upsert_losses(conn, [loss(R5[0])])
    other.close()
    os.replace(tmp_path / "other.sqlite", path)  # `mv other.sqlite c.sqlite` over the open cache
    assert c.moved() == "replaced"
    said = c.recreate()
    aside = [p for p in tmp_path.iterdir() if ".held-" in p.name]
    assert len(aside) == 1 and str(aside[0]) in said and "lacks 4 losses, 2 audit rows" in said
    assert read_back(path) == ({R5[0]}, [])  # the file at the path is left as it was...
    assert read_back(aside[0]) == (set(R5), ["#192", "#363"])  # ...and nothing this process held is lost
    c.audit(Action(at=T0, action="hold", target="#366", result="ok"))  # now written to the file at the path
    c.close()
    assert read_back(path) == ({R5[0]}, ["#366"])


def test_sync_refuses_a_fresh_cache_beside_the_log_of_a_removed_one(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    wal = (tmp_path / "c.sqlite-wal").read_bytes()
    c.close()
    (tmp_path / "c.sqlite-wal").write_bytes(wal)  # a process ended on a removed file: its log left behind
    path.unlink()
    with pytest.raises(CacheUnusable) as refused:
        Cache(path)
    why = str(refused.value)
    assert f"{path}-wal" in why and "is still there" in why and "delete them" in why
    assert not path.exists() and (tmp_path / "c.sqlite-wal").read_bytes() == wal  # nothing touched


# Another process on the same cache, which recreates the file first: this one then uses it, and the
# process exiting leaves the file (and the WAL it writes) whole.
OTHER = textwrap.dedent("""
    import sys
    from datetime import datetime, timezone
    from sagan_tui.core.models import Action
    from sagan_tui.core.store.cache import Cache
    c = Cache(sys.argv[1])
    print("open", flush=True)
    for line in sys.stdin:
        if line.strip() == "recreate":
            print(c.recreate(), flush=True)
        elif line.strip() == "write":
            c.db.conn.execute("pragma wal_autocheckpoint = 0")
            c.audit(Action(at=datetime(2026, 5, 14, 11, tzinfo=timezone.utc), action="hold", target="#333",
                           result="ok"))
            print("wrote", flush=True)
        else:
            break
    c.close()
    print("closed", flush=True)
""")


def test_two_processes_on_a_removed_cache_end_on_one_sound_file_with_both_histories(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    other = subprocess.Popen([sys.executable, "-c", OTHER, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        assert other.stdout.readline().strip() == "open"
        held_only_in_the_wal(c)
        os.remove(path)
        other.stdin.write("recreate\n")
        other.stdin.flush()
        first = other.stdout.readline()
        assert "was removed" in first and "(5 losses, 2 audit rows" in first, first  # this one's commits too
        assert c.moved() == "replaced"
        said = c.recreate()
        assert "holding all this process held: now using it" in said, said
        assert not [p for p in tmp_path.iterdir() if ".held-" in p.name]
        other.stdin.write("write\n")
        other.stdin.flush()
        assert other.stdout.readline().strip() == "wrote"
        assert read_back(path)[1] == ["#192", "#333", "#363"]
        other.stdin.write("quit\n")
        other.stdin.flush()
        assert other.stdout.readline().strip() == "closed"
        assert other.wait(timeout=30) == 0
    finally:
        if other.poll() is None:
            other.kill()
    # This process, the last one on the removed file, closes: the file at the path keeps its log.
    c.audit(Action(at=T0, action="hold", target="#366", result="ok"))
    c.close()
    assert sound(path) and read_back(path) == (set(R5), ["#192", "#333", "#363", "#366"])


def _start(path) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", OTHER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, cwd=os.getcwd())
    assert p.stdout.readline().strip() == "open"
    return p


def _ask(p: subprocess.Popen, what: str) -> str:
    p.stdin.write(what + "\n")
    p.stdin.flush()
    return p.stdout.readline()


def test_the_last_process_on_a_removed_file_exiting_leaves_the_new_files_log_alone(tmp_path):
    # SQLite's last connection to a file checkpoints and unlinks `<path>-wal` and `-shm` by name on
    # close, unless it sees the file moved: the last process on the removed file closing must leave
    # the new file's log to the process using it.
    path = tmp_path / "c.sqlite"
    seed = Cache(path)
    held_only_in_the_wal(seed)
    seed.close()
    first, last = _start(path), _start(path)
    try:
        os.remove(path)
        assert "was removed" in _ask(first, "recreate")
        assert _ask(first, "quit").strip() == "closed" and first.wait(timeout=30) == 0
        assert "holding all this process held" in _ask(last, "recreate")  # the only one left on the old file
        c = Cache(path)
        c.db.conn.execute("pragma wal_autocheckpoint = 0")
        c.audit(Action(at=T0, action="hold", target="#366", result="ok"))  # in the new file's log only
        log = opening.identity(Path(f"{path}-wal"))
        assert _ask(last, "quit").strip() == "closed" and last.wait(timeout=30) == 0
        assert opening.identity(Path(f"{path}-wal")) == log
    finally:
        for p in (first, last):
            if p.poll() is None:
                p.kill()
    c.audit(Action(at=T0, action="hold", target="#367", result="ok"))
    assert read_back(path)[1] == ["#192", "#363", "#366", "#367"]
    c.close()
    assert sound(path) and read_back(path)[1] == ["#192", "#363", "#366", "#367"]


def test_a_cache_that_cannot_be_put_back_goes_on_with_its_file_and_leaves_no_copy(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    os.remove(path)
    path.mkdir()  # something that is no cache file took its name
    for _ in range(2):  # tried again, the same way
        with pytest.raises(CacheUnusable, match="is a directory"):
            c.recreate()
        assert [p.name for p in tmp_path.iterdir()] == ["c.sqlite"]  # the directory alone: no copy left
    c.audit(Action(at=T0, action="hold", target="#366", result="ok"))  # still the file it had
    assert sorted(a.target for a in c.actions()) == ["#192", "#363", "#366"]
    path.rmdir()
    assert "(5 losses, 3 audit rows" in c.recreate()
    c.close()
    assert read_back(path) == (set(R5), ["#192", "#363", "#366"])


def test_closing_a_cache_that_cannot_be_put_back_says_why_and_closes(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    held_only_in_the_wal(c)
    os.remove(path)
    path.mkdir()
    c.close()  # a panel quitting: it must still quit
    assert "could not be put back" in caplog.text and [p.name for p in tmp_path.iterdir()] == ["c.sqlite"]
