"""The trace page's form: five checks per original step, the verdict, evidence, and (for a
correction) the edited steps as JSON with the final answer and the reasons for the edit.

Verify-only (checks + verdict) is plain HTML inputs; the editor (static/js/trace.js) writes the
steps into the `steps_json` field, which also works by hand without JavaScript."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.http import QueryDict

from annotation.labels import TRACE_CHECKS, TRACE_DISCARD_REASONS, TRACE_VERDICTS
from annotation.rendering.label_form import SubmissionFields, read_submission

CHECK_LABELS = {
    "tool_choice": "Tool choice",
    "argument_format": "Argument format",
    "step_order": "Step order",
    "output_alignment": "Output / answer alignment",
    "evidence": "Evidence",
}
VERDICT_LABELS = (("correct", "Correct as is"), ("corrected", "Corrected"), ("discard", "Discard"))
DISCARD_LABELS = (
    ("unsolvable", "Unsolvable"),
    ("ambiguous_query", "Ambiguous query"),
    ("tool_hinting", "Tool-hinting query"),
    ("other", "Other"),
)
EDIT_REASONS = (
    ("wrong_tool", "Replaced a wrong tool"),
    ("malformed_arguments", "Fixed malformed arguments"),
    ("step_order", "Reordered steps"),
    ("unsupported_reasoning", "Removed unsupported reasoning"),
    ("missing_step", "Added a missing step"),
    ("tool_output", "Fixed a tool output"),
    ("final_answer", "Fixed the final answer"),
)
_URL = URLValidator(schemes=["http", "https"])
assert set(CHECK_LABELS) == set(TRACE_CHECKS) and {v for v, _ in VERDICT_LABELS} == set(TRACE_VERDICTS)
assert {v for v, _ in DISCARD_LABELS} == set(TRACE_DISCARD_REASONS)


@dataclass
class TraceForm(SubmissionFields):
    verdict: str = ""
    discard_reason: str = ""
    discard_note: str = ""
    checks: list[dict] = field(default_factory=list)  # per original step: {check: pass|fail|"", note}
    evidence: list[dict] = field(default_factory=list)  # per original step: {url, media}
    steps_json: str = ""  # the editor's draft, kept verbatim so nothing typed is ever lost
    final_value: str = ""
    final_justification: str = ""
    edit_reasons: list[str] = field(default_factory=list)
    edit_note: str = ""
    base_trajectory: int | None = None
    rationale: str = ""

    def reasons(self) -> list[str]:
        return [*self.edit_reasons, *([f"other: {self.edit_note}"] if self.edit_note else [])]

    def label(self) -> dict:
        label: dict = {"verdict": self.verdict}
        if any(c[name] for c in self.checks for name in TRACE_CHECKS):
            label["checks"] = [
                {**{name: c[name] for name in TRACE_CHECKS}, **({"note": c["note"]} if c["note"] else {})}
                for c in self.checks
            ]
        if self.verdict == "discard":
            label["discard_reason"] = self.discard_reason
            if self.discard_note:
                label["discard_note"] = self.discard_note
        if self.verdict == "corrected":
            label["final_answer"] = {"value": self.final_value, "justification": self.final_justification}
        evidence = [
            {"step": i, **{k: v for k, v in e.items() if k in ("url", "media") and v}}
            for i, e in enumerate(self.evidence)
            if e.get("url") or e.get("media")
        ]
        if evidence:
            label["evidence"] = evidence
        return label


def _int(value: str) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def parse_trace_form(data: QueryDict, *, n_steps: int, editing: bool) -> TraceForm:
    form = TraceForm(
        verdict=data.get("verdict", "").strip(),
        discard_reason=data.get("discard_reason", "").strip(),
        discard_note=data.get("discard_note", "").strip()[:1000],
        steps_json=data.get("steps_json", ""),
        final_value=data.get("final_value", "").strip(),
        final_justification=data.get("final_justification", "").strip(),
        edit_reasons=[r for r in dict.fromkeys(data.getlist("edit_reason")) if r in dict(EDIT_REASONS)],
        edit_note=data.get("edit_note", "").strip()[:500],
        base_trajectory=_int(data.get("base_trajectory", "")),
        rationale=data.get("rationale", "").strip(),
        flagged=data.get("flagged") in ("on", "1", "true"),
        client_id=data.get("client_id", "").strip(),
    )
    for i in range(n_steps):
        marks = {name: data.get(f"check_{i}_{name}", "") for name in TRACE_CHECKS}
        marks = {k: v if v in ("pass", "fail") else "" for k, v in marks.items()}
        form.checks.append({**marks, "note": data.get(f"check_{i}_note", "").strip()[:1000]})
        form.evidence.append(
            {
                "url": data.get(f"evidence_url_{i}", "").strip(),
                "media": data.get(f"evidence_media_{i}", "").strip(),
            }
        )
    _check_form(form, n_steps)
    read_submission(form, data, editing=editing)
    return form


def _check_form(form: TraceForm, n_steps: int) -> None:
    errors = form.errors
    if form.verdict not in TRACE_VERDICTS:
        errors["verdict"] = "Choose a verdict: correct as is, corrected, or discard."
    missing = [
        f"step {i + 1}: {CHECK_LABELS[name].lower()}"
        for i, c in enumerate(form.checks)
        for name in TRACE_CHECKS
        if not c[name]
    ]
    any_marked = len(missing) < n_steps * len(TRACE_CHECKS)
    if missing and (form.verdict != "discard" or any_marked):
        shown = ", ".join(missing[:4]) + (" …" if len(missing) > 4 else "")
        errors["checks"] = f"Mark every check of every step pass or fail ({shown})."
    if form.verdict == "correct" and any(c[name] == "fail" for c in form.checks for name in TRACE_CHECKS):
        errors["verdict"] = "A failed check means the trace is not correct as is: correct it, or discard it."
    if form.verdict == "discard" and form.discard_reason not in TRACE_DISCARD_REASONS:
        errors["discard_reason"] = "Say why the trace is discarded."
    for i, e in enumerate(form.evidence):
        if e["url"]:
            try:
                _URL(e["url"])
            except ValidationError:
                errors[f"evidence.{i}"] = f"Step {i + 1}: the evidence URL must be an http(s) address."
    if form.verdict == "corrected":
        if form.base_trajectory is None:
            errors["steps"] = "The editor lost the trace it started from; reload the page."
        if not form.reasons():
            errors["edit_reasons"] = "Say why you corrected the trace (at least one reason)."


def steps_for_service(form: TraceForm) -> object:
    """The posted steps as data; text that does not parse is handed on to be reported there."""
    try:
        return json.loads(form.steps_json) if form.steps_json.strip() else []
    except ValueError:
        return form.steps_json


def form_from_label(annotation) -> TraceForm:
    """The saved label, ready to edit (the steps come from the saved correction, see the view)."""
    if annotation is None:
        return TraceForm(client_id=str(uuid.uuid4()))
    label = annotation.label or {}
    form = TraceForm(
        verdict=label.get("verdict", ""),
        discard_reason=label.get("discard_reason", ""),
        discard_note=label.get("discard_note", ""),
        rationale=annotation.rationale,
        flagged=annotation.flagged,
        version=annotation.version,
    )
    form.checks = [
        {**{name: c.get(name, "") for name in TRACE_CHECKS}, "note": c.get("note", "")}
        for c in label.get("checks") or ()
    ]
    by_step = {e["step"]: e for e in label.get("evidence") or ()}
    form.evidence = [
        {"url": by_step.get(i, {}).get("url", ""), "media": by_step.get(i, {}).get("media", "")}
        for i in range(len(form.checks) or (max(by_step) + 1 if by_step else 0))
    ]
    known = dict(EDIT_REASONS)
    reasons = label.get("edit_reasons") or []
    form.edit_reasons = [r for r in reasons if r in known]
    form.edit_note = "; ".join(r.removeprefix("other: ") for r in reasons if r not in known)
    final = label.get("final_answer") or {}
    form.final_value = str(final.get("value") or "")
    form.final_justification = str(final.get("justification") or "")
    return form
