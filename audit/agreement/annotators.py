"""Per annotator: pairwise κ with every other annotator, and quality numbers."""

from __future__ import annotations

from operator import itemgetter

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from annotation.models import Annotation, Assignment, AssignmentStatus, ItemState, Project
from review.models import Adjudication, AuditLog

from .coefficients import MISSING, finite_or_none, kappa_from_confusion
from .table import RatingTable, gc_paused, join_parts, rating_table, value_expressions

# Items whose annotation phase is over: they were either verified, sent to a reviewer or
# discarded. Only these can count for or against an annotator's adjudication share.
DECIDED_STATES = (ItemState.ADJUDICATION, ItemState.VERIFIED, ItemState.DISCARDED)


def annotator_matrix(*, project: Project, table: RatingTable | None = None) -> dict:
    """Cohen's κ and the number of shared units for every pair of annotators.

    {"annotators": [username, ...], "kappa": [[float|None]], "counts": [[int]]}: kappa[i][j] is
    κ between annotators i and j over the items both labeled (None when undefined or when they
    share none); counts[i][j] is how many items that is, and counts[i][i] how many items
    annotator i labeled (kappa[i][i] is None). Same data as rating_table (discarded items out).
    """
    if table is None:
        table = rating_table(project=project)
    codes, k = table.codes, len(table.categories)
    n = len(table.rater_names)
    presence = (codes != MISSING).astype(np.int64)
    counts = presence.T @ presence
    kappa: list[list[float | None]] = [[None] * n for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            if not counts[a, b]:
                continue
            both = (codes[:, a] != MISSING) & (codes[:, b] != MISSING)
            cells = np.bincount(
                codes[both, a].astype(np.int64) * k + codes[both, b], minlength=k * k
            ).reshape(k, k)
            kappa[a][b] = kappa[b][a] = finite_or_none(kappa_from_confusion(cells.astype(float)))
    return {"annotators": list(table.rater_names), "kappa": kappa, "counts": counts.tolist()}


def _blank() -> dict:
    return {"done": 0, "seconds": [], "settled": 0, "match": 0, "decided": 0, "adj": 0}


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def annotator_quality(*, project: Project) -> list[dict]:
    """One row per annotator who labeled or was assigned an item of the project, by username.

    - n_done: labels they gave (discarded items included: the work was done).
    - agreement_with_settled: share of their labels on settled items (Item.settled_label set)
      whose compared value equals the settled label's; n_settled is that denominator.
    - median_seconds: median time spent per label.
    - skip_rate: skipped assignments / finished (submitted or skipped) assignments.
    - adjudication_share: of their items whose annotation phase is over (now in adjudication,
      verified or discarded, or ever sent to adjudication), the share that went to a reviewer:
      an AuditLog row with to_state="adjudication", or an Adjudication of the item.
    """
    kind = project.kind
    mine = value_expressions(kind, "label")
    settled = {f"_s{i}": e for i, e in enumerate(value_expressions(kind, "item__settled_label").values())}
    with gc_paused():
        rows = list(
            Annotation.objects.filter(item__project=project)
            .annotate(**mine, **settled)
            .values_list("annotator_id", "item_id", "item__state", "seconds_spent", *mine, *settled)
        )
    n_keys = len(mine)
    sent_logs = AuditLog.objects.filter(project=project, to_state=ItemState.ADJUDICATION, item__isnull=False)
    adjudicated = set(sent_logs.values_list("item_id", flat=True)) | set(
        Adjudication.objects.filter(item__project=project).values_list("item_id", flat=True)
    )
    assignments = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(item__project=project)
        .values("annotator_id")
        .annotate(
            skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)),
            finished=Count("id", filter=Q(status__in=[AssignmentStatus.SUBMITTED, AssignmentStatus.SKIPPED])),
        )
    }
    per_user: dict[int, dict] = {}
    if rows:
        cols = [list(map(itemgetter(i), rows)) for i in range(len(rows[0]))]
        theirs = join_parts(cols[4 : 4 + n_keys])
        truth = join_parts(cols[4 + n_keys :])
        for (user, item, state, seconds, *_), value, settled_value in zip(rows, theirs, truth, strict=True):
            acc = per_user.setdefault(user, _blank())
            acc["done"] += 1
            acc["seconds"].append(seconds)
            if settled_value is not None and value is not None:
                acc["settled"] += 1
                acc["match"] += value == settled_value
            sent = item in adjudicated
            if sent or state in DECIDED_STATES:
                acc["decided"] += 1
                acc["adj"] += sent
    users = set(per_user) | set(assignments)
    names = dict(get_user_model().objects.filter(pk__in=users).values_list("pk", "username"))
    out = []
    for user in users:
        acc = per_user.get(user) or _blank()
        work = assignments.get(user, {"skipped": 0, "finished": 0})
        out.append(
            {
                "username": names.get(user, str(user)),
                "n_done": acc["done"],
                "n_settled": acc["settled"],
                "agreement_with_settled": _share(acc["match"], acc["settled"]),
                "median_seconds": float(np.median(acc["seconds"])) if acc["seconds"] else None,
                "n_skipped": work["skipped"],
                "skip_rate": _share(work["skipped"], work["finished"]),
                "n_decided": acc["decided"],
                "adjudication_share": _share(acc["adj"], acc["decided"]),
            }
        )
    return sorted(out, key=lambda row: row["username"])
