"""Reads and table builders shared by the per-kind metrics (P/C/A, steps, traces, queries).

The per-kind numbers measure agreement on parts of a label that the project-wide table
(audit.agreement.table, one compared value per item) does not hold: one P/C/A dimension at a
time, checklist marks, per-step trace checks. Each is turned into an ordinary RatingTable of
units × raters with fixed categories, so the coefficients, bootstrap CIs and None-for-undefined
rules are exactly those of audit.agreement.stats.agreement_stats.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.models import Annotation, Item, ItemState, Project, Suggestion
from audit.agreement.coefficients import MISSING
from audit.agreement.stats import DEFAULT_RESAMPLES, agreement_stats
from audit.agreement.table import RatingTable, gc_paused


@dataclass(frozen=True)
class Rated:
    """One annotator's label on one item (pre-adjudication)."""

    item_id: int
    rater_id: int
    rater: str
    label: dict


def annotations(*, project: Project, kind: str) -> list[Rated]:
    """Every label of the project's items of `kind`, discarded items left out (as the main
    agreement table does: a reviewer threw them away)."""
    qs = (
        Annotation.objects.filter(item__project=project, item__kind=kind)
        .exclude(item__state=ItemState.DISCARDED)
        .order_by("item_id", "annotator_id")
        .values_list("item_id", "annotator_id", "annotator__username", "label")
    )
    with gc_paused():
        return [Rated(i, r, name, label if isinstance(label, dict) else {}) for i, r, name, label in qs]


def settled_items(*, project: Project, kind: str, fields: Sequence[str] = ()) -> list[dict]:
    """Verified items of `kind` with their settled label (the truth the audit measures against)."""
    rows = (
        Item.objects.filter(project=project, kind=kind, state=ItemState.VERIFIED)
        .exclude(settled_label={})
        .order_by("id")
        .values("id", "external_id", "settled_label", *fields)
    )
    return list(rows)


def has_items(*, project: Project, kind: str) -> bool:
    return Item.objects.filter(project=project, kind=kind).exists()


def build_table(
    ratings: Iterable[tuple[Hashable, int, str, str]], categories: Sequence[str], *, kind: str
) -> RatingTable:
    """(unit key, rater id, rater name, category) rows → a RatingTable with `categories` in that
    (scale) order. A unit key is anything hashable: an item id, (item, position) …; values
    outside `categories` are not ratings. A rater's second value for the same unit wins."""
    index = {c: i for i, c in enumerate(categories)}
    units: dict[Hashable, int] = {}
    raters: dict[int, str] = {}
    cells: dict[tuple[int, int], int] = {}
    for unit, rater_id, rater, value in ratings:
        code = index.get(value)
        if code is None:
            continue
        u = units.setdefault(unit, len(units))
        raters.setdefault(rater_id, rater)
        cells[(u, rater_id)] = code
    rater_ids = sorted(raters)
    column = {r: j for j, r in enumerate(rater_ids)}
    codes = np.full((len(units), len(rater_ids)), MISSING, dtype=np.int16)
    for (u, rater_id), code in cells.items():
        codes[u, column[rater_id]] = code
    return RatingTable(
        kind=kind,
        categories=tuple(categories),
        unit_ids=np.arange(len(units), dtype=np.int64),
        rater_ids=np.asarray(rater_ids, dtype=np.int64),
        rater_names=tuple(raters[r] for r in rater_ids),
        codes=codes,
        strata=np.array([""] * len(units), dtype=object),
    )


def stats_of(
    table: RatingTable, *, level: str = "nominal", bootstrap: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict:
    return agreement_stats(table, level=level, bootstrap=bootstrap, seed=seed)


def machine_suggestions(*, project: Project, kind: str) -> tuple[dict[str, dict[int, tuple]], dict[str, int]]:
    """Machine suggestions on verified items of `kind`, by who made them: a judge config's name,
    else the suggestion's `source`. ({source: {item_id: (label, scores)}}, {source: failed items}).
    Per source and item the newest suggestion without an error counts (a newer prompt version
    replaces an older one); an item whose every suggestion failed counts as failed."""
    ok: dict[str, dict[int, tuple]] = defaultdict(dict)
    failed: dict[str, set[int]] = defaultdict(set)
    rows = (
        Suggestion.objects.filter(item__project=project, item__kind=kind, item__state=ItemState.VERIFIED)
        .order_by("id")
        .values_list("judge_config__name", "source", "item_id", "label", "scores", "error")
    )
    for config_name, source, item_id, label, scores, error in rows:
        name = config_name or source or "(unnamed)"
        if error:
            failed[name].add(item_id)
        else:
            ok[name][item_id] = (
                label if isinstance(label, dict) else {},
                scores if isinstance(scores, dict) else {},
            )
    names = sorted(set(ok) | set(failed))
    return {n: dict(ok.get(n, {})) for n in names}, {n: len(failed[n] - set(ok.get(n, {}))) for n in names}


def mean_or_none(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def as_number(value: Any) -> float | None:
    """A finite number (bools are not numbers here), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if np.isfinite(number) else None
