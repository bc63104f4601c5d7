"""Messages → readable text for a judge prompt (role, content, reasoning, tool calls, outputs)."""

from __future__ import annotations

import json
import re
from typing import Any

TOOL_OUTPUT_CHARS = 2000  # a judge needs the gist of an output, not a 30 KB page
CONTENT_CHARS = 8000
OBSERVATION_CHARS = 6000


# Lines of data that would read as the prompt's own structure (a heading such as
# "### Candidate B", a "Step n" block, a "Qn:" checklist line, a marker) get a "| " prefix, so
# a trajectory cannot fake a section of the prompt.
_STRUCTURE = re.compile(r"^(?=[ \t]*(?:#|Step[ \t]+\d|Q\d+[ \t]*:|<<arbiter:))", re.MULTILINE | re.IGNORECASE)


def data(text: str) -> str:
    return _STRUCTURE.sub("| ", text)


def truncate(text: str, limit: int) -> str:
    """Head and tail of a long text, with the number of characters left out in between."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n… [{len(text) - limit} characters omitted] …\n{text[-tail:]}"


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _content(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multimodal parts
        parts = []
        for part in value:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text") or ""))
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type') or 'part'}]")
            else:
                parts.append(str(part))
        return "\n".join(parts)
    return as_json(value)


def args_text(call: dict) -> str:
    args = call.get("arguments")
    if args is None:
        args = (call.get("function") or {}).get("arguments")
    if isinstance(args, dict) and "_raw" in args and len(args) == 1:
        return f"{args['_raw']}  (malformed JSON)"
    return as_json(args if args is not None else {})


def call_text(call: dict) -> str:
    name = call.get("name") or (call.get("function") or {}).get("name") or "?"
    return f"{name}({args_text(call)})"


def observation_text(observation: dict) -> str:
    lines = []
    if observation.get("url"):
        lines.append(f"url: {observation['url']}")
    if observation.get("axtree"):
        lines.append("accessibility tree:\n" + data(truncate(str(observation["axtree"]), OBSERVATION_CHARS)))
    if observation.get("screenshot"):
        lines.append(f"screenshot: {observation['screenshot']}")
    return "\n".join(lines)


def message_text(message: dict) -> str:
    role = message.get("role") or "?"
    name = f" ({message['name']})" if role == "tool" and message.get("name") else ""
    lines = [f"[{role}{name}]"]
    limit = TOOL_OUTPUT_CHARS if role == "tool" else CONTENT_CHARS
    if message.get("reasoning"):
        lines.append("reasoning: " + data(truncate(_content(message["reasoning"]), CONTENT_CHARS)))
    content = _content(message.get("content"))
    if content:
        lines.append(data(truncate(content, limit)))
    for call in message.get("tool_calls") or ():
        lines.append("tool call: " + call_text(call))
    if isinstance(message.get("observation"), dict):
        lines.append(observation_text(message["observation"]))
    if message.get("media"):
        lines.append("media: " + ", ".join(str(m) for m in message["media"]))
    return "\n".join(lines)


def messages_text(messages: list[dict]) -> str:
    if not messages:
        return "(none)"
    return "\n\n".join(message_text(m) for m in messages)


def tools_text(tools: list[dict] | None) -> str:
    """The tool environment as one line per tool: name, description, JSON parameters."""
    if not tools:
        return "(no tools)"
    lines = []
    for tool in tools:
        params = tool.get("parameters")
        suffix = f" parameters: {as_json(params)}" if params else ""
        lines.append(f"- {tool.get('name', '?')}: {tool.get('description') or ''}{suffix}")
    return "\n".join(lines)


def item_tools(item: Any) -> str:
    env = getattr(item.task, "tool_env", None) if item.task_id else None
    return tools_text(env.tools if env else None)
