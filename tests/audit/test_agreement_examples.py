"""Published worked examples, reproduced to three decimals, and the resampling arithmetic
checked against the reference libraries. No database needed."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from audit.agreement import agreement_stats, landis_koch
from audit.agreement.coefficients import bootstrap_replicates
from audit.agreement.stats import measure
from tests.audit.agreement_helpers import (
    NA,
    random_table,
    table_from_coders,
    table_from_counts,
    table_from_crosstab,
)

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. University of
# Pennsylvania, Annenberg School for Communication, https://repository.upenn.edu/asc_papers/43.
# Reliability data as printed in its sections A, B and C (also in the test suites of medkit,
# tests/unit/text/metrics/test__irr_utils.py, and, for C, of the `krippendorff` package).

# A. Binary data, two observers, no missing data: α = 0.095.
KRIPPENDORFF_A = [
    [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
]
# B. Nominal data, two observers, no missing data, 12 units: α = 0.692.
KRIPPENDORFF_B = [
    ["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"],
    ["b", "a", "b", "b", "b", "c", "c", "c", "e", "d", "d", "d"],
]
# C. Nominal data, any number of observers (4), missing data, 12 units: α = 0.743
# (ordinal 0.815, interval 0.849 in the same section).
KRIPPENDORFF_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
]

# Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. The worked example
# of Wikipedia's "Fleiss' kappa" article: 10 subjects, 14 raters, 5 categories, κ = 0.210
# (the same table is `table1` in statsmodels/stats/tests/test_inter_rater.py).
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Wikipedia, "Cohen's kappa", simple example: 50 grant proposals read by A and B; both say yes
# to 20, A yes / B no 5, A no / B yes 10, both no 15. p_o = 0.7, p_e = 0.5, κ = 0.4.
COHEN_WIKIPEDIA = {("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}


def stats(table, **kw):
    kw.setdefault("bootstrap", 200)
    return agreement_stats(table, **kw)


def test_krippendorff_binary_two_observers():
    result = stats(table_from_coders(KRIPPENDORFF_A))
    assert round(result["krippendorff_alpha"]["value"], 3) == 0.095
    assert result["n_units"] == 10 and result["n_raters"] == 2 and result["n_ratings"] == 20
    assert result["percent_agreement"] == pytest.approx(0.6)


def test_krippendorff_nominal_two_observers_twelve_units():
    result = stats(table_from_coders(KRIPPENDORFF_B))
    assert round(result["krippendorff_alpha"]["value"], 3) == 0.692
    assert result["percent_agreement"] == pytest.approx(9 / 12)


@pytest.mark.parametrize(("level", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_four_observers_with_missing_values(level, expected):
    table = table_from_coders(KRIPPENDORFF_C, categories=[1, 2, 3, 4, 5])
    result = stats(table, level=level)
    assert round(result["krippendorff_alpha"]["value"], 3) == expected
    assert result["krippendorff_alpha"]["level"] == level
    # Unit 12 has a single value: not pairable, so not measured.
    assert result["n_units"] == 11 and result["n_units_single"] == 1


def test_fleiss_fourteen_raters_ten_subjects():
    result = stats(table_from_counts(FLEISS_WIKIPEDIA))
    fleiss = result["fleiss_kappa"]
    assert round(fleiss["value"], 3) == 0.210
    assert fleiss["band"] == "fair"
    assert fleiss["n_units"] == 10 and fleiss["ratings_per_unit"] == 14


def test_cohen_two_raters_fifty_proposals():
    result = stats(table_from_crosstab(COHEN_WIKIPEDIA, ["no", "yes"]))
    cohen = result["cohen_kappa"]
    assert round(cohen["value"], 3) == 0.400
    assert cohen["band"] == "fair"
    assert cohen["method"] == "two raters"
    assert result["percent_agreement"] == pytest.approx(0.7)


def test_weighted_kappa_equals_kappa_with_two_categories_and_sklearn_otherwise():
    two = stats(table_from_crosstab(COHEN_WIKIPEDIA, ["no", "yes"]), level="ordinal")
    assert two["weighted_kappa_linear"]["value"] == pytest.approx(0.4)
    assert two["weighted_kappa_quadratic"]["value"] == pytest.approx(0.4)
    assert "weighted_kappa_linear" not in stats(table_from_crosstab(COHEN_WIKIPEDIA, ["no", "yes"]))

    table = random_table(3, units=300, raters=2, categories=4, missing=0)
    result = stats(table, level="ordinal")
    for weights in ("linear", "quadratic"):
        expected = cohen_kappa_score(table.codes[:, 0], table.codes[:, 1], weights=weights)
        assert result[f"weighted_kappa_{weights}"]["value"] == pytest.approx(expected)


def test_more_than_two_raters_cohen_is_the_mean_over_pairs_sharing_enough_units():
    table = random_table(5, units=60, raters=4, categories=3, missing=0.5)
    shared = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    common = {p: int(((table.codes[:, p[0]] >= 0) & (table.codes[:, p[1]] >= 0)).sum()) for p in shared}
    threshold = sorted(common.values())[2]  # drops the pairs sharing the fewest units
    kept = [p for p in shared if common[p] >= threshold]
    expected = np.mean(
        [
            cohen_kappa_score(table.codes[both, a], table.codes[both, b])
            for a, b in kept
            for both in [(table.codes[:, a] >= 0) & (table.codes[:, b] >= 0)]
        ]
    )
    cohen = stats(table, min_common=threshold)["cohen_kappa"]
    assert cohen["value"] == pytest.approx(expected)
    assert cohen["n_pairs"] == len(kept) < 6
    assert cohen["method"].startswith(f"mean of pairwise Cohen's κ over {len(kept)} rater pairs")
    assert stats(table, min_common=10**6)["cohen_kappa"]["value"] is None


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize(("raters", "missing"), [(2, 0.0), (4, 0.3)])
def test_resampling_arithmetic_reproduces_the_library_values(level, raters, missing):
    """The bootstrap computes every coefficient in numpy from pattern counts; on the observed
    counts those formulas must give exactly what scikit-learn, statsmodels and krippendorff do."""
    table = random_table(11, units=400, raters=raters, categories=4, missing=missing)
    result = stats(table, level=level, min_common=5, bootstrap=0)
    m = measure(table, level=level, min_common=5)
    ours = m.design.evaluate(m.patterns.freq[None, :].astype(float))
    names = ["percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"]
    if level != "nominal":
        names += ["weighted_kappa_linear", "weighted_kappa_quadratic"]
    for name in names:
        library = result[name] if name == "percent_agreement" else result[name]["value"]
        assert ours[name][0] == pytest.approx(library, abs=1e-12), name


def test_confidence_intervals_are_reproducible_with_the_seed():
    table = random_table(7, units=500, raters=3, categories=3, missing=0.2)
    first = stats(table, bootstrap=500, seed=42, min_common=5)
    again = stats(table, bootstrap=500, seed=42, min_common=5)
    other = stats(table, bootstrap=500, seed=43, min_common=5)
    for name in ("cohen_kappa", "fleiss_kappa", "krippendorff_alpha"):
        assert first[name] == again[name]
        assert (first[name]["ci_low"], first[name]["ci_high"]) != (
            other[name]["ci_low"],
            other[name]["ci_high"],
        )
        assert first[name]["ci_low"] < first[name]["value"] < first[name]["ci_high"]
    assert first["percent_agreement_ci"] == again["percent_agreement_ci"]
    assert first["bootstrap"] == {"resamples": 500, "seed": 42, "confidence": 0.95}


def test_bootstrap_resamples_units_with_replacement():
    """A resample draws n units: the pattern counts of every replicate add up to n, and the
    mean of the replicates sits near the observed value."""
    table = random_table(9, units=2000, raters=2, categories=3, missing=0)
    m = measure(table, level="nominal")
    replicates = bootstrap_replicates(m.design, m.patterns, resamples=400, seed=1)
    observed = agreement_stats(table, bootstrap=0)["cohen_kappa"]["value"]
    assert replicates["cohen_kappa"].shape == (400,)
    assert abs(replicates["cohen_kappa"].mean() - observed) < 0.01
    assert 0.005 < replicates["cohen_kappa"].std() < 0.05


def test_no_bootstrap_means_no_interval():
    result = stats(table_from_coders(KRIPPENDORFF_B), bootstrap=0)
    assert result["cohen_kappa"]["ci_low"] is None and result["cohen_kappa"]["ci_high"] is None
    assert result["cohen_kappa"]["value"] is not None


def test_undefined_coefficients_are_none_not_nan():
    same = table_from_coders([["x"] * 5, ["x"] * 5])
    result = stats(same)
    assert result["percent_agreement"] == 1.0
    for name in ("cohen_kappa", "fleiss_kappa", "krippendorff_alpha"):
        assert result[name]["value"] is None and result[name]["band"] is None
        assert result[name]["ci_low"] is None
    nobody_twice = stats(table_from_coders([["x", NA], [NA, "y"]]))
    assert nobody_twice["n_units"] == 0 and nobody_twice["n_units_single"] == 2
    assert nobody_twice["cohen_kappa"]["value"] is None and nobody_twice["percent_agreement"] is None


@pytest.mark.parametrize(
    ("value", "band"),
    [
        (-0.05, "poor"),
        (0.0, "slight"),
        (0.20, "slight"),
        (0.21, "fair"),
        (0.40, "fair"),
        (0.41, "moderate"),
        (0.60, "moderate"),
        (0.61, "substantial"),
        (0.80, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
        (None, None),
        (float("nan"), None),
    ],
)
def test_landis_koch_bands(value, band):
    assert landis_koch(value) == band
