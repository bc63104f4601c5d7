"""Agent-X trace scoring: per-step and outcome scores, and the toolset F1 (section C).

Toolset F1 (our definition, from the judge's answer): U = the distinct tool names the trace
called; A = the tool names all of whose calls the judge marked accurate (tool_accuracy ≥ 0.5).
F1 = 2·|U ∩ A| / (|U| + |A|), and 1.0 when the trace called no tool.
"""

from __future__ import annotations

from typing import Any

from .base import (
    JudgeVerdict,
    ParseError,
    Protocol,
    check_keys,
    expect_calls,
    json_object,
    messages,
    text_field,
)
from .templates import instructions
from .text import TOOL_OUTPUT_CHARS, args_text, as_json, data, item_tools, truncate

STEP_SCORES = ("grounding", "tool_precision", "tool_accuracy")
TRACE_SCORES = ("faithfulness", "context", "factual_precision", "semantic_accuracy", "goal_accuracy")
PASS = 0.5


def trace_steps(trajectory_messages: list[dict]) -> list[dict]:
    """Assistant turns before the final answer, each with its tool call(s) and their outputs."""
    outputs = {m.get("tool_call_id"): m for m in trajectory_messages if m.get("role") == "tool"}
    assistants = [m for m in trajectory_messages if m.get("role") == "assistant"]
    if assistants and not assistants[-1].get("tool_calls"):
        assistants = assistants[:-1]  # the last plain answer is the final answer, shown apart
    steps = []
    for message in assistants:
        calls = message.get("tool_calls") or []
        steps.append(
            {
                "subtask": message.get("content") or "",
                "thought": message.get("reasoning") or "",
                "calls": calls,
                "outputs": [(outputs.get(c.get("id")) or {}).get("content") for c in calls],
            }
        )
    return steps


def steps_text(steps: list[dict]) -> str:
    if not steps:
        return "(no steps)"
    blocks = []
    for n, step in enumerate(steps, 1):
        lines = [f"Step {n}", f"sub-task: {data(step['subtask']) or '(none)'}"]
        if not step["calls"]:
            lines.append("tool: (none)")
        for call, output in zip(step["calls"], step["outputs"], strict=True):
            lines.append(f"tool: {call.get('name') or '?'}")
            lines.append(f"arguments: {args_text(call)}")
            lines.append(
                "output: "
                + truncate(output if isinstance(output, str) else as_json(output), TOOL_OUTPUT_CHARS)
            )
        lines.append(f"thought: {data(step['thought']) or '(none)'}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _score(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ParseError(f"{where} must be a number from 0 to 1, not {value!r}.")
    return float(value)


def toolset_f1(used: set[str], accurate: set[str]) -> float:
    if not used:
        return 1.0
    return 2 * len(used & accurate) / (len(used) + len(accurate))


class Trace(Protocol):
    name = "trace"

    def build(self, item: Any, template: str) -> list[list[dict]]:
        final = item.payload.get("final_answer") or {}
        answer = str(final.get("value") if final.get("value") is not None else "(no final answer)")
        if final.get("justification"):
            answer += f"\njustification: {final['justification']}"
        answer = data(answer)
        task = item.task
        variables = {
            "question": data(task.instruction) if task else "",
            "media": ", ".join(task.media) if task and task.media else "(none)",
            "tools": item_tools(item),
            "steps": steps_text(trace_steps(item.trajectory_first.messages)),
            "answer": answer,
        }
        return [messages("trace", instructions("trace"), template, variables)]

    def parse(self, text: str) -> dict[str, Any]:
        obj = json_object(text)
        check_keys(obj, {"steps", *TRACE_SCORES, "rationale"})
        if not isinstance(obj["steps"], list):
            raise ParseError('"steps" must be a list of step objects.')
        steps = []
        for k, step in enumerate(obj["steps"], 1):
            where = f"steps[{k - 1}]"
            if not isinstance(step, dict):
                raise ParseError(f"{where} must be an object.")
            check_keys(step, {"step", *STEP_SCORES}, where)
            if step["step"] != k or isinstance(step["step"], bool):
                raise ParseError(f"{where}.step must be {k}: number the steps 1, 2, 3 … in order.")
            steps.append({"step": k, **{s: _score(step[s], f"{where}.{s}") for s in STEP_SCORES}})
        out: dict[str, Any] = {"steps": steps, **{s: _score(obj[s], f'"{s}"') for s in TRACE_SCORES}}
        out["rationale"] = text_field(obj, "rationale")
        return out

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        expect_calls(parsed_list, 1, "trace")
        parsed = parsed_list[0]
        steps = trace_steps(item.trajectory_first.messages)
        if len(parsed["steps"]) != len(steps):
            raise ParseError(f"The trace has {len(steps)} step(s); the answer scored {len(parsed['steps'])}.")
        used: set[str] = set()
        inaccurate: set[str] = set()
        for step, scored in zip(steps, parsed["steps"], strict=True):
            names = {c.get("name") or "?" for c in step["calls"]}
            used |= names
            if scored["tool_accuracy"] < PASS:
                inaccurate |= names
        f1 = toolset_f1(used, used - inaccurate)
        weak = [s["step"] for s in parsed["steps"] if min(s[k] for k in STEP_SCORES) < PASS]
        scores = {
            "steps": parsed["steps"],
            **{s: parsed[s] for s in TRACE_SCORES},
            "toolset_f1": f1,
            "tools_used": sorted(used),
            "tools_accurate": sorted(used - inaccurate),
        }
        # The human label says whether the trace stands as it is; "corrected" here means the
        # judge found something a reviewer would have to correct.
        ok = parsed["goal_accuracy"] >= PASS and parsed["faithfulness"] >= PASS and not weak
        label: dict[str, Any] = {"verdict": "correct" if ok else "corrected"}
        if weak:
            label["errors"] = [f"step_{n}" for n in weak]
        return JudgeVerdict(label=label, scores=scores, rationale=parsed["rationale"])
