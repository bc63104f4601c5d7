"""Verified traces (Agent-X) → interchange, chat SFT and preference records.

What the settled verdict means for each file:
- ``correct``: the original trace stands; interchange and SFT carry it unchanged, no preference.
- ``corrected``: the label names the annotator's new Trajectory (parent = the original). The
  interchange record's trajectory and the SFT record are the corrected messages with the
  label's final answer; the preference record prefers the corrected trace over the original.
- ``discard``: kept in the interchange file (with its label, so the decision is on record), left
  out of SFT and preference: a discarded trace teaches nothing.

SFT records follow the OpenAI chat fine-tuning shape: ``messages`` (system?, user with the
query and its media as content parts, assistant turns with ``tool_calls`` whose arguments are
JSON text, tool turns, the final answer) and ``tools`` (function tools), plus ``id`` and
``meta``. OpenAI's shape has no place for an assistant's hidden reasoning, so a step's thought
follows its sub-task in the content, and the final answer's justification follows the value.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from .records import Envs, chat_messages, dumps
from .rows import Row

CORRECT, CORRECTED, DISCARD = "correct", "corrected", "discard"
VIDEO_EXTENSIONS = (".mp4", ".webm", ".mov", ".mkv")

SFT_COLUMNS = ("id", "messages", "tools", "meta")


def verdict(row: Row) -> str | None:
    return row.settled_label.get("verdict")


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class Trace:
    """One verified trace read once: the original, and the version the label settled on."""

    def __init__(self, row: Row):
        self.row = row
        label = row.settled_label
        self.verdict = label.get("verdict")
        self.original_messages: list[dict] = row.messages("first")
        self.original_final: dict = row.payload.get("final_answer") or {"value": None}
        corrected = row.corrected if self.verdict == CORRECTED else None
        self.corrected = corrected
        if corrected is not None:
            self.messages = corrected.get("messages") or []
            self.final = {**self.original_final, **(label.get("final_answer") or {})}
        else:
            self.messages = self.original_messages
            self.final = self.original_final
        self.edit_reasons: list[str] = list(
            (corrected or {}).get("edit_reasons") or label.get("edit_reasons") or []
        )

    @property
    def missing_correction(self) -> bool:
        """A `corrected` verdict whose trajectory cannot be found (another project's, deleted)."""
        return self.verdict == CORRECTED and self.corrected is None

    def source(self) -> dict:
        original = self.row.source("first")
        if self.corrected is None:
            return original
        return {
            "type": "human",
            "parent": self.row.external_id,
            # The version it was made from: the imported one, or an earlier correction.
            "parent_trajectory": self.corrected.get("parent") or self.row.first_id,
            "parent_version": self.corrected.get("parent_version") or self.row.first_version or 1,
            "trajectory": self.corrected.get("id"),
            "version": self.corrected.get("version"),
            "edit_reasons": self.edit_reasons,
            "original_source": original,
        }


# --- interchange ---------------------------------------------------------------------------


def trace_interchange(row: Row, envs: Envs) -> dict:
    trace = Trace(row)
    record: dict[str, Any] = {"kind": "trace", "id": row.external_id}
    if row.tool_env_id is not None:
        record["tool_env"] = envs.name[row.tool_env_id]
    record["query"] = row.instruction or ""
    if row.task_media:
        record["media"] = row.task_media
    if row.environment:
        record["environment"] = row.environment
    record["trajectory"] = {"messages": trace.messages, "source": trace.source()}
    record["final_answer"] = trace.final
    if "reference_answer" in row.gold:
        record["reference_answer"] = row.gold["reference_answer"]
    record["meta"] = row.meta
    record["label"] = row.settled_label
    return record


# --- shared: prompt and completion ----------------------------------------------------------


def _split_prompt(messages: list[dict]) -> tuple[list[dict], list[dict]]:
    """(leading system/user turns, the rest): the prompt is what the agent was given."""
    n = 0
    while n < len(messages) and messages[n].get("role") in ("system", "user"):
        n += 1
    return messages[:n], messages[n:]


def _prompt(row: Row, messages: list[dict]) -> list[dict]:
    prompt, _ = _split_prompt(messages)
    if not any(m.get("role") == "user" for m in prompt):
        user: dict[str, Any] = {"role": "user", "content": row.instruction or ""}
        if row.task_media:
            user["media"] = row.task_media
        prompt = [*prompt, user]
    return prompt


def _with_final(turns: list[dict], final: dict) -> list[dict]:
    """The turns ending in the final answer: the closing assistant turn (no tool call) says
    the settled value, with the justification as its reasoning; without one, a turn is added."""
    closing: dict[str, Any] = {"role": "assistant", "content": _as_text(final.get("value"))}
    if final.get("justification"):
        closing["reasoning"] = _as_text(final["justification"])
    if turns and turns[-1].get("role") == "assistant" and not turns[-1].get("tool_calls"):
        kept = {k: v for k, v in turns[-1].items() if k not in ("content", "reasoning")}
        return [*turns[:-1], {**kept, **closing}]
    return [*turns, closing]


def completion(trace_messages: list[dict], final: dict) -> list[dict]:
    _, rest = _split_prompt(trace_messages)
    return _with_final(rest, final)


def _meta(trace: Trace, envs: Envs) -> dict:
    row = trace.row
    return {
        **row.meta,
        "stratum": row.stratum,
        "environment": row.environment or None,
        "tool_env": envs.name.get(row.tool_env_id) if row.tool_env_id is not None else None,
        "verdict": trace.verdict,
        "edit_reasons": trace.edit_reasons,
        "final_answer": trace.final,
        "source": trace.source(),
    }


# --- SFT (OpenAI chat fine-tuning shape) -----------------------------------------------------


def _media_part(path: str) -> dict:
    if posixpath.splitext(str(path))[1].lower() in VIDEO_EXTENSIONS:
        return {"type": "video_url", "video_url": {"url": path}}
    return {"type": "image_url", "image_url": {"url": path}}


def openai_message(message: dict) -> dict:
    role = message.get("role")
    content = message.get("content")
    if role == "user" and message.get("media"):
        parts: list[dict] = [{"type": "text", "text": _as_text(content)}] if content else []
        parts += [_media_part(p) for p in message["media"]]
        return {"role": role, "content": parts}
    if role == "tool":
        return {"role": "tool", "tool_call_id": message.get("tool_call_id"), "content": _as_text(content)}
    if role == "assistant":
        text = "\n".join(_as_text(t) for t in (content, message.get("reasoning")) if t)
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = message.get("tool_calls")
        if calls:
            out["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "type": "function",
                    "function": {
                        "name": call.get("name"),
                        # OpenAI's shape: the arguments as JSON text.
                        "arguments": dumps(call.get("arguments") or {}),
                    },
                }
                for call in calls
            ]
        return out
    return {"role": role, "content": _as_text(content)}


