"""Agreement coefficients on a units × raters matrix of category codes, with bootstrap CIs.

Every coefficient here is a function of sums over units of small per-unit vectors: category
counts, coincidences, the cell of a rater pair's confusion matrix. Units with the same row of
codes contribute the same vector, so the matrix is first reduced to its distinct rows
("patterns"), and a bootstrap resample of units becomes a multinomial draw of how often each
pattern is picked: 1,000 resamples of 100,000 two-rater pairs are a 1,000 × 9 matrix of
counts, not 1,000 passes over the data.

Point estimates come from the reference libraries (scikit-learn, statsmodels, krippendorff);
resampled values come from the same formulas written here in numpy, and the tests check that
both agree.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

MISSING = -1
LEVELS = ("nominal", "ordinal", "interval")
KAPPA_WEIGHTS = ("linear", "quadratic")
# Bound on the floats held at once while resampling (≈ 40 MB).
_CHUNK_CELLS = 5_000_000


def landis_koch(value: float | None) -> str | None:
    """Landis & Koch (1977) band of a κ: poor < 0 ≤ slight ≤ .20 < fair ≤ .40 < moderate ≤ .60
    < substantial ≤ .80 < almost perfect."""
    if value is None or not math.isfinite(value):
        return None
    if value < 0:
        return "poor"
    for upper, name in ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial")):
        if value <= upper:
            return name
    return "almost perfect"


def finite_or_none(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def weight_matrix(k: int, weights: str | None) -> np.ndarray:
    """Disagreement weights of Cohen's κ: 0/1 (unweighted), |i-j| (linear), (i-j)² (quadratic)."""
    i, j = np.indices((k, k))
    if weights == "linear":
        return np.abs(i - j).astype(float)
    if weights == "quadratic":
        return ((i - j) ** 2).astype(float)
    return (i != j).astype(float)


def kappa_from_confusion(confusion: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's κ of confusion matrices (..., K, K) (rows: rater a, columns: rater b), the same
    arithmetic as sklearn.metrics.cohen_kappa_score; NaN where it is undefined."""
    k = confusion.shape[-1]
    w = weight_matrix(k, weights)
    with np.errstate(all="ignore"):
        total = confusion.sum(axis=(-1, -2), keepdims=True)
        observed = confusion / total
        expected = observed.sum(axis=-1, keepdims=True) * observed.sum(axis=-2, keepdims=True)
        return 1 - (w * observed).sum(axis=(-1, -2)) / (w * expected).sum(axis=(-1, -2))


def _delta(level: str, n_c: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference δ²(c, k); ordinal depends on the value margins n_c."""
    k = n_c.shape[-1]
    i, j = np.indices((k, k))
    if level == "nominal":
        return (i != j).astype(float)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    cumulative = np.cumsum(n_c, axis=-1)
    between = cumulative[..., hi] - cumulative[..., lo] + n_c[..., lo]
    return (between - (n_c[..., lo] + n_c[..., hi]) / 2) ** 2


def alpha_from_coincidences(coincidences: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's α of coincidence matrices (..., K, K); NaN where it is undefined."""
    n_c = coincidences.sum(axis=-1)
    n = n_c.sum(axis=-1)
    delta = _delta(level, n_c, values)
    with np.errstate(all="ignore"):
        observed = (coincidences * delta).sum(axis=(-1, -2))
        expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-1, -2))
        return 1 - (n - 1) * observed / expected


@dataclass(frozen=True)
class Patterns:
    """The distinct rows of a units × raters code matrix and how many units have each."""

    rows: np.ndarray  # (P, R) codes, MISSING where the rater did not rate
    freq: np.ndarray  # (P,) units per row
    inverse: np.ndarray  # (U,) pattern of each unit
    counts: np.ndarray  # (P, K) ratings per category

    @classmethod
    def of(cls, codes: np.ndarray, n_categories: int) -> Patterns:
        n_raters = codes.shape[1]
        if n_raters * math.log2(n_categories + 1) < 62:
            # Each row as one base-(K+1) integer: a 1-D unique is many times faster than axis=0.
            base = (n_categories + 1) ** np.arange(n_raters, dtype=np.int64)
            _, first, inverse, freq = np.unique(
                (codes.astype(np.int64) + 1) @ base,
                return_index=True,
                return_inverse=True,
                return_counts=True,
            )
            rows = codes[first]
        else:
            rows, inverse, freq = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
        counts = np.stack([(rows == k).sum(axis=1) for k in range(n_categories)], axis=1)
        return cls(rows=rows, freq=freq, inverse=inverse.reshape(-1), counts=counts)


