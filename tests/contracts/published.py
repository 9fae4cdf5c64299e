"""RunPod's published definitions as stored here (see SOURCES.md), and the checks the contract tests share."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphql import GraphQLSchema, build_schema
from jsonschema import Draft202012Validator

HERE = Path(__file__).parent
OPENAPI_FILE = HERE / "runpod_openapi_v2_pods.json"
GRAPHQL_FILE = HERE / "runpod.schema"


@lru_cache(maxsize=1)
def openapi() -> dict[str, Any]:
    return json.loads(OPENAPI_FILE.read_text())


@lru_cache(maxsize=1)
def graphql_schema() -> GraphQLSchema:
    return build_schema(GRAPHQL_FILE.read_text())


def schema(name: str) -> dict[str, Any]:
    return openapi()["components"]["schemas"][name]


def validator(name: str) -> Draft202012Validator:
    """A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) for one named component."""
    root = {"$ref": f"#/components/schemas/{name}", "components": openapi()["components"]}
    return Draft202012Validator(root)


def example(path: str, method: str, status: str) -> Any:
    """The first published example of one operation's reply (following a shared `responses` $ref)."""
    reply = openapi()["paths"][path][method]["responses"][status]
    if "$ref" in reply:
        reply = openapi()["components"]["responses"][reply["$ref"].split("/")[-1]]
    content = next(iter(reply["content"].values()))
    return next(iter(content["examples"].values()))["value"]


def _resolve(s: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in s:
        s = schema(s["$ref"].split("/")[-1])
    return s


def _branches(s: dict[str, Any]) -> list[dict[str, Any]]:
    """A schema and every allOf/anyOf/oneOf branch under it, resolved (null branches dropped)."""
    s = _resolve(s)
    out = [s]
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in s.get(key, []):
            if _resolve(sub).get("type") != "null":
                out += _branches(sub)
    return out


def unpublished(instance: Any, s: dict[str, Any], where: str = "$") -> list[str]:
    """Every object key in `instance` that the published schema `s` does not declare.

    The published Pod allows extra properties (OpenAPI's default): jsonschema alone would let
    a field RunPod never sends pass. This walks the reply and names each one, with its path.
    """
    branches = _branches(s)
    out: list[str] = []
    if isinstance(instance, dict):
        props: dict[str, Any] = {}
        extra: dict[str, Any] | None = None
        for b in branches:
            props.update(b.get("properties", {}))
            if isinstance(b.get("additionalProperties"), dict):
                extra = b["additionalProperties"]  # a map (e.g. env): any key, values of this schema
        for key, value in instance.items():
            sub = props.get(key, extra)
            if sub is None:
                out.append(f"{where}.{key}")
            else:
                out += unpublished(value, sub, f"{where}.{key}")
    elif isinstance(instance, list):
        items = next((b["items"] for b in branches if "items" in b), None)
        for i, value in enumerate(instance):
            out += [f"{where}[{i}]"] if items is None else unpublished(value, items, f"{where}[{i}]")
    return out
