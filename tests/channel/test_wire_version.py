"""The channel's version moves with its messages: this describes every message and result type
the channel carries and fails while the description's digest is not version.py's WIRE_DIGEST (then
bump WIRE_VERSION, so a panel never attaches to a watch that would misread it, and record the
digest printed here)."""

from __future__ import annotations

import hashlib
import typing

import msgspec.inspect as mi

from sagan_tui.wire.channel import messages
from sagan_tui.wire.channel.intents import AnyIntent
from sagan_tui.wire.channel.version import WIRE_DIGEST, WIRE_VERSION


def describe(info: mi.Type, seen: set[str]) -> str:
    """A text of a msgspec type's shape: each struct once by name (tag, fields, their wire names,
    whether required, their types); defaults left out, as a decoder fills them."""
    cls = getattr(info, "cls", None)
    if isinstance(cls, type) and hasattr(info, "fields"):
        key = f"{cls.__module__}.{cls.__qualname__}"
        if key in seen:
            return key
        seen.add(key)
        fields = ", ".join(f"{f.name}/{f.encode_name}/{int(f.required)}:{describe(f.type, seen)}" for f in info.fields)
        flags = "".join(f" {a}={getattr(info, a)!r}" for a in ("tag_field", "tag", "array_like",
                                                               "forbid_unknown_fields") if hasattr(info, a))
        return f"{type(info).__name__}({key}{flags}; {fields})"
    out = [type(info).__name__]
    for name in info.__struct_fields__:
        if name in ("default", "default_factory"):
            continue
        v = getattr(info, name)
        if isinstance(v, mi.Type):
            out.append(f"{name}={describe(v, seen)}")
        elif isinstance(v, tuple) and v and isinstance(v[0], mi.Type):
            out.append(f"{name}=[{'|'.join(describe(x, seen) for x in v)}]")
        elif isinstance(v, type):  # another library's class by its name alone (pathlib.Path's module
            # is pathlib._local from 3.13 on): its shape is not ours to pin
            out.append(f"{name}={v.__module__ + '.' if v.__module__.startswith('sagan_tui') else ''}{v.__qualname__}")
        else:
            out.append(f"{name}={v!r}")
    return f"({' '.join(out)})"


def wire_digest() -> str:
    types = [messages.ToSession, messages.ToPanel, *(i.result for i in typing.get_args(AnyIntent))]
    seen: set[str] = set()
    text = "\n".join(describe(info, seen) for info in mi.multi_type_info(types))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_the_version_names_the_messages_it_carries():
    assert wire_digest() == WIRE_DIGEST, (
        f"the channel's messages changed (digest {wire_digest()}): bump WIRE_VERSION "
        f"(now {WIRE_VERSION}) and set WIRE_DIGEST in sagan_tui/wire/channel/version.py")


def test_the_description_sees_a_field_added_deep_inside_a_message():
    """Two messages alike but for a defaulted field of a struct they hold in a list: a decoder of
    the one would misread the other's, so their descriptions differ."""
    import msgspec

    def message(*inner_fields) -> str:
        inner = msgspec.defstruct("Inner", [("a", int), *inner_fields])
        outer = msgspec.defstruct("Outer", [("items", list[inner])], tag="outer")
        return describe(mi.type_info(outer), set())

    assert message() == message()
    assert message() != message(("b", str, ""))
