"""Recovery never destroys: what is moved aside (only the truly bad, under a fresh name) and what is refused untouched."""

import hashlib
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sagan_tui import cli
from sagan_tui.core.models import Loss
from sagan_tui.core.store import opening, schema
from sagan_tui.core.store.cache import Cache, CacheUnusable

T0 = datetime(2026, 5, 14, 10, 53, 54, tzinfo=timezone.utc)
EXE = [sys.executable, "-m", "sagan_tui"]


def a_cache_with_a_loss(path: Path) -> Path:
    c = Cache(path)
    with c.transaction() as conn:
        c.upsert_losses(conn, [Loss(pod_id="v0c7bx292xqvg4", account="team", experiment=192, running_at=T0,
                                    lost_at=T0.replace(minute=55), cost_per_hr=1.49)])
    c.close()
    return path


def fingerprint(path: Path) -> dict:
    """The bytes (and mtime) of every file under or at `path`: what 'untouched' means here."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files}


def losses_in(path: Path) -> list[str]:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        return [r[0] for r in db.execute("select pod_id from losses")]


@pytest.fixture
def env(headless_env):
    return headless_env


def run(argv, capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- truly bad: moved aside under a name nothing else holds ---------------------------------

def test_a_corrupt_cache_is_moved_aside_twice_in_one_second_and_both_copies_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(opening.time, "strftime", lambda fmt: "20261201T120000")  # one second, twice
    path = tmp_path / "c.sqlite"
    older = tmp_path / "c.sqlite.bad-20261201T120000-1"
    older.write_bytes(b"a copy moved aside by someone before")
    kept = []
    for n in range(2):
        path.write_bytes(f"garbage number {n} ".encode() * 100)
        c = Cache(path)
        assert "not a SQLite file" in c.notices[0] and "moved aside" in c.notices[0]
        c.close()
        kept.append(sorted(p.name for p in tmp_path.iterdir() if ".bad-" in p.name))
    asides = {p.name: p.read_bytes() for p in tmp_path.iterdir() if ".bad-" in p.name}
    assert set(asides) == {"c.sqlite.bad-20261201T120000", "c.sqlite.bad-20261201T120000-1",
                           "c.sqlite.bad-20261201T120000-2"}
    assert asides["c.sqlite.bad-20261201T120000"].startswith(b"garbage number 0")
    assert asides["c.sqlite.bad-20261201T120000-1"] == b"a copy moved aside by someone before"
    assert asides["c.sqlite.bad-20261201T120000-2"].startswith(b"garbage number 1")


def _failing_quick_check(path):
    """A cache of ours whose `losses` leaf page is nonsense: it opens, and quick_check fails."""
    path = a_cache_with_a_loss(path)
    with sqlite3.connect(path) as db:
        root, size = db.execute("select rootpage from sqlite_master where name = 'losses'").fetchone()[0], \
            db.execute("pragma page_size").fetchone()[0]
    raw = bytearray(path.read_bytes())
    raw[(root - 1) * size:(root - 1) * size + 8] = b"\x0d\xff\xff\xff\xff\xff\xff\xff"  # a leaf page's header, nonsense
    path.write_bytes(bytes(raw))
    return path


def test_a_database_that_fails_quick_check_is_moved_aside_by_a_writer(tmp_path):
    path = _failing_quick_check(tmp_path / "c.sqlite")
    before = path.read_bytes()
    c = Cache(path)
    assert "corrupt" in c.notices[0] and "moved aside" in c.notices[0], c.notices
    c.close()
    (aside,) = [p for p in tmp_path.iterdir() if p.name.startswith("c.sqlite.bad-") and "-wal" not in p.name
                and "-shm" not in p.name]
    assert aside.read_bytes() == before


def test_a_session_attached_to_a_watch_leaves_the_check_to_the_watch(tmp_path):
    """The watch holds the file open and checked it when it opened it (its own writes meet any
    damage since): a panel attaching to it does not read the whole file again before its first frame."""
    path = _failing_quick_check(tmp_path / "c.sqlite")
    c = Cache(path, checked=True)
    assert c.notices == [] and not [p for p in tmp_path.iterdir() if ".bad-" in p.name]
    c.close()


def test_another_applications_database_is_refused_by_readers_and_moved_aside_by_a_writer(tmp_path, env, capsys):
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("pragma application_id = 1234")
        db.execute("create table precious (x)")
        db.execute("insert into precious values (42)")
    before = fingerprint(path)
    for argv in (["report", "--cache", str(path)], ["waves", "--cache", str(path)]):
        code, out, err = run(argv, capsys)
        assert code == 2 and "another application's SQLite database" in err, (argv, err)
        assert fingerprint(path) == before
    c = Cache(path)  # a writer may move it: it is not ours
    assert "another application" in c.notices[0]
    c.close()


# --- refused, untouched ---------------------------------------------------------------------

def test_a_cache_path_that_is_a_directory_is_refused_and_left_as_it_is(tmp_path, env, capsys):
    d = tmp_path / "cache.sqlite"
    d.mkdir()
    (d / "inside.txt").write_text("mine")
    before = fingerprint(d)
    for argv in (["report", "--cache", str(d)], ["waves", "--cache", str(d)], ["sync", "--once", "--cache", str(d)]):
        code, _, err = run(argv, capsys)
        assert code == 2 and "is a directory" in err, (argv, err)
    with pytest.raises(CacheUnusable, match="is a directory"):
        Cache(d)
    assert fingerprint(d) == before and [p.name for p in tmp_path.iterdir()] == ["cache.sqlite"]


def test_a_newer_schema_is_refused_by_every_command_and_left_as_it_is(tmp_path, env, capsys):
    path = a_cache_with_a_loss(tmp_path / "c.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("update meta set value = '999' where key = 'schema_version'")
    before = fingerprint(path)
    for argv in (["report", "--cache", str(path)], ["waves", "--cache", str(path)],
                 ["sync", "--once", "--cache", str(path)]):
        code, _, err = run(argv, capsys)
        assert code == 2 and "schema v999 is newer" in err, (argv, err)
    env.setenv("SAGAN_TUI_CACHE", str(path))
    code, out, _ = run(["doctor"], capsys)
    assert code != 0 and any(ln.startswith("FAIL cache:") and "newer" in ln for ln in out.splitlines()), out
    assert fingerprint(path) == before and losses_in(path) == ["v0c7bx292xqvg4"]
    assert not any(".bad-" in p.name for p in tmp_path.iterdir())


def test_a_file_that_is_not_sqlite_is_refused_by_readers_untouched(tmp_path, env, capsys):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"my notes, not a database\n" * 50)
    before = fingerprint(path)
    for argv in (["report", "--cache", str(path)], ["waves", "--cache", str(path)]):
        code, _, err = run(argv, capsys)
        assert code == 2 and "not a SQLite file" in err, (argv, err)
    env.setenv("SAGAN_TUI_CACHE", str(path))
    _, out, _ = run(["doctor"], capsys)
    assert any(ln.startswith("FAIL cache:") and "not a SQLite file" in ln for ln in out.splitlines()), out
    assert fingerprint(path) == before and [p.name for p in tmp_path.iterdir()] == ["c.sqlite"]


def test_a_cache_locked_by_another_process_is_busy_not_corrupt(tmp_path, env, capsys):
    path = a_cache_with_a_loss(tmp_path / "c.sqlite")
    env.setattr(opening, "BUSY_TIMEOUT_MS", 100)  # the wait is not what is tested: the verdict after it is
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("pragma locking_mode = exclusive")
    holder.execute("begin exclusive")
    holder.execute("update losses set gpu = 'held' where 0")
    try:
        for argv in (["report", "--cache", str(path)], ["sync", "--once", "--cache", str(path)]):
            code, _, err = run(argv, capsys)
            assert code == 2 and "busy: another process holds its lock" in err, (argv, err)
        assert not any(".bad-" in p.name for p in tmp_path.iterdir())
    finally:
        holder.execute("rollback")
        holder.close()
    assert losses_in(path) == ["v0c7bx292xqvg4"]


# Another process asks for the file's exclusive lock (as SQLite does on the last close, to
# checkpoint and delete the WAL): it must be refused while a connection here holds the file.
TAKE_EXCLUSIVE = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    c.execute("pragma locking_mode = exclusive")
    c.execute("begin exclusive")
    c.execute("select count(*) from sqlite_master").fetchone()
    print("taken")
except sqlite3.OperationalError as exc:
    print(f"refused: {exc}")
"""


