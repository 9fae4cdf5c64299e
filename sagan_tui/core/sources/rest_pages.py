"""Reading a REST v2 list that may come in pages, and telling when what came is not the whole list.

RunPod's published `GET /v2/pods` is one reply `{"pods": [...]}`; other v2 lists answer an
envelope `{"items": [...], "pagination": {"nextCursor", "truncated"}}` (also seen with the cursor
and flag at the top level). Whichever a reply uses, cursors are followed up to MAX_PAGES, and the
list is *incomplete* (with the reason) when a reply says it is truncated, when the bound is
reached with a cursor still given, or when pages disagree (a record on two pages, a cursor
given twice). An incomplete list must never make a pod read as gone. A record twice in one page
leaves the list complete: it is that record's defect (runpod_base.one_per_id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

MAX_PAGES = 100  # 100 pages of RunPod's sizes is far past any account's pods; a loop ends here

Fetch = Callable[[str | None], Awaitable[Any]]  # cursor -> the decoded reply


@dataclass
class Listed:
    """Every record the pages held, in order, and why the list may lack some (None: complete)."""

    records: list[Any] = field(default_factory=list)
    incomplete: str | None = None
    pages: int = 0


def page_parts(reply: Any, key: str) -> tuple[list[Any] | None, str | None, bool]:
    """(records, next cursor, says truncated) of one reply; records None when it holds no list."""
    if not isinstance(reply, dict):
        return None, None, False
    records = reply.get(key) if isinstance(reply.get(key), list) else reply.get("items")
    meta = reply.get("pagination") if isinstance(reply.get("pagination"), dict) else reply
    cursor = meta.get("nextCursor")
    truncated = meta.get("truncated") is True
    return (records if isinstance(records, list) else None,
            cursor if isinstance(cursor, str) and cursor else None, truncated)


async def read_pages(fetch: Fetch, key: str, what: str, *, ident: Callable[[Any], Any] | None = None,
                     max_pages: int = MAX_PAGES) -> Listed:
    """Follow a list's cursors. Raises ValueError when a page has no list at all (a bad reply,
    never "no records"); `ident` names a record, to catch one listed on two pages."""
    out, cursor, seen_cursors, seen_ids = Listed(), None, set(), set()
    while True:
        records, nxt, truncated = page_parts(await fetch(cursor), key)
        out.pages += 1
        if records is None:
            raise ValueError(f"{what}: page {out.pages} has no {key} list")
        page_ids = set()
        for r in records:
            rid = ident(r) if ident is not None else None
            if isinstance(rid, str):  # a record names itself by text, or not at all (a list id is junk)
                # On two pages, the pages shifted under us (a record may have been passed over);
                # twice in one page is a defect of that record, read as one by the transport.
                if rid in seen_ids and rid not in page_ids and out.incomplete is None:
                    out.incomplete = f"{what}: pages disagree ({rid} listed on two pages)"
                page_ids.add(rid)
        seen_ids |= page_ids
        out.records += records
        if truncated and nxt is None:
            out.incomplete = out.incomplete or f"{what}: RunPod says the reply is truncated and gives no cursor"
            return out
        if nxt is None:
            return out
        if nxt in seen_cursors:
            out.incomplete = out.incomplete or f"{what}: pages disagree (a cursor came back twice)"
            return out
        if out.pages >= max_pages:
            out.incomplete = out.incomplete or f"{what}: stopped at the bound of {max_pages} pages"
            return out
        seen_cursors.add(nxt)
        cursor = nxt
