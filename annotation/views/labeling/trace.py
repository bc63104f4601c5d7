"""The trace page (Agent-X): verify each step with the five checks, give a verdict, and correct
the trace in an editor; a correction is saved as a new trajectory version (annotation.services.
traces). A stale save gets a 409 that shows what was saved meanwhile next to the annotator's
unsaved edits, which stay in the editor."""

from __future__ import annotations

import json
import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from annotation.labels import TRACE_CHECKS
from annotation.models import Annotation, Trajectory
from annotation.rendering import Links
from annotation.rendering.trace import correction_diff, editor_steps, trace_diff, trace_view
from annotation.rendering.trace_form import (
    CHECK_LABELS,
    DISCARD_LABELS,
    EDIT_REASONS,
    VERDICT_LABELS,
    TraceForm,
    form_from_label,
    parse_trace_form,
    steps_for_service,
)
from annotation.services.annotations import SubmitError
from annotation.services.traces import (
    Correction,
    TraceConflict,
    base_final,
    evidence_check,
    evidence_exists,
    evidence_store,
    trace_base,
    trace_label_save,
)
from annotation.traces import parse_editor_steps, tool_registry, trace_steps

from .access import Access, item_access
from .common import FIX_FIELDS, KindPage, Saved, base_context, form_error, render_page, store, surroundings

CONFLICT = (
    "Not saved: this label was saved elsewhere after you opened the page. What is saved now is shown "
    "next to your unsaved edits, which are still in the form; save again to replace it with yours."
)


def _pad(form: TraceForm, n: int) -> None:
    blank = {**{name: "" for name in TRACE_CHECKS}, "note": ""}
    form.checks = (form.checks + [dict(blank) for _ in range(n)])[:n]
    form.evidence = (form.evidence + [{"url": "", "media": ""} for _ in range(n)])[:n]


def _fill_editor(form: TraceForm, access: Access) -> None:
    """A fresh form edits the version the annotator last saved (or the original)."""
    base = trace_base(item=access.item, annotation=access.annotation)
    if form.base_trajectory is None and base is not None:
        form.base_trajectory = base.pk
    if not form.steps_json and base is not None:
        form.steps_json = json.dumps(editor_steps(trace_steps(base.messages)), indent=1, ensure_ascii=False)
    if not form.final_value and not form.final_justification:
        final = base_final(item=access.item, trajectory=base)
        form.final_value, form.final_justification = final["value"], final["justification"]


def _draft(form: TraceForm) -> object:
    try:
        return json.loads(form.steps_json)
    except ValueError:
        return form.steps_json  # shown as typed; the editor reports it as not valid JSON


def _diff_of(item, annotation: Annotation):
    label = annotation.label or {}
    if label.get("verdict") != "corrected" or not label.get("corrected_trajectory"):
        return None
    trajectory = Trajectory.objects.filter(
        pk=label["corrected_trajectory"], project_id=item.project_id
    ).first()
    return correction_diff(item=item, trajectory=trajectory) if trajectory is not None else None


def _evidence_shown(annotation: Annotation, links: Links) -> list[dict]:
    """A label's evidence for reviewers: http(s) URLs as links, anything else as text only."""
    shown = []
    for e in (annotation.label or {}).get("evidence") or ():
        url = str(e.get("url") or "")
        shown.append(
            {
                "n": e.get("step", 0) + 1,
                "url": url,
                "link": url if url.startswith(("https://", "http://")) else "",
                "media": links.media(e["media"]) if e.get("media") else None,
            }
        )
    return shown


def trace_context(
    request: HttpRequest,
    access: Access,
    *,
    form: TraceForm | None = None,
    form_error: str = "",
    notice: str = "",
    conflict: dict | None = None,
) -> dict:
    project, item = request.project, access.item
    view = trace_view(item=item, links=Links(project.slug, item.pk), staff=access.staff)
    form = form or form_from_label(access.annotation)
    _pad(form, len(view.steps))
    if not access.staff:
        _fill_editor(form, access)
    rows = [
        {
            "step": step,
            "checks": [(name, CHECK_LABELS[name], form.checks[step.index][name]) for name in TRACE_CHECKS],
            "note": form.checks[step.index]["note"],
            "evidence": form.evidence[step.index],
            "error": form.errors.get(f"evidence.{step.index}", ""),
        }
        for step in view.steps
    ]
    context = surroundings(request, access)
    links = Links(project.slug, item.pk)
    corrections = [
        {"annotation": a, "diff": _diff_of(item, a), "evidence": _evidence_shown(a, links)}
        for a in context["staff_labels"]
    ]
    return {
        **base_context(request, access, form=form, form_error=form_error, notice=notice),
        **context,
        "view": view,
        "rows": rows,
        "verdicts": VERDICT_LABELS,
        "discard_reasons": DISCARD_LABELS,
        "edit_reasons": EDIT_REASONS,
        "check_labels": list(CHECK_LABELS.items()),
        "step_errors": {k: v for k, v in form.errors.items() if k.startswith("steps")},
        "other_errors": {
            k: v
            for k, v in form.errors.items()
            if not k.startswith(("steps", "evidence.", "checks", "verdict", "edit_reasons", "discard_reason"))
        },
        "my_diff": _diff_of(item, access.annotation) if access.annotation is not None else None,
        "staff_corrections": corrections,
        "conflict": conflict,
        "editor_data": {
            "registry": view.registry,
            "steps": _draft(form) if not access.staff else [],
            "final": {"value": form.final_value, "justification": form.final_justification},
        },
    }


