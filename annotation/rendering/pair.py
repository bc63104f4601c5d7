"""Everything a pair page shows, in the order the viewer sees it (A/B for annotators,
first/second for staff)."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.models import Item, ToolEnv, Trajectory

from .diff import apply_pair_diff
from .messages import Limits, Links, MediaView, MessageView, media_view, message_views
from .text import as_text, pretty_json

LETTERS = ("A", "B")


@dataclass(slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: str  # pretty JSON Schema
    returns: str


@dataclass(slots=True)
class SideView:
    letter: str  # "A" / "B": what annotators see and what URLs carry
    canonical: str  # "first" / "second": shown to staff only
    messages: list[MessageView]
    n_turns: int
    n_tool_calls: int
    approx_tokens: int
    has_malformed: bool
    source: dict = field(default_factory=dict)  # shown to staff only: it can tell which side was edited
    name: str = ""  # what the page calls this side: the letter, or the canonical name for staff

    @property
    def tokens_label(self) -> str:
        return f"{self.approx_tokens:,}"

    @property
    def source_json(self) -> str:
        return pretty_json(self.source)


@dataclass(slots=True)
class PairView:
    context: list[MessageView]
    sides: list[SideView]
    tools: list[ToolSpec]
    tool_env_name: str
    media: list[MediaView]
    similarity: float

    @property
    def diff_shown(self) -> bool:
        return any(
            m.content_diff is not None or any(c.diff is not None for c in m.tool_calls)
            for side in self.sides
            for m in side.messages
        )

    @property
    def token_diff(self) -> int:
        return self.sides[1].approx_tokens - self.sides[0].approx_tokens

    @property
    def length_note(self) -> str:
        a, b = self.sides[0].approx_tokens, self.sides[1].approx_tokens
        name_a, name_b = self.sides[0].name, self.sides[1].name
        if a == b:
            return f"{name_a} and {name_b} are the same length."
        longer, shorter = (name_b, name_a) if b > a else (name_a, name_b)
        diff = abs(b - a)
        pct = round(100 * diff / max(1, min(a, b)))
        return f"{longer} is ~{diff:,} tokens longer than {shorter} (+{pct}%)."


def tool_specs(tool_env: ToolEnv | None) -> list[ToolSpec]:
    if tool_env is None:
        return []
    specs = []
    for tool in tool_env.tools or ():
        if not isinstance(tool, dict):
            continue
        specs.append(
            ToolSpec(
                name=as_text(tool.get("name")) or "?",
                description=as_text(tool.get("description")),
                parameters=pretty_json(tool.get("parameters") or {}),
                returns=pretty_json(tool["returns"]) if tool.get("returns") else "",
            )
        )
    return specs


def _side(
    letter: str, canonical: str, trajectory: Trajectory | None, *, links: Links, limits: Limits, known
) -> SideView:
    messages = trajectory.messages if trajectory is not None and isinstance(trajectory.messages, list) else []
    views = message_views(messages, part=letter, links=links, limits=limits, known_tools=known)
    if trajectory is None:
        return SideView(letter, canonical, views, 0, 0, 0, False)
    return SideView(
        letter=letter,
        canonical=canonical,
        messages=views,
        n_turns=trajectory.n_turns,
        n_tool_calls=trajectory.n_tool_calls,
        approx_tokens=trajectory.approx_tokens,
        has_malformed=trajectory.has_malformed_arguments,
        source=trajectory.source if isinstance(trajectory.source, dict) else {},
    )


def pair_view(
    *, item: Item, order: list[str], links: Links, limits: Limits | None = None, staff: bool = False
) -> PairView:
    """`order` is the display order: ["second", "first"] puts the `second` trajectory in A.
    Staff see canonical names (first/second) on the page; URLs carry the letters either way."""
    limits = limits or Limits.from_settings()
    task = item.task
    tool_env = task.tool_env if task is not None else None
    tools = tool_specs(tool_env)
    known = frozenset(t.name for t in tools) if tools else None
    by_side = {"first": item.trajectory_first, "second": item.trajectory_second}
    sides = [
        _side(letter, canonical, by_side[canonical], links=links, limits=limits, known=known)
        for letter, canonical in zip(LETTERS, order, strict=True)
    ]
    for side in sides:
        side.name = side.canonical if staff else side.letter
    context = task.context if task is not None and isinstance(task.context, list) else []
    task_media = task.media if task is not None and isinstance(task.media, list) else []
    similarity = apply_pair_diff(sides[0].messages, sides[1].messages)
    return PairView(
        context=message_views(context, part="context", links=links, limits=limits, known_tools=known),
        sides=sides,
        tools=tools,
        tool_env_name=tool_env.name if tool_env is not None else "",
        media=[media_view(p, links) for p in task_media],
        similarity=similarity,
    )
