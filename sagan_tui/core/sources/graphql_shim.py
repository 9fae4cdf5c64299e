"""The stand-in for `requests` inside the runpod SDK: our deadline, size bound, base URL and error kinds.

The SDK hard-codes a 30 s timeout, reads every reply whole as JSON without looking at the
status, and raises one QueryError for any `errors` entry. This shim, fitted once into
runpod.api.graphql, applies the calling transport's settings (held in a thread-local while
one of our calls runs) and raises a typed SourceError before the SDK parses anything; a good
reply (or partial data, with its nulled entries noted) goes through to the SDK untouched.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from sagan_tui.core.sources.bounded import DEFAULT_MAX_REPLY_BYTES, bad_encoding, too_large
from sagan_tui.core.collector_pause import collector_paused
from sagan_tui.core.sources.errors import (
    ApiRetired, BadReply, SourceTimeout, Unreachable, for_status, parse_retry_after, scrub,
)
from sagan_tui.core.sources.graphql_errors import read_errors

CHUNK = 64 * 1024
local = threading.local()  # source, timeout, base_url, max_bytes, skipped: set by GraphQLTransport._call


class StrictRequests:
    """Stands in for the `requests` module inside runpod.api.graphql (only `post` is used there)."""

    def __init__(self, real: Any):
        self._real = real
        self._session = real.Session()

    def post(self, url: str, headers: dict, data: str, timeout: float = 30) -> Any:
        source = getattr(local, "source", None)
        if source is None:
            # Not one of our calls (another user of the SDK in this process): plain requests.
            return self._real.post(url, headers=headers, data=data, timeout=timeout)
        our_timeout = getattr(local, "timeout", timeout)
        key = headers.get("Authorization", "")[7:]
        # The SDK builds the URL from a process-wide environment variable: two accounts polled
        # at once from two threads could each read the other's. The transport's own base wins.
        url = f"{local.base_url}/graphql"
        deadline = time.monotonic() + our_timeout
        try:
            resp = self._session.post(url, headers=headers, data=data, timeout=our_timeout, stream=True)
        except self._real.Timeout:
            raise SourceTimeout(source, f"GraphQL request timed out after {our_timeout:g} s") from None
        except self._real.RequestException as exc:
            raise Unreachable(source, f"GraphQL request failed: {type(exc).__name__}") from None
        try:
            max_bytes = getattr(local, "max_bytes", DEFAULT_MAX_REPLY_BYTES)
            content = self._read(resp, source, deadline, our_timeout, max_bytes)
        finally:
            resp.close()
        resp._content, resp._content_consumed = content, True  # what requests' .json()/.text read
        if resp.status_code >= 400:
            self._raise_status(resp, source, key)
        try:
            with collector_paused():
                body = resp.json()
        except (ValueError, RecursionError):
            raise BadReply(source, f"GraphQL reply is not valid JSON ({len(content)} bytes)") from None
        # The SDK indexes into the reply without looking (`"errors" in body`, `errors[0]["message"]`):
        # anything but an object, or errors not shaped as GraphQL's, would escape as a TypeError.
        if not isinstance(body, dict):
            raise BadReply(source, f"GraphQL reply is not a JSON object ({type(body).__name__})")
        errors = body.get("errors", [{"message": ""}])
        if not (isinstance(errors, list) and errors and isinstance(errors[0], dict)
                and isinstance(errors[0].get("message"), str)):
            raise BadReply(source, "GraphQL reply has a malformed errors list")
        if "errors" in body:
            reading = read_errors(body, source, [key], parse_retry_after(resp.headers.get("retry-after")))
            if reading.error is not None:
                raise reading.error
            local.skipped = reading.skipped
            body = {k: v for k, v in body.items() if k != "errors"}  # the SDK would raise on any entry
        # The SDK calls resp.json() twice more (once to look for errors, once to return it):
        # decoding a 1,000-pod reply three times was a tenth of a poll cycle's CPU.
        resp.json = lambda **_: body
        return resp

    def _read(self, resp: Any, source: str, deadline: float, timeout: float, max_bytes: int) -> bytes:
        """The body within the deadline and the bound: requests' timeout is per read, so a reply
        trickled a byte at a time would hold this worker thread (and the next poll's) for ever."""
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise too_large(source, "GraphQL", max_bytes)
        parts, size = [], 0
        try:
            for chunk in resp.iter_content(CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise too_large(source, "GraphQL", max_bytes)
                parts.append(chunk)
                if time.monotonic() > deadline:
                    raise SourceTimeout(source, f"GraphQL reply not complete within {timeout:g} s")
        except self._real.RequestException as exc:
            if isinstance(exc, self._real.exceptions.ContentDecodingError):
                raise bad_encoding(source, "GraphQL") from None
            if isinstance(exc, self._real.Timeout) or "timed out" in str(exc).lower():
                raise SourceTimeout(source, f"GraphQL request timed out after {timeout:g} s") from None
            raise Unreachable(source, f"GraphQL reply broken off: {type(exc).__name__}") from None
        return b"".join(parts)

    def _raise_status(self, resp: Any, source: str, key: str) -> None:
        message = f"GraphQL HTTP {resp.status_code}"
        try:
            errors = resp.json().get("errors") or []
            if errors and isinstance(errors[0], dict) and errors[0].get("message"):
                # A server may quote the credentials back: mask them before they are in any text.
                message += f": {scrub(str(errors[0]['message']), [key])}"
        except (ValueError, AttributeError, RecursionError):
            pass
        if resp.status_code == 410:
            raise ApiRetired(source, f"this RunPod API has been retired; switch account {source} to rest-v2 or auto"
                                     f" ({message})", status=410)
        raise for_status(source, resp.status_code, message,
                         retry_after=parse_retry_after(resp.headers.get("retry-after")))
