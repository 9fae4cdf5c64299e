"""Where the session's socket lives, and who may talk on it.

Rules: the directory is the user's own, mode 0700 (made so, or refused if it is anyone else's or
open to others); the socket in it is 0600; every connection's peer uid is read with SO_PEERCRED
and must be ours. Never TCP: a Unix socket path. A `watch` listens at one path per cache (`watch_socket`), so a panel
started on the same cache finds it and attaches instead of polling on its own (docs/channel.md);
the path names the channel version it speaks (version.py), so only a panel of that version does.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import struct
import tempfile
from pathlib import Path

from sagan_tui.wire.channel.version import WIRE_VERSION

SOCKET_NAME = "session.sock"
WATCH_SOCKET_PREFIX = "watch-v"  # a watch's socket is named for the channel version it speaks
# sun_path is 108 bytes on Linux: a deep tmp directory would not fit, so the default base is short.
SUN_PATH_MAX = 107


class ChannelRefused(Exception):
    """The runtime directory or a peer is not safe to use; the text says which and why."""


def base_dir() -> Path:
    """$XDG_RUNTIME_DIR (a per-user tmpfs, 0700, on systemd machines), else the temp directory."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return Path(xdg) if xdg and Path(xdg).is_dir() else Path(tempfile.gettempdir())


def check_private(path: Path) -> None:
    """ChannelRefused unless `path` is a directory of ours that no one else can enter or list."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise ChannelRefused(f"{path} is not a directory")
    if st.st_uid != os.getuid():
        raise ChannelRefused(f"{path} belongs to uid {st.st_uid}, not to us (uid {os.getuid()})")
    if st.st_mode & 0o077:
        raise ChannelRefused(f"{path} is open to others (mode {stat.S_IMODE(st.st_mode):o}; it must be 700)")


def make_runtime_dir(base: Path | None = None) -> Path:
    """A fresh directory of ours, 0700, for one panel's socket (the caller removes it)."""
    path = Path(tempfile.mkdtemp(prefix="sagan-tui-", dir=base or base_dir()))
    os.chmod(path, 0o700)
    check_private(path)
    return path


def watch_socket_name(version: int = WIRE_VERSION) -> str:
    return f"{WATCH_SOCKET_PREFIX}{version}.sock"


def socket_path(runtime: Path, name: str = SOCKET_NAME) -> Path:
    path = runtime / name
    if len(os.fsencode(path)) > SUN_PATH_MAX:
        raise ChannelRefused(f"socket path {path} is longer than a Unix socket path may be")
    return path


def listen(path: Path) -> socket.socket:
    """A listening Unix socket at `path` (its directory checked private), owner-only."""
    check_private(path.parent)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # created 0600: no window in which it is open to others
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(4)
    return sock


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end (the kernel's word, not the peer's)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def check_peer(sock: socket.socket, allowed_uid: int | None = None) -> None:
    """ChannelRefused unless the peer runs as `allowed_uid` (ours by default)."""
    want = os.getuid() if allowed_uid is None else allowed_uid
    uid = peer_uid(sock)
    if uid != want:
        raise ChannelRefused(f"a peer of uid {uid} was refused: only uid {want} may use this session")


def watch_sockets(where: Path) -> list[str]:
    """The names of the watch sockets of any channel version in a watch directory (a watch from
    before the version was named listened at SOCKET_NAME: version 0)."""
    names = sorted(p.name for p in where.glob(f"{WATCH_SOCKET_PREFIX}*.sock"))
    return [*names, SOCKET_NAME] if (where / SOCKET_NAME).exists() else names


def _other_version(where: Path) -> None:
    """ChannelRefused when a watch of another channel version answers on this cache (module
    version.py); a socket a dead watch left, or none, is no watch."""
    try:
        names = watch_sockets(where)
    except OSError:
        return
    for name in names:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(1.0)
        try:
            check_private(where)
            sock.connect(str(where / name))
        except (OSError, ChannelRefused):
            continue  # nothing listens there (a watch that died), or not ours to say anything of
        finally:
            sock.close()
        version = name[len(WATCH_SOCKET_PREFIX):-len(".sock")] if name != SOCKET_NAME else "0"
        raise ChannelRefused(f"the watch on this cache speaks channel version {version}, this panel "
                             f"{WIRE_VERSION} (another install, or one upgraded while it ran): restart it to attach")


def _watch_prefix() -> str:
    return f"sagan-tui-watch-{os.getuid()}-"


def watch_dir(cache_path: Path, base: Path | None = None) -> Path:
    """The directory of the `watch` session for this cache: one per user and cache file (the
    resolved path's hash: two spellings of one file meet), under the runtime base."""
    import hashlib  # here: a panel's start looks for a watch's directory first (connect_watch)

    digest = hashlib.sha256(os.fsencode(Path(cache_path).expanduser().resolve())).hexdigest()[:16]
    return (base or base_dir()) / f"{_watch_prefix()}{digest}"


def watch_socket(cache_path: Path, base: Path | None = None) -> Path:
    return socket_path(watch_dir(cache_path, base), watch_socket_name())


def make_watch_dir(cache_path: Path, base: Path | None = None) -> Path:
    """The watch's directory, made 0700 or found ours and private (ChannelRefused otherwise: a
    directory another user made in a shared /tmp is never used)."""
    path = watch_dir(cache_path, base)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    check_private(path)
    return path


def connect_watch(cache_path: Path, base: Path | None = None, timeout: float = 1.0) -> socket.socket | None:
    """A connection to the `watch` running on this cache, or None when none answers there (no
    socket, or one a dead watch left). ChannelRefused when something answers that is not ours:
    its directory is not private, or its peer runs as another user."""
    base = base or base_dir()
    prefix = _watch_prefix()
    # No watch of ours runs at all (the usual start): no path to hash. hashlib loads OpenSSL, 5 M
    # instructions before the panel's first frame (docs/performance.md, `start_to_first_frame`).
    try:
        if not any(name.startswith(prefix) for name in os.listdir(base)):
            return None
    except OSError:
        pass  # the path's own checks below say what is wrong
    path = watch_dir(cache_path, base) / watch_socket_name()
    if not path.exists():
        _other_version(path.parent)
        return None  # (a path too long for a socket is one no watch could listen on)
    check_private(path.parent)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError as exc:
        sock.close()
        if isinstance(exc, TimeoutError) or exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            return None  # a socket file no process listens on (a watch that died), or one not accepting
        raise ChannelRefused(f"{path}: {exc.strerror or exc}") from None
    try:
        check_peer(sock)
    except ChannelRefused:
        sock.close()
        raise
    sock.settimeout(None)
    return sock
