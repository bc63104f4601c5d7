"""The trace page's view data (Agent-X): query, visual input, tool registry, numbered steps and
final answer; and the step-by-step diff of a correction against the version it was made from.

Every value is plain text for the templates to escape; the diff markup is built from escaped
tokens only (annotation.rendering.diff.word_diff). The reference answer reaches staff only."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString

from annotation.models import Item, Trajectory
from annotation.traces import (
    argument_errors,
    is_hallucinated,
    tool_registry,
    trace_final,
    trace_query,
    trace_steps,
)

from .diff import word_diff
from .messages import Links, MediaView, media_view
from .pair import ToolSpec, tool_specs
from .text import pretty_json

STEP_FIELDS = (
    ("task", "Sub-task"),
    ("thought", "Thought"),
    ("tool", "Tool"),
    ("arguments", "Arguments"),
    ("output", "Tool output"),
)


def arguments_text(arguments: object) -> str:
    """Arguments as the editor and the page show them: pretty JSON, or the raw text that did
    not parse."""
    if isinstance(arguments, dict) and set(arguments) == {"_raw"}:
        return str(arguments["_raw"])
    return pretty_json(arguments if arguments is not None else {})


@dataclass(slots=True)
class StepRow:
    n: int
    index: int
    task: str
    thought: str
    tool: str
    arguments: str
    output: str
    malformed: bool
    hallucinated: bool
    argument_problems: list[str]


@dataclass(slots=True)
class TraceView:
    query: str
    media: list[MediaView]
    environment: str
    tools: list[ToolSpec]
    registry: dict[str, dict]
    steps: list[StepRow]
    final: dict
    reference: str  # staff only; empty for annotators

    @property
    def flagged_steps(self) -> list[int]:
        return [s.n for s in self.steps if s.hallucinated or s.malformed]


def step_rows(steps: list[dict], registry: dict[str, dict]) -> list[StepRow]:
    rows = []
    for i, s in enumerate(steps):
        hallucinated = is_hallucinated(s["tool"], registry)
        problems = (
            [] if hallucinated or not s["tool"] else argument_errors(s["arguments"], registry.get(s["tool"]))
        )
        rows.append(
            StepRow(
                n=i + 1,
                index=i,
                task=s["task"],
                thought=s["thought"],
                tool=s["tool"],
                arguments=arguments_text(s["arguments"]),
                output=s["output"],
                malformed=s.get("malformed", False),
                hallucinated=hallucinated,
                argument_problems=problems,
            )
        )
    return rows


def trace_view(*, item: Item, links: Links, staff: bool) -> TraceView:
    task = item.task
    messages = item.trajectory_first.messages if item.trajectory_first is not None else []
    query, media = trace_query(messages)
    media_paths = task.media if task is not None and isinstance(task.media, list) and task.media else media
    registry = tool_registry(task.tool_env if task is not None else None)
    final = (item.payload or {}).get("final_answer") or {}
    reference = (item.gold or {}).get("reference_answer") if staff else None
    return TraceView(
        query=(task.instruction if task is not None and task.instruction else query),
        media=[media_view(p, links) for p in media_paths],
        environment=(task.environment or task.domain) if task is not None else "",
        tools=tool_specs(task.tool_env if task is not None else None),
        registry=registry,
        steps=step_rows(trace_steps(messages), registry),
        final={
            "value": "" if final.get("value") is None else str(final.get("value")),
            "justification": str(final.get("justification") or ""),
        },
        reference="" if reference is None else str(reference),
    )


def editor_steps(steps: list[dict]) -> list[dict]:
    """Steps in the editor's shape: arguments as an object, or the raw text when malformed."""
    return [
        {
            "task": s["task"],
            "thought": s["thought"],
            "tool": s["tool"],
            "arguments": arguments_text(s["arguments"]) if s.get("malformed") else s["arguments"],
            "output": s["output"],
        }
        for s in steps
    ]


