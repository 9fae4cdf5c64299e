"""The `auto_contain` setting's rules (`cause:min_confidence`): parsed by the settings' validator
and read by watch's auto-containment (auto_contain.py), without either importing the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

LEVELS = ("low", "medium", "high")
CAUSES = ("platform-reaper", "account-stop", "host-failure", "account-action", "unclear")


@dataclass(frozen=True)
class Rule:
    cause: str
    min_confidence: str

    @property
    def text(self) -> str:
        return f"{self.cause}:{self.min_confidence}"

    def matches(self, cause: str, confidence: str) -> bool:
        return cause == self.cause and LEVELS.index(confidence) >= LEVELS.index(self.min_confidence) \
            if confidence in LEVELS else False


def parse_rules(value) -> list[Rule]:
    """`platform-reaper:medium, account-stop:high` (a list in the file, commas or spaces in the
    environment); ValueError naming the rule's position and what is wrong."""
    if value is None:
        return []
    items = value.replace(",", " ").split() if isinstance(value, str) else [str(v) for v in value]
    rules = []
    for i, item in enumerate(items, 1):
        cause, _, level = item.strip().partition(":")
        if cause not in CAUSES:
            raise ValueError(f"rule {i}: unknown cause {cause[:40]!r} (known: {', '.join(CAUSES)})")
        if level not in LEVELS:
            raise ValueError(f"rule {i}: expected cause:min_confidence with a confidence of {', '.join(LEVELS)}")
        rules.append(Rule(cause, level))
    return rules


def matching(rules: Iterable[Rule], cause: str, confidence: str) -> Rule | None:
    return next((r for r in rules if r.matches(cause, confidence)), None)
