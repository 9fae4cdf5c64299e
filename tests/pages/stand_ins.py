"""Loopback stand-ins for what watch pages: ntfy's publish API, PagerDuty's Events v2 and a JSON webhook.

Built from the services' documented routes and fields, they check what they are sent as the
services would (a PagerDuty event without a routing key or summary is refused with 400) and keep
every request for the test to read. `status` makes them answer an error; `hang` holds every reply
until the stand-in stops (a page endpoint that never answers).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body or b"null")


@dataclass
class StandIn:
    kind: str  # ntfy, pagerduty, json
    status: int | None = None
    hang: bool = False
    requests: list[Seen] = field(default_factory=list)

    def start(self) -> "StandIn":
        stand_in = self
        self._released = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                            self.rfile.read(length) if length else b"")
                stand_in.requests.append(seen)
                if stand_in.hang:
                    stand_in._released.wait(60)
                    return
                code, reply = stand_in.status or 200, {}
                if stand_in.status is None:
                    code, reply = getattr(stand_in, f"_{stand_in.kind}")(seen)
                body = json.dumps(reply).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _any

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        self.server.shutdown()
        self.server.server_close()

    # --- the services' rules -------------------------------------------------------------

    def _ntfy(self, r: Seen) -> tuple[int, dict]:
        """Publish: POST/PUT /<topic> (sequence id in X-Sequence-ID, or the path /<topic>/<seq>);
        clear: PUT /<topic>/<seq>/clear (or /read); delete: DELETE /<topic>/<seq> (ntfy 2.16)."""
        parts = [p for p in r.path.split("?")[0].split("/") if p]
        if r.method in ("POST", "PUT") and len(parts) in (1, 2):
            seq = r.headers.get("x-sequence-id") or (parts[1] if len(parts) == 2 else None)
            return 200, {"id": f"m{len(self.requests)}", "event": "message", "topic": parts[0], "sequence_id": seq}
        if r.method == "PUT" and len(parts) == 3 and parts[2] in ("clear", "read"):
            return 200, {"event": "message_clear", "topic": parts[0], "sequence_id": parts[1]}
        if r.method == "DELETE" and len(parts) == 2:
            return 200, {"event": "message_delete", "topic": parts[0], "sequence_id": parts[1]}
        return 404, {"code": 40401, "error": "page not found"}

    def _pagerduty(self, r: Seen) -> tuple[int, dict]:
        if r.method != "POST" or r.path != "/v2/enqueue":
            return 404, {"status": "invalid request"}
        e = r.json()
        ok = isinstance(e, dict) and e.get("routing_key") and e.get("event_action") in ("trigger", "acknowledge", "resolve")
        if ok and e["event_action"] == "trigger":
            p = e.get("payload") or {}
            ok = bool(p.get("summary") and p.get("source")) and p.get("severity") in ("critical", "error", "warning", "info")
        if ok and e["event_action"] != "trigger":
            ok = bool(e.get("dedup_key"))
        if not ok:
            return 400, {"status": "invalid event", "message": "Event object is invalid"}
        return 202, {"status": "success", "message": "Event processed", "dedup_key": e.get("dedup_key")}

    def _json(self, r: Seen) -> tuple[int, dict]:
        return 200, {}

    # --- what the tests read -------------------------------------------------------------

    def ntfy_by_sequence(self) -> dict[str, list[str]]:
        """sequence id -> what happened to it, in order: publish, clear, delete."""
        out: dict[str, list[str]] = {}
        for r in self.requests:
            parts = [p for p in r.path.split("?")[0].split("/") if p]
            if r.method in ("POST", "PUT") and len(parts) in (1, 2):
                out.setdefault(r.headers.get("x-sequence-id") or parts[-1], []).append("publish")
            elif len(parts) == 3:
                out.setdefault(parts[1], []).append(parts[2])
            elif r.method == "DELETE":
                out.setdefault(parts[1], []).append("delete")
        return out
