"""Every key binding's id, default keys, where it applies and what it does; the user keymap checked against them.

Pure (no Textual): the settings validate a `[keymap]` table at load, before any screen exists,
and the help screen reads what each key does from here. One id scheme: `<where>.<what>`, where
`<where>` is the pane or screen the key works in (`panel` is everywhere on the main screen).
tests/ui/test_keymap.py holds this list equal to the bindings the widgets declare.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any, Mapping, NamedTuple


class Key(NamedTuple):  # not a dataclass: the first frame reads this table (panel/registry.py), no exec'd methods
    id: str
    keys: str  # Textual's spelling, comma-separated
    what: str  # one line for the help screen


# Where each scope applies, as the help screen says it.
WHERE = {
    "panel": "main screen", "table": "any table pane", "pods": "pods pane", "timeline": "timeline pane",
    "heatmap": "loss heatmap", "filter": "filter bar", "detail": "experiment detail", "approval": "approval dialog",
    "audit": "audit log", "dialog": "confirm dialogs", "help": "this help", "accounts": "account view",
    "pod": "pod screen",
}

KEYS: tuple[Key, ...] = (
    Key("panel.help", "question_mark", "every key, what it does and where"),
    Key("panel.review_approval", "a", "open the selected experiment's pending approval request"),
    Key("panel.hold", "h", "hold the selected experiment (asks first)"),
    Key("panel.redispatch", "r", "re-dispatch the selected experiment (guarded during a wave)"),
    Key("panel.stop_pod", "s", "stop the selected pod (asks first)"),
    Key("panel.promote", "p", "promote the selected experiment's clean result (asks first)"),
    Key("panel.bulk_hold", "H", "hold every marked experiment (asks first)"),
    Key("panel.bulk_stop", "S", "stop every marked pod (asks first)"),
    Key("panel.audit", "A", "the audit log of owner actions"),
    Key("panel.export_report", "e", "write the incident report (markdown) to the data dir"),
    Key("panel.wave_response", "W", "the wave's verdict and its response (hold, ticket) in one dialog"),
    Key("panel.release", "u", "release the selected held experiment: blocked back to approved (asks first)"),
    Key("panel.bulk_release", "U", "release every marked held experiment, or the rest after a canary passed"),
    Key("panel.canary", "C", "canary: release and re-dispatch the selected held experiment, watch it past the kill time"),
    # `K`, not `k`: `k` moves up in vim, less, k9s and lazygit, and a hand going up silenced the wave.
    # Shifted, the same letter as before; vim's `K` looks a word up (no movement); bound nowhere else here.
    Key("panel.acknowledge", "K", "acknowledge the wave on screen: no more notifications until it grows"),
    Key("panel.inbox", "i", "experiments pane: only what waits on you / everything"),
    Key("panel.incident", "I,f2", "incident layout: heatmap and waves on top, affected pods"),
    Key("panel.pause", "P", "pause / resume polling"),
    Key("panel.refresh", "R,ctrl+r", "poll every source now"),
    Key("panel.slower", "plus", "poll less often (next step of 1 s .. 5 min)"),
    Key("panel.faster", "minus", "poll more often"),
    Key("panel.zoom", "z", "the focused pane fills the body, status line and key bar kept / back"),
    Key("panel.accounts", "B", "accounts: balance, spend, runway, health, balance history"),
    Key("panel.quit", "q", "quit the panel"),
    Key("panel.dismiss_news", "ctrl+l", "clear every notification (the incident's comes back if the wave grows)"),
    Key("panel.pane_experiments", "1", "pane 1: experiments"),
    Key("panel.pane_pods", "2", "pane 2: pods"),
    Key("panel.pane_timeline", "3", "pane 3: timeline"),
    Key("panel.pane_losses", "4", "pane 4: losses (the heatmap)"),
    Key("panel.pane_approvals", "5", "pane 5: approvals"),
    Key("table.select", "enter", "open the row (an experiment's detail, an approval request)"),
    Key("table.top", "home,ctrl+home", "cursor to the first row"),
    Key("table.bottom", "end,ctrl+end", "cursor to the last row"),
    Key("table.down", "j", "cursor down a row (as down)"),
    Key("table.up", "k", "cursor up a row (as up)"),
    Key("table.mark", "space", "mark / unmark the row (for the bulk keys); the cursor stays"),
    Key("table.mark_all", "ctrl+a", "mark every visible row"),
    Key("table.invert_marks", "asterisk", "invert the marks of the visible rows"),
    Key("table.sort", "o", "sort by the next column"),
    Key("table.sort_reverse", "O", "reverse the sort"),
    Key("table.filter", "slash", "filter the rows as you type (enter keeps it, escape drops it)"),
    Key("table.next_match", "n", "cursor to the next row the filter matched"),
    Key("table.previous_match", "N", "cursor to the previous row the filter matched"),
    Key("pods.dismiss", "x", "dismiss a lost pod from the list"),
    Key("pods.show_dismissed", "X", "show the dismissed pods too / hide them again"),
    Key("timeline.scope", "g", "events of all experiments / of the selected one"),
    Key("timeline.follow", "f", "keep the newest event in view"),
    Key("timeline.type", "t", "show the next kind of event"),
    Key("heatmap.dimension", "d", "rows by account, experiment, data centre, GPU"),
    Key("heatmap.window", "w", "the next time window"),
    Key("heatmap.left", "left", "cell cursor: earlier"),
    Key("heatmap.right", "right", "cell cursor: later"),
    Key("heatmap.up", "up,k", "cell cursor: row up"),
    Key("heatmap.down", "down,j", "cell cursor: row down"),
    Key("heatmap.select", "enter", "list the losses of the cell (one loss: its pod's screen)"),
    Key("heatmap.page_down", "pagedown", "the wave's text: a page down"),
    Key("heatmap.page_up", "pageup", "the wave's text: a page up"),
    Key("heatmap.end", "end", "the wave's text: its end"),
    Key("heatmap.home", "home", "the wave's text: its start"),
    Key("filter.cancel", "escape", "drop the filter (enter keeps it)"),
    Key("detail.close", "escape", "back to the panel"),
    Key("detail.raw", "m", "plan as raw text / as markdown"),
    Key("detail.reload", "R,ctrl+r", "fetch the plan again (u releases, as on the panel)"),
    Key("pod.close", "escape", "back to the panel"),
    Key("pod.copy_id", "y", "copy the pod's id to the clipboard (OSC 52)"),
    Key("pod.experiment", "g", "go to the pod's experiment"),
    Key("approval.close", "escape", "close without deciding (typed answers are lost)"),
    Key("approval.approve", "alt+a", "approve (every textbox answered)"),
    Key("approval.reject", "alt+r", "reject (sends what is filled)"),
    Key("approval.defer", "alt+d", "defer (sends what is filled)"),
    Key("approval.next_field", "tab", "next field (answers, note, buttons)"),
    Key("approval.previous_field", "shift+tab", "previous field"),
    Key("audit.close", "escape", "close the audit log"),
    Key("audit.close_q", "q", "close the audit log"),
    Key("audit.down", "j", "cursor down a row (as down)"),
    Key("audit.up", "k", "cursor up a row (as up)"),
    Key("dialog.cancel", "escape", "cancel: nothing is sent"),
    Key("help.close", "escape,question_mark,q", "close this help"),
    Key("accounts.close", "escape,B,q", "close the account view"),
)
BY_ID: dict[str, Key] = {k.id: k for k in KEYS}
ID_PATTERN = re.compile(r"^[a-z]+\.[a-z_]+$")

# Scopes whose bindings can be active at the same moment: one key must not mean two things there.
_TOGETHER = {
    "panel": {"panel", "table", "pods", "timeline", "heatmap"},
    "table": {"table", "pods", "timeline"}, "pods": {"pods"}, "timeline": {"timeline"}, "heatmap": {"heatmap"},
    "filter": {"filter"}, "detail": {"detail"}, "approval": {"approval"}, "audit": {"audit"},
    "dialog": {"dialog"}, "help": {"help"}, "accounts": {"accounts"}, "pod": {"pod"},
}

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
NAMED = {"escape", "enter", "return", "tab", "backspace", "delete", "insert", "home", "end", "pageup",
         "pagedown", "up", "down", "left", "right", "space", *(f"f{n}" for n in range(1, 25))}
# Textual's own short names for characters whose Unicode names are long (textual.keys).
_SHORT = {"slash": "/", "backslash": "\\", "at": "@", "minus": "-", "plus": "+", "underscore": "_"}


class KeymapError(ValueError):
    """A `[keymap]` entry is wrong; the message names it."""


def scope(binding_id: str) -> str:
    return binding_id.split(".", 1)[0]


def key_problem(key: str) -> str | None:
    """Why `key` is not a key Textual can bind (None when it is): `a`, `A`, `?`, `ctrl+r`, `f2`, `question_mark`."""
    if not key:
        return "an empty key"
    if key != key.strip() or " " in key:
        return f"{key!r} has spaces (keys are comma-separated, e.g. \"ctrl+r,R\")"
    *mods, base = key.split("+") if len(key) > 1 else [key]
    bad = [m for m in mods if m not in MODIFIERS]
    if bad or len(set(mods)) != len(mods):
        return f"{key!r}: unknown modifier {bad[0]!r}" if bad else f"{key!r}: a modifier given twice"
    if len(base) == 1:
        return None if base.isprintable() else f"{key!r}: not a printable character"
    if base in NAMED or base in _SHORT:
        return None
    try:
        char = unicodedata.lookup(base.replace("_", " "))
    except KeyError:
        return f"{key!r}: unknown key {base!r}"
    return None if len(char) == 1 and char.isprintable() else f"{key!r}: not a printable character"


def _flat(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    # `panel.quit = "ctrl+q"` unquoted in TOML is the nested table {"panel": {"quit": ...}}.
    out: dict[str, Any] = {}
    for name, value in table.items():
        full = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.update(_flat(value, f"{full}."))
        else:
            out[full] = value
    return out


def check_keymap(value: Any) -> dict[str, str]:
    """The `[keymap]` table as `{binding id: "key,key"}`, or KeymapError naming the first bad entry.

    All or nothing: an unknown id, an unknown key, or a key that would mean two things where both
    apply stops the load; nothing is half-applied.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise KeymapError(f"keymap: expected a table of binding id = \"keys\", got {type(value).__name__}")
    out: dict[str, str] = {}
    for entry, keys in _flat(value).items():
        if entry not in BY_ID:
            near = difflib.get_close_matches(entry, list(BY_ID), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else " (ids are listed by `?` in the panel and in the README)"
            raise KeymapError(f"keymap entry {entry!r}: unknown binding id{hint}")
        if isinstance(keys, (list, tuple)):
            keys = ",".join(str(k) for k in keys)
        if not isinstance(keys, str):
            raise KeymapError(f"keymap entry {entry!r}: expected keys as a string such as \"ctrl+r,R\"")
        parts = [k.strip() for k in keys.split(",")]
        for part in parts:
            why = key_problem(part)
            if why:
                raise KeymapError(f"keymap entry {entry!r}: {why}")
        out[entry] = ",".join(parts)
    _check_clashes(out)
    return out


def _normal(key: str) -> str:
    # `?` and `question_mark` are one key; so are `+` and `plus`.
    if len(key) == 1 and not key.isalnum():
        name = unicodedata.name(key, key).lower().replace(" ", "_")
        return {v: k for k, v in _SHORT.items()}.get(key, name)
    return key


def effective(keymap: Mapping[str, str]) -> dict[str, list[str]]:
    """Every binding id's keys with `keymap` over the defaults."""
    return {k.id: [_normal(x) for x in keymap.get(k.id, k.keys).split(",")] for k in KEYS}


def _check_clashes(keymap: Mapping[str, str]) -> None:
    keys = effective(keymap)
    for a in keymap:
        for b, b_keys in keys.items():
            if a == b or scope(b) not in _TOGETHER[scope(a)] | {s for s, t in _TOGETHER.items() if scope(a) in t}:
                continue
            both = sorted(set(keys[a]) & set(b_keys))
            if both:
                raise KeymapError(f"keymap entry {a!r}: {both[0]!r} is already {b!r} where both apply"
                                  f" (remap {b!r} too)")


def keys_of(binding_id: str, keymap: Mapping[str, str]) -> str:
    """The keys `binding_id` answers to under `keymap`."""
    return keymap.get(binding_id) or BY_ID[binding_id].keys
