"""What every protocol shares: the error type, the verdict, rendering a template, strict JSON."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from string import Template
from typing import Any

MARKER = "<<arbiter:{}>>"
REPAIR_MARKER = "<<arbiter:repair>>"


class ParseError(ValueError):
    """A judge answer that does not follow the protocol's format; the message says what is wrong."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


@dataclass
class JudgeVerdict:
    label: dict[str, Any]  # canonical terms, like Annotation.label
    scores: dict[str, Any] = field(default_factory=dict)
    rationale: str = ""


def render(template: str, variables: dict[str, str]) -> str:
    """One pass of `$name` substitution: text coming from a trajectory is inserted as it is, so a
    `$x` or `{{ }}` inside it is never substituted again, and unknown `$names` stay literal."""
    return Template(template).safe_substitute(variables)


def system_message(protocol: str, instructions: str) -> dict[str, str]:
    # The marker on the first line lets the dev LLM server (and logs) tell protocols apart.
    return {"role": "system", "content": f"{MARKER.format(protocol)}\n{instructions.strip()}"}


def messages(protocol: str, instructions: str, template: str, variables: dict[str, str]) -> list[dict]:
    return [system_message(protocol, instructions), {"role": "user", "content": render(template, variables)}]


_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


def json_object(text: str) -> dict[str, Any]:
    """The answer must be one JSON object; a single ```json fence around it is tolerated."""
    body = (text or "").strip()
    if not body:
        raise ParseError("The answer is empty; expected one JSON object.")
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"The answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})."
        ) from None
    if not isinstance(value, dict):
        raise ParseError(f"The answer must be a JSON object, not {type(value).__name__}.")
    return value


def check_keys(obj: dict, required: set[str], where: str = "the answer") -> None:
    missing = sorted(required - obj.keys())
    if missing:
        raise ParseError(f"{where} is missing {', '.join(repr(k) for k in missing)}.")
    extra = sorted(obj.keys() - required)
    if extra:
        raise ParseError(f"{where} has unexpected keys {', '.join(repr(k) for k in extra)}.")


def string_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParseError(f"{where} must be a list of strings.")
    # Tags are identifiers: trimmed, deduplicated, order kept.
    return list(dict.fromkeys(v.strip() for v in value if v.strip()))


def text_field(obj: dict, key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise ParseError(f"{key!r} must be a string.")
    return value.strip()


def choice_text(choice: Any) -> str:
    """The text of an OpenAI-shaped choice ({"message": {"content": ...}})."""
    if isinstance(choice, dict):
        message = choice.get("message") or {}
        return message.get("content") or ""
    return ""


class Protocol:
    """One judging protocol. `build` gives one message list per call to make; `parse` turns one
    answer into a dict or raises ParseError; `combine` turns the parsed answers of all calls (in
    the order `build` gave them) and their raw choices into the suggestion (it may raise
    ParseError too, when an answer does not fit the item, e.g. a wrong number of steps)."""

    name: str = ""

    def build(self, item: Any, template: str) -> list[list[dict]]:
        raise NotImplementedError

    def parse(self, text: str) -> dict[str, Any]:
        raise NotImplementedError

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        raise NotImplementedError


def expect_calls(parsed_list: list[dict], n: int, protocol: str) -> None:
    if len(parsed_list) != n:
        raise ParseError(f"{protocol} expects {n} parsed answer(s), got {len(parsed_list)}.")
