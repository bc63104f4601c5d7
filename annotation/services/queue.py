"""The annotation queue: who gets which slot of which item next."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.labels import display_order
from annotation.models import Assignment, AssignmentStatus, Item, Project
from annotation.models.work import OPEN_STATES
from review.lifecycle import audit_log_write


class QueueError(ValueError):
    pass


def lease_seconds() -> int:
    return settings.ARBITER["LEASE_SECONDS"]


def _slots_taken(item_id: int, now) -> int:
    """Submitted annotations plus live leases of other annotators."""
    return (
        Assignment.objects.filter(item_id=item_id)
        .filter(Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.ACTIVE, expires_at__gt=now))
        .count()
    )


def _candidates(project: Project, annotator, now, exclude: list[int]):
    mine_done = Assignment.objects.filter(item=OuterRef("pk"), annotator=annotator).filter(
        Q(status__in=[AssignmentStatus.SUBMITTED, AssignmentStatus.SKIPPED])
        | Q(status=AssignmentStatus.ACTIVE, expires_at__gt=now)
    )
    # Skip items whose slots are all held by others' live leases, so the first row locked is
    # almost always free (the count is re-checked under the lock in item_assign).
    taken = (
        Assignment.objects.filter(item=OuterRef("pk"))
        .filter(Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.ACTIVE, expires_at__gt=now))
        .values("item")
        .annotate(n=Count("id"))
        .values("n")
    )
    qs = (
        Item.objects.filter(project=project, state__in=OPEN_STATES, n_annotations__lt=F("overlap"))
        .exclude(pk__in=exclude)
        .filter(~Exists(mine_done))
        .annotate(taken=Coalesce(Subquery(taken), Value(0)))
        .filter(taken__lt=F("overlap"))
        .order_by("-priority", "id")
    )
    if connection.vendor == "postgresql":
        # Two annotators asking at once never wait on, nor take, the same row.
        qs = qs.select_for_update(skip_locked=True, of=("self",))
    else:
        qs = qs.select_for_update()
    return qs


def current_assignment(*, project: Project, annotator) -> Assignment | None:
    return (
        Assignment.objects.filter(
            item__project=project,
            annotator=annotator,
            status=AssignmentStatus.ACTIVE,
            expires_at__gt=timezone.now(),
            item__state__in=OPEN_STATES,
        )
        .select_related("item")
        .order_by("leased_at")
        .first()
    )


@transaction.atomic
def item_assign(*, project: Project, annotator) -> Assignment | None:
    """The annotator's live lease if they hold one, else a fresh lease on the next item that
    still needs annotations and that they have not done; None when nothing is left."""
    held = current_assignment(project=project, annotator=annotator)
    if held is not None:
        return held
    now = timezone.now()
    tried: list[int] = []
    for _ in range(50):
        item = _candidates(project, annotator, now, tried).first()
        if item is None:
            return None
        # The row lock serialises this check: any other lease on the item has committed.
        if item.n_annotations < item.overlap and _slots_taken(item.pk, now) < item.overlap:
            return _lease(item=item, annotator=annotator, now=now)
        tried.append(item.pk)
    return None


def _lease(*, item: Item, annotator, now) -> Assignment:
    expires = now + timedelta(seconds=lease_seconds())
    assignment, _ = Assignment.objects.update_or_create(
        item=item,
        annotator=annotator,
        defaults={
            "status": AssignmentStatus.ACTIVE,
            "leased_at": now,
            "expires_at": expires,
            "display_order": display_order(item_id=item.pk, annotator_id=annotator.pk),
            "skip_reason": "",
            "finished_at": None,
        },
    )
    audit_log_write(
        project_id=item.project_id,
        item=item,
        actor=annotator,
        action="assign",
        data={"expires_at": expires.isoformat()},
    )
    return assignment


@transaction.atomic
def assignment_skip(*, assignment: Assignment, actor, reason: str) -> Assignment:
    reason = reason.strip()
    if not reason:
        raise QueueError("Say why you skip this item.")
    if assignment.annotator_id != actor.pk:
        raise QueueError("This is not your assignment.")
    if assignment.status != AssignmentStatus.ACTIVE:
        raise QueueError("This assignment is already finished.")
    assignment.status = AssignmentStatus.SKIPPED
    assignment.skip_reason = reason
    assignment.finished_at = timezone.now()
    assignment.save(update_fields=["status", "skip_reason", "finished_at"])
    audit_log_write(
        project_id=assignment.item.project_id, item=assignment.item, actor=actor, action="skip", reason=reason
    )
    return assignment
