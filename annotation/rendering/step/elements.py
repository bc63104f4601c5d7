"""Element ids over the step screenshot (set-of-marks) and the accessibility tree as lines that
name their element, so a box and its tree line can point at each other.

Boxes come from the optional observation field `elements`: [{"id": "12", "bbox": [x, y, w, h],
"role": "...", "name": "..."}] in screenshot pixels (docs/formats.md, "step — element boxes").
They are placed in percent of the screenshot so they scale with the image; the screenshot's
size is `observation["screenshot_size"]` ([width, height]) or read from a stored PNG's header;
when neither is known the boxes carry their pixel bbox and step.js places them once the image
has loaded. Every string is plain text, escaped by the template."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Any

from annotation.importers.media import stored_media_file

from .. import text

MAX_BOXES = 500
_BID = re.compile(r"^\s*\[([^\]\s]{1,40})\]")
_PNG = b"\x89PNG\r\n\x1a\n"


@dataclass(slots=True)
class Box:
    bid: str
    bbox: str  # "x y w h" in screenshot pixels, for step.js
    style: str  # left/top/width/height in percent; "" when the screenshot's size is unknown
    role: str
    name: str


@dataclass(slots=True)
class AxLine:
    text: str
    bid: str  # "" for a line that names no element


def ax_lines(axtree: str) -> list[AxLine]:
    """One entry per line; `[12] link 'Home'` names element 12."""
    lines = []
    for line in axtree.splitlines():
        match = _BID.match(line)
        lines.append(AxLine(text=line, bid=match.group(1) if match else ""))
    return lines


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def screenshot_size(obs: dict, slug: str) -> tuple[float, float] | None:
    """(width, height) in pixels: the observation's own `screenshot_size`, else a PNG header."""
    size = obs.get("screenshot_size")
    if isinstance(size, dict):
        size = [size.get("width"), size.get("height")]
    if isinstance(size, (list, tuple)) and len(size) == 2:
        w, h = _number(size[0]), _number(size[1])
        if w and h and w > 0 and h > 0:
            return w, h
    path = text.safe_media_path(obs.get("screenshot"))
    target = stored_media_file(slug, path) if path else None
    if target is None:
        return None
    try:
        with target.open("rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or not head.startswith(_PNG):
        return None
    w, h = struct.unpack(">II", head[16:24])
    return (float(w), float(h)) if w and h else None


def element_boxes(obs: dict, size: tuple[float, float] | None) -> tuple[list[Box], int]:
    """The drawable boxes and how many entries were left out (no id, or a bbox that is not four
    non-negative numbers with a positive width and height)."""
    raw = obs.get("elements")
    if not isinstance(raw, list):
        return [], 0
    boxes: list[Box] = []
    skipped = 0
    for entry in raw[:MAX_BOXES]:
        bbox = entry.get("bbox") if isinstance(entry, dict) else None
        nums = [_number(v) for v in bbox] if isinstance(bbox, list) and len(bbox) == 4 else []
        bid = str(entry.get("id") if isinstance(entry, dict) and entry.get("id") is not None else "")
        if not bid or len(nums) != 4 or any(v is None or v < 0 for v in nums) or not nums[2] or not nums[3]:
            skipped += 1
            continue
        x, y, w, h = nums
        style = ""
        if size is not None:
            sw, sh = size
            style = (
                f"left:{x / sw * 100:.3f}%;top:{y / sh * 100:.3f}%;"
                f"width:{w / sw * 100:.3f}%;height:{h / sh * 100:.3f}%"
            )
        boxes.append(
            Box(
                bid=bid[:40],
                bbox=" ".join(f"{v:g}" for v in nums),
                style=style,
                role=str(entry.get("role") or ""),
                name=str(entry.get("name") or ""),
            )
        )
    return boxes, skipped + max(0, len(raw) - MAX_BOXES)
