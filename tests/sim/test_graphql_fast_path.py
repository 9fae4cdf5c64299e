"""The simulator's fast path for plain GraphQL queries answers exactly as graphql-core's executor does."""

import json

import pytest
from graphql import execute_sync, parse

from sagan_tui.sim import SimServer
from sagan_tui.sim.graphql_api import SCHEMA, Root, fast_data
from sagan_tui.core.sources.runpod_graphql import ACCOUNT_QUERY

PLAIN = [
    ACCOUNT_QUERY,
    "query { myself { clientBalance underBalance pods { id desiredStatus costPerHr machine { dataCenterId } } } }",
    "{ me: myself { balance: clientBalance pods { podId: id runtime { uptimeInSeconds gpus { id } ports { ip } } } } }",
    "{ gpuTypes { id securePrice lowestPrice { minimumBidPrice } } }",
]
NOT_PLAIN = [
    '{ pod(input: {podId: "abcdef123"}) { id } }',
    "{ myself { __typename pods { id } } }",
    "query Q($x: Boolean!) { myself { clientBalance @include(if: $x) } }",
    "{ myself { ...F } } fragment F on User { clientBalance }",
    "{ myself { clientBalance clientBalance } }",
    'mutation { podStop(input: {podId: "abcdef123"}) { id } }',
]


@pytest.mark.parametrize("scenario, t", [("reaping-wave", 100), ("reaping-wave", 400), ("large-fleet", 3000)])
@pytest.mark.parametrize("query", PLAIN)
def test_plain_queries_answer_as_the_executor_does(scenario, t, query):
    state = SimServer(scenario=scenario).state
    for account in ("team", "personal"):
        doc = parse(query)
        fast = fast_data(doc, Root(state, account, t), None)
        slow = execute_sync(SCHEMA, doc, root_value=Root(state, account, t))
        assert fast is not None and not slow.errors
        assert json.dumps(fast) == json.dumps(slow.data)  # the same text: 1.0 is not 1


@pytest.mark.parametrize("query", NOT_PLAIN)
def test_anything_else_goes_to_the_executor(query):
    state = SimServer(scenario="calm").state
    assert fast_data(parse(query), Root(state, "team", 10), None) is None


def test_a_named_operation_must_match():
    state = SimServer(scenario="calm").state
    doc = parse("query A { myself { clientBalance } }")
    assert fast_data(doc, Root(state, "team", 10), "B") is None
    assert fast_data(doc, Root(state, "team", 10), "A") == {"myself": {"clientBalance": state.accounts["team"].balance}}


def test_leaves_are_serialized_as_their_type():
    # A resolver's 100 for a Float answers 100.0 and its 5.0 for an Int answers 5, as graphql-core's do.
    class Loose(Root):
        def myself(self, info):
            me = super().myself(info)
            me["pods"] = [p.full() for p in me["pods"]]  # each pod's fields built now, to be loosened
            me["clientBalance"], me["pods"][0]["uptimeSeconds"] = 100, 5.0
            return me

    state = SimServer(scenario="calm").state
    doc = parse(ACCOUNT_QUERY)
    fast = fast_data(doc, Loose(state, "team", 30), None)
    assert json.dumps(fast) == json.dumps(execute_sync(SCHEMA, doc, root_value=Loose(state, "team", 30)).data)
    assert fast["myself"]["clientBalance"] == 100.0 and isinstance(fast["myself"]["clientBalance"], float)
