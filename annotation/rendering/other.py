"""A read-only view of items whose labeling pages come later (recording):
their content, escaped and pretty-printed, without anything that reveals the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.models import Item

from .messages import Limits, Links, MediaView, MessageView, media_view, message_views
from .pair import ToolSpec, tool_specs
from .text import pretty_json

# Keys that carry the answer or the provenance of a candidate; annotators never see them.
BLINDED_KEYS = frozenset({"reference", "is_reference", "source", "gold", "reference_answer", "chosen"})


def blinded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: blinded(v) for k, v in value.items() if k not in BLINDED_KEYS}
    if isinstance(value, list):
        return [blinded(v) for v in value]
    return value


@dataclass(slots=True)
class OtherView:
    task_fields: list[tuple[str, str]]
    context: list[MessageView]
    messages: list[MessageView]
    payload: str
    media: list[MediaView]
    tools: list[ToolSpec]
    staff_extra: list[tuple[str, str]] = field(default_factory=list)


def other_view(*, item: Item, links: Links, staff: bool, limits: Limits | None = None) -> OtherView:
    limits = limits or Limits.from_settings()
    task = item.task
    fields: list[tuple[str, str]] = []
    if task is not None:
        for name in ("instruction", "website", "start_url", "environment", "domain", "difficulty"):
            value = getattr(task, name)
            if value:
                fields.append((name.replace("_", " "), str(value)))
    trajectory = item.trajectory_first
    payload = item.payload if staff else blinded(item.payload)
    extra: list[tuple[str, str]] = []
    if staff:
        extra = [("gold", pretty_json(item.gold)), ("meta", pretty_json(item.meta))]
        if trajectory is not None and trajectory.source:
            extra.append(("trajectory source", pretty_json(trajectory.source)))
    return OtherView(
        task_fields=fields,
        context=message_views(
            task.context if task is not None and isinstance(task.context, list) else [],
            part="context",
            links=links,
            limits=limits,
        ),
        messages=message_views(
            trajectory.messages if trajectory is not None and isinstance(trajectory.messages, list) else [],
            part="A",
            links=links,
            limits=limits,
        ),
        payload=pretty_json(payload) if payload else "",
        media=[
            media_view(p, links)
            for p in (task.media if task is not None and isinstance(task.media, list) else [])
        ],
        tools=tool_specs(task.tool_env if task is not None else None),
        staff_extra=extra,
    )
