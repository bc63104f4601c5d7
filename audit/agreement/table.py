"""The pre-adjudication labels of a project as a units × raters table of canonical values.

A unit is an item, a rater an annotator, a value what agreement is judged on
(annotation.labels.comparable): for pairs "first" / "tie" / "second", the trajectory the
annotator preferred in the item's stored order, never the A/B letter they happened to see.
The table is read in one query that extracts the compared key inside PostgreSQL (->>), so
200,000 labels cost one pass over three short columns, not 200,000 decoded JSON documents.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Case, F, TextField, Value, When
from django.db.models.expressions import Expression
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce

from annotation.labels import comparable
from annotation.models import Annotation, ItemKind, ItemState, Project

from .coefficients import MISSING

# The stratum a unit belongs to: URL/CLI name → Item lookup. "stratum" is the stored name of
# the bucket (the importer writes meta.bucket to Item.stratum).
STRATUM_LOOKUPS: dict[str, str] = {
    "family": "family",
    "bucket": "stratum",
    "stratum": "stratum",
    "difficulty": "difficulty",
    "domain": "task__domain",
}

# The label keys annotation.labels.comparable reads, per kind (several keys: joined by "/").
COMPARABLE_KEYS: dict[str, tuple[str, ...]] = {
    ItemKind.PAIR: ("preferred",),
    ItemKind.STEP: ("chosen",),
    ItemKind.TRACE: ("verdict",),
    ItemKind.PCA: ("perception", "cognition", "action"),
    ItemKind.RECORDING: ("judge_passed",),
    # Query refinement: the chosen candidate's index, or "reject" (see value_expressions).
    ItemKind.QUERY: ("chosen",),
}

# Scale order where the values have one (ordinal and interval α, weighted κ): for pairs the
# preference runs from the first trajectory through a tie to the second.
CATEGORY_ORDER: dict[str, tuple[str, ...]] = {
    ItemKind.PAIR: ("first", "tie", "second"),
    ItemKind.TRACE: ("correct", "corrected", "discard"),
    ItemKind.RECORDING: ("false", "true"),
    # Items hold three candidate queries (Agent-X curation); "reject" = none usable.
    ItemKind.QUERY: ("0", "1", "2", "reject"),
}


def _as_text(part) -> str:
    # How PostgreSQL's ->> writes a JSON scalar, so Python and database values compare equal.
    if isinstance(part, bool):
        return "true" if part else "false"
    return str(part)


def value_key(kind: str, label: dict | None) -> str | None:
    """The compared part of `label` (annotation.labels.comparable) as the text the table holds;
    None when the label does not carry it."""
    if not label:
        return None
    value = comparable(kind, label)
    parts = value if isinstance(value, tuple) else (value,)
    if any(part is None for part in parts):
        return None
    return "/".join(_as_text(part) for part in parts)


def value_expressions(kind: str, json_field: str) -> dict[str, Expression]:
    """Annotations extracting the compared key(s) of `json_field` in the database."""
    if kind == ItemKind.QUERY:
        # comparable(): a rejection compares as "reject" whatever else the label holds.
        return {
            "_v0": Case(
                When(**{f"{json_field}__decision": "reject"}, then=Value("reject")),
                default=KeyTextTransform("chosen", json_field),
                output_field=TextField(),
            )
        }
    return {f"_v{i}": KeyTextTransform(key, json_field) for i, key in enumerate(COMPARABLE_KEYS[kind])}


def join_parts(columns: list[tuple]) -> list[str | None]:
    """Rows of extracted key texts → one value per row ("/"-joined), None when a key is missing."""
    if len(columns) == 1:
        return list(columns[0])
    return [None if None in parts else "/".join(parts) for parts in zip(*columns, strict=True)]


def ordered_categories(kind: str, observed) -> tuple[str, ...]:
    fixed = CATEGORY_ORDER.get(kind, ())
    return fixed + tuple(sorted(set(observed) - set(fixed)))


@dataclass(frozen=True)
class RatingTable:
    """Units × raters. codes[u, r] indexes `categories`, MISSING where r did not rate u."""

    kind: str
    categories: tuple[str, ...]
    unit_ids: np.ndarray  # (U,) item ids, ascending
    rater_ids: np.ndarray  # (R,) user ids, ascending
    rater_names: tuple[str, ...]
    codes: np.ndarray  # (U, R) int16
    strata: np.ndarray  # (U,) stratum value per unit ("" when the item has none)
    stratum_field: str | None = None

    @property
    def n_units(self) -> int:
        return len(self.unit_ids)

    @property
    def n_ratings(self) -> int:
        return int((self.codes != MISSING).sum())

    def values(self) -> np.ndarray:
        """Numbers standing for the categories on an interval scale: the categories themselves
        when they are all numbers, else their positions in scale order."""
        try:
            return np.array([float(c) for c in self.categories])
        except ValueError:
            return np.arange(len(self.categories), dtype=float)

    def subset(self, units: np.ndarray) -> RatingTable:
        """The table restricted to the units selected by a boolean mask or index array; raters
        left without a rating are dropped."""
        codes = self.codes[units]
        raters = (codes != MISSING).any(axis=0)
        return RatingTable(
            kind=self.kind,
            categories=self.categories,
            unit_ids=self.unit_ids[units],
            rater_ids=self.rater_ids[raters],
            rater_names=tuple(n for n, keep in zip(self.rater_names, raters, strict=True) if keep),
            codes=codes[:, raters],
            strata=self.strata[units],
            stratum_field=self.stratum_field,
        )

    def by_stratum(self) -> dict[str, RatingTable]:
        """One sub-table per stratum value, in sorted order."""
        return {str(value): self.subset(self.strata == value) for value in sorted(set(self.strata.tolist()))}


@contextmanager
def gc_paused():
    """Reading 200,000 row tuples makes the cyclic garbage collector rescan them again and again
    (a quarter of the read time); they hold no cycles, so it waits until the table is built."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def empty_table(kind: str, stratum_field: str | None) -> RatingTable:
    return RatingTable(
        kind=kind,
        categories=ordered_categories(kind, ()),
        unit_ids=np.zeros(0, dtype=np.int64),
        rater_ids=np.zeros(0, dtype=np.int64),
        rater_names=(),
        codes=np.zeros((0, 0), dtype=np.int16),
        strata=np.zeros(0, dtype=object),
        stratum_field=stratum_field,
    )


