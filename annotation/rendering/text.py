"""Turning trajectory values into display text. Nothing here produces markup: templates
escape every string these functions return."""

from __future__ import annotations

import json
import re
from typing import Any

_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)


def as_text(value: Any) -> str:
    """Message content as text: strings as they are, OpenAI content parts joined, anything
    else as pretty JSON (content is data, never evaluated)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        parts = []
        for part in value:
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                parts.append(pretty_json(part))
        return "\n".join(parts)
    return pretty_json(value)


def maybe_pretty_json(text: str) -> tuple[str, bool]:
    """Tool outputs are often JSON in a string; pretty-print them when they parse."""
    stripped = text.strip()
    if len(stripped) < 2 or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return text, False
    try:
        return pretty_json(json.loads(stripped)), True
    except ValueError:
        return text, False


def safe_media_path(path: Any) -> str | None:
    """A relative path inside the project's media, or None (absolute paths, URLs and `..`
    segments are shown as text, never fetched)."""
    if not isinstance(path, str) or not path or len(path) > 1000:
        return None
    if path.startswith(("/", "\\")) or _URL_SCHEME.match(path) or "\\" in path:
        return None
    if any(seg in ("..", "") for seg in path.split("/")):
        return None
    return path


VIDEO_SUFFIXES = (".mp4", ".webm", ".mov", ".m4v")


def is_video(path: str) -> bool:
    return path.lower().endswith(VIDEO_SUFFIXES)


def human_size(n_chars: int) -> str:
    if n_chars < 1000:
        return f"{n_chars} chars"
    if n_chars < 1_000_000:
        return f"{n_chars / 1000:.1f} K chars"
    return f"{n_chars / 1_000_000:.1f} M chars"


def first_line(text: str, limit: int = 120) -> str:
    line = text.lstrip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"
