"""Trace verification and correction over the API (item kind `trace`): the same service and the
same form checks as the trace page (annotation.views.labeling.trace), with JSON in and out."""

from __future__ import annotations

import json
import uuid

from django.http import QueryDict
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Annotation, ItemKind, Trajectory
from annotation.rendering.trace_form import EDIT_REASONS, parse_trace_form, steps_for_service
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit
from annotation.services.traces import (
    Correction,
    TraceConflict,
    base_final,
    evidence_exists,
    trace_base,
    trace_label_save,
)
from annotation.traces import tool_registry, trace_query, trace_steps
from annotation.views.labeling.access import Access, item_access

from ..serializers import AnnotationSerializer, ErrorSerializer
from ..serializers.kinds import (
    FieldErrorSerializer,
    TraceConflictSerializer,
    TraceSaveSerializer,
    TraceViewSerializer,
)
from .base import ProjectScoped

FIX_FIELDS = "Nothing was saved: please fix the fields named in `errors`."
STALE = "Not saved: your label was saved elsewhere after you opened it; `current` is what is saved now."


def kind_access(view: ProjectScoped, request: Request, item_id: int, kind: str) -> Access:
    """The item as the page would show it to this member (404 for an annotator who does not hold
    it, and for an item of another kind)."""
    request.project, request.project_role = view.project, view.project_role
    access = item_access(request, item_id)
    if access.item.kind != kind:
        raise NotFound(f"This item is not a {kind} item.")
    return access


def _correction(trajectory: Trajectory | None, item) -> dict | None:
    if trajectory is None:
        return None
    return {
        "trajectory": trajectory.pk,
        "version": trajectory.version,
        "parent": trajectory.parent_id,
        "edit_reasons": list(trajectory.edit_reasons or []),
        "steps": trace_steps(trajectory.messages),
        "final_answer": base_final(item=item, trajectory=trajectory),
    }


def _saved_correction(item, annotation: Annotation | None) -> Trajectory | None:
    label = annotation.label if annotation is not None else {}
    if label.get("verdict") != "corrected" or not label.get("corrected_trajectory"):
        return None
    return Trajectory.objects.filter(pk=label["corrected_trajectory"], project_id=item.project_id).first()


def trace_body(access: Access) -> dict:
    """What the page shows: query, media, registry, the numbered steps and the final answer; the
    caller's own label and correction; staff also the reference answer and everyone's labels."""
    item = access.item
    task = item.task
    registry = tool_registry(task.tool_env if task is not None else None)
    original = item.trajectory_first
    messages = original.messages if original is not None else []
    query, media = trace_query(messages)
    base = trace_base(item=item, annotation=access.annotation)
    body = {
        "item": item.pk,
        "query": (task.instruction if task is not None and task.instruction else query) or "",
        "media": list((task.media if task is not None else None) or media),
        "environment": str((task.environment if task is not None else "") or ""),
        "registry": registry,
        "steps": trace_steps(messages, registry),
        "final_answer": base_final(item=item, trajectory=original),
        "base_trajectory": base.pk if base is not None else None,
        "my_annotation": AnnotationSerializer(access.annotation).data if access.annotation else None,
        "my_correction": _correction(_saved_correction(item, access.annotation), item),
    }
    if access.staff:
        body["reference_answer"] = (item.gold or {}).get("reference_answer")
        body["labels"] = [
            {
                **AnnotationSerializer(a).data,
                "correction": _correction(_saved_correction(item, a), item),
            }
            for a in item.annotations.select_related("annotator", "item").order_by("created_at")
        ]
    return body


def _form_data(data: dict, *, access: Access, n_steps: int) -> tuple[QueryDict, dict[str, str]]:
    """The JSON body as the page's form fields, so parse_trace_form applies the page's checks."""
    form = QueryDict(mutable=True)
    errors: dict[str, str] = {}
    for name in ("verdict", "discard_reason", "discard_note", "rationale"):
        form[name] = data.get(name) or ""
    form["flagged"] = "1" if data.get("flagged") else ""
    if "client_id" in data:
        form["client_id"] = str(data["client_id"])
    if "version" in data:
        form["version"] = str(data["version"])
    checks = data.get("checks") or []
    if len(checks) > n_steps:
        errors["checks"] = f"One entry per step of the original trace ({n_steps}), not {len(checks)}."
    for i, check in enumerate(checks[:n_steps]):
        for name, value in check.items():
            form[f"check_{i}_{name}"] = value or ""
    for entry in data.get("evidence") or []:
        i = entry["step"]
        if i >= n_steps:
            errors["evidence"] = f"Evidence for step {i + 1}, but the trace has {n_steps} steps."
            continue
        form[f"evidence_url_{i}"] = entry.get("url") or ""
        media = entry.get("media") or ""
        if media and not evidence_exists(project=access.item.project, path=media):
            errors[f"evidence.{i}"] = f"Step {i + 1}: {media!r} is not a screenshot saved with a label."
        form[f"evidence_media_{i}"] = media
    if "steps" in data:
        steps = data["steps"]
        form["steps_json"] = steps if isinstance(steps, str) else json.dumps(steps, ensure_ascii=False)
    final = data.get("final_answer") or {}
    form["final_value"] = final.get("value", "")
    form["final_justification"] = final.get("justification", "")
    known = dict(EDIT_REASONS)
    notes = []
    for reason in data.get("edit_reasons") or []:
        if reason in known:
            form.appendlist("edit_reason", reason)
        elif reason.startswith("other:") and reason[6:].strip():
            notes.append(reason[6:].strip())
        else:
            errors["edit_reasons"] = (
                f"Unknown edit reason {reason!r}: use {', '.join(known)} or 'other: <why>'."
            )
    form["edit_note"] = "; ".join(notes)
    base = data.get("base_trajectory")
    if base is None:
        current = trace_base(item=access.item, annotation=access.annotation)
        base = current.pk if current is not None else None
    form["base_trajectory"] = "" if base is None else str(base)
    return form, errors


