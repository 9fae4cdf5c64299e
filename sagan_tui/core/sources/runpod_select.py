"""Which RunPod API serves each account: the transport its config names, built, and what it serves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagan_tui.core.sources.runpod_base import RunPodTransport

if TYPE_CHECKING:
    from sagan_tui.core.config_model import Settings

# What each transport reads from which API (doctor and the README say the same).
# Which API serves what, per transport (doctor's line and the README's table say this).
SERVES = {
    "auto": "pods, balance, billing, audit log and actions over REST v2; machines and exit reasons "
            "from GraphQL while it answers",
    "rest-v2": "pods, balance, billing, audit log and actions over REST v2; machines: none (REST v2 names none)",
    "graphql": "pods, balance, machines and actions over GraphQL; billing and audit log: none",
}


def make_transport(settings: "Settings", name: str, kind: str) -> RunPodTransport:
    """The transport `kind` for account `name`, with the settings' timeout and reply bound."""
    acc = settings.accounts[name]
    common = {"timeout": settings.request_timeout, "max_reply_bytes": settings.max_reply_bytes}
    if kind == "rest-v2":
        from sagan_tui.core.sources.runpod_rest import RestV2Transport
        return RestV2Transport(name, acc.key(), base_url=settings.rest_base_url, **common)
    if kind == "graphql":
        from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
        return GraphQLTransport(name, acc.key(), base_url=settings.runpod_api_base_url, **common)
    from sagan_tui.core.sources.runpod_auto import AutoTransport
    return AutoTransport(name, acc.key(), base_url=settings.runpod_api_base_url,
                         rest_base_url=settings.rest_base_url, **common)


def make_transports(settings: "Settings") -> dict[str, RunPodTransport]:
    """One transport per enabled account, of the kind its config names (`auto` unless told)."""
    return {name: make_transport(settings, name, acc.transport)
            for name, acc in settings.accounts.items() if acc.enabled}
