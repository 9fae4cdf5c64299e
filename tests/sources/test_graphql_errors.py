"""GraphQL's `errors` array read by kind, and the replies RunPod gives without one (myself: null)."""

from __future__ import annotations

import pytest

from sagan_tui.core.models import ErrorKind
from sagan_tui.core.sources.errors import AuthError, RateLimited, RequestRejected
from sagan_tui.core.sources.graphql_errors import PodNotFound, read_errors
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport, _load_sdk

KEY = "rk-team-0123456789secret"


@pytest.fixture
def stub():
    from tests.reliability.stub_server import StubServer

    with StubServer() as s:
        yield s


def _err(message: str, code: str | None = None, path=None, **ext) -> dict:
    err: dict = {"message": message}
    if code or ext:
        err["extensions"] = {**({"code": code} if code else {}), **ext}
    if path is not None:
        err["path"] = path
    return err


@pytest.mark.parametrize("err, kind", [
    (_err("whatever", "UNAUTHENTICATED"), ErrorKind.AUTH),
    (_err("Unauthorized request, please check your API key."), ErrorKind.AUTH),
    (_err("slow down", "RATE_LIMITED"), ErrorKind.RATE_LIMIT),
    (_err("Too many requests, retry in 30 s"), ErrorKind.RATE_LIMIT),
    (_err("Pod not found", "NOT_FOUND"), ErrorKind.CLIENT),
    (_err("Something is wrong with your input", "BAD_USER_INPUT"), ErrorKind.CLIENT),
])
def test_each_error_is_read_by_its_code_or_known_words(err, kind):
    reading = read_errors({"data": None, "errors": [err]}, "team", [KEY])
    assert reading.error is not None and reading.error.kind == kind and not reading.skipped


def test_auth_wins_over_anything_else_in_the_list():
    body = {"data": None, "errors": [_err("bad input", "BAD_USER_INPUT"), _err("x", "UNAUTHENTICATED")]}
    assert isinstance(read_errors(body, "team", [KEY]).error, AuthError)


@pytest.mark.parametrize("err, wait", [
    (_err("slow", "RATE_LIMITED", retryAfter=17), 17.0),
    (_err("Rate limit exceeded. Retry in 9 seconds."), 9.0),
    (_err("slow", "RATE_LIMITED"), None),
])
def test_a_rate_limit_carries_its_wait(err, wait):
    error = read_errors({"errors": [err]}, "team", []).error
    assert isinstance(error, RateLimited) and error.retry_after == wait


def test_not_found_is_the_pod_gone():
    error = read_errors({"data": {"pod": None}, "errors": [_err("pod abc not found", path=["pod"])]}, "team", []).error
    assert isinstance(error, PodNotFound) and "gone" in error.message


def test_partial_data_keeps_what_parsed_and_names_each_nulled_entry():
    body = {"data": {"myself": {"pods": [{"id": "a"}, None]}},
            "errors": [_err("Cannot return null for non-nullable field Pod.name.", path=["myself", "pods", 1, "name"])]}
    reading = read_errors(body, "team", [])
    assert reading.error is None
    assert reading.skipped == ["pods[1].name: Cannot return null for non-nullable field Pod.name."]


def test_a_rejection_keeps_runpods_message_without_the_key():
    error = read_errors({"errors": [_err(f"bad key {KEY} in query")]}, "team", [KEY]).error
    assert isinstance(error, RequestRejected) and "bad key *** in query" in error.message and KEY not in str(error)


async def test_myself_null_without_errors_is_the_accounts_auth(stub):
    _load_sdk()
    stub.set("/graphql", {"data": {"myself": None}})
    t = GraphQLTransport("team", KEY, base_url=stub.base_url, timeout=5.0)
    with pytest.raises(AuthError) as err:
        await t.snapshot()
    assert "myself: null" in err.value.message


async def test_a_pod_graphql_says_is_not_found_reads_as_none(stub):
    _load_sdk()
    stub.set("/graphql", {"data": {"pod": None}, "errors": [_err("Pod not found", "NOT_FOUND", path=["pod"])]})
    t = GraphQLTransport("team", KEY, base_url=stub.base_url, timeout=5.0)
    assert await t.get_pod("abcdef123456") is None


async def test_each_null_pod_without_a_reason_is_one_skip(stub):
    """As every other unreadable record: two nulls are two skips (the fuzzer's `[null, null]`)."""
    _load_sdk()
    stub.set("/graphql", {"data": {"myself": {"pods": [None, None]}}})
    t = GraphQLTransport("team", KEY, base_url=stub.base_url, timeout=5.0)
    snap = await t.snapshot()
    assert snap.pods == [] and snap.skipped == ["pods: a null entry without a reason"] * 2
