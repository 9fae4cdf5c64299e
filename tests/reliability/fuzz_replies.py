"""Hypothesis strategies for hostile replies: valid records mutated (wrong types, missing, extra, huge, deep, null) and broken envelopes."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any, Callable

from hypothesis import strategies as st

_serial = itertools.count(1)
DEEP = "\x00deep:{}\x00"  # placeholder a serialised body swaps for raw nested JSON of that depth

# Text as servers send it: any code point, lone surrogates included (JSON escapes allow them).
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
nasty_text = st.sampled_from([
    "[@click=app.quit]x[/]", "[b]bold[/b]", "\x1b]52;c;ZXZpbA==\x07", "\x1b[2J\x1b[H", "\u202eevil", "\x00nul",
    "\ud800", "exp" + "9" * 30, "", " ", "null", "RUNNING", "Exited by Runpod: now",
])
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=2**63, max_value=2**80),
                        st.floats(), any_text, nasty_text)
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(any_text, inner, max_size=3)), max_leaves=8)
dates = st.one_of(
    st.datetimes().map(lambda d: d.isoformat() + "Z"),
    st.sampled_from(["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-05-14T10:54:55+14:00",
                     "2026-13-40T99:00:00Z", "yesterday", "2026-05-14"]))


@dataclass
class Mutation:
    kind: str  # drop, set, null, huge, deep, extra
    key: str
    value: Any = None

    def apply(self, record: dict[str, Any]) -> None:
        if self.kind == "drop":
            record.pop(self.key, None)
        elif self.kind == "null":
            record[self.key] = None
        elif self.kind == "huge":
            record[self.key] = "H" * self.value
        elif self.kind == "deep":
            record[self.key] = DEEP.format(self.value)
        else:  # set, extra
            record[self.key] = self.value


def mutations(keys: list[str], specials: dict[str, st.SearchStrategy] | None = None) -> st.SearchStrategy:
    key = st.sampled_from(keys)
    special = [st.tuples(st.just(k), s) for k, s in (specials or {}).items()]
    return st.one_of(
        st.builds(Mutation, st.just("drop"), key),
        st.builds(Mutation, st.just("null"), key),
        st.builds(Mutation, st.just("set"), key, json_value),
        st.builds(Mutation, st.just("huge"), key, st.sampled_from([5_000, 300_000])),
        # Deep values that still parse; a body nested past the parser's limit is one of BROKEN_BODIES.
        st.builds(Mutation, st.just("deep"), key, st.sampled_from([3, 60, 400])),
        st.builds(Mutation, st.just("extra"), any_text, json_value),
        *[st.builds(lambda kv: Mutation("set", kv[0], kv[1]), s) for s in special],
    )


def records(make: Callable[[int], dict], keys: list[str], specials: dict | None = None,
            max_size: int = 6) -> st.SearchStrategy[list[dict]]:
    """A list of records, each valid as made and then changed by zero to three mutations."""
    one = st.tuples(st.just(0), st.lists(mutations(keys, specials), max_size=3))

    def build(drawn: list[tuple[int, list[Mutation]]]) -> list[dict]:
        out = []
        for _, muts in drawn:
            rec = make(next(_serial))
            for m in muts:
                m.apply(rec)
            out.append(rec)
        return out

    return st.lists(one, max_size=max_size).map(build)


def serialise(envelope: Any) -> bytes:
    """JSON bytes with each DEEP placeholder replaced by nested arrays of its depth."""
    text = json.dumps(envelope)
    while "\\u0000deep:" in text:
        start = text.index('"\\u0000deep:')
        end = text.index('\\u0000"', start + 2) + len('\\u0000"')
        depth = int(text[start + len('"\\u0000deep:'):end - len('\\u0000"')])
        text = text[:start] + "[" * depth + "]" * depth + text[end:]
    return text.encode("utf-8", "surrogatepass")


BROKEN_BODIES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"", b"null", b"[]", b"5", b'"x"', b'{"a":', b"\xff\xfe\x00{", b"{" * 3000 + b"}" * 3000,
                     b"[" * 100_000 + b"]" * 100_000, b"<html>502 Bad Gateway</html>"]),
    json_value.map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
)


def envelope(key: str, items: st.SearchStrategy[list[dict]]) -> st.SearchStrategy[bytes]:
    """An object: mostly `{key: [records]}`, sometimes with junk where the list goes."""
    good = items.map(lambda recs: serialise({key: recs}))
    junk_list = json_value.map(lambda v: serialise({key: v}))
    return st.one_of(good, good, good, junk_list)


def one_broken(routes: dict[str, st.SearchStrategy[bytes]]) -> st.SearchStrategy[dict[str, bytes]]:
    """A body per route; in about one example in four, one route's body is broken.

    Sagan's poll fails as a whole on one broken body: breaking them independently would leave
    few examples whose records are read at all.
    """
    broken = st.one_of(st.none(), st.none(), st.none(), st.tuples(st.sampled_from(sorted(routes)), BROKEN_BODIES))

    def apply(drawn: tuple[dict[str, bytes], tuple[str, bytes] | None]) -> dict[str, bytes]:
        bodies, hit = drawn
        return bodies if hit is None else {**bodies, hit[0]: hit[1]}

    return st.tuples(st.fixed_dictionaries(routes), broken).map(apply)


def parse_body(body: bytes) -> Any:
    """What a tolerant client can read of `body`, or a sentinel when it is not JSON."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return NOT_JSON


