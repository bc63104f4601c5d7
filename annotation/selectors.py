"""Reads shared by the HTML views and the API. Each returns a queryset with what its callers
need already joined, so pages do not query once per row."""

from __future__ import annotations

from django.db.models import Count, F, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from .access import STAFF_ROLES, projects_for
from .models import Annotation, Assignment, AssignmentStatus, ImportJob, Item, ItemState, Project, Suggestion


def project_list(*, user) -> QuerySet[Project]:
    return (
        projects_for(user)
        .annotate(
            n_items=Count("items", distinct=True),
            n_verified=Count("items", filter=Q(items__state=ItemState.VERIFIED), distinct=True),
        )
        .order_by("name")
    )


def item_list(*, project: Project, state: str = "", stratum: str = "") -> QuerySet[Item]:
    qs = Item.objects.filter(project=project).select_related("task").order_by("id")
    if state:
        qs = qs.filter(state=state)
    if stratum:
        qs = qs.filter(stratum=stratum)
    return qs


def item_for_labeling(*, project: Project, item_id: int) -> Item:
    """One item with everything its labeling page shows, in one query."""
    return Item.objects.select_related(
        "project", "task", "task__tool_env", "trajectory_first", "trajectory_second"
    ).get(project=project, pk=item_id)


def annotation_list(*, project: Project, user, role: str) -> QuerySet[Annotation]:
    """Reviewers and managers see every label of the project; annotators only their own."""
    qs = (
        Annotation.objects.filter(item__project=project)
        .select_related("item", "annotator")
        .order_by("-created_at")
    )
    if role not in STAFF_ROLES:
        qs = qs.filter(annotator=user)
    return qs


def progress(*, project: Project, annotator) -> dict[str, int]:
    """Done / assigned / remaining for one annotator and for the project (two queries)."""
    mine = Assignment.objects.filter(item__project=project, annotator=annotator).aggregate(
        done=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)),
        assigned=Count("id", filter=Q(status=AssignmentStatus.ACTIVE, expires_at__gt=timezone.now())),
    )
    is_open = Q(state__in=[ItemState.NEW, ItemState.ANNOTATING])
    items = Item.objects.filter(project=project).aggregate(
        total=Count("id"),
        settled=Count("id", filter=Q(state__in=[ItemState.VERIFIED, ItemState.DISCARDED])),
        adjudication=Count("id", filter=Q(state=ItemState.ADJUDICATION)),
        open=Count("id", filter=is_open),
        # Summed in SQL: iterating the open items in Python cost ~40 ms a page at 100k items.
        remaining_slots=Coalesce(
            Sum(Greatest(F("overlap") - F("n_annotations"), Value(0)), filter=is_open), Value(0)
        ),
    )
    return {**mine, **items}


def import_jobs(*, project: Project) -> QuerySet[ImportJob]:
    return ImportJob.objects.filter(project=project).select_related("created_by")


PREFILL_CHOICES = ("first", "second", "tie")


def prefill_suggestion(*, item: Item) -> Suggestion | None:
    """The newest usable judge suggestion for a pair, shown as a default when the project turns
    suggestions on. Failed or order-inconsistent verdicts pre-fill nothing."""
    return (
        Suggestion.objects.filter(item=item, error="", label__preferred__in=PREFILL_CHOICES)
        .order_by("-created_at", "-id")
        .first()
    )
