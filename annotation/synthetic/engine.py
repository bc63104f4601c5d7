"""Building blocks of a synthetic candidate: calls, talk and final answers, rendered into the
interchange message shape (formats/README.md, section 1)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

Json = dict[str, Any]


@dataclass
class Call:
    """One assistant turn with a tool call, and the tool's answer."""

    tool: str
    args: Json | str  # a str is sent verbatim: malformed arguments
    output: Json | list | str  # a str is sent verbatim (used for the rare huge output)
    think: str | None = None
    say: str | None = None


@dataclass
class Talk:
    """The assistant says something and the (simulated) user answers: two turns."""

    say: str
    user: str
    think: str | None = None


@dataclass
class Final:
    text: str
    think: str | None = None


Element = Call | Talk | Final


def element_turns(elements: Sequence[Element]) -> int:
    return sum(2 if isinstance(e, Talk) else 1 for e in elements)


def message_turns(messages: Sequence[Json]) -> int:
    return sum(1 for m in messages if m.get("role") in ("user", "assistant"))


def pair_turns(record: Json) -> int:
    """User + assistant turns a judge reads for this pair: the shared context plus the longer
    of the two candidates (tool messages are not turns)."""
    ctx = message_turns(record["context"])
    return ctx + max(
        message_turns(record["chosen"]["messages"]), message_turns(record["rejected"]["messages"])
    )


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass
class CallIds:
    """Call ids run on across the context and each candidate, like a real transcript."""

    start: int = 0
    n: int = field(default=0, init=False)

    def next(self) -> str:
        self.n += 1
        return f"call_{self.start + self.n}"


def render(elements: Sequence[Element], ids: CallIds) -> list[Json]:
    out: list[Json] = []
    for e in elements:
        if isinstance(e, Call):
            call_id = ids.next()
            msg: Json = {"role": "assistant", "content": e.say}
            if e.think:
                msg["reasoning"] = e.think
            msg["tool_calls"] = [{"id": call_id, "name": e.tool, "arguments": e.args}]
            out.append(msg)
            content = e.output if isinstance(e.output, str) else dumps(e.output)
            out.append({"role": "tool", "tool_call_id": call_id, "name": e.tool, "content": content})
        elif isinstance(e, Talk):
            msg = {"role": "assistant", "content": e.say}
            if e.think:
                msg["reasoning"] = e.think
            out.append(msg)
            out.append({"role": "user", "content": e.user})
        else:
            msg = {"role": "assistant", "content": e.text}
            if e.think:
                msg["reasoning"] = e.think
            out.append(msg)
    return out


class Style:
    """Phrase choices of one rollout. A choice depends only on (style seed, slot), never on how
    many choices came before, so a minimal edit that changes one step keeps every other
    sentence word for word."""

    def __init__(self, seed: int):
        self.seed = seed
        # Some agents always think aloud, some rarely.
        self.think_rate = (seed % 5) / 5 + 0.15

    def pick(self, slot: int, options: Sequence[str]) -> str:
        return options[(self.seed * 2654435761 + slot * 40503) % 1000003 % len(options)]

    def thinks(self, slot: int) -> bool:
        return ((self.seed * 7919 + slot * 104729) % 1000) / 1000 < self.think_rate


def leg_rng(base: int, leg: int, salt: int = 0) -> Random:
    """The environment's answers for one leg: identical in both candidates of a pair."""
    return Random(base * 1009 + leg * 31 + salt)


def money(x: float) -> str:
    return f"${x:,.0f}" if float(x).is_integer() else f"${x:,.2f}"


def choice_weighted(rng: Random, table: Sequence[tuple[str, float]]) -> str:
    x = rng.random() * sum(w for _, w in table)
    for key, w in table:
        x -= w
        if x < 0:
            return key
    return table[-1][0]
