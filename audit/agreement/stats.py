"""Agreement statistics of a rating table, overall and per stratum."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from annotation.models import Project

from .coefficients import (
    KAPPA_WEIGHTS,
    LEVELS,
    MISSING,
    Design,
    Patterns,
    bootstrap_replicates,
    finite_or_none,
    landis_koch,
    percentile_ci,
)
from .table import RatingTable, rating_table

DEFAULT_RESAMPLES = 1000
# With more than two raters, Cohen's κ is the mean over rater pairs sharing at least this many
# units: a pair with three shared items says nothing but noise.
DEFAULT_MIN_COMMON = 10


def _quiet(compute) -> float | None:
    """A library call whose undefined cases (one category, no variance) become None."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return finite_or_none(compute())
        except (ValueError, ZeroDivisionError):
            return None


def _modal_ratings(per_unit: np.ndarray) -> int:
    """The most common number of ratings per unit (ties: the larger number)."""
    sizes, counts = np.unique(per_unit, return_counts=True)
    best = np.flatnonzero(counts == counts.max())
    return int(sizes[best[-1]])


def _rater_pairs(codes: np.ndarray, min_common: int) -> tuple[list[tuple[int, int]], str | None]:
    presence = (codes != MISSING).astype(np.int64)
    common = presence.T @ presence
    n = codes.shape[1]
    if n == 2:
        pairs = [(0, 1)] if common[0, 1] else []
        return pairs, "two raters"
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if common[a, b] >= min_common]
    return pairs, f"mean of pairwise Cohen's κ over {len(pairs)} rater pairs sharing ≥ {min_common} units"


def _pairwise_kappa(codes: np.ndarray, pairs, k: int, weights: str | None) -> float | None:
    labels = np.arange(k)
    values = []
    for a, b in pairs:
        both = (codes[:, a] != MISSING) & (codes[:, b] != MISSING)
        value = _quiet(
            lambda both=both, a=a, b=b: cohen_kappa_score(
                codes[both, a], codes[both, b], labels=labels, weights=weights
            )
        )
        if value is not None:
            values.append(value)
    return float(np.mean(values)) if values else None


def _coefficient(value: float | None, replicates, confidence: float, **extra: Any) -> dict:
    low, high = percentile_ci(replicates, confidence) if value is not None else (None, None)
    return {"value": value, "ci_low": low, "ci_high": high, "band": landis_koch(value), **extra}


def _empty_stats(base: dict, level: str) -> dict:
    none = {"value": None, "ci_low": None, "ci_high": None, "band": None}
    out = {
        **base,
        "percent_agreement": None,
        "percent_agreement_ci": {"ci_low": None, "ci_high": None},
        "cohen_kappa": {**none, "method": None, "n_pairs": 0},
        "fleiss_kappa": {**none, "n_units": 0, "ratings_per_unit": None},
        "krippendorff_alpha": {**none, "level": level},
    }
    if level != "nominal":
        for w in KAPPA_WEIGHTS:
            out[f"weighted_kappa_{w}"] = {**none, "method": None, "n_pairs": 0}
    return out


@dataclass(frozen=True)
class Measured:
    """What the coefficients are computed from: the units with two or more ratings."""

    codes: np.ndarray  # (U', R') units with ≥ 2 ratings × raters with a rating among them
    patterns: Patterns
    design: Design
    pairs: list[tuple[int, int]]
    method: str
    modal: int
    counts: np.ndarray  # (U', K) ratings per category
    domain: np.ndarray  # krippendorff's value domain


def measure(table: RatingTable, *, level: str, min_common: int = DEFAULT_MIN_COMMON) -> Measured | None:
    """The design of the table's pairable units; None when no unit has two ratings."""
    k = len(table.categories)
    per_unit = (table.codes != MISSING).sum(axis=1)
    pairable = per_unit >= 2
    if not pairable.any():
        return None
    codes = table.codes[pairable]
    codes = codes[:, (codes != MISSING).any(axis=0)]
    patterns = Patterns.of(codes, k)
    modal = _modal_ratings(per_unit[pairable])
    pairs, method = _rater_pairs(codes, min_common)
    values = table.values()
    return Measured(
        codes=codes,
        patterns=patterns,
        design=Design(patterns, level=level, values=values, rater_pairs=pairs, modal_ratings=modal),
        pairs=pairs,
        method=method,
        modal=modal,
        counts=patterns.counts[patterns.inverse],
        domain=values if level == "interval" else np.arange(k, dtype=float),
    )


