"""Reads behind the audit dashboard and its CSV downloads (no writes happen here).

Agreement numbers come from audit.agreement and are cached per project for a minute, keyed on
the project's latest annotation id and latest audit-log id: every submit, edit, adjudication
and state change writes one of those, so a new label invalidates the entry at once and a
refresh with nothing new costs two index lookups.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import (
    Annotation,
    Assignment,
    AssignmentStatus,
    Item,
    ItemState,
    Membership,
    Project,
    Role,
    Suggestion,
)
from audit import agreement as engine
from audit.judges.tables import JUDGE_TABLES, judge_csv_table
from audit.kinds import KIND_TABLES, kind_metrics
from review.models import AuditLog

from .sampling import STRATUM_FIELDS

CACHE_SECONDS = 60
DEFAULT_STRATUM_FIELD = "family"
TABLES = ("strata", "annotators", "states", "family_kappa", "matrix", "quality", *JUDGE_TABLES, *KIND_TABLES)
STAT_KEYS = (("cohen", "cohen_kappa"), ("fleiss", "fleiss_kappa"), ("alpha", "krippendorff_alpha"))
# Landis & Koch (1977): lower bound of each band, used for colours (the engine names the band).
BANDS = ((0.8, "almost-perfect"), (0.6, "substantial"), (0.4, "moderate"), (0.2, "fair"), (0.0, "slight"))


def stratum_field_from(value: str | None) -> str:
    return value if value in STRATUM_FIELDS else DEFAULT_STRATUM_FIELD


def finite(value: Any) -> float | None:
    """A number worth showing, or None (missing, NaN, infinite)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def band_class(value: Any) -> str:
    number = finite(value)
    if number is None:
        return "band-none"
    for lower, name in BANDS:
        if number >= lower:
            return f"band-{name}"
    return "band-poor"


def kappa_text(stat: dict | None) -> str:
    """`0.81 [0.70, 0.90]`, or an en dash when there is nothing to measure."""
    stat = stat or {}
    value = finite(stat.get("value"))
    if value is None:
        return "–"
    low, high = finite(stat.get("ci_low")), finite(stat.get("ci_high"))
    if low is None or high is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def _version(project: Project) -> tuple[int, int]:
    last_annotation = (
        Annotation.objects.filter(item__project=project).order_by("-id").values_list("id", flat=True).first()
    )
    last_log = AuditLog.objects.filter(project=project).order_by("-id").values_list("id", flat=True).first()
    return last_annotation or 0, last_log or 0


def _cached(project: Project, name: str, compute: Callable[[], Any], version: tuple[int, int]) -> Any:
    key = f"audit:{name}:{project.pk}:{version[0]}:{version[1]}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, CACHE_SECONDS)
    return value


class Agreement:
    """The project's agreement numbers, computed at most once a minute per data version. The
    label table is read once per request and shared by the numbers computed from it."""

    def __init__(self, project: Project):
        self.project = project
        self.version = _version(project)
        self._tables: dict[str, engine.RatingTable] = {}

    def _table(self, stratum_field: str | None = None) -> engine.RatingTable:
        # The matrix ignores strata: any table already read will do.
        field = stratum_field or next(iter(self._tables), DEFAULT_STRATUM_FIELD)
        if field not in self._tables:
            self._tables[field] = engine.rating_table(project=self.project, stratum_field=field)
        return self._tables[field]

    def by_stratum(self, stratum_field: str) -> dict:
        return _cached(
            self.project,
            f"strata:{stratum_field}",
            lambda: engine.agreement_by_stratum(
                project=self.project, stratum_field=stratum_field, table=self._table(stratum_field)
            ),
            self.version,
        )

    def matrix(self) -> dict:
        return _cached(
            self.project,
            "matrix",
            lambda: engine.annotator_matrix(project=self.project, table=self._table()),
            self.version,
        )

    def quality(self) -> list[dict]:
        return _cached(
            self.project, "quality", lambda: engine.annotator_quality(project=self.project), self.version
        )

    def family_kappa(self) -> list[dict]:
        return _cached(
            self.project, "family", lambda: engine.family_kappa_table(project=self.project), self.version
        )

    def kinds(self) -> dict:
        """The P/C/A, step, trace and query sections (audit.kinds); None for absent kinds. Machine
        suggestions count there too, so a new one (a judge run) is part of the cache key."""
        last = (
            Suggestion.objects.filter(item__project=self.project)
            .order_by("-id")
            .values_list("id", flat=True)
            .first()
        )
        return _cached(
            self.project, f"kinds:{last or 0}", lambda: kind_metrics(project=self.project), self.version
        )


# --- plain aggregates (cheap, never cached) ---------------------------------------------------


