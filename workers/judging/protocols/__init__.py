"""Judging protocols as pure functions: messages from an item, strict parsing, arithmetic.

Nothing here does HTTP or writes to the database; the runner calls `build`, sends each message
list, `parse`s each answer (repairing once with `repair_messages` on ParseError) and `combine`s.
"""

from __future__ import annotations

from .base import REPAIR_MARKER, JudgeVerdict, ParseError, Protocol
from .checklist import Checklist, checklist_reward
from .pairwise import Pairwise
from .pca import PCA
from .pointwise import Pointwise, panel_aggregate
from .templates import DEFAULT_TEMPLATES, FORMATS
from .trace import Trace, toolset_f1

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (Pairwise(), Pointwise(), PCA(), Checklist(), Trace())}


def protocol_of(messages: list[dict]) -> str:
    """The protocol named by the marker on the system message's first line ("" if none)."""
    if not messages or messages[0].get("role") != "system":
        return ""
    first = (messages[0].get("content") or "").split("\n", 1)[0].strip()
    if first.startswith("<<arbiter:") and first.endswith(">>"):
        return first[len("<<arbiter:") : -2]
    return ""


def repair_messages(messages: list[dict], bad_output: str, error: str) -> list[dict]:
    """The conversation plus the bad answer and one repair request restating the format."""
    fmt = FORMATS.get(protocol_of(messages), "Answer in exactly the format the instructions give.")
    request = (
        f"{REPAIR_MARKER}\nYour previous answer could not be used: {error}\n"
        f"Answer again for the same input, with nothing but the required format.\n\n{fmt}"
    )
    return [
        *messages,
        {"role": "assistant", "content": bad_output or ""},
        {"role": "user", "content": request},
    ]


__all__ = [
    "DEFAULT_TEMPLATES",
    "PROTOCOLS",
    "JudgeVerdict",
    "ParseError",
    "Protocol",
    "checklist_reward",
    "panel_aggregate",
    "protocol_of",
    "repair_messages",
    "toolset_f1",
]
