"""Reads for exports: the items an export takes, the project's past exports, its strata."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Item, Project
from review.models import Export

from .policy import EXPORTABLE_STATES


def _day_start(value: str) -> datetime:
    return datetime.combine(date.fromisoformat(value), time.min, tzinfo=UTC)


def export_items(*, project: Project, filters: dict[str, Any]) -> QuerySet[Item]:
    """The items an export with these (normalised) filters writes, in id order."""
    qs = Item.objects.filter(project=project, state__in=filters.get("states") or EXPORTABLE_STATES)
    if filters.get("strata"):
        qs = qs.filter(stratum__in=filters["strata"])
    if filters.get("settled_from"):
        qs = qs.filter(settled_at__gte=_day_start(filters["settled_from"]))
    if filters.get("settled_to"):
        # The end date is inclusive: everything settled before the next day starts.
        qs = qs.filter(settled_at__lt=_day_start(filters["settled_to"]) + timedelta(days=1))
    if filters.get("source"):
        source = filters["source"]
        qs = qs.filter(Q(trajectory_first__source__type=source) | Q(trajectory_second__source__type=source))
    return qs.select_related("task", "trajectory_first", "trajectory_second").order_by("id")


def project_strata(*, project: Project) -> list[str]:
    return list(
        Item.objects.filter(project=project)
        .exclude(stratum="")
        .values_list("stratum", flat=True)
        .distinct()
        .order_by("stratum")
    )


def exports_for(*, project: Project) -> QuerySet[Export]:
    return Export.objects.filter(project=project).select_related("created_by", "project")


def export_for(*, project: Project, export_id: int) -> Export:
    """Raises Export.DoesNotExist for an id of another project."""
    return exports_for(project=project).get(pk=export_id)
