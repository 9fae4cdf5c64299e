"""Typed source failures, each mapped to a health ErrorKind, with secrets scrubbed from messages."""

from __future__ import annotations

import re
from typing import Iterable

from sagan_tui.core.models import ErrorKind

_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"']+")
_KEYISH = re.compile(r"(?i)((?:api[_-]?key|token|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+")


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove every known secret and anything that looks like a bearer credential."""
    for s in secrets:
        if s:
            text = text.replace(s, "***")
    text = _BEARER.sub(r"\1***", text)
    return _KEYISH.sub(r"\1***", text)


class SourceError(Exception):
    """A source did not answer usefully. `kind` is what the health line shows."""

    kind: ErrorKind = ErrorKind.OTHER

    def __init__(self, source: str, message: str, *, kind: ErrorKind | None = None,
                 status: int | None = None, code: str | None = None, retry_after: float | None = None):
        self.source = source
        self.status = status
        self.code = code
        self.retry_after = retry_after
        if kind is not None:
            self.kind = kind
        self.message = message

    @property
    def message(self) -> str:
        return self._message

    @message.setter
    def message(self, text: str) -> None:
        # str(exc), repr(exc) and tracebacks read args: a message scrubbed after the fact
        # must not leave the original (with a key a server quoted back) in them.
        self._message = text
        self.args = (f"{self.source}: {text}",)


class AuthError(SourceError):
    kind = ErrorKind.AUTH


class RateLimited(SourceError):
    kind = ErrorKind.RATE_LIMIT


class ServerError(SourceError):
    kind = ErrorKind.SERVER


class SourceTimeout(SourceError):
    kind = ErrorKind.TIMEOUT


class BadReply(SourceError):
    kind = ErrorKind.BAD_JSON


class BadEncoding(SourceError):
    """A reply whose body fails its Content-Encoding (a gzip stream cut or corrupt): the server
    answered, so the fault is the reply's, not the network's (#46: once said `unreachable`)."""

    kind = ErrorKind.BAD_ENCODING


class Unreachable(SourceError):
    kind = ErrorKind.UNREACHABLE


class ApiRetired(SourceError):
    """RunPod's GraphQL answered 410 Gone: the account must move to REST v2."""

    kind = ErrorKind.GONE


class Forbidden(SourceError):
    """A 403: the key is valid but has no access to that pod or action (a revoked key is a 401)."""

    kind = ErrorKind.FORBIDDEN


class ReplyTooLarge(SourceError):
    """A reply past the size bound: abandoned after reading at most the bound, never held whole."""

    kind = ErrorKind.TOO_LARGE


class RequestRejected(SourceError):
    """A 4xx with the server's `{"error", "message"}`: the request itself was refused."""

    kind = ErrorKind.CLIENT


def for_status(source: str, status: int, message: str, code: str | None = None,
               retry_after: float | None = None) -> SourceError:
    if status == 401:
        return AuthError(source, message, status=status, code=code)
    if status == 403:
        return Forbidden(source, f"key has no access to {message}", status=status, code=code)
    if status == 429:
        return RateLimited(source, message, status=status, code=code, retry_after=retry_after)
    if status == 410:
        return ApiRetired(source, message, status=status, code=code)
    if status >= 500:
        return ServerError(source, message, status=status, code=code)
    return RequestRejected(source, message, status=status, code=code)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
