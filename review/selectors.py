"""Review reads shared by the pages and the API: the adjudication queue, one item with
everything a reviewer weighs, and an item's history. Each does a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import (
    Case,
    Count,
    F,
    FloatField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Concat, NullIf

from annotation.models import (
    Annotation,
    AnnotationRevision,
    Item,
    ItemKind,
    ItemState,
    Membership,
    Project,
    Role,
    Suggestion,
    Trajectory,
)
from review.models import Adjudication, AuditLog


def _answer() -> Case:
    """The part of an annotation's label that agreement is judged on, as text: SQL twin of
    annotation.labels.comparable."""
    return Case(
        When(item__kind=ItemKind.PAIR, then=KT("label__preferred")),
        When(item__kind=ItemKind.STEP, then=KT("label__chosen")),
        When(item__kind=ItemKind.TRACE, then=KT("label__verdict")),
        When(
            item__kind=ItemKind.PCA,
            then=Concat(
                KT("label__perception"),
                Value("/"),
                KT("label__cognition"),
                Value("/"),
                KT("label__action"),
                output_field=TextField(),
            ),
        ),
        default=KT("label__judge_passed"),
        output_field=TextField(),
    )


def with_agreement(qs: QuerySet[Item]) -> QuerySet[Item]:
    """Annotate `n_labels`, `majority` (votes for the most common answer) and `agreement`
    (majority / n_labels, NULL without labels) with correlated subqueries: no query per row."""
    mine = Annotation.objects.filter(item=OuterRef("pk")).order_by()
    votes = mine.annotate(answer=_answer()).values("answer").annotate(n=Count("pk")).order_by("-n")
    total = mine.values("item").annotate(n=Count("pk")).values("n")
    return qs.annotate(
        n_labels=Coalesce(Subquery(total), 0),
        majority=Subquery(votes.values("n")[:1]),
        agreement=Cast(F("majority"), FloatField()) / Cast(NullIf(F("n_labels"), 0), FloatField()),
    )


def adjudication_queue(*, project: Project) -> QuerySet[Item]:
    """Items waiting for a reviewer: least agreement first, then priority, then age. Each row
    carries why it is here (`queue_reason`, from the audit log) and since when (`queued_at`)."""
    entry = AuditLog.objects.filter(
        item=OuterRef("pk"), action="state", to_state=ItemState.ADJUDICATION
    ).order_by("-id")
    qs = Item.objects.filter(project=project, state=ItemState.ADJUDICATION).select_related("task")
    return (
        with_agreement(qs)
        .annotate(
            queue_reason=Subquery(entry.values("reason")[:1]),
            queued_at=Subquery(entry.values("created_at")[:1]),
        )
        .order_by(F("agreement").asc(nulls_first=True), "-priority", "id")
    )


def next_in_queue(*, project: Project, after: Item | None = None) -> Item | None:
    qs = adjudication_queue(project=project)
    if after is not None:
        qs = qs.exclude(pk=after.pk)
    return qs.first()


def item_for_adjudication(*, project: Project, item_id: int) -> Item:
    """One item with its content, its annotations (oldest first, with their edit counts), its
    machine suggestions and earlier decisions."""
    annotations = (
        Annotation.objects.select_related("annotator")
        .annotate(n_revisions=Count("revisions"))
        .order_by("created_at", "id")
    )
    return (
        Item.objects.select_related(
            "project", "task", "task__tool_env", "trajectory_first", "trajectory_second"
        )
        .prefetch_related(
            Prefetch("annotations", queryset=annotations),
            Prefetch("suggestions", queryset=Suggestion.objects.order_by("created_at", "id")),
            Prefetch("adjudications", queryset=Adjudication.objects.select_related("reviewer")),
        )
        .get(project=project, pk=item_id)
    )


def corrected_trajectories(*, item: Item, ids: list[int]) -> dict[int, Trajectory]:
    """The annotators' corrected versions of a trace item, by id, in one query. Only versions
    made from this item's trace count: an id pointing elsewhere is left out."""
    from annotation.traces import descends_from  # traces imports the importers: keep it lazy

    if not ids or item.trajectory_first_id is None:
        return {}
    rows = Trajectory.objects.filter(pk__in=set(ids), project_id=item.project_id).select_related("parent")
    # Versions form a chain (parent = the version edited); a correction is usually made from the
    # original itself, so the walk up the chain rarely needs a query.
    by_id = {t.pk: t for t in rows}
    return {pk: t for pk, t in by_id.items() if descends_from(t, item.trajectory_first_id)}


