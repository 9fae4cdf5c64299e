"""Deterministic ids for the simulator: uuids, RunPod pod ids and stable small numbers."""

from __future__ import annotations

import hashlib
import random
import uuid

_POD_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


def stable_uuid(*parts: object) -> str:
    """A uuid4-shaped id that is the same for the same parts (fixtures stay reproducible)."""
    return str(uuid.UUID(bytes=_digest(*parts)[:16], version=4))


def stable_int(lo: int, hi: int, *parts: object) -> int:
    """A number in [lo, hi] picked by the parts, e.g. Sagan's detection delay for a pod."""
    return lo + int.from_bytes(_digest(*parts)[:4], "big") % (hi - lo + 1)


def stable_hex(n: int, *parts: object) -> str:
    return _digest(*parts).hex()[:n]


def new_pod_id(rng: random.Random, taken: set[str] | None = None) -> str:
    """A fresh 14-character RunPod pod id, not in `taken`."""
    while True:
        pod_id = "".join(rng.choice(_POD_ALPHABET) for _ in range(14))
        if not taken or pod_id not in taken:
            return pod_id
