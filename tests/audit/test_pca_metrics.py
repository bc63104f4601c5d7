"""P/C/A audit numbers on a hand-built project (tests/audit/kind_worlds.py): κ per dimension,
derived error categories, domain averages, judge Pearson per dimension."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from audit.kinds import error_category, kind_metrics
from audit.kinds.pca import category_counts, domain_means
from tests.audit.kind_worlds import pca_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.mark.parametrize(
    ("scores", "category"),
    [
        ((0, 1, 1), "perception"),
        ((0, 0, 0), "perception"),
        ((1, 0, 1), "cognition"),
        ((1, 0, 0), "cognition"),
        ((1, 1, 0), "action"),
        ((1, 1, 1), "none"),
        ((1, None, 1), None),
    ],
)
def test_error_category_is_the_first_dimension_that_failed(scores, category):
    assert error_category(dict(zip(("perception", "cognition", "action"), scores, strict=True))) == category


def test_domain_average_is_the_plain_mean_over_domains_not_over_items():
    rows = [("a", {"perception": 1.0})] * 3 + [("b", {"perception": 0.0})]
    domains, average = domain_means(rows)
    assert [(d["name"], d["n"], d["perception"]) for d in domains] == [("a", 3, 1.0), ("b", 1, 0.0)]
    assert average["perception"] == pytest.approx(0.5)  # not 3/4
    assert average["n_domains"] == 2


def test_category_counts_overall_and_per_domain():
    items = [
        {"domain": "traffic", "category": "perception"},
        {"domain": "traffic", "category": "none"},
        {"domain": "game", "category": "action"},
    ]
    counts = category_counts(items)
    assert counts["overall"] == {"perception": 1, "cognition": 0, "action": 1, "none": 1}
    assert counts["domains"][1] == {
        "name": "traffic",
        "n": 2,
        "perception": 1,
        "cognition": 0,
        "action": 0,
        "none": 1,
    }


def test_pca_project_numbers():
    world = pca_world()
    report = kind_metrics(project=world["project"], bootstrap=0)
    assert report["step"] is None and report["trace"] is None and report["query"] is None
    pca = report["pca"]
    agreement = pca["agreement"]
    # Perception: ann1 1 1 1 0 0 1, ann2 1 1 0 0 1 1 → p_o = 4/6; both 4 ones of 6, so
    # p_e = (4/6)² + (2/6)² = 5/9; κ = (2/3 − 5/9) / (1 − 5/9) = 0.25.
    assert agreement["perception"]["cohen_kappa"]["value"] == pytest.approx(0.25, abs=1e-3)
    assert agreement["perception"]["percent_agreement"] == pytest.approx(4 / 6)
    assert agreement["perception"]["n_units"] == 6
    # Cognition: identical labels → κ = 1. Action: always opposite, halves → p_o = 0, p_e = .5, κ = −1.
    assert agreement["cognition"]["cohen_kappa"]["value"] == pytest.approx(1.0, abs=1e-3)
    assert agreement["action"]["cohen_kappa"]["value"] == pytest.approx(-1.0, abs=1e-3)
    assert agreement["action"]["krippendorff_alpha"]["value"] is not None

    # Seven verified items: the six of the world + the game item the judge failed on (1,1,1).
    categories = pca["categories"]
    assert categories["n"] == 7
    assert categories["overall"] == {"perception": 2, "cognition": 1, "action": 1, "none": 3}
    by_domain = {row["name"]: row for row in categories["domains"]}
    assert by_domain["traffic"] == {
        "name": "traffic",
        "n": 3,
        "perception": 1,
        "cognition": 1,
        "action": 0,
        "none": 1,
    }
    assert by_domain["domestic"]["action"] == 1 and by_domain["game"]["perception"] == 1
    assert [row["category"] for row in pca["items"]] == [
        "none",
        "perception",
        "cognition",
        "action",
        "none",
        "perception",
        "none",
    ]

    # Humans per domain: traffic P 2/3, domestic 1, game 1/2 → plain mean (2/3 + 1 + 1/2) / 3.
    assert pca["domain_average"]["perception"] == pytest.approx((2 / 3 + 1 + 0.5) / 3)
    assert pca["domain_average"]["action"] == pytest.approx((2 / 3 + 0.5 + 0.5) / 3)

    (judge,) = pca["judges"]
    assert judge["name"] == "judge:pca-dev"
    assert judge["n"] == 6 and judge["n_failed"] == 1
    # P: human 1 0 1 1 1 0, judge 1 0 0 1 1 0 → φ = (3·2 − 1·0) / √(4·2·3·3) = 6/√72 = 0.7071.
    assert judge["pearson"]["perception"] == pytest.approx(0.7071, abs=1e-3)
    assert judge["pearson"]["cognition"] == pytest.approx(1.0)
    # A from numeric scores .9 .8 .1 .2 .7 .3 vs 1 1 0 0 1 0: deviations (.4 .3 −.4 −.3 .2 −.2)
    # and ±.5 → r = .9 / √(.58 · 1.5) = 0.9649.
    assert judge["pearson"]["action"] == pytest.approx(0.9649, abs=1e-3)
    # The judge's P per domain: traffic 1/3, domestic 1, game 0 → (1/3 + 1 + 0) / 3.
    assert judge["domain_average"]["perception"] == pytest.approx(4 / 9)
