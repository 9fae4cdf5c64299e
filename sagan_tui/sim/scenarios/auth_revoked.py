"""`auth-revoked`: the calm day, but the personal key starts answering 401 at t=60."""

from __future__ import annotations

from typing import Any

from . import calm
from ._kit import accounts

REVOKED_AT = 60.0


def build(seed: int = 0) -> dict[str, Any]:
    fx = calm.build(seed)
    fx["name"] = "auth-revoked"
    fx["accounts"] = accounts(personal=[{"from": REVOKED_AT, "kind": "401"}])
    return fx