class ItemTraceView(ProjectScoped, APIView):
    @extend_schema(
        summary="A trace item as numbered steps, with the tool registry and my label.",
        description=(
            "Annotators: only an item they hold or labeled, with their own label and correction "
            "only (no reference answer, sources or other people's labels). Reviewers and managers: "
            "read only, with the reference answer and everyone's labels and corrections."
        ),
        tags=["traces"],
        responses={200: TraceViewSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        access = kind_access(self, request, item_id, ItemKind.TRACE)
        return Response(trace_body(access))

    @extend_schema(
        summary="Verify or correct a trace I hold (the trace page's save).",
        description=(
            "`checks` (one per original step, five pass/fail marks each), `verdict` correct / "
            "corrected / discard (with `discard_reason`). A correction sends the edited `steps` "
            "(same shape as the GET's steps: task, thought, tool, arguments, output), the "
            "`final_answer` and `edit_reasons`; it is saved as a new trace version whose parent is "
            "the version it was made from. First save: `client_id` (a repeat answers 200 with the "
            "label as saved). Edit: `version` as opened; a stale one answers 409 with the label "
            "saved now, and nothing is written. Evidence: URLs (screenshots upload on the page)."
        ),
        tags=["traces"],
        request=TraceSaveSerializer,
        responses={
            201: TraceViewSerializer,
            200: OpenApiResponse(TraceViewSerializer, description="An edit, or a repeat of the first save."),
            400: FieldErrorSerializer,
            403: ErrorSerializer,
            404: ErrorSerializer,
            409: TraceConflictSerializer,
        },
    )
    def post(self, request: Request, slug: str, item_id: int) -> Response:
        access = kind_access(self, request, item_id, ItemKind.TRACE)
        if access.staff:
            raise PermissionDenied("Reviewers and managers view trace items read only.")
        item, annotation = access.item, access.annotation
        body = TraceSaveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if annotation is not None and data.get("client_id") == annotation.client_id:
            return Response(trace_body(access))  # a repeat of the save that created the label
        if annotation is not None and "version" not in data:
            return _conflict(access, request.user)
        n_steps = len(trace_steps(item.trajectory_first.messages if item.trajectory_first else []))
        fields, errors = _form_data(data, access=access, n_steps=n_steps)
        form = parse_trace_form(fields, n_steps=n_steps, editing="version" in data)
        form.errors.update(errors)
        if not form.valid:
            return _field_errors(form.errors)
        correction = None
        if form.verdict == "corrected":
            correction = Correction(
                steps=steps_for_service(form),
                final_answer={"value": form.final_value, "justification": form.final_justification},
                edit_reasons=form.reasons(),
                base_trajectory_id=form.base_trajectory,
            )

        def save_label(label: dict) -> None:
            # As the page's `store`: an edit under the optimistic lock, or an idempotent submit.
            if form.version is not None:
                annotation_edit(
                    annotation=annotation,
                    editor=request.user,
                    label=label,
                    rationale=form.rationale,
                    expected_version=form.version,
                    flagged=form.flagged,
                )
            else:
                annotation_submit(
                    item=item,
                    annotator=request.user,
                    label=label,
                    client_id=uuid.UUID(form.client_id),
                    rationale=form.rationale,
                    flagged=form.flagged,
                    seconds_spent=data["seconds_spent"],
                )

        try:
            trace_label_save(
                item=item,
                annotator=request.user,
                label=form.label(),
                correction=correction,
                expected_version=form.version,
                save_label=save_label,
            )
        except TraceConflict:
            return _conflict(access, request.user)
        except SubmitError as exc:
            if exc.errors:
                return _field_errors({str(k): str(v) for k, v in exc.errors.items()}, status=exc.status)
            if exc.status == status.HTTP_409_CONFLICT and form.version is not None:
                return _conflict(access, request.user, str(exc))
            return Response({"detail": str(exc)}, status=exc.status)
        fresh = kind_access(self, request, item_id, ItemKind.TRACE)
        code = status.HTTP_200_OK if form.version is not None else status.HTTP_201_CREATED
        return Response(trace_body(fresh), status=code)


def _field_errors(errors: dict[str, str], status: int = status.HTTP_400_BAD_REQUEST) -> Response:
    detail = FIX_FIELDS + " " + "; ".join(f"{k}: {v}" for k, v in errors.items())
    return Response({"detail": detail, "errors": errors}, status=status)


def _conflict(access: Access, user, detail: str = STALE) -> Response:
    current = Annotation.objects.filter(item=access.item, annotator=user).select_related("item").first()
    body = {"detail": detail, "current": AnnotationSerializer(current).data if current else None}
    return Response(body, status=status.HTTP_409_CONFLICT)