def test_opening_the_cache_again_in_one_process_keeps_the_first_connections_locks(tmp_path):
    # Closing a plain open() of the file drops every POSIX lock this process holds on it: another
    # process could then checkpoint and delete the WAL under the first connection.
    path = a_cache_with_a_loss(tmp_path / "c.sqlite")
    first = Cache(path)
    first.db.conn.execute("begin immediate")
    try:
        for read_only in (False, True):  # the panel's second open, then a report's
            Cache(path, read_only=read_only).close()
            took = subprocess.run([sys.executable, "-c", TAKE_EXCLUSIVE, str(path)], capture_output=True,
                                  text=True, timeout=60)
            assert took.stdout.strip() == "refused: database is locked", (read_only, took.stdout, took.stderr)
    finally:
        first.db.conn.execute("rollback")
        first.close()
    assert losses_in(path) == ["v0c7bx292xqvg4"]


def test_readers_never_write_a_sound_cache(tmp_path, env, capsys):
    path = a_cache_with_a_loss(tmp_path / "c.sqlite")
    before = fingerprint(path)
    code, out, _ = run(["report", "--cache", str(path)], capsys)
    assert code == 0 and "v0c7bx292xqvg4" in out
    assert run(["waves", "--cache", str(path), "--format", "json"], capsys)[0] == 0
    env.setenv("SAGAN_TUI_CACHE", str(path))
    _, out, _ = run(["doctor"], capsys)
    assert "ok   cache:" in out and ", 1 loss" in out and "1 losses" not in out, out
    assert fingerprint(path) == before
    c = Cache(path, read_only=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly|read-only"):
        with c.transaction() as conn:
            conn.execute("delete from losses")
    c.close()
    assert losses_in(path) == ["v0c7bx292xqvg4"]


def test_a_full_disk_inside_a_write_is_reported_as_such_not_as_a_failed_rollback(tmp_path):
    """SQLite's own page limit gives the SQLITE_FULL a full disk gives, on any machine."""
    c = Cache(a_cache_with_a_loss(tmp_path / "c.sqlite"))
    pages = c.db.execute("pragma page_count").fetchone()[0]
    c.db.execute(f"pragma max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        with c.transaction() as conn:
            conn.executemany("insert into events (id, data) values (?, ?)",
                             [(f"e{i}", "x" * 2000) for i in range(200)])
    assert opening.cause_of(sqlite3.OperationalError("x")) == "x"
    assert [x.pod_id for x in c.losses()] == ["v0c7bx292xqvg4"] and c.counts()["events"] == 0
    c.close()


# --- other users and full disks: real ones where this machine allows -----------------------

@pytest.fixture
def shared_dir(tmp_path):
    """A directory another user can enter (pytest's own are private to their owner)."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="sagan-tui-shared-"))
    d.chmod(0o755)
    yield d
    subprocess.run(["rm", "-rf", str(d)], check=False)


def _sub_env(d: Path) -> dict:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    return {**base, "HOME": str(d), "SAGAN_TUI_CONFIG": str(d / "none.toml"), "SAGAN_BASE_URL": "http://127.0.0.1:9"}


def test_another_users_cache_is_read_by_reports_and_refused_by_sync_untouched(shared_dir, other_user):
    path = a_cache_with_a_loss(shared_dir / "c.sqlite")
    path.chmod(0o644)
    if os.geteuid() != 0:  # root ignores modes: there the commands run as another user instead
        path.chmod(0o444)
    shared_dir.chmod(0o555)
    before = fingerprint(path)
    env = {**_sub_env(shared_dir), **other_user.env}
    r = subprocess.run([*other_user.command, "report", "--cache", str(path)], env=env, cwd=other_user.cwd,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "1 pod lost" in r.stdout, r.stderr
    r = subprocess.run([*other_user.command, "sync", "--once", "--cache", str(path)], env=env, cwd=other_user.cwd,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "read-only" in r.stderr and "Traceback" not in r.stderr, r.stderr
    shared_dir.chmod(0o755)
    assert fingerprint(path) == before and sorted(p.name for p in shared_dir.iterdir()) == ["c.sqlite"]


def test_a_read_only_cache_directory_is_a_clear_error(shared_dir, other_user):
    ro = shared_dir / "ro"
    ro.mkdir(mode=0o555)
    ro.chmod(0o555)
    r = subprocess.run([*other_user.command, "sync", "--once", "--cache", str(ro / "c.sqlite")],
                       env={**_sub_env(shared_dir), **other_user.env}, cwd=other_user.cwd, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and f"its directory {ro} is read-only" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and list(ro.iterdir()) == []


def _can_mount_tmpfs() -> bool:
    if os.geteuid() != 0:
        return False
    r = subprocess.run(["unshare", "-m", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d"],
                       capture_output=True)
    return r.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and mount namespaces for a small tmpfs")
def test_a_full_disk_at_open_is_a_clear_error_and_the_cache_is_kept(shared_dir):
    """A real full disk: a 256 KiB tmpfs in a private mount namespace, filled, then the commands."""
    cache = a_cache_with_a_loss(shared_dir / "seed.sqlite")
    script = f"""
        set -u
        d=$(mktemp -d) && mount -t tmpfs -o size=256k tmpfs "$d" && cp {cache} "$d/c.sqlite"
        dd if=/dev/zero of="$d/fill" bs=4k 2>/dev/null
        {' '.join(EXE)} sync --once --cache "$d/c.sqlite"; echo "sync=$?"
        {' '.join(EXE)} sync --once --cache "$d/new.sqlite"; echo "new=$?"
        {' '.join(EXE)} report --cache "$d/c.sqlite"; echo "report=$?"
        cmp {cache} "$d/c.sqlite" && echo same; ls "$d"
    """
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], env=_sub_env(shared_dir), capture_output=True,
                       text=True, timeout=120)
    assert "sync=2" in r.stdout and "new=2" in r.stdout and "report=0" in r.stdout, (r.stdout, r.stderr)
    assert r.stderr.count("the disk is full") == 2 and "Traceback" not in r.stderr, r.stderr
    assert "1 pod lost" in r.stdout and "same" in r.stdout
    assert "new.sqlite" not in r.stdout and ".bad-" not in r.stdout


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and mount namespaces for a small tmpfs")
def test_a_disk_that_fills_during_a_sync_poll_shows_the_real_error_and_keeps_the_cache(shared_dir, sim_factory):
    """The disk fills inside the poll's transactions (not at open): the message is the full disk,
    never "cannot rollback - no transaction is active", nor a source blamed for it."""
    sim = sim_factory(scenario="large-fleet")  # thousands of rows: more than the space left
    seed = a_cache_with_a_loss(shared_dir / "seed.sqlite")
    script = f"""
        d=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && cp {seed} "$d/c.sqlite"
        dd if=/dev/zero of="$d/fill" bs=4k count=200 2>/dev/null
        {' '.join(EXE)} sync --once --cache "$d/c.sqlite"; echo "sync=$?"
        {sys.executable} -c "import sqlite3; db = sqlite3.connect('$d/c.sqlite');\\
print(db.execute('pragma integrity_check').fetchone()[0], db.execute('select pod_id from losses').fetchall())"
    """
    env = {**_sub_env(shared_dir), **sim.env()}
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert "sync=2" in r.stdout, (r.stdout, r.stderr[-2000:])
    assert "the disk is full (what earlier polls wrote is kept)" in r.stderr
    assert "cannot rollback" not in r.stderr and "Traceback" not in r.stderr and "ERR" not in r.stdout
    assert "ok [('v0c7bx292xqvg4',)]" in r.stdout
    secrets = [v for k, v in sim.env().items() if k.endswith(("_TOKEN", "_KEY_TEAM", "_KEY_PERSONAL"))]
    assert len(secrets) == 3 and not any(s in r.stdout + r.stderr for s in secrets)


def test_an_older_schema_is_not_migrated_by_a_reader_which_says_how_to(tmp_path, env, capsys):
    path = a_cache_with_a_loss(tmp_path / "c.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("update meta set value = '0' where key = 'schema_version'")
    before = fingerprint(path)
    code, _, err = run(["report", "--cache", str(path)], capsys)
    assert code == 2 and "needs migrating: open it once with the panel or `sync`" in err, err
    assert fingerprint(path) == before
    c = Cache(path)  # a writer migrates it, and says so
    assert any("migrated" in n for n in c.notices)
    c.close()
    assert run(["report", "--cache", str(path)], capsys)[0] == 0
