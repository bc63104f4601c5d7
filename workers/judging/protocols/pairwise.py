"""Pairwise preference, judged twice with the order swapped (protocols.md section A)."""

from __future__ import annotations

from typing import Any

from .base import (
    JudgeVerdict,
    ParseError,
    Protocol,
    check_keys,
    expect_calls,
    json_object,
    messages,
    string_list,
    text_field,
)
from .templates import instructions
from .text import item_tools, messages_text

# Call 0 shows `first` as A, call 1 shows `second` as A.
ORDERS: tuple[tuple[str, str], ...] = (("first", "second"), ("second", "first"))
LETTERS = ("A", "B")


def critical_tags(item: Any) -> list[str]:
    return item.project.critical_tags(item.family or "")


def pair_variables(item: Any) -> dict[str, str]:
    return {
        "family": item.family or "(unspecified)",
        "tools": item_tools(item),
        "context": messages_text(item.task.context if item.task_id else []),
    }


class Pairwise(Protocol):
    name = "pairwise"

    def build(self, item: Any, template: str) -> list[list[dict]]:
        system = instructions("pairwise", family=item.family, critical_tags=critical_tags(item))
        sides = {"first": item.trajectory_first, "second": item.trajectory_second}
        calls = []
        for order in ORDERS:
            variables = {
                **pair_variables(item),
                "candidate_a": messages_text(sides[order[0]].messages),
                "candidate_b": messages_text(sides[order[1]].messages),
            }
            calls.append(messages("pairwise", system, template, variables))
        return calls

    def parse(self, text: str) -> dict[str, Any]:
        obj = json_object(text)
        check_keys(obj, {"preferred", "tags", "rationale"})
        preferred = obj["preferred"]
        if preferred not in ("A", "B", "tie"):
            raise ParseError(f'"preferred" must be "A", "B" or "tie", not {preferred!r}.')
        tags = obj["tags"]
        if not isinstance(tags, dict):
            raise ParseError('"tags" must be an object {"A": [...], "B": [...]}.')
        check_keys(tags, set(LETTERS), '"tags"')
        return {
            "preferred": preferred,
            "tags": {letter: string_list(tags[letter], f'"tags.{letter}"') for letter in LETTERS},
            "rationale": text_field(obj, "rationale"),
        }

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        expect_calls(parsed_list, 2, "pairwise")
        verdicts = [canonical(parsed, order) for parsed, order in zip(parsed_list, ORDERS, strict=True)]
        consistent = verdicts[0]["preferred"] == verdicts[1]["preferred"]
        label: dict[str, Any] = {"preferred": verdicts[0]["preferred"] if consistent else "inconsistent"}
        if consistent:
            # Only the tags both orders gave: a tag one order alone saw is not a finding.
            label["tags"] = {
                side: [t for t in verdicts[0]["tags"][side] if t in verdicts[1]["tags"][side]]
                for side in ("first", "second")
            }
        rationale = "\n\n".join(f"Order {'/'.join(v['order'])} as A/B: {v['rationale']}" for v in verdicts)
        return JudgeVerdict(
            label=label, scores={"verdicts": verdicts, "consistent": consistent}, rationale=rationale
        )


def canonical(parsed: dict, order: tuple[str, str]) -> dict[str, Any]:
    """One order's verdict in canonical terms (first/second), keeping the letter it gave."""
    side = dict(zip(LETTERS, order, strict=True))
    preferred = "tie" if parsed["preferred"] == "tie" else side[parsed["preferred"]]
    return {
        "order": list(order),
        "letter": parsed["preferred"],
        "preferred": preferred,
        "tags": {side[letter]: parsed["tags"][letter] for letter in LETTERS},
        "rationale": parsed["rationale"],
    }