NOT_JSON = object()


# --- valid records, one per kind --------------------------------------------------------

def experiment(n: int) -> dict:
    return {"id": f"fz-exp-{n}", "number": 100_000 + n, "title": f"fuzz {n}", "status": "running",
            "runpodAccount": "team", "updatedAt": "2026-05-14T10:00:00Z", "tags": ["a"],
            "planJson": {"steps": [1, 2]}, "priority": 1}


def event(n: int) -> dict:
    return {"id": f"fz-ev-{n}", "entityKind": "experiment", "entityId": f"fz-exp-{n}", "experimentNumber": 5,
            "eventType": "state_changed", "fromStatus": "queued", "toStatus": "running", "note": "ok",
            "metadata": {"k": 1}, "createdAt": "2026-05-14T10:00:00Z"}


def approval(n: int) -> dict:
    return {"id": f"fz-apr-{n}", "experimentNumber": 5, "kind": "experiment_plan", "title": "plan",
            "bodyMd": "x [TEXTBOX:why]", "status": "pending"}


def sagan_pod(n: int) -> dict:
    return {"id": n, "runpod_pod_id": f"fzsp{n:010d}", "account": "team", "experiment_number": 5,
            "status": "running", "updated_at": "2026-05-14T10:00:00Z", "cost_per_hr": 1.49}


def graphql_pod(n: int) -> dict:
    return {"id": f"fzgq{n:010d}", "name": f"exp5-fuzz-{n}", "desiredStatus": "RUNNING", "lastStatusChange": None,
            "costPerHr": 1.49, "adjustedCostPerHr": 1.49, "gpuCount": 1, "podType": "RESERVED",
            "imageName": "img", "machineId": "m1", "uptimeSeconds": 10,
            "machine": {"gpuDisplayName": "A100", "dataCenterId": "US-KS-2"}, "runtime": {"uptimeInSeconds": 10}}


def rest_pod(n: int) -> dict:
    return {"id": f"fzrs{n:010d}", "name": f"exp5-fuzz-{n}", "status": "RUNNING", "cost": 1.49,
            "gpu": {"id": "NVIDIA A100 80GB PCIe", "count": 1}, "dataCenterId": "US-KS-2", "image": "img",
            "runtime": {"uptime": 10}}


STATUS = {"status": st.one_of(any_text, st.sampled_from(["quantum_pending", "RUNNING", "", "blocked"]))}
SAGAN_ROUTES = {
    "/api/experiments": envelope("experiments", records(experiment, list(experiment(0)), STATUS)),
    "/api/events": envelope("events", records(event, list(event(0)), {"createdAt": dates})),
    "/api/approval-requests": envelope("approvalRequests", records(approval, list(approval(0)), STATUS)),
    "/api/pods": envelope("pods", records(sagan_pod, list(sagan_pod(0)), STATUS)),
}
POD_STATUS = {"desiredStatus": st.sampled_from(["RUNNING", "EXITED", "TERMINATED", "CREATED", "🙂", ""]),
              "lastStatusChange": st.sampled_from(["Exited by Runpod: x", "reclaimed", None, "[b]x"])}
REST_STATUS = {"status": st.sampled_from(["RUNNING", "EXITED", "ERROR", "PROVISIONING", "🙂", ""])}
