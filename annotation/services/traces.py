"""Saving a trace label: a correction becomes a NEW Trajectory (parent = the version it was made
from), the label points at it; the annotator's evidence screenshots go to the project's media.

Optimistic locking: the form carries the label version and the trajectory it started from; a save
made from a stale page is refused with TraceConflict (409), never merged, and nothing is written.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from annotation.importers.media import project_media_root
from annotation.models import Annotation, Item, Project, Trajectory
from annotation.traces import parse_editor_steps, steps_to_messages, tool_registry, trace_final, trace_steps
from annotation.trajectory_stats import trajectory_stats
from review.lifecycle import audit_log_write

from .annotations import SubmitError

# Screenshots only: the magic bytes must match the extension (a renamed HTML file is refused).
EVIDENCE_TYPES = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"),
    ".webp": (b"RIFF",),
}
MAX_EVIDENCE_BYTES = 5 * 1024 * 1024
EVIDENCE_DIR = "evidence"


class TraceConflict(SubmitError):
    """Someone saved this label (or its correction) after the page was opened."""

    def __init__(self, message: str, *, current: Annotation | None):
        super().__init__(message, status=409)
        self.current = current


@dataclass(frozen=True)
class Correction:
    """The editor's result: raw steps (validated here), the final answer, why it was edited, and
    the trajectory the edit started from (the lock)."""

    steps: object
    final_answer: dict
    edit_reasons: list[str]
    base_trajectory_id: int | None
    errors: dict[str, str] = field(default_factory=dict)


def trace_base(*, item: Item, annotation: Annotation | None) -> Trajectory | None:
    """What an edit starts from: the annotator's own saved correction, else the original trace."""
    label = annotation.label if annotation is not None else {}
    if label.get("verdict") == "corrected" and label.get("corrected_trajectory"):
        saved = Trajectory.objects.filter(
            pk=label["corrected_trajectory"], project_id=item.project_id
        ).first()
        if saved is not None:
            return saved
    return item.trajectory_first


def base_final(*, item: Item, trajectory: Trajectory | None) -> dict:
    """The final answer of a version: the imported one lives in the payload, corrections carry it
    in their last turn."""
    if trajectory is not None and trajectory.parent_id is not None:
        return trace_final(trajectory.messages)
    final = (item.payload or {}).get("final_answer") or {}
    value = final.get("value")
    return {
        "value": "" if value is None else str(value),
        "justification": str(final.get("justification") or ""),
    }


def _comparable(steps: list[dict]) -> list[tuple]:
    return [(s["task"], s["thought"], s["tool"], s["arguments"], s["output"]) for s in steps]


def _prefix(messages: list) -> list[dict]:
    """The turns before the first step (system prompt, the query with its media), kept as they are."""
    out = []
    for m in messages or ():
        if isinstance(m, dict) and m.get("role") in ("assistant", "tool"):
            break
        out.append(m)
    return out


@transaction.atomic
def trace_label_save(
    *,
    item: Item,
    annotator,
    label: dict,
    correction: Correction | None,
    expected_version: int | None,
    save_label: Callable[[dict], None],
) -> Trajectory | None:
    """Store a trace label through `save_label` (annotation_submit / annotation_edit); with a
    correction, first write the new Trajectory version and point the label at it. Raises
    TraceConflict for a stale page and SubmitError (with field errors) for bad input."""
    item = Item.objects.select_for_update(of=("self",)).select_related("task__tool_env").get(pk=item.pk)
    annotation = Annotation.objects.select_for_update().filter(item=item, annotator=annotator).first()
    if (annotation is None) != (expected_version is None) or (
        annotation is not None and expected_version != annotation.version
    ):
        raise TraceConflict(
            "Your label was saved elsewhere (another tab or window) after you opened this page.",
            current=annotation,
        )
    trajectory = None
    if correction is not None:
        trajectory = _correction_create(
            item=item, annotator=annotator, annotation=annotation, correction=correction
        )
        label = {
            **label,
            "corrected_trajectory": trajectory.pk,
            "edit_reasons": list(correction.edit_reasons),
        }
    save_label(label)
    return trajectory


def _correction_create(
    *, item: Item, annotator, annotation: Annotation | None, correction: Correction
) -> Trajectory:
    base = trace_base(item=item, annotation=annotation)
    if base is None:
        raise SubmitError("This item has no trace to correct.", status=409)
    if correction.base_trajectory_id != base.pk:
        raise TraceConflict(
            "The trace you edited was changed after you opened this page.",
            current=annotation,
        )
    registry = tool_registry(item.task.tool_env if item.task is not None else None)
    steps, errors = parse_editor_steps(correction.steps, registry)
    errors |= correction.errors
    if not correction.edit_reasons:
        errors["edit_reasons"] = "Say why you corrected the trace (at least one reason)."
    if errors:
        raise SubmitError("Nothing was saved: the corrected trace has errors.", errors=errors)
    final = {
        "value": correction.final_answer.get("value", ""),
        "justification": correction.final_answer.get("justification", ""),
    }
    unchanged = _comparable(steps) == _comparable(trace_steps(base.messages)) and final == base_final(
        item=item, trajectory=base
    )
    if unchanged:
        raise SubmitError(
            "Nothing was saved: the corrected trace is the same as the one you started from.",
            errors={"steps": "Nothing was changed. Choose 'correct as is', or make your correction."},
        )
    messages = _prefix(base.messages) + steps_to_messages(steps, final_answer=final)
    trajectory = Trajectory.objects.create(
        project_id=item.project_id,
        task_id=base.task_id,
        messages=messages,
        source={"kind": "correction", "item": item.external_id},
        parent=base,
        version=base.version + 1,
        edit_reasons=list(correction.edit_reasons),
        created_by=annotator,
        **trajectory_stats(messages),
    )
    audit_log_write(
        project_id=item.project_id,
        item=item,
        actor=annotator,
        action="trace_correct",
        data={"trajectory": trajectory.pk, "parent": base.pk, "version": trajectory.version},
    )
    return trajectory


def evidence_check(upload: UploadedFile) -> str:
    """The file's extension when it is an acceptable screenshot; SubmitError saying why not."""
    name = upload.name or ""
    ext = ("." + name.rsplit(".", 1)[-1].lower()) if "." in name else ""
    if ext not in EVIDENCE_TYPES:
        raise SubmitError(f"{name!r} is not a screenshot: use {', '.join(sorted(EVIDENCE_TYPES))}.")
    if upload.size > MAX_EVIDENCE_BYTES:
        raise SubmitError(f"{name!r} is larger than {MAX_EVIDENCE_BYTES // (1024 * 1024)} MB.")
    head = upload.read(16)
    upload.seek(0)
    if not any(head.startswith(magic) for magic in EVIDENCE_TYPES[ext]):
        raise SubmitError(f"{name!r} is not a {ext[1:].upper()} image.")
    return ext


def evidence_store(*, project: Project, upload: UploadedFile, actor) -> str:
    """Keep one evidence screenshot in the project's media (members only, via media_file); the
    media path. Checked with evidence_check first."""
    ext = evidence_check(upload)
    rel = f"{EVIDENCE_DIR}/{uuid.uuid4().hex}{ext}"
    dest = project_media_root(project.slug) / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    audit_log_write(project_id=project.pk, actor=actor, action="evidence_upload", data={"media": rel})
    return rel


def evidence_exists(*, project: Project, path: str) -> bool:
    """A previously uploaded screenshot the form carries over (never a path outside evidence/)."""
    from annotation.importers.media import stored_media_file

    return path.startswith(f"{EVIDENCE_DIR}/") and stored_media_file(project.slug, path) is not None