# --- the diff of a correction -----------------------------------------------------------------


@dataclass(slots=True)
class FieldDiff:
    name: str
    label: str
    a: SafeString
    b: SafeString
    changed: bool


@dataclass(slots=True)
class StepDiff:
    a_n: int | None
    b_n: int | None
    status: str  # same | changed | inserted | deleted
    fields: list[FieldDiff]


@dataclass(slots=True)
class TraceDiff:
    steps: list[StepDiff]
    final: list[FieldDiff]
    a_label: str
    b_label: str

    @property
    def n_changed(self) -> int:
        return sum(1 for s in self.steps if s.status != "same") + sum(1 for f in self.final if f.changed)


def _field_text(step: dict | None, name: str) -> str:
    if step is None:
        return ""
    return arguments_text(step["arguments"]) if name == "arguments" else str(step.get(name) or "")


def _fields(a: dict | None, b: dict | None, names=STEP_FIELDS) -> list[FieldDiff]:
    out = []
    for name, label in names:
        ta, tb = _field_text(a, name), _field_text(b, name)
        if ta == tb:
            out.append(FieldDiff(name, label, SafeString(escape(ta)), SafeString(escape(tb)), False))
        else:
            d = word_diff(ta, tb)
            out.append(FieldDiff(name, label, d.a, d.b, True))
    return out


def _key(step: dict) -> tuple:
    return (step["tool"], step["task"])


def trace_diff(
    a_steps: list[dict],
    b_steps: list[dict],
    a_final: dict,
    b_final: dict,
    *,
    a_label: str = "Original",
    b_label: str = "Corrected",
) -> TraceDiff:
    """Step by step: steps are aligned on (tool, sub-task); a step edited in place is compared
    field by field, word by word; steps only one side has are inserted or deleted."""
    out: list[StepDiff] = []

    def pair(i: int | None, j: int | None) -> None:
        a = a_steps[i] if i is not None else None
        b = b_steps[j] if j is not None else None
        fields = _fields(a, b)
        if a is None:
            status = "inserted"
        elif b is None:
            status = "deleted"
        else:
            status = "changed" if any(f.changed for f in fields) else "same"
        out.append(StepDiff(None if i is None else i + 1, None if j is None else j + 1, status, fields))

    matcher = SequenceMatcher(None, [_key(s) for s in a_steps], [_key(s) for s in b_steps], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        common = min(i2 - i1, j2 - j1) if tag in ("equal", "replace") else 0
        for k in range(common):
            a, b = a_steps[i1 + k], b_steps[j1 + k]
            if tag == "equal" or a["tool"] == b["tool"] or a["task"] == b["task"]:
                pair(i1 + k, j1 + k)  # the same step, edited in place (a replaced tool, new arguments)
            else:
                pair(i1 + k, None)
                pair(None, j1 + k)
        for i in range(i1 + common, i2):
            pair(i, None)
        for j in range(j1 + common, j2):
            pair(None, j)
    final = _fields(
        {k: str(a_final.get(k) or "") for k in ("value", "justification")},
        {k: str(b_final.get(k) or "") for k in ("value", "justification")},
        names=(("value", "Final answer"), ("justification", "Justification")),
    )
    return TraceDiff(out, final, a_label, b_label)


def correction_diff(*, item: Item, trajectory: Trajectory, a_label: str = "Original") -> TraceDiff:
    """A saved correction against the item's original trace (not against its parent: reviewers
    compare what the annotator changed overall)."""
    original = item.trajectory_first.messages if item.trajectory_first is not None else []
    final = (item.payload or {}).get("final_answer") or {}
    return trace_diff(
        trace_steps(original),
        trace_steps(trajectory.messages),
        {
            "value": "" if final.get("value") is None else str(final["value"]),
            "justification": final.get("justification"),
        },
        trace_final(trajectory.messages),
        a_label=a_label,
        b_label=f"Corrected (version {trajectory.version})",
    )