class Design:
    """Per-pattern feature blocks whose weighted sums give every coefficient at once.

    `evaluate(weights)` takes a (B, P) matrix of pattern counts (one row per resample, or the
    observed frequencies) and returns each coefficient as a (B,) array.
    """

    def __init__(
        self,
        patterns: Patterns,
        *,
        level: str,
        values: np.ndarray,
        rater_pairs: Sequence[tuple[int, int]],
        modal_ratings: int,
    ):
        self.level = level
        self.values = values
        self.k = k = patterns.counts.shape[1]
        self.n_pairs = len(rater_pairs)
        self.kappa_weights = (None, *KAPPA_WEIGHTS) if level != "nominal" else (None,)
        c = patterns.counts.astype(float)
        m = c.sum(axis=1)
        self.agree = np.stack([(c * (c - 1)).sum(axis=1), m * (m - 1)], axis=1)
        with np.errstate(all="ignore"):
            per_unit = (c[:, :, None] * c[:, None, :] - np.eye(k) * c[:, :, None]) / (m - 1)[:, None, None]
        self.coincidences = np.nan_to_num(per_unit).reshape(len(m), k * k)
        modal = (m == modal_ratings).astype(float)[:, None]
        self.modal_ratings = modal_ratings
        self.fleiss = np.hstack([c * modal, (c**2).sum(axis=1, keepdims=True) * modal, modal])
        self.pairs = self._pair_features(patterns.rows, rater_pairs, k)

    @staticmethod
    def _pair_features(rows: np.ndarray, rater_pairs: Sequence[tuple[int, int]], k: int) -> sparse.csr_matrix:
        """One-hot confusion cell of each rater pair in each pattern (sparse: P × pairs·K²)."""
        pattern_ix, columns = [], []
        for j, (a, b) in enumerate(rater_pairs):
            both = np.flatnonzero((rows[:, a] != MISSING) & (rows[:, b] != MISSING))
            pattern_ix.append(both)
            columns.append(j * k * k + rows[both, a].astype(np.int64) * k + rows[both, b])
        if pattern_ix:
            r, col = np.concatenate(pattern_ix), np.concatenate(columns)
        else:
            r = col = np.zeros(0, dtype=np.int64)
        shape = (rows.shape[0], max(1, len(rater_pairs)) * k * k)
        return sparse.csr_matrix((np.ones(len(r)), (r, col)), shape=shape)

    @property
    def n_features(self) -> int:
        return self.agree.shape[1] + self.coincidences.shape[1] + self.fleiss.shape[1] + self.pairs.shape[1]

    def evaluate(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        k = self.k
        agree = weights @ self.agree
        coincidences = (weights @ self.coincidences).reshape(-1, k, k)
        fl = weights @ self.fleiss
        out: dict[str, np.ndarray] = {}
        with np.errstate(all="ignore"):
            out["percent_agreement"] = agree[:, 0] / agree[:, 1]
            out["krippendorff_alpha"] = alpha_from_coincidences(coincidences, self.level, self.values)
            n, m = fl[:, k + 1], self.modal_ratings
            p = fl[:, :k] / (n * m)[:, None]
            p_bar = (fl[:, k] - n * m) / (n * m * (m - 1))
            p_exp = (p**2).sum(axis=1)
            out["fleiss_kappa"] = (p_bar - p_exp) / (1 - p_exp)
        if self.n_pairs:
            confusion = np.asarray((self.pairs.T @ weights.T).T).reshape(-1, self.n_pairs, k, k)
            for w in self.kappa_weights:
                per_pair = kappa_from_confusion(confusion, w)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all pairs undefined → NaN
                    out[_kappa_name(w)] = np.nanmean(per_pair, axis=1)
        return out


def _kappa_name(weights: str | None) -> str:
    return "cohen_kappa" if weights is None else f"weighted_kappa_{weights}"


def bootstrap_replicates(
    design: Design, patterns: Patterns, *, resamples: int, seed: int
) -> dict[str, np.ndarray]:
    """Each coefficient over `resamples` resamples of the units (with replacement, same size):
    the number of times each pattern is drawn is multinomial in the pattern frequencies."""
    n_units = int(patterns.freq.sum())
    probabilities = patterns.freq / n_units
    rng = np.random.default_rng(seed)
    per_chunk = max(1, min(resamples, _CHUNK_CELLS // max(len(probabilities), design.n_features)))
    parts: dict[str, list[np.ndarray]] = {}
    done = 0
    while done < resamples:
        size = min(per_chunk, resamples - done)
        weights = rng.multinomial(n_units, probabilities, size=size).astype(float)
        for name, values in design.evaluate(weights).items():
            parts.setdefault(name, []).append(values)
        done += size
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def percentile_ci(replicates: np.ndarray | None, confidence: float) -> tuple[float | None, float | None]:
    """Percentile interval of the finite replicates; (None, None) when there are none."""
    if replicates is None:
        return None, None
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return None, None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)
