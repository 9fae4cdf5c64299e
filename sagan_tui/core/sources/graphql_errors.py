"""RunPod GraphQL's `errors` array read by kind: auth, rate limit, not found, or a rejection; and partial data.

RunPod answers many failures with HTTP 200 and `errors` (its migration notes say so), each
with a `message` and often `extensions.code`. The code decides when there is one; the message
is read only for the phrases RunPod and its SDK are known to use. Partial data (some entries
of a list nulled by a field that broke its non-null rule) keeps what parsed: each nulled
entry becomes a skipped record with RunPod's reason, never a failed poll.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sagan_tui.core.sources.errors import AuthError, RateLimited, RequestRejected, SourceError, scrub

AUTH_CODES = {"UNAUTHENTICATED", "UNAUTHORIZED", "FORBIDDEN", "INVALID_API_KEY"}
RATE_CODES = {"RATE_LIMITED", "TOO_MANY_REQUESTS", "RATE_LIMIT_EXCEEDED", "THROTTLED"}
NOT_FOUND_CODES = {"NOT_FOUND", "POD_NOT_FOUND"}
_AUTH_WORDS = re.compile(r"(?i)unauthori[sz]ed|api key|not authenticated|unauthenticated")
_RATE_WORDS = re.compile(r"(?i)rate.?limit|too many requests")
_NOT_FOUND_WORDS = re.compile(r"(?i)\bnot found\b|does not exist")
_RETRY_IN = re.compile(r"(?i)(?:retry|try again)\D{0,20}?(\d+(?:\.\d+)?)\s*(?:s\b|sec)")
MAX_MESSAGE = 300


class PodNotFound(RequestRejected):
    """RunPod says the pod does not exist (any more): it is gone, not an error of the account."""


@dataclass
class Reading:
    """What an `errors` array means: one error to raise, or data to keep with per-entry reasons."""

    error: SourceError | None = None
    skipped: list[str] = field(default_factory=list)


def _code(err: dict[str, Any]) -> str:
    ext = err.get("extensions")
    code = ext.get("code") if isinstance(ext, dict) else None
    return code.upper() if isinstance(code, str) else ""


def _retry_after(err: dict[str, Any], header: float | None) -> float | None:
    ext = err.get("extensions") if isinstance(err.get("extensions"), dict) else {}
    for key in ("retryAfter", "retry_after", "retryAfterSeconds"):
        v = ext.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 86400:
            return float(v)
    if header is not None:
        return header
    m = _RETRY_IN.search(str(err.get("message", "")))
    return float(m.group(1)) if m else None


def _entry(path: Any) -> str | None:
    """`["myself", "pods", 3, "name"]` -> "pods[3].name": a list entry the error nulled, or None."""
    if not isinstance(path, list) or not any(isinstance(p, int) for p in path):
        return None
    out = ""
    for p in path[1:] if len(path) > 1 else path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def read_errors(body: dict[str, Any], source: str, secrets: list[str], header_retry: float | None = None) -> Reading:
    """Classify a 200 reply's `errors`. Auth and rate limit win over anything else in the list."""
    errors = [e for e in body.get("errors") or [] if isinstance(e, dict)]
    if not errors:
        return Reading()

    def text(err: dict[str, Any]) -> str:
        return scrub(str(err.get("message") or "no message"), secrets)[:MAX_MESSAGE]

    for err in errors:
        code, msg = _code(err), str(err.get("message") or "")
        if code in AUTH_CODES or (not code and _AUTH_WORDS.search(msg)):
            return Reading(AuthError(source, f"RunPod GraphQL: the key is not accepted ({code or 'auth'}): {text(err)}",
                                     code=code or None))
    for err in errors:
        code, msg = _code(err), str(err.get("message") or "")
        if code in RATE_CODES or (not code and _RATE_WORDS.search(msg)):
            wait = _retry_after(err, header_retry)
            hint = f"; retry in {wait:g} s" if wait is not None else ""
            message = f"RunPod GraphQL rate limit ({code or 'rate-limited'}): {text(err)}{hint}"
            return Reading(RateLimited(source, message, code=code or None, retry_after=wait))
    data = body.get("data")
    entries = [_entry(e.get("path")) for e in errors]
    if isinstance(data, dict) and any(v is not None for v in data.values()) and all(entries):
        # Partial data: every error names a list entry it nulled; the rest of the reply stands.
        return Reading(skipped=[f"{where}: {text(e)}" for where, e in zip(entries, errors)])
    first = errors[0]
    if _code(first) in NOT_FOUND_CODES or _NOT_FOUND_WORDS.search(str(first.get("message") or "")):
        return Reading(PodNotFound(source, f"RunPod GraphQL: not found (gone): {text(first)}", code="NOT_FOUND"))
    return Reading(RequestRejected(source, f"RunPod GraphQL rejected the request: {text(first)}",
                                   code=_code(first) or None))
