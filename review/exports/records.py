"""Verified items → the records an export writes.

Interchange records (formats/README.md) are rebuilt from an item's row (rows.Row: item, task
and trajectories) the way annotation.importers.records stored them, with the settled label
under ``label``; a pair's messages are spliced in as the stored JSON text. They import
again with annotation.importers.import_jsonl. What the humans settled on wins over the source:
a pair's ``chosen`` is the trajectory the settled label prefers, a step's ``reference`` is the
settled chosen candidate. A pair's label is written in the record's own terms ("chosen" /
"rejected"), because the stored "first"/"second" order is not part of the record.

The interchange records of traces and query items, and the other files of those kinds and of
steps (SFT, checklists, refined queries), are built in traces, steps and queries; formats
says which function writes which file.

Preference records follow the conversational preference shape of TRL and similar libraries:
``prompt`` (the shared context), ``chosen`` and ``rejected`` (message lists), ``tools`` (the
tool registry as OpenAI function tools) plus ``id`` and ``meta``. Messages use the chat
template shape: tool calls as {"id", "type": "function", "function": {"name", "arguments"}},
an assistant's hidden reasoning as ``reasoning_content``. Tied pairs have no preference and are
left out of that file (the manifest counts them).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .rows import Row

PAIR_SIDES = ("first", "second")
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
dumps = _encoder.encode

PREFERENCE_COLUMNS = ("id", "prompt", "chosen", "rejected", "tools", "meta")
INTERCHANGE_COLUMNS: dict[str, tuple[str, ...]] = {
    "pair": ("kind", "id", "tool_env", "context", "chosen", "rejected", "meta", "label"),
    "step": ("kind", "id", "task", "prefix", "checklist", "candidates", "meta", "label"),
    "trace": (
        "kind",
        "id",
        "tool_env",
        "query",
        "media",
        "environment",
        "trajectory",
        "final_answer",
        "reference_answer",
        "meta",
        "label",
    ),
    "pca": ("kind", "id", "instance", "output", "meta", "label"),
    "recording": ("kind", "id", "task", "meta", "label"),
    "query": ("kind", "id", "tool_env", "media", "environment", "candidates", "source", "meta", "label"),
}


class Envs:
    """The project's tool environments by id: their names, and their tools as function tools
    (serialised once, since every record of an environment repeats them)."""

    def __init__(self, envs: list[tuple[int, str, list[dict]]]):
        self.name = {pk: name for pk, name, _ in envs}
        self.tools = {pk: tools for pk, _, tools in envs}
        self.function_tools_json = {pk: dumps(function_tools(tools)) for pk, _, tools in envs}


def function_tools(tools: list[dict]) -> list[dict]:
    out = []
    for tool in tools:
        function = {"name": tool["name"], "description": tool.get("description") or ""}
        function["parameters"] = tool.get("parameters") or {"type": "object", "properties": {}}
        out.append({"type": "function", "function": function})
    return out


# Messages already in the chat shape pass through as they are (most user, system and tool turns).
_AS_IS = (frozenset({"role", "content"}), frozenset({"role", "content", "tool_call_id", "name"}))


def chat_message(message: dict) -> dict:
    keys = message.keys()
    if "content" in message and (keys <= _AS_IS[0] or (message.get("role") == "tool" and keys == _AS_IS[1])):
        return message
    out: dict[str, Any] = {"role": message.get("role"), "content": message.get("content")}
    if message.get("reasoning"):
        out["reasoning_content"] = message["reasoning"]
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {"name": call.get("name"), "arguments": call.get("arguments") or {}},
            }
            for call in calls
        ]
    if message.get("role") == "tool":
        out["tool_call_id"] = message.get("tool_call_id")
        out["name"] = message.get("name")
    # Web agents: what the browser showed, kept so nothing the judge saw is lost.
    for key in ("observation", "media"):
        if message.get(key):
            out[key] = message[key]
    return out


def chat_messages(messages: list[dict] | None) -> list[dict]:
    return [chat_message(m) for m in messages or ()]


# --- pairs ---------------------------------------------------------------------------------


class PairSides(NamedTuple):
    """A pair's settled label, read once: the preference ("first"/"second", "tie" or None
    without a usable label), which stored side is written as chosen / rejected, and the label
    in the record's terms."""

    preferred: str | None
    chosen: str
    rejected: str
    label: dict


