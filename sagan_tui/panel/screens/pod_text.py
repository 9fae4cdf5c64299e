"""The pod screen's text, rendered purely from the session's PodDetailView and the UI's PodLog: no markup read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.text import Text

from sagan_tui.panel.safe_text import clean

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import PodDetailView
    from sagan_tui.panel.pod_log import PodLog

BAR = 10  # cells of a utilisation bar
SOURCE_STYLE = {"system": "bold cyan", "container": ""}


def _section(text: Text, title: str, pairs: Iterable[tuple[str, str]]) -> None:
    text.append(f"\n{title}\n", "bold underline")
    for label, value in pairs:
        text.append(f"{clean(label)} ", "dim")
        text.append(clean(value))
        text.append("\n")


def _bar(percent: int | None) -> str:
    if percent is None:
        return "?" * BAR
    full = round(percent * BAR / 100)
    return "█" * full + "·" * (BAR - full)


def gpu_text(log: "PodLog | None") -> Text:
    """Each GPU's utilisation and memory as bars with their figures; why there are none else."""
    text = Text(end="")
    if log is None or (log.gpus is None and log.state in ("reading…", "")):
        text.append("GPUs: reading…", "dim")
        return text
    if log.gpus is None:
        text.append("GPUs: no figures (RunPod no longer lists the pod)", "dim")
        return text
    if not log.gpus:
        text.append("GPUs: no figures (not running)", "dim")
        return text
    for i, (util, mem) in enumerate(log.gpus):
        if i:
            text.append("\n")
        text.append(f"GPU {i} ", "dim")
        text.append(f"util {_bar(util)} {'?' if util is None else util:>3}%  ")
        text.append(f"mem {_bar(mem)} {'?' if mem is None else mem:>3}%")
    return text


def record_text(view: "PodDetailView | None", pod_id: str) -> Text:
    """The pod's records (RunPod's, Sagan's), its cost so far and its loss/withdrawal history."""
    text = Text(end="")
    text.append(clean(pod_id), "bold")
    if view is None:
        text.append("\nreading the record…", "dim")
        return text
    text.append(f"  account {clean(view.account)}", "dim")
    if view.experiment is not None:
        text.append(f"  experiment #{view.experiment}", "dim")
    _section(text, "RunPod", view.runpod)
    text.append("cost so far ", "dim")
    text.append(clean(view.cost))
    text.append("\n")
    _section(text, "Sagan pod_lifecycle", view.sagan)
    text.append("\nlosses and withdrawals\n", "bold underline")
    text.append("\n".join(clean(line) for line in view.history) if view.history else "none", "" if view.history else "dim")
    return text


def log_line(timestamp: str, source: str, message: str) -> Text:
    """One log line: time, source, message, each literal (they came cleaned; cleaned again here)."""
    text = Text(end="")
    text.append(f"{clean(timestamp)[11:19] or '--:--:--'} ", "dim")
    text.append(f"{clean(source)[:9]:<9} ", SOURCE_STYLE.get(source, "magenta"))
    text.append(clean(message))
    return text
