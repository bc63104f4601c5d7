"""Derived numbers of a trajectory, computed once when it is written."""

from __future__ import annotations

import json

# A rough chars→tokens ratio for English and code; good enough to bin by length.
CHARS_PER_TOKEN = 4


def _text_len(message: dict) -> int:
    n = len(message.get("content") or "") + len(message.get("reasoning") or "")
    for call in message.get("tool_calls") or ():
        n += len(call.get("name") or "") + len(json.dumps(call.get("arguments"), ensure_ascii=False))
    return n


def trajectory_stats(messages: list[dict]) -> dict:
    n_chars = sum(_text_len(m) for m in messages)
    return {
        "n_turns": sum(1 for m in messages if m.get("role") in ("user", "assistant")),
        "n_tool_calls": sum(len(m.get("tool_calls") or ()) for m in messages),
        "n_chars": n_chars,
        "approx_tokens": (n_chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN,
        "has_malformed_arguments": any(
            "_raw" in (call.get("arguments") or {}) for m in messages for call in (m.get("tool_calls") or ())
        ),
    }
