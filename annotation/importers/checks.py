"""Line validation: JSON Schema errors as (field, reason) with dotted paths, then the rules
that span fields."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError

from .fastcheck import compile_check
from .schemas import SCHEMAS, VALIDATORS

Problem = tuple[str, str]  # (field path, reason)

# Most lines are valid: a compiled yes/no check clears them; jsonschema judges the rest.
QUICK = {name: compile_check(schema) for name, schema in SCHEMAS.items()}


def field_path(parts: Iterable[Any]) -> str:
    """deque(["chosen", "messages", 0, "role"]) → "chosen.messages[0].role"."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _join(base: str, name: str) -> str:
    return f"{base}.{name}" if base else name


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


_TYPE_NAMES = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


_REQUIRED = re.compile(r"^'(.+)' is a required property$")


def _reason(err: ValidationError) -> tuple[str, str]:
    """A short, specific reason (jsonschema's own messages repeat whole values)."""
    path = field_path(err.absolute_path)
    kind, expected, value = err.validator, err.validator_value, err.instance
    if kind == "required":
        # jsonschema reports each missing property as its own error; name the one this error is about.
        named = _REQUIRED.match(err.message)
        missing = named.group(1) if named else next((p for p in expected if p not in value), "")
        return _join(path, missing), "is required"
    if kind == "type":
        names = [expected] if isinstance(expected, str) else expected
        wanted = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        return path, f"must be {wanted}, not {type(value).__name__} {_brief(value)}"
    if kind == "enum":
        return path, f"{_brief(value)} is not one of {', '.join(map(repr, expected))}"
    if kind == "const":
        return path, f"must be {expected!r}, not {_brief(value)}"
    if kind == "maxItems":
        return path, f"has {len(value)} items; at most {expected} allowed"
    if kind == "minItems":
        return path, f"has {len(value)} items; at least {expected} needed"
    if kind == "maxLength":
        return path, f"is {len(value)} characters long; at most {expected} allowed"
    if kind == "minLength":
        return path, "must not be empty"
    return path, err.message if len(err.message) <= 200 else err.message[:197] + "…"


def schema_problems(schema_name: str, record: dict) -> list[Problem]:
    if QUICK[schema_name](record):
        return []
    return [_reason(err) for err in VALIDATORS[schema_name].iter_errors(record)]


def trace_schema_name(record: dict) -> str:
    return "trace_agentx" if "reasoning_steps" in record and "trajectory" not in record else "trace"


def semantic_problems(kind: str, record: dict) -> Iterator[Problem]:
    """Rules a schema cannot say. Only called on records that passed their schema; tool
    environments are checked when registered (`tool_problems`)."""
    if kind == "step":
        yield from _step_problems(record)
    elif kind == "pca":
        instance = record["instance"]
        if instance["answer"] not in instance["candidates"]:
            yield "instance.answer", f"{_brief(instance['answer'])} is not one of instance.candidates"
    elif kind == "query":
        yield from _query_problems(record)
    elif kind == "trace":
        if "reasoning_steps" in record and "trajectory" in record:
            yield "reasoning_steps", "give either trajectory or reasoning_steps, not both"
        elif "reasoning_steps" in record and not (
            isinstance(record.get("final_answer"), dict) or isinstance(record.get("final_output"), dict)
        ):
            yield "final_answer", "is required (or final_output) with reasoning_steps"


def _step_problems(record: dict) -> Iterator[Problem]:
    candidates = record["candidates"]
    references = [c["id"] for c in candidates if c.get("reference") is True]
    if len(references) != 1:
        yield "candidates", f"exactly one candidate must have reference: true (found {len(references)})"
    seen: set[str] = set()
    for i, candidate in enumerate(candidates):
        if candidate["id"] in seen:
            yield f"candidates[{i}].id", f"duplicate candidate id {candidate['id']!r}"
        seen.add(candidate["id"])


def _query_problems(record: dict) -> Iterator[Problem]:
    # Spacing and case do not make two candidates different queries.
    seen: dict[str, int] = {}
    for i, text in enumerate(record["candidates"]):
        key = " ".join(text.split()).casefold()
        if not key:
            yield f"candidates[{i}]", "must not be blank"
        elif key in seen:
            yield f"candidates[{i}]", f"repeats candidates[{seen[key]}]; candidates must be distinct"
        else:
            seen[key] = i


def tool_problems(tools: list[dict], where: str) -> Iterator[Problem]:
    """Checked when an environment is first registered, not on every line naming it."""
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if tool["name"] in names:
            yield f"{where}[{i}].name", f"duplicate tool name {tool['name']!r}"
        names.add(tool["name"])
        for key in ("parameters", "returns"):
            if key in tool:
                try:
                    Draft202012Validator.check_schema(tool[key])
                except SchemaError as exc:
                    yield f"{where}[{i}].{key}", f"is not a valid JSON Schema: {exc.message}"
