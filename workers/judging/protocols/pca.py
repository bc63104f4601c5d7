"""P/C/A six-line scoring of a model's answer to a PCA-Bench instance (section D)."""

from __future__ import annotations

from typing import Any

from .base import JudgeVerdict, ParseError, Protocol, expect_calls, messages
from .templates import instructions
from .text import data

DIMENSIONS = ("action", "perception", "cognition")  # the order of the six lines
LINES = tuple(f"{d.capitalize()} {kind}" for d in DIMENSIONS for kind in ("evidence", "score"))


def _bullet(values: Any) -> str:
    if isinstance(values, list):
        return "\n".join(f"- {data(str(v))}" for v in values) or "(none)"
    return data(str(values or "(none)"))


class PCA(Protocol):
    name = "pca"

    def build(self, item: Any, template: str) -> list[list[dict]]:
        instance = item.payload.get("instance") or {}
        output = item.payload.get("output") or {}
        variables = {
            "domain": str(instance.get("domain") or ""),
            "question": data(str(instance.get("question") or "")),
            "context": data(str(instance.get("context") or "(none)")),
            "candidates": _bullet(instance.get("candidates")),
            "answer": data(str(instance.get("answer") or "")),
            "reason": data(str(instance.get("reason") or "")),
            "key_concepts": _bullet(instance.get("key_concepts")),
            "output": data(str(output.get("text") or "")),
        }
        return [messages("pca", instructions("pca"), template, variables)]

    def parse(self, text: str) -> dict[str, Any]:
        # Blank lines are layout; every other line must be one of the six, in order.
        lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
        if len(lines) != len(LINES):
            raise ParseError(
                f"Expected exactly six lines ({', '.join(LINES)}), got {len(lines)} non-empty line(s)."
            )
        out: dict[str, Any] = {"evidence": {}}
        for n, (line, name) in enumerate(zip(lines, LINES, strict=True), 1):
            prefix = f"{name}:"
            if not line.lower().startswith(prefix.lower()):
                raise ParseError(f"Line {n} must start with {prefix!r}; got {line[:60]!r}.")
            value = line[len(prefix) :].strip()
            dimension, kind = name.lower().split()
            if kind == "score":
                if value not in ("0", "1"):
                    raise ParseError(f"Line {n} ({prefix}) must hold only 0 or 1; got {value!r}.")
                out[dimension] = int(value)
            else:
                if not value:
                    raise ParseError(f"Line {n} ({prefix}) is empty; give the evidence.")
                out["evidence"][dimension] = value
        return out

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        expect_calls(parsed_list, 1, "pca")
        parsed = parsed_list[0]
        label = {d: parsed[d] for d in ("perception", "cognition", "action")}
        rationale = "\n".join(f"{d.capitalize()}: {parsed['evidence'][d]}" for d in DIMENSIONS)
        return JudgeVerdict(
            label=label, scores={**label, "evidence": parsed["evidence"]}, rationale=rationale
        )
