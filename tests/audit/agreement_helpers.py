"""Rating tables built by hand, for the worked examples and the arithmetic checks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audit.agreement.table import RatingTable

NA = None  # a coder who did not code the unit


def table_from_coders(
    coders: Sequence[Sequence], categories: Sequence | None = None, strata=None
) -> RatingTable:
    """One list per coder (rater), one entry per unit, NA where the coder gave no value, as the
    worked examples print their reliability data (coders × units)."""
    values = [v for coder in coders for v in coder if v is not NA]
    categories = [str(c) for c in (categories or sorted(set(values)))]
    index = {c: i for i, c in enumerate(categories)}
    n_units = len(coders[0])
    codes = np.full((n_units, len(coders)), -1, dtype=np.int16)
    for r, coder in enumerate(coders):
        for u, value in enumerate(coder):
            if value is not NA:
                codes[u, r] = index[str(value)]
    return RatingTable(
        kind="test",
        categories=tuple(categories),
        unit_ids=np.arange(1, n_units + 1),
        rater_ids=np.arange(1, len(coders) + 1),
        rater_names=tuple(f"coder{r + 1}" for r in range(len(coders))),
        codes=codes,
        strata=np.array([""] * n_units, dtype=object),
    )


def table_from_counts(counts: Sequence[Sequence[int]], categories: Sequence | None = None) -> RatingTable:
    """Subjects × categories counts (how many raters put the subject in each category), as
    Fleiss' example prints them; raters are numbered in order within each subject."""
    counts = np.asarray(counts)
    n_raters = int(counts.sum(axis=1).max())
    codes = np.full((len(counts), n_raters), -1, dtype=np.int16)
    for u, row in enumerate(counts):
        codes[u, : row.sum()] = np.repeat(np.arange(len(row)), row)
    categories = categories or [str(k + 1) for k in range(counts.shape[1])]
    return RatingTable(
        kind="test",
        categories=tuple(str(c) for c in categories),
        unit_ids=np.arange(1, len(counts) + 1),
        rater_ids=np.arange(1, n_raters + 1),
        rater_names=tuple(f"rater{r + 1}" for r in range(n_raters)),
        codes=codes,
        strata=np.array([""] * len(counts), dtype=object),
    )


def table_from_crosstab(cells: dict[tuple[str, str], int], categories: Sequence[str]) -> RatingTable:
    """Two raters; {(label of rater 1, label of rater 2): number of units}."""
    first, second = [], []
    for (a, b), n in cells.items():
        first += [a] * n
        second += [b] * n
    return table_from_coders([first, second], categories)


def random_table(seed: int, *, units: int, raters: int, categories: int, missing: float) -> RatingTable:
    """Correlated random ratings with missing values, every unit rated at least twice."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, units)
    noise = rng.integers(0, categories, (units, raters))
    codes = np.where(rng.random((units, raters)) < 0.7, truth[:, None], noise).astype(np.int16)
    codes[rng.random((units, raters)) < missing] = -1
    codes[:, :2] = np.where(codes[:, :2] < 0, truth[:, None], codes[:, :2])
    return RatingTable(
        kind="test",
        categories=tuple(str(k) for k in range(categories)),
        unit_ids=np.arange(1, units + 1),
        rater_ids=np.arange(1, raters + 1),
        rater_names=tuple(f"r{r}" for r in range(raters)),
        codes=codes,
        strata=np.array([""] * units, dtype=object),
    )
