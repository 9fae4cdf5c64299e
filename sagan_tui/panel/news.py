"""The panel's news board: what the notification area holds and how it reads, as plain data (no Textual).

Toasts stacked over the status line, the verdict and the `W` dialog at 80x24 (#44): the news
has its own few lines in the layout instead. Three rules keep them few:
- the incident's news (a new wave, its growth, a forming cluster) is ONE item, replaced as it
  grows and kept until the wave is acknowledged (or dismissed): the owner acts on it;
- `Your turn` items fold into one line that counts them ("3 items in your inbox");
- every other item lasts the `notice_seconds` setting.
"""

from __future__ import annotations

from collections import deque

INCIDENT, INBOX = "incident", "inbox"
# The session's titles for news about the wave on screen (core/session/model.py announcements).
INCIDENT_TITLES = frozenset({"Reaping wave", "Reaping wave grew", "Watch"})
INBOX_TITLE = "Your turn"
NOTICE_SECONDS = 10.0  # the default of the `notice_seconds` setting
HEARD_MAX = 500  # notices remembered after they leave the area: a look back, and what tests read
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "information": ""}


# Item and NewsBoard are plain classes: the first frame imports this module, and a dataclass
# compiles its generated methods when it is made (docs/performance.md, `start_to_first_frame`).
class Item:
    """One notice as shown; never changed once made (the board replaces it)."""

    __slots__ = ("title", "message", "severity", "until", "count")

    def __init__(self, title: str, message: str, severity: str = "information", until: float | None = None,
                 count: int = 1) -> None:
        self.title, self.message, self.severity = title, message, severity
        self.until = until  # monotonic seconds; None: until removed (the incident)
        self.count = count  # inbox items folded into this one


def key_of(title: str, serial: int) -> str:
    """The slot a notice takes: the incident's, the inbox's, or its own."""
    if title in INCIDENT_TITLES:
        return INCIDENT
    return INBOX if title == INBOX_TITLE else f"note-{serial}"


class NewsBoard:
    """The items shown, by slot, in the order they came (a replaced slot keeps its place)."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.serial = 0
        self.version = 0  # bumped at every change: each area showing this board redraws when it moved
        self.heard: deque[Item] = deque(maxlen=HEARD_MAX)  # every notice, oldest first
        # The settings every area showing this board reads (one area on each full screen, one board).
        self.seconds = NOTICE_SECONDS  # the `notice_seconds` setting
        self.clear_key = "ctrl+l"  # `panel.dismiss_news`, named in the "+n more" line

    def add(self, message: str, title: str, severity: str, now: float, seconds: float | None = None) -> str:
        """Takes one notice; returns its slot. `seconds`: how long it stays (else the setting's)."""
        seconds = self.seconds if seconds is None else seconds
        self.serial += 1
        self.version += 1
        self.heard.append(Item(title, message, severity))
        key = key_of(title, self.serial)
        if key == INCIDENT:
            self.items[key] = Item(title, message, severity)
        elif key == INBOX:
            before = self.items.get(key)
            count = 1 + (before.count if before is not None else 0)
            self.items[key] = Item(title, message, severity, now + seconds, count)
        else:
            self.items[key] = Item(title, message, severity, now + seconds)
        return key

    def drop(self, key: str) -> bool:
        gone = self.items.pop(key, None) is not None
        self.version += gone
        return gone

    def clear(self) -> bool:
        had = bool(self.items)
        self.items.clear()
        self.version += had
        return had

    def expire(self, now: float) -> bool:
        """Drops the items whose time is up; whether any went."""
        gone = [k for k, it in self.items.items() if it.until is not None and it.until <= now]
        for k in gone:
            del self.items[k]
        self.version += bool(gone)
        return bool(gone)


def item_text(key: str, item: Item) -> str:
    if key == INBOX and item.count > 1:
        return f"{INBOX_TITLE}: {item.count} items in your inbox (i) · latest {item.message}"
    return f"{item.title}: {item.message}" if item.title else item.message


def news_lines(board: NewsBoard, width: int, limit: int, clear_key: str = "ctrl+l") -> list[tuple[str, str]]:
    """At most `limit` lines of (text, style), each cut to `width`: the incident first, then the
    newest, a notice of several lines (W's result) on as many; the last line says how many more
    did not fit."""
    order = sorted(board.items.items(), key=lambda kv: kv[0] != INCIDENT)
    order = order[:1] + order[1:][::-1] if order and order[0][0] == INCIDENT else order[::-1]
    lines = [(_cut(part, width), SEVERITY_STYLE.get(it.severity, "")) for k, it in order
             for part in item_text(k, it).split("\n") if part.strip()]
    if len(lines) <= limit:
        return lines
    kept = lines[:max(0, limit - 1)]
    return kept + [(_cut(f"+{len(lines) - len(kept)} more ({clear_key} clears all)", width), "dim")]


WORD_CUT_MAX = 16  # a line ends at the last whole word when that loses at most this many cells


def _cut(text: str, width: int) -> str:
    """One line of at most `width` cells, cut after a whole word where one ends near the edge: a word
    cut to `t…` read as another word (#44 walk at 80 columns)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    head = text[:max(0, width - 1)]
    space = head.rfind(" ")
    if space > 0 and len(head) - space <= WORD_CUT_MAX and text[len(head)] != " ":
        head = head[:space]
    return head.rstrip(" ,;:·") + "…"
