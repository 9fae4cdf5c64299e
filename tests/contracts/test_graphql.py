"""GraphQL against RunPod's published schema: the documents we and the SDK send, and the simulator's schema."""

from __future__ import annotations

import pytest
from graphql import (
    GraphQLEnumType, GraphQLInputObjectType, GraphQLObjectType, GraphQLScalarType, build_schema, parse, validate,
)

from sagan_tui.sim.graphql_api import SCHEMA as SIM_SCHEMA
from sagan_tui.core.sources.runpod_graphql import ACCOUNT_QUERY, BALANCE_QUERY, POD_FIELDS, POD_QUERY, _load_sdk

from .published import GRAPHQL_FILE, graphql_schema

BUILT_IN = {"String", "Int", "Float", "Boolean", "ID"}


def _errors(document: str, schema=None) -> list[str]:
    return [e.message for e in validate(schema or graphql_schema(), parse(document))]


def differences(ours, published) -> list[str]:
    """Every type, field, argument or enum value of `ours` that `published` lacks or types otherwise."""
    out = []
    for name, t in ours.type_map.items():
        if name.startswith("__") or name in BUILT_IN:
            continue
        pub = published.type_map.get(name)
        if pub is None or type(pub) is not type(t):
            out.append(f"type {name}: not published as a {type(t).__name__}")
            continue
        if isinstance(t, GraphQLEnumType):
            out += [f"enum {name}.{v}: not published" for v in t.values if v not in pub.values]
        elif isinstance(t, (GraphQLObjectType, GraphQLInputObjectType)):
            for fname, field in t.fields.items():
                pf = pub.fields.get(fname)
                if pf is None:
                    out.append(f"{name}.{fname}: not published")
                    continue
                if str(field.type) != str(pf.type):
                    out.append(f"{name}.{fname}: {field.type} here, {pf.type} published")
                for aname, arg in getattr(field, "args", {}).items():
                    parg = pf.args.get(aname)
                    if parg is None or str(parg.type) != str(arg.type):
                        out.append(f"{name}.{fname}({aname}: {arg.type}): published as "
                                   f"{parg.type if parg else 'nothing'}")
        elif not isinstance(t, GraphQLScalarType):
            out.append(f"type {name}: a kind this check does not know")
    return out


def test_the_stored_schema_names_its_source():
    head = GRAPHQL_FILE.read_text().splitlines()[:2]
    assert "zygi/runpod_graphql_ariadne" in head[0] and "b3dfc6c6334edbeadfcde803431ba5bdd7392814" in head[1]


@pytest.mark.parametrize("name, document", [
    ("account", ACCOUNT_QUERY), ("balance", BALANCE_QUERY), ("pod", POD_QUERY % ("abcdef123456", POD_FIELDS)),
])
def test_every_document_the_project_sends_validates(name, document):
    assert _errors(document) == []


@pytest.mark.parametrize("builder, args", [
    ("generate_pod_stop_mutation", ("abcdef123456",)),
    ("generate_pod_resume_mutation", ("abcdef123456", 2)),
    ("generate_pod_terminate_mutation", ("abcdef123456",)),
])
def test_every_mutation_the_installed_sdk_builds_for_us_validates(builder, args):
    document = getattr(_load_sdk().mutations, builder)(*args)
    assert _errors(document) == []


async def test_every_document_sent_to_the_simulator_in_a_poll_and_an_action_validates(sim_factory, tmp_path):
    from sagan_tui.core.actions.runner import ActionRunner
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    sim = sim_factory(scenario="calm")
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml"),
           "RUNPOD_TRANSPORT_TEAM": "graphql", "RUNPOD_TRANSPORT_PERSONAL": "auto"}
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "c.sqlite"))
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    try:
        sim.clock.jump_to(120)
        await poller.poll_once(force=True)
        running = [p for p in cache.pods(include_gone=False, account="team") if p.pod.running]
        if running:
            await ActionRunner.for_poller(settings, cache, poller).stop_pod(running[0].pod_id, "team")
    finally:
        await poller.aclose()
    sent = [r.body["query"] for r in sim.requests if r.api == "graphql" and isinstance(r.body, dict)]
    assert len(sent) >= 2 + bool(running)  # team's poll, personal's balance, and the stop's documents
    assert {d: _errors(d) for d in sent if _errors(d)} == {}


def test_the_simulator_schema_is_part_of_the_published_one():
    assert differences(SIM_SCHEMA, graphql_schema()) == []


def test_a_field_or_enum_value_runpod_does_not_publish_fails_the_check():
    invented = build_schema("""
        enum PodStatus { RUNNING HIBERNATING }
        type Pod { id: String! name: String gpuCount: Int! vcpus: Int }
        type Query { pod: Pod }
    """)
    assert differences(invented, graphql_schema()) == [
        "enum PodStatus.HIBERNATING: not published",
        "Pod.name: String here, String! published",
        "Pod.vcpus: not published",
    ]
