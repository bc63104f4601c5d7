"""Submitting and editing labels. Submits are idempotent by client id; edits use an
optimistic lock so that no accepted label is ever silently overwritten."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from annotation.labels import validate_label
from annotation.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    AssignmentStatus,
    Item,
)
from annotation.models.work import OPEN_STATES
from review.lifecycle import audit_log_write, item_settle


class SubmitError(ValueError):
    def __init__(self, message: str, *, status: int = 400, errors: dict | None = None):
        super().__init__(message)
        self.status = status
        self.errors = errors or {}


@dataclass(frozen=True)
class SubmitResult:
    annotation: Annotation
    created: bool  # False when the same client id was submitted before


def annotation_submit(
    *,
    item: Item,
    annotator,
    label: dict,
    client_id: uuid.UUID,
    rationale: str = "",
    seconds_spent: int = 0,
    flagged: bool = False,
    prefill: dict | None = None,
    display_order: list[str] | None = None,
) -> SubmitResult:
    existing = Annotation.objects.filter(client_id=client_id).first()
    if existing is not None:
        if existing.annotator_id != annotator.pk or existing.item_id != item.pk:
            raise SubmitError("This client id was already used for another label.", status=409)
        return SubmitResult(existing, created=False)
    try:
        return SubmitResult(
            _submit(
                item=item,
                annotator=annotator,
                label=label,
                client_id=client_id,
                rationale=rationale,
                seconds_spent=seconds_spent,
                flagged=flagged,
                prefill=prefill,
                display_order=display_order,
            ),
            created=True,
        )
    except IntegrityError as exc:
        # A concurrent submit with the same client id won the race: answer as a repeat.
        existing = Annotation.objects.filter(client_id=client_id, annotator=annotator).first()
        if existing is not None:
            return SubmitResult(existing, created=False)
        raise SubmitError("You already labeled this item; edit your label instead.", status=409) from exc


@transaction.atomic
def _submit(
    *, item, annotator, label, client_id, rationale, seconds_spent, flagged, prefill, display_order
) -> Annotation:
    item = Item.objects.select_related("project").select_for_update(of=("self",)).get(pk=item.pk)
    validate_label_or_raise(item=item, label=label)
    assignment = Assignment.objects.filter(item=item, annotator=annotator).first()
    if assignment is None:
        raise SubmitError("This item is not assigned to you; take it from the queue.", status=409)
    if (
        assignment.status == AssignmentStatus.SUBMITTED
        or item.annotations.filter(annotator=annotator).exists()
    ):
        raise SubmitError("You already labeled this item; edit your label instead.", status=409)
    if assignment.status == AssignmentStatus.SKIPPED:
        raise SubmitError("You skipped this item.", status=409)
    if item.state not in OPEN_STATES:
        raise SubmitError(
            f"This item is {item.get_state_display().lower()} and takes no more labels.", status=409
        )
    now = timezone.now()
    annotation = Annotation.objects.create(
        item=item,
        annotator=annotator,
        assignment=assignment,
        label=label,
        rationale=rationale.strip(),
        seconds_spent=max(0, min(int(seconds_spent), 24 * 3600)),
        # What the annotator saw: A/B for pairs; for steps, the candidate order shown.
        display_order=display_order or assignment.display_order,
        client_id=client_id,
        flagged=flagged,
        prefill=prefill or {},
    )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.finished_at = now
    assignment.save(update_fields=["status", "finished_at"])
    Item.objects.filter(pk=item.pk).update(n_annotations=F("n_annotations") + 1)
    item.refresh_from_db(fields=["n_annotations"])
    audit_log_write(
        project_id=item.project_id,
        item=item,
        actor=annotator,
        action="annotate",
        data={"annotation": annotation.pk},
    )
    item_settle(item=item, actor=annotator)
    return annotation


def validate_label_or_raise(*, item: Item, label) -> None:
    from annotation.labels import LabelError

    try:
        validate_label(project=item.project, item=item, label=label)
    except LabelError as exc:
        raise SubmitError("The label is not valid: " + str(exc), errors=exc.errors) from exc


@transaction.atomic
def annotation_edit(
    *,
    annotation: Annotation,
    editor,
    label: dict,
    rationale: str,
    expected_version: int,
    flagged: bool | None = None,
) -> Annotation:
    """Change a label while its item is still being annotated. The old content becomes a
    revision; a stale `expected_version` is refused, never merged."""
    annotation = (
        Annotation.objects.select_for_update(of=("self",))
        .select_related("item__project")
        .get(pk=annotation.pk)
    )
    if annotation.annotator_id != editor.pk:
        raise SubmitError("Only the annotator can edit their own label.", status=403)
    if annotation.version != expected_version:
        raise SubmitError(
            "This label was changed elsewhere since you opened it; reload to see the current version.",
            status=409,
        )
    if annotation.item.state not in OPEN_STATES:
        raise SubmitError("The item is settled; labels can no longer be edited.", status=409)
    validate_label_or_raise(item=annotation.item, label=label)
    AnnotationRevision.objects.create(
        annotation=annotation,
        version=annotation.version,
        label=annotation.label,
        rationale=annotation.rationale,
        edited_by=editor,
    )
    annotation.label = label
    annotation.rationale = rationale.strip()
    annotation.version += 1
    fields = ["label", "rationale", "version", "updated_at"]
    if flagged is not None:
        annotation.flagged = flagged
        fields.append("flagged")
    annotation.save(update_fields=fields)
    audit_log_write(
        project_id=annotation.item.project_id,
        item=annotation.item,
        actor=editor,
        action="edit",
        data={"annotation": annotation.pk, "version": annotation.version},
    )
    return annotation
