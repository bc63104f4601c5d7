"""Source-native shapes → the one interchange shape.

- typed tool registries (`inputs`/`outputs` with name, type, optional, default) → JSON Schema;
- tool-call `arguments` given as a string → parsed JSON, or kept as {"_raw": ...} and flagged;
- Agent-X traces (`reasoning_steps`, `final_answer` | `final_output`) → messages.
"""

from __future__ import annotations

import json
import re
from typing import Any


class AdapterError(ValueError):
    """A value the adapter cannot convert; `field` is relative to the record."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


_MEDIA_FORMATS = ("image", "video", "file")
TYPE_SCHEMAS: dict[str, dict[str, Any]] = {
    "text": {"type": "string"},
    "str": {"type": "string"},
    "string": {"type": "string"},
    "int": {"type": "integer"},
    "integer": {"type": "integer"},
    "float": {"type": "number"},
    "number": {"type": "number"},
    "bool": {"type": "boolean"},
    "boolean": {"type": "boolean"},
    "list": {"type": "array"},
    "array": {"type": "array"},
    "dict": {"type": "object"},
    "object": {"type": "object"},
    "any": {},
    # Media inputs travel as paths or URLs; the format says which kind of file is meant.
    **{name: {"type": "string", "format": name} for name in _MEDIA_FORMATS},
}
_LIST_OF = re.compile(r"^(?:list|array)\[(\w+)\]$")


def type_schema(type_name: str) -> dict[str, Any] | None:
    """JSON Schema for a typed-registry type name such as `int`, `image` or `list[str]`."""
    name = type_name.strip().lower()
    if name in TYPE_SCHEMAS:
        return dict(TYPE_SCHEMAS[name])
    match = _LIST_OF.match(name)
    if match and match.group(1) in TYPE_SCHEMAS:
        return {"type": "array", "items": dict(TYPE_SCHEMAS[match.group(1)])}
    return None


def _typed_object(entries: list[dict], where: str, *, all_required: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for j, entry in enumerate(entries):
        schema = type_schema(entry["type"])
        if schema is None:
            known = ", ".join(sorted(TYPE_SCHEMAS))
            raise AdapterError(f"{where}[{j}].type", f"unknown type {entry['type']!r}; use one of {known}")
        if entry.get("description"):
            schema["description"] = entry["description"]
        if "default" in entry:
            schema["default"] = entry["default"]
        properties[entry["name"]] = schema
        optional = entry.get("optional", False) or "default" in entry
        if all_required or not optional:
            required.append(entry["name"])
    return {"type": "object", "properties": properties, "required": required}


def tool_to_json_schema(tool: dict, where: str) -> dict[str, Any]:
    """One tool in the registry shape {name, description, parameters, returns}."""
    out = {"name": tool["name"], "description": tool.get("description") or ""}
    if "parameters" in tool:
        out["parameters"] = tool["parameters"]
    else:
        out["parameters"] = _typed_object(tool.get("inputs") or [], f"{where}.inputs", all_required=False)
    if "returns" in tool:
        out["returns"] = tool["returns"]
    elif tool.get("outputs"):
        out["returns"] = _typed_object(tool["outputs"], f"{where}.outputs", all_required=True)
    return out


def tool_env_tools(tools: list[dict], where: str = "tools") -> list[dict]:
    return [tool_to_json_schema(tool, f"{where}[{i}]") for i, tool in enumerate(tools)]


def normalize_arguments(value: Any) -> tuple[dict, bool]:
    """(arguments as an object, whether they were malformed)."""
    if isinstance(value, dict):
        return value, False
    if value is None or value == "":
        return {}, False
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return {"_raw": value}, True
        if isinstance(parsed, dict):
            return parsed, False
    # Valid JSON that is not an object is still not a usable argument list.
    return {"_raw": value if isinstance(value, str) else json.dumps(value)}, True


def normalize_call(call: dict) -> dict:
    args, malformed = normalize_arguments(call.get("arguments"))
    call["arguments"] = args
    if malformed:
        call["malformed_arguments"] = True
    return call


def normalize_messages(messages: list[dict]) -> list[dict]:
    """Tool-call arguments become objects (in place; the record is ours to change)."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            normalize_call(call)
    return messages


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def agentx_final_answer(record: dict) -> dict:
    """`final_answer: {value, justification}` or `final_output: {final_answer, justification}`."""
    if isinstance(record.get("final_answer"), dict):
        final = record["final_answer"]
        return {"value": final.get("value"), "justification": final.get("justification") or ""}
    final = record["final_output"]
    return {"value": final.get("final_answer"), "justification": final.get("justification") or ""}


def agentx_messages(record: dict) -> list[dict]:
    """Agent-X `reasoning_steps` as messages: the user query (with its media), then per step an
    assistant turn (task as content, thought as reasoning, the tool call) and the tool's answer,
    then the final answer."""
    user: dict[str, Any] = {"role": "user", "content": record["query"]}
    if record.get("media"):
        user["media"] = list(record["media"])
    messages = [user]
    for n, step in enumerate(record["reasoning_steps"], 1):
        tool = step.get("tool") or step.get("tool_used")
        assistant: dict[str, Any] = {"role": "assistant", "content": step.get("task")}
        if step.get("thought"):
            assistant["reasoning"] = step["thought"]
        messages.append(assistant)
        if not tool:
            continue
        call_id = f"call_{step.get('step', n)}"
        assistant["tool_calls"] = [
            normalize_call({"id": call_id, "name": tool, "arguments": step.get("arguments")})
        ]
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": tool,
                "content": _as_text(step.get("tool_output")),
            }
        )
    final = agentx_final_answer(record)
    messages.append({"role": "assistant", "content": _as_text(final["value"])})
    return messages
