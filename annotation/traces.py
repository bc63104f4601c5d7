"""Agent-X traces as numbered steps {sub-task, thought, tool, arguments, tool output} and back.

A trace is stored in the interchange shape (annotation.importers.adapters.agentx_messages): the
user query, per step an assistant turn (sub-task as content, thought as reasoning, one tool call)
and the tool's answer, then the final answer as a last assistant turn without tool calls. The
editor works on steps; a correction is written back as messages so exports read one shape.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from annotation.importers.adapters import normalize_arguments

STEP_FIELDS = ("task", "thought", "tool", "arguments", "output")
MAX_STEPS = 50
MAX_FIELD_CHARS = 20_000


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _is_final(messages: list[dict], index: int) -> bool:
    """An assistant turn without tool calls that no assistant or tool turn follows."""
    return all(m.get("role") not in ("assistant", "tool") for m in messages[index + 1 :])


def trace_steps(messages: list[dict] | None, registry: dict[str, dict] | None = None) -> list[dict]:
    """The steps of a trace: [{n, task, thought, tool, arguments, output, malformed}], n from 1.

    One step per tool call (a turn with several calls, a frequent model error, becomes several
    steps, the sub-task and thought on the first); an assistant turn without a call is a step
    without a tool unless it is the final answer. Malformed arguments stay {"_raw": text}.
    With a `registry` (tool_registry), each step also says whether its tool is `hallucinated`."""
    messages = [m for m in messages or () if isinstance(m, dict)]
    outputs: dict[str, str] = {}
    for m in messages:
        if m.get("role") == "tool" and m.get("tool_call_id"):
            outputs.setdefault(str(m["tool_call_id"]), _text(m.get("content")))
    unclaimed = [m for m in messages if m.get("role") == "tool" and not m.get("tool_call_id")]
    steps: list[dict] = []
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        calls = [c for c in m.get("tool_calls") or () if isinstance(c, dict)]
        if not calls:
            if _is_final(messages, i):
                continue
            calls = [None]
        for k, call in enumerate(calls):
            step = {
                "n": len(steps) + 1,
                "task": _text(m.get("content")) if k == 0 else "",
                "thought": _text(m.get("reasoning")) if k == 0 else "",
                "tool": "",
                "arguments": {},
                "output": "",
                "malformed": False,
            }
            if call is not None:
                fn = call.get("function") if isinstance(call.get("function"), dict) else call
                args, malformed = normalize_arguments(fn.get("arguments"))
                step["tool"] = _text(fn.get("name"))
                step["arguments"] = args
                step["malformed"] = malformed or bool(call.get("malformed_arguments")) or "_raw" in args
                call_id = str(call.get("id") or "")
                if call_id in outputs:
                    step["output"] = outputs[call_id]
                elif unclaimed:
                    step["output"] = _text(unclaimed.pop(0).get("content"))
            if registry is not None:
                step["hallucinated"] = is_hallucinated(step["tool"], registry)
            steps.append(step)
    return steps


def trace_query(messages: list[dict] | None) -> tuple[str, list[str]]:
    """The first user turn: (query, media paths)."""
    for m in messages or ():
        if isinstance(m, dict) and m.get("role") == "user":
            media = m.get("media") if isinstance(m.get("media"), list) else []
            return _text(m.get("content")), [str(p) for p in media]
    return "", []


def trace_final(messages: list[dict] | None) -> dict:
    """{value, justification} of the last assistant turn when it is a final answer."""
    messages = [m for m in messages or () if isinstance(m, dict)]
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") == "assistant":
            if m.get("tool_calls") or not _is_final(messages, i):
                break
            return {"value": _text(m.get("content")), "justification": _text(m.get("reasoning"))}
    return {"value": "", "justification": ""}


def steps_to_messages(
    steps: list[dict],
    *,
    query: str | None = None,
    media: list[str] | None = None,
    final_answer: dict | None = None,
) -> list[dict]:
    """Steps → interchange messages (the inverse of trace_steps). The query turn and the final
    answer are added when given; the justification travels as the final turn's reasoning."""
    messages: list[dict] = []
    if query is not None:
        user: dict[str, Any] = {"role": "user", "content": query}
        if media:
            user["media"] = list(media)
        messages.append(user)
    for n, step in enumerate(steps, 1):
        assistant: dict[str, Any] = {"role": "assistant", "content": _text(step.get("task"))}
        if step.get("thought"):
            assistant["reasoning"] = _text(step["thought"])
        messages.append(assistant)
        tool = _text(step.get("tool")).strip()
        if not tool:
            continue
        call_id = f"call_{n}"
        args = step.get("arguments")
        call: dict[str, Any] = {
            "id": call_id,
            "name": tool,
            "arguments": args if isinstance(args, dict) else {},
        }
        if isinstance(args, dict) and "_raw" in args:
            call["malformed_arguments"] = True
        assistant["tool_calls"] = [call]
        messages.append(
            {"role": "tool", "tool_call_id": call_id, "name": tool, "content": _text(step.get("output"))}
        )
    if final_answer is not None:
        final: dict[str, Any] = {"role": "assistant", "content": _text(final_answer.get("value"))}
        if final_answer.get("justification"):
            final["reasoning"] = _text(final_answer["justification"])
        messages.append(final)
    return messages


# --- the tool registry ------------------------------------------------------------------------