def trace_sft_line(row: Row, envs: Envs) -> tuple[list[str], str | None]:
    """([one SFT line], None), or ([], why it is left out)."""
    trace = Trace(row)
    if trace.verdict not in (CORRECT, CORRECTED):
        return [], trace.verdict or "unlabeled"
    if trace.missing_correction:
        return [], "missing_correction"
    messages = [*_prompt(row, trace.messages), *completion(trace.messages, trace.final)]
    tools = envs.function_tools_json.get(row.tool_env_id, "[]") if row.tool_env_id is not None else "[]"
    return [
        "".join(
            (
                '{"id":',
                dumps(row.external_id),
                ',"messages":',
                dumps([openai_message(m) for m in messages]),
                ',"tools":',
                tools,
                ',"meta":',
                dumps(_meta(trace, envs)),
                "}",
            )
        )
    ], None


# --- preference: corrected (chosen) vs original (rejected) ----------------------------------


def trace_preference_line(row: Row, envs: Envs) -> tuple[list[str], str | None]:
    trace = Trace(row)
    if trace.verdict != CORRECTED:
        return [], trace.verdict or "unlabeled"
    if trace.missing_correction:
        return [], "missing_correction"
    chosen = chat_messages(completion(trace.messages, trace.final))
    rejected = chat_messages(completion(trace.original_messages, trace.original_final))
    if chosen == rejected:
        return [], "unchanged"
    meta = {**_meta(trace, envs), "original_final_answer": trace.original_final}
    tools = envs.function_tools_json.get(row.tool_env_id, "[]") if row.tool_env_id is not None else "[]"
    return [
        "".join(
            (
                '{"id":',
                dumps(row.external_id),
                ',"prompt":',
                dumps(chat_messages(_prompt(row, trace.original_messages))),
                ',"chosen":',
                dumps(chosen),
                ',"rejected":',
                dumps(rejected),
                ',"tools":',
                tools,
                ',"meta":',
                dumps(meta),
                "}",
            )
        )
    ], None