def annotator_progress(*, project: Project) -> list[dict]:
    """Done / in hand (live lease) / skipped per annotator, members without work included."""
    now = timezone.now()
    rows = (
        Assignment.objects.filter(item__project=project)
        .values("annotator__username")
        .annotate(
            done=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
            in_hand=Count("id", filter=Q(status=AssignmentStatus.ACTIVE, expires_at__gt=now)),
            skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)),
        )
    )
    by_user = {
        row["annotator__username"]: {
            "username": row["annotator__username"],
            "done": row["done"],
            "in_hand": row["in_hand"],
            "skipped": row["skipped"],
        }
        for row in rows
    }
    for username in Membership.objects.filter(project=project, role=Role.ANNOTATOR).values_list(
        "user__username", flat=True
    ):
        by_user.setdefault(username, {"username": username, "done": 0, "in_hand": 0, "skipped": 0})
    return sorted(by_user.values(), key=lambda row: (-row["done"], row["username"]))


def items_by_state(*, project: Project) -> list[dict]:
    """Every state in lifecycle order, with how many items (and audited items) are in it."""
    counts = {
        row["state"]: row
        for row in Item.objects.filter(project=project)
        .values("state")
        .annotate(items=Count("id"), audited=Count("id", filter=Q(audited=True)))
    }
    return [
        {
            "state": state.value,
            "label": state.label,
            "items": counts.get(state.value, {}).get("items", 0),
            "audited": counts.get(state.value, {}).get("audited", 0),
        }
        for state in ItemState
    ]


# --- tables for display and CSV ---------------------------------------------------------------


def strata_rows(result: dict) -> list[dict]:
    """The overall row first, then one row per stratum value, each with its stats."""
    rows = [{"stratum": "(all)", "overall": True, **(result.get("overall") or {})}]
    for name in sorted(result.get("strata") or {}, key=str):
        rows.append({"stratum": name or "(none)", "overall": False, **result["strata"][name]})
    return rows


def _stat_columns(stat: dict | None) -> list:
    stat = stat or {}
    return [
        finite(stat.get("value")),
        finite(stat.get("ci_low")),
        finite(stat.get("ci_high")),
        stat.get("band", ""),
    ]


def csv_table(*, project: Project, table: str, stratum_field: str) -> tuple[list[str], list[list]]:
    """(header, rows) of one dashboard table, in plain values; `table` must be in TABLES."""
    if table in JUDGE_TABLES:
        return judge_csv_table(project=project, table=table)
    if table in KIND_TABLES:
        from .kinds import kind_csv_table  # it builds on this module's helpers

        return kind_csv_table(project=project, table=table)
    if table == "strata":
        header = ["stratum_field", "stratum", "units", "raters", "ratings", "percent_agreement"]
        for prefix, _ in STAT_KEYS:
            header += [prefix, f"{prefix}_ci_low", f"{prefix}_ci_high", f"{prefix}_band"]
        rows = []
        for row in strata_rows(Agreement(project).by_stratum(stratum_field)):
            values = [
                stratum_field,
                row["stratum"],
                row.get("n_units"),
                row.get("n_raters"),
                row.get("n_ratings"),
            ]
            values.append(finite(row.get("percent_agreement")))
            for _, key in STAT_KEYS:
                values += _stat_columns(row.get(key))
            rows.append(values)
        return header, rows
    if table == "annotators":
        rows = annotator_progress(project=project)
        return ["annotator", "done", "in_hand", "skipped"], [
            [r["username"], r["done"], r["in_hand"], r["skipped"]] for r in rows
        ]
    if table == "states":
        rows = items_by_state(project=project)
        return ["state", "items", "audited"], [[r["state"], r["items"], r["audited"]] for r in rows]
    if table == "family_kappa":
        rows = Agreement(project).family_kappa()
        header = ["family", "audited", "kappa", "ci_low", "ci_high", "band", "percent_agreement", "items"]
        return header, [
            [
                r["family"],
                r["audited"],
                *_stat_columns(r.get("kappa")),
                finite(r.get("percent_agreement")),
                r.get("sample", ""),
            ]
            for r in rows
        ]
    if table == "matrix":
        matrix = Agreement(project).matrix()
        names = matrix.get("annotators") or []
        rows = [
            [a, b, finite(matrix["kappa"][i][j]), matrix["counts"][i][j]]
            for i, a in enumerate(names)
            for j, b in enumerate(names)
            if i < j
        ]
        return ["annotator_a", "annotator_b", "kappa", "shared_items"], rows
    if table == "quality":
        keys = ["n_done", "agreement_with_settled", "median_seconds", "skip_rate", "adjudication_share"]
        rows = Agreement(project).quality()
        return ["annotator", *keys], [[r["username"], *(r.get(k) for k in keys)] for r in rows]
    raise KeyError(table)