def queue_entry(*, item: Item) -> AuditLog | None:
    """The audit-log row that put the item in adjudication (its reasons are in `reason`)."""
    return (
        AuditLog.objects.filter(item=item, action="state", to_state=ItemState.ADJUDICATION)
        .select_related("actor")
        .order_by("-id")
        .first()
    )


# --- who is shown as whom -------------------------------------------------------------------


def show_annotator_names(project: Project) -> bool:
    return bool((project.label_schema or {}).get("show_annotator_names", True))


def annotator_aliases(*, item: Item, annotations: list[Annotation]) -> dict[int, str]:
    """user id → "Annotator 1", "Annotator 2" ... in the order they labeled the item, then any
    other annotator of the project who touched it (a skip, a lease) in the order of user id."""
    aliases: dict[int, str] = {}
    for annotation in annotations:
        aliases.setdefault(annotation.annotator_id, f"Annotator {len(aliases) + 1}")
    others = (
        Membership.objects.filter(project_id=item.project_id, role=Role.ANNOTATOR)
        .filter(user__in=AuditLog.objects.filter(item=item).values("actor"))
        .exclude(user_id__in=list(aliases))
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )
    for user_id in others:
        aliases[user_id] = f"Annotator {len(aliases) + 1}"
    return aliases


def display_name(user, aliases: dict[int, str] | None) -> str:
    """The name shown for `user`: their alias when annotator names are hidden, else the name."""
    if user is None:
        return "system"
    if aliases is not None and user.pk in aliases:
        return aliases[user.pk]
    return user.username


# --- history --------------------------------------------------------------------------------

# Which of two events at the same instant is told first.
_RANK = {"annotation": 0, "revision": 1, "suggestion": 2, "adjudication": 3, "log": 4}


@dataclass
class HistoryEvent:
    at: datetime
    kind: str  # annotation | revision | suggestion | adjudication | log
    ref: int  # id of the row it comes from
    actor: Any = None  # a user, or None (machines, the system)
    source: str = ""  # suggestions: the judge or model
    action: str = ""  # log rows: "state", "annotate", "assign", "skip", "edit", ...
    from_state: str = ""
    to_state: str = ""
    reason: str = ""
    label: dict | None = None
    text: str = ""  # rationale
    detail: dict = field(default_factory=dict)

    @property
    def sort_key(self) -> tuple:
        return (self.at, _RANK[self.kind], self.ref)


def item_history(*, item: Item) -> list[HistoryEvent]:
    """Every annotation, revision, suggestion, adjudication and audit-log row of one item, in
    time order. Revisions hold the content an edit replaced, at the time of the edit."""
    events: list[HistoryEvent] = []
    for a in Annotation.objects.filter(item=item).select_related("annotator"):
        events.append(
            HistoryEvent(
                at=a.created_at,
                kind="annotation",
                ref=a.pk,
                actor=a.annotator,
                label=a.label,
                text=a.rationale,
                detail={
                    "version": a.version,
                    "seconds_spent": a.seconds_spent,
                    "flagged": a.flagged,
                    "display_order": a.display_order,
                },
            )
        )
    revisions = AnnotationRevision.objects.filter(annotation__item=item).select_related("edited_by")
    for r in revisions:
        events.append(
            HistoryEvent(
                at=r.created_at,
                kind="revision",
                ref=r.pk,
                actor=r.edited_by,
                label=r.label,
                text=r.rationale,
                detail={"annotation": r.annotation_id, "replaced_version": r.version},
            )
        )
    for s in Suggestion.objects.filter(item=item):
        events.append(
            HistoryEvent(
                at=s.created_at,
                kind="suggestion",
                ref=s.pk,
                source=s.source,
                label=s.label,
                text=s.rationale,
                detail={
                    "prompt_version": s.prompt_version,
                    "scores": s.scores,
                    "error": s.error,
                    "latency_ms": s.latency_ms,
                },
            )
        )
    for j in Adjudication.objects.filter(item=item).select_related("reviewer"):
        events.append(
            HistoryEvent(
                at=j.created_at,
                kind="adjudication",
                ref=j.pk,
                actor=j.reviewer,
                action=j.decision,
                reason=j.reason,
                label=j.label or None,
                detail={"seconds_spent": j.seconds_spent},
            )
        )
    for row in AuditLog.objects.filter(item=item).select_related("actor"):
        events.append(
            HistoryEvent(
                at=row.created_at,
                kind="log",
                ref=row.pk,
                actor=row.actor,
                action=row.action,
                from_state=row.from_state,
                to_state=row.to_state,
                reason=row.reason,
                detail=row.data if isinstance(row.data, dict) else {"data": row.data},
            )
        )
    events.sort(key=lambda e: e.sort_key)
    return events