def agreement_stats(
    table: RatingTable,
    *,
    level: str = "nominal",
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_common: int = DEFAULT_MIN_COMMON,
    confidence: float = 0.95,
) -> dict:
    """Agreement of the table's raters on the units at least two of them rated.

    - n_units: units with ≥ 2 ratings (the ones measured); n_units_single: units rated once.
    - percent_agreement: agreeing pairs among all pairs of ratings of the same unit, pooled.
    - cohen_kappa: Cohen's κ (scikit-learn) over the units both raters rated when the table has
      two raters; with more, the mean of pairwise κ over rater pairs sharing ≥ `min_common`
      units (`method` says which, `n_pairs` how many pairs).
    - weighted_kappa_linear / _quadratic (level ordinal or interval): the same, weighted.
    - fleiss_kappa: Fleiss' κ (statsmodels) on the units with the modal number of ratings.
    - krippendorff_alpha: Krippendorff's α (krippendorff) at `level`, every rating counted.
    Each coefficient has its Landis & Koch `band` and a percentile bootstrap CI from `bootstrap`
    resamples of the units drawn with `seed` (no CI when bootstrap=0). Undefined values (one
    category only, nothing shared) are None.
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; choose one of {', '.join(LEVELS)}.")
    k = len(table.categories)
    per_unit = (table.codes != MISSING).sum(axis=1)
    m = measure(table, level=level, min_common=min_common)
    observed = m.codes[m.codes != MISSING] if m else np.zeros(0, dtype=np.int16)
    base = {
        "level": level,
        "categories": list(table.categories),
        "n_units": int((per_unit >= 2).sum()),
        "n_units_single": int((per_unit == 1).sum()),
        "n_raters": int(m.codes.shape[1]) if m else 0,
        "n_ratings": int(observed.size),
        "distribution": dict(zip(table.categories, np.bincount(observed, minlength=k).tolist(), strict=True)),
        "bootstrap": {"resamples": bootstrap, "seed": seed, "confidence": confidence},
    }
    if m is None:
        return _empty_stats(base, level)

    replicates = (
        bootstrap_replicates(m.design, m.patterns, resamples=bootstrap, seed=seed) if bootstrap else {}
    )
    share = m.design.evaluate(m.patterns.freq[None, :].astype(float))["percent_agreement"][0]
    pa_low, pa_high = percentile_ci(replicates.get("percent_agreement"), confidence)
    out = {
        **base,
        "percent_agreement": finite_or_none(share),
        "percent_agreement_ci": {"ci_low": pa_low, "ci_high": pa_high},
    }
    for w in (None, *KAPPA_WEIGHTS) if level != "nominal" else (None,):
        name = "cohen_kappa" if w is None else f"weighted_kappa_{w}"
        value = _pairwise_kappa(m.codes, m.pairs, k, w)
        out[name] = _coefficient(
            value, replicates.get(name), confidence, method=m.method, n_pairs=len(m.pairs)
        )
    modal_units = m.counts[m.counts.sum(axis=1) == m.modal]
    out["fleiss_kappa"] = _coefficient(
        _quiet(lambda: fleiss_kappa(modal_units, method="fleiss")),
        replicates.get("fleiss_kappa"),
        confidence,
        n_units=len(modal_units),
        ratings_per_unit=m.modal,
    )
    out["krippendorff_alpha"] = _coefficient(
        _quiet(
            lambda: krippendorff.alpha(
                value_counts=m.counts, value_domain=m.domain, level_of_measurement=level
            )
        ),
        replicates.get("krippendorff_alpha"),
        confidence,
        level=level,
    )
    return out


def agreement_by_stratum(
    *,
    project: Project,
    stratum_field: str = "family",
    table: RatingTable | None = None,
    **kw: Any,
) -> dict:
    """{"stratum_field", "overall": stats, "strata": {value: stats}} — every stratum value with
    at least one label ("" for items without one); `kw` goes to agreement_stats. Pass `table`
    (built with the same stratum_field) to reuse one already read."""
    if table is None:
        table = rating_table(project=project, stratum_field=stratum_field)
    return {
        "stratum_field": stratum_field,
        "overall": agreement_stats(table, **kw),
        "strata": {value: agreement_stats(sub, **kw) for value, sub in table.by_stratum().items()},
    }