def rating_table(
    *, project: Project, stratum_field: str | None = None, audited_only: bool = False
) -> RatingTable:
    """Every annotation of the project's items, before adjudication, as a units × raters table.

    Items in the `discarded` state are left out: a reviewer threw them away, so they are not
    part of the data whose reliability is measured (note that this can raise κ where the
    discarded items were disagreements). Adjudications never enter: they are the reviewer's
    label, not an annotator's. Labels that lack the compared key are not ratings.
    `stratum_field`: family, bucket (= stratum), difficulty or domain (the task's).
    `audited_only`: only items in the audit sample (Item.audited).
    """
    if stratum_field is not None and stratum_field not in STRATUM_LOOKUPS:
        choices = ", ".join(STRATUM_LOOKUPS)
        raise ValueError(f"Unknown stratum field {stratum_field!r}; choose one of {choices}.")
    kind = project.kind
    expressions = value_expressions(kind, "label")
    stratum = (
        Coalesce(F(f"item__{STRATUM_LOOKUPS[stratum_field]}"), Value("")) if stratum_field else Value("")
    )
    qs = Annotation.objects.filter(item__project=project, item__kind=kind).exclude(
        item__state=ItemState.DISCARDED
    )
    if audited_only:
        qs = qs.filter(item__audited=True)
    with gc_paused():
        rows = list(
            qs.annotate(**expressions, _stratum=stratum).values_list(
                "item_id", "annotator_id", *expressions, "_stratum"
            )
        )
        return _table_from_rows(rows, kind=kind, stratum_field=stratum_field)


def _table_from_rows(rows: list[tuple], *, kind: str, stratum_field: str | None) -> RatingTable:
    if not rows:
        return empty_table(kind, stratum_field)
    # Column lists by itemgetter: zip(*rows) over 200k rows costs several times more.
    item_col, rater_col, *value_cols, stratum_col = (
        list(map(itemgetter(i), rows)) for i in range(len(rows[0]))
    )
    values = join_parts(value_cols)
    categories = ordered_categories(kind, set(values) - {None})
    index = {c: i for i, c in enumerate(categories)}  # None (no compared key) → MISSING
    codes_long = np.fromiter(
        map(index.get, values, [MISSING] * len(values)), dtype=np.int16, count=len(values)
    )
    keep = codes_long != MISSING

    items = np.asarray(item_col, dtype=np.int64)[keep]
    raters = np.asarray(rater_col, dtype=np.int64)[keep]
    unit_ids, unit_ix = np.unique(items, return_inverse=True)
    rater_ids, rater_ix = np.unique(raters, return_inverse=True)
    codes = np.full((len(unit_ids), len(rater_ids)), MISSING, dtype=np.int16)
    codes[unit_ix, rater_ix] = codes_long[keep]
    strata = np.empty(len(unit_ids), dtype=object)
    strata[unit_ix] = np.asarray(stratum_col, dtype=object)[keep]
    names = dict(get_user_model().objects.filter(pk__in=rater_ids.tolist()).values_list("pk", "username"))
    return RatingTable(
        kind=kind,
        categories=categories,
        unit_ids=unit_ids,
        rater_ids=rater_ids,
        rater_names=tuple(names.get(int(pk), str(pk)) for pk in rater_ids),
        codes=codes,
        strata=strata,
        stratum_field=stratum_field,
    )