def pair_sides(row: Row) -> PairSides:
    settled = row.settled_label
    preferred = settled.get("preferred")
    if preferred not in (*PAIR_SIDES, "tie"):
        preferred = None
    # A tie (or no label) keeps the source's order.
    chosen = preferred if preferred in PAIR_SIDES else row.gold.get("preferred")
    if chosen not in PAIR_SIDES:
        chosen = "first"
    rejected = "second" if chosen == "first" else "first"
    # In the record, sides are "chosen"/"rejected": the stored order is not part of it.
    label = dict(settled)
    if preferred in PAIR_SIDES:
        label["preferred"] = "chosen"
    if isinstance(label.get("tags"), dict):
        names = {chosen: "chosen", rejected: "rejected"}
        label["tags"] = {names.get(side, side): tags for side, tags in label["tags"].items()}
    return PairSides(preferred, chosen, rejected, label)


def pair_interchange_line(row: Row, envs: Envs, sides: PairSides) -> str:
    """Built around the stored JSON text of the context, messages, sources and meta."""
    parts = ['{"kind":"pair","id":', dumps(row.external_id)]
    if row.tool_env_id is not None:
        parts += [',"tool_env":', dumps(envs.name[row.tool_env_id])]
    parts += [',"context":', row.context_text or "[]"]
    for name, side in (("chosen", sides.chosen), ("rejected", sides.rejected)):
        messages, source = row.texts(side)
        parts += [',"', name, '":{"messages":', messages, ',"source":', source, "}"]
    parts += [',"meta":', row.meta_text or "{}", ',"label":', dumps(sides.label), "}"]
    return "".join(parts)


def preference_line(row: Row, envs: Envs, sides: PairSides) -> str | None:
    """One preference JSONL line, or None for a pair that has no preference (tie, no label)."""
    if sides.preferred not in PAIR_SIDES:
        return None
    env_id = row.tool_env_id
    meta = {
        **row.meta,
        "stratum": row.stratum,
        "tool_env": envs.name.get(env_id) if env_id is not None else None,
        "chosen_source": row.source(sides.chosen),
        "rejected_source": row.source(sides.rejected),
        "label": sides.label,
    }
    tools = envs.function_tools_json.get(env_id, "[]") if env_id is not None else "[]"
    # Built by hand around the tools, which are serialised once per environment.
    return "".join(
        (
            '{"id":',
            dumps(row.external_id),
            ',"prompt":',
            dumps(chat_messages(row.context)),
            ',"chosen":',
            dumps(chat_messages(row.messages(sides.chosen))),
            ',"rejected":',
            dumps(chat_messages(row.messages(sides.rejected))),
            ',"tools":',
            tools,
            ',"meta":',
            dumps(meta),
            "}",
        )
    )


# --- the other kinds -----------------------------------------------------------------------


def _web_task(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {"instruction": row.instruction or ""}
    for field in ("website", "start_url", "difficulty"):
        if getattr(row, field):
            out[field] = getattr(row, field)
    return out


def settled_checklist(row: Row) -> tuple[int, list]:
    """(version, items): the checklist version the label names, when it exists; else the
    imported one (version 1)."""
    named = row.settled_label.get("checklist_version")
    items = row.settled_checklist
    if isinstance(named, int) and items is not None:
        return named, items
    return 1, row.payload.get("checklist") or []


def step_interchange(row: Row, envs: Envs) -> dict:
    settled = row.settled_label.get("chosen")
    candidates = row.payload.get("candidates") or []
    ids = {c.get("id") for c in candidates}
    reference = settled if settled in ids else row.gold.get("chosen")
    return {
        "kind": "step",
        "id": row.external_id,
        "task": _web_task(row),
        "prefix": row.messages("first"),
        # The checklist the label settled on (an edited version, if it names one).
        "checklist": settled_checklist(row)[1],
        "candidates": [{**c, "reference": c.get("id") == reference} for c in candidates],
        "meta": row.meta,
        "label": row.settled_label,
    }


def pca_interchange(row: Row, envs: Envs) -> dict:
    return {
        "kind": "pca",
        "id": row.external_id,
        "instance": row.payload.get("instance") or {},
        "output": row.payload.get("output") or {},
        "meta": row.meta,
        "label": row.settled_label,
    }


def recording_interchange(row: Row, envs: Envs) -> dict:
    task = _web_task(row)
    judge = row.payload.get("judge") or row.task_metadata.get("judge")
    if judge:
        task["judge"] = judge
    return {
        "kind": "recording",
        "id": row.external_id,
        "task": task,
        "meta": row.meta,
        "label": row.settled_label,
    }


def tool_env_line(name: str, tools: list[dict]) -> str:
    return dumps({"kind": "tool_env", "id": name, "tools": tools})


def parquet_row(record: dict, columns: tuple[str, ...]) -> dict[str, str | None]:
    """Parquet rows keep text as text and nested values as JSON text: message lists and tool
    arguments differ in shape from row to row, which a fixed columnar type cannot hold."""
    row: dict[str, str | None] = {}
    for column in columns:
        value = record.get(column)
        row[column] = value if value is None or isinstance(value, str) else dumps(value)
    return row