def tool_registry(tool_env: Any) -> dict[str, dict]:
    """{tool name: JSON-schema of its parameters} of a ToolEnv (None → empty registry)."""
    registry: dict[str, dict] = {}
    for tool in getattr(tool_env, "tools", None) or ():
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            params = tool.get("parameters")
            registry[tool["name"]] = params if isinstance(params, dict) else {"type": "object"}
    return registry


def is_hallucinated(tool: str, registry: dict[str, dict]) -> bool:
    """A called tool the registry does not have. Without a registry nothing can be judged."""
    return bool(tool) and bool(registry) and tool not in registry


def argument_errors(arguments: Any, schema: dict | None) -> list[str]:
    """Why `arguments` do not fit the tool's parameter schema (empty when they do)."""
    if not isinstance(arguments, dict) or "_raw" in arguments:
        return ["Arguments must be a JSON object."]
    if not schema:
        return []
    try:
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except SchemaError:
        return []  # a broken registry schema cannot be held against the annotator
    out = []
    for err in errors[:10]:
        where = ".".join(str(p) for p in err.absolute_path)
        out.append(f"{where}: {err.message}" if where else err.message)
    return out


def parse_editor_steps(raw: Any, registry: dict[str, dict]) -> tuple[list[dict], dict[str, str]]:
    """Steps posted by the editor (a JSON list) → (clean steps, errors keyed steps.N.field).

    Arguments may come as an object or as the JSON text typed in the editor. The server is the
    authority: every tool must be in the registry (when there is one) and every argument list
    must fit its tool's schema."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else []
        except ValueError as exc:
            return [], {"steps": f"The edited steps are not valid JSON ({exc.msg}, line {exc.lineno})."}
    if not isinstance(raw, list) or not all(isinstance(s, dict) for s in raw):
        return [], {"steps": "The edited steps must be a list of step objects."}
    if not raw:
        return [], {"steps": "A corrected trace needs at least one step."}
    if len(raw) > MAX_STEPS:
        return [], {"steps": f"A trace may have at most {MAX_STEPS} steps."}
    steps: list[dict] = []
    errors: dict[str, str] = {}
    for n, item in enumerate(raw, 1):
        step = {name: _text(item.get(name)) for name in ("task", "thought", "tool", "output")}
        step["tool"] = step["tool"].strip()
        for name, value in step.items():
            if len(value) > MAX_FIELD_CHARS:
                errors[f"steps.{n}.{name}"] = f"Step {n}: {name} is longer than {MAX_FIELD_CHARS} characters."
        args = item.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError as exc:
                errors[f"steps.{n}.arguments"] = f"Step {n}: the arguments are not valid JSON ({exc.msg})."
                args = {"_raw": item.get("arguments")}
        if args is None:
            args = {}
        step["arguments"] = args
        tool = step["tool"]
        if not tool:
            if args not in ({}, None):
                errors[f"steps.{n}.tool"] = f"Step {n}: arguments without a tool; choose the tool."
        elif is_hallucinated(tool, registry):
            errors[f"steps.{n}.tool"] = (
                f"Step {n}: {tool!r} is not in the tool registry; "
                f"choose one of: {', '.join(sorted(registry))}."
            )
        elif f"steps.{n}.arguments" not in errors:
            problems = argument_errors(args, registry.get(tool))
            if problems:
                errors[f"steps.{n}.arguments"] = f"Step {n} ({tool}): " + "; ".join(problems)
        steps.append({"n": n, **step})
    return steps, errors


# --- the TRACE label against its item (called by annotation.labels.validate_label) ------------


def descends_from(trajectory: Any, ancestor_id: int) -> bool:
    """True when `ancestor_id` is a strict ancestor of `trajectory` (parent chain)."""
    seen: set[int] = set()
    node = trajectory
    while node is not None and node.parent_id is not None and node.pk not in seen:
        if node.parent_id == ancestor_id:
            return True
        seen.add(node.pk)
        node = node.parent
    return False


def trace_label_errors(*, item: Any, label: dict) -> dict[str, str]:
    """What the schema cannot say: one check entry per original step, evidence on a step that
    exists, and a corrected trajectory that is a version of this item's trace."""
    from annotation.models import Trajectory

    original = item.trajectory_first
    n = len(trace_steps(original.messages if original is not None else []))
    errors: dict[str, str] = {}
    checks = label.get("checks")
    if checks is not None and len(checks) != n:
        errors["checks"] = f"Give the checks once per step of the original trace ({n}), not {len(checks)}."
    for entry in label.get("evidence") or ():
        if entry["step"] >= n:
            errors["evidence"] = f"Evidence for step {entry['step'] + 1}, but the trace has {n} steps."
        elif not entry.get("url") and not entry.get("media"):
            errors["evidence"] = f"Evidence for step {entry['step'] + 1} needs a URL or a screenshot."
    corrected = label.get("corrected_trajectory")
    if corrected is not None and label.get("verdict") != "corrected":
        errors["corrected_trajectory"] = "Only a label with the verdict 'corrected' names a corrected trace."
    elif corrected is not None:
        trajectory = Trajectory.objects.filter(pk=corrected, project_id=item.project_id).first()
        if trajectory is None or original is None or not descends_from(trajectory, original.pk):
            errors["corrected_trajectory"] = "The corrected trace must be a new version of this item's trace."
    return errors