def _conflict(request: HttpRequest, access: Access, form: TraceForm) -> HttpResponse:
    """409: what is saved now next to the unsaved edits; the form is re-based on what is saved so
    that saving again is a deliberate overwrite, and the draft stays in the editor."""
    fresh = item_access(request, access.item.pk)
    current = fresh.annotation
    form.version = current.version if current is not None else None
    if current is None:
        form.client_id = str(uuid.uuid4())
    base = trace_base(item=fresh.item, annotation=current)
    form.base_trajectory = base.pk if base is not None else None
    saved_steps = trace_steps(base.messages) if base is not None else []
    task = fresh.item.task
    registry = tool_registry(task.tool_env if task is not None else None)
    draft_steps, _ = parse_editor_steps(steps_for_service(form), registry)
    conflict = {
        "verdict": (current.label or {}).get("verdict", "") if current is not None else "",
        "version": current.version if current is not None else None,
        "diff": trace_diff(
            saved_steps,
            draft_steps,
            base_final(item=fresh.item, trajectory=base),
            {"value": form.final_value, "justification": form.final_justification},
            a_label="Saved meanwhile",
            b_label="Your unsaved edits",
        ),
    }
    response = render_page(request, fresh, TRACE_PAGE, form=form, form_error=CONFLICT, conflict=conflict)
    response.status_code = 409
    return response


def _evidence(request: HttpRequest, form: TraceForm) -> dict:
    """Check the uploaded screenshots (stored only once the whole form is valid)."""
    uploads = {}
    for i, entry in enumerate(form.evidence):
        upload = request.FILES.get(f"evidence_file_{i}")
        if entry["media"] and not evidence_exists(project=request.project, path=entry["media"]):
            form.errors[f"evidence.{i}"] = f"Step {i + 1}: the earlier screenshot is gone; upload it again."
        if upload is None:
            continue
        try:
            evidence_check(upload)
        except SubmitError as exc:
            form.errors[f"evidence.{i}"] = f"Step {i + 1}: {exc}"
        else:
            uploads[i] = upload
    return uploads


def post_trace(request: HttpRequest, access: Access) -> HttpResponse | Saved:
    item, annotation = access.item, access.annotation
    if annotation is not None and request.POST.get("client_id", "").strip() == str(annotation.client_id):
        return Saved(editing=False)  # a repeat of the submit that created the label
    n_steps = len(trace_steps(item.trajectory_first.messages if item.trajectory_first else []))
    form = parse_trace_form(request.POST, n_steps=n_steps, editing="version" in request.POST)
    uploads = _evidence(request, form)
    if not form.valid:
        return form_error(request, access, TRACE_PAGE, form, FIX_FIELDS, 400)
    if annotation is not None and form.version is None:
        return _conflict(request, access, form)
    for i, upload in uploads.items():
        form.evidence[i]["media"] = evidence_store(project=request.project, upload=upload, actor=request.user)
    correction = None
    if form.verdict == "corrected":
        correction = Correction(
            steps=steps_for_service(form),
            final_answer={"value": form.final_value, "justification": form.final_justification},
            edit_reasons=form.reasons(),
            base_trajectory_id=form.base_trajectory,
        )
    try:
        trajectory = trace_label_save(
            item=item,
            annotator=request.user,
            label=form.label(),
            correction=correction,
            expected_version=form.version,
            save_label=lambda label: store(request, access, form, label, form.rationale, None),
        )
    except TraceConflict:
        return _conflict(request, access, form)
    except SubmitError as exc:
        form.errors.update({str(k): str(v) for k, v in exc.errors.items()})
        return form_error(
            request, access, TRACE_PAGE, form, str(exc) if not exc.errors else FIX_FIELDS, exc.status
        )
    if trajectory is not None:
        # The annotator sees the diff of what they saved before moving on.
        messages.success(request, f"Saved: your correction is version {trajectory.version} of this trace.")
        return redirect(reverse("label_item", args=[request.project.slug, item.pk]) + "#trace-diff")
    return Saved(editing=form.version is not None)


TRACE_PAGE = KindPage(template="annotation/label_trace.html", context=trace_context, post=post_trace)
