"""Agreement read from the database: canonical terms, strata, matrix, quality, κ table."""

from __future__ import annotations

import uuid

import pytest

from annotation.labels import label_from_seen, label_to_seen
from annotation.models import Annotation, ItemKind, Role
from annotation.services.annotations import annotation_submit
from audit.agreement import (
    agreement_by_stratum,
    annotator_matrix,
    annotator_quality,
    family_kappa_table,
    rating_table,
    value_key,
)
from audit.agreement.table import join_parts, value_expressions
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.audit.agreement_world import build_world
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return build_world()


def test_pairs_agree_in_canonical_terms_whatever_letters_the_annotators_saw():
    """x sees the first trajectory as A, y sees it as B. They pick the same trajectory every
    time, so they never pick the same letter, and agree perfectly."""
    project = ProjectFactory(overlap=2)
    x, y = (MembershipFactory(project=project, role=Role.ANNOTATOR).user for _ in range(2))
    orders = {x.pk: ["first", "second"], y.pk: ["second", "first"]}
    chosen = ["first", "second", "first", "second", "second"]
    for preferred in chosen:
        item = PairItemFactory(project=project, family="robust_recovery")
        for user in (x, y):
            order = orders[user.pk]
            AssignmentFactory(item=item, annotator=user, display_order=order)
            seen = label_to_seen(order, {"preferred": preferred})
            annotation_submit(
                item=item, annotator=user, label=label_from_seen(order, seen), client_id=uuid.uuid4()
            )
    seen_letters = {
        user: [
            label_to_seen(a.display_order, a.label)["preferred"]
            for a in Annotation.objects.filter(annotator=user).order_by("item_id")
        ]
        for user in (x, y)
    }
    assert all(a != b for a, b in zip(seen_letters[x], seen_letters[y], strict=True))

    result = agreement_by_stratum(project=project, stratum_field="family", bootstrap=100)
    overall = result["overall"]
    assert overall["n_units"] == 5 and overall["n_raters"] == 2
    assert overall["percent_agreement"] == 1.0
    assert overall["cohen_kappa"]["value"] == pytest.approx(1.0)
    assert overall["cohen_kappa"]["band"] == "almost perfect"
    assert overall["distribution"] == {"first": 4, "tie": 0, "second": 6}
    assert list(result["strata"]) == ["robust_recovery"]


def test_the_table_is_one_query_for_labels_and_one_for_names(world, django_assert_num_queries):
    with django_assert_num_queries(2):
        table = rating_table(project=world.project, stratum_field="family")
    # i7 is discarded; i8 has one label.
    assert table.n_units == 7 and table.n_ratings == 13
    assert table.categories == ("first", "tie", "second")
    assert table.rater_names == ("alice", "bob", "carol")


def test_per_stratum_split(world):
    result = agreement_by_stratum(project=world.project, stratum_field="family", bootstrap=200, min_common=2)
    planning, safety = result["strata"]["planning"], result["strata"]["safety"]
    assert planning["n_units"] == 4 and planning["n_units_single"] == 1 and planning["n_raters"] == 2
    assert planning["percent_agreement"] == pytest.approx(3 / 4)
    assert planning["cohen_kappa"]["value"] == pytest.approx(1 / 2)
    assert planning["cohen_kappa"]["method"] == "two raters"
    assert safety["cohen_kappa"]["value"] == pytest.approx(1 / 3)
    overall = result["overall"]
    assert overall["n_units"] == 6 and overall["n_raters"] == 3
    # Three raters: the mean of the two pairs sharing ≥ 2 items (bob and carol share none).
    assert overall["cohen_kappa"]["value"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert overall["cohen_kappa"]["n_pairs"] == 2
    # Fleiss on the six two-label items: P̄ = 4/6, P̄e = (36 + 25 + 1)/144 → κ = 34/82.
    assert overall["fleiss_kappa"]["value"] == pytest.approx(34 / 82)
    assert overall["fleiss_kappa"]["ratings_per_unit"] == 2


def test_other_strata_fields(world):
    by_domain = agreement_by_stratum(project=world.project, stratum_field="domain", bootstrap=0)
    assert set(by_domain["strata"]) == {"", "travel"}
    assert by_domain["strata"]["travel"]["n_units"] == 4
    by_bucket = agreement_by_stratum(project=world.project, stratum_field="bucket", bootstrap=0)
    assert set(by_bucket["strata"]) == {"planning_bucket", "safety_bucket"}
    by_difficulty = agreement_by_stratum(project=world.project, stratum_field="difficulty", bootstrap=0)
    assert by_difficulty["strata"]["hard"]["n_units"] == 2
    assert by_difficulty["strata"]["hard"]["percent_agreement"] == 1.0
    with pytest.raises(ValueError, match="Unknown stratum field 'colour'"):
        rating_table(project=world.project, stratum_field="colour")


def test_ci_is_reproducible_through_the_database(world):
    first = agreement_by_stratum(project=world.project, bootstrap=300, seed=5, min_common=2)
    again = agreement_by_stratum(project=world.project, bootstrap=300, seed=5, min_common=2)
    assert first == again
    kappa = first["overall"]["krippendorff_alpha"]
    assert kappa["ci_low"] is not None and kappa["ci_low"] <= kappa["value"] <= kappa["ci_high"]


def test_annotator_matrix(world):
    matrix = annotator_matrix(project=world.project)
    assert matrix["annotators"] == ["alice", "bob", "carol"]
    kappa, counts = matrix["kappa"], matrix["counts"]
    assert kappa[0][1] == kappa[1][0] == pytest.approx(1 / 2)
    assert kappa[0][2] == pytest.approx(1 / 3)
    assert kappa[1][2] is None and counts[1][2] == 0
    assert counts[0][1] == 4 and counts[0][2] == 2
    assert [counts[i][i] for i in range(3)] == [7, 4, 2]
    assert [kappa[i][i] for i in range(3)] == [None, None, None]


def test_annotator_quality(world):
    rows = {row["username"]: row for row in annotator_quality(project=world.project)}
    assert list(rows) == ["alice", "bob", "carol", "dave"]
    alice, bob, carol, dave = rows["alice"], rows["bob"], rows["carol"], rows["dave"]
    assert (alice["n_done"], bob["n_done"], carol["n_done"], dave["n_done"]) == (8, 5, 2, 0)
    # Settled: i1 first, i3 first (after adjudication), i4 first, i5 second.
    assert (alice["agreement_with_settled"], alice["n_settled"]) == (1.0, 4)
    assert bob["agreement_with_settled"] == pytest.approx(2 / 3) and bob["n_settled"] == 3
    assert carol["agreement_with_settled"] == 1.0
    assert dave["agreement_with_settled"] is None
    assert (alice["median_seconds"], bob["median_seconds"], carol["median_seconds"]) == (45.0, 5.0, 8.0)
    assert dave["median_seconds"] is None
    assert (alice["skip_rate"], bob["skip_rate"], carol["skip_rate"], dave["skip_rate"]) == (
        0.0,
        1 / 6,
        0.0,
        1.0,
    )
    # Sent to a reviewer: i2, i3 (verified since), i6. Decided: all but i8 (still annotating).
    assert (alice["adjudication_share"], alice["n_decided"]) == (3 / 7, 7)
    assert bob["adjudication_share"] == pytest.approx(2 / 5)
    assert carol["adjudication_share"] == 1 / 2
    assert dave["adjudication_share"] is None


def test_family_kappa_table_uses_the_audit_sample_when_there_is_one(world):
    rows = family_kappa_table(project=world.project, bootstrap=100)
    assert [(r["family"], r["audited"], r["sample"]) for r in rows] == [
        ("planning", 4, "all items"),
        ("safety", 2, "all items"),
    ]
    assert rows[0]["kappa"]["value"] == pytest.approx(1 / 2)
    assert rows[0]["kappa"]["band"] == "moderate"

    for ext in ("i1", "i2", "i5", "i6", "i8"):
        item = world.items[ext]
        item.audited = True
        item.save(update_fields=["audited"])
    rows = family_kappa_table(project=world.project, bootstrap=100)
    # i8 is in the sample but has one label: it is not counted.
    assert [(r["family"], r["audited"], r["sample"]) for r in rows] == [
        ("planning", 2, "audit sample"),
        ("safety", 2, "audit sample"),
    ]
    assert rows[0]["kappa"]["value"] == pytest.approx(1.0)
    assert rows[1]["kappa"]["value"] == pytest.approx(1 / 3)


def test_empty_project_answers_with_empty_numbers():
    project = ProjectFactory()
    result = agreement_by_stratum(project=project)
    assert result["strata"] == {}
    assert result["overall"]["n_units"] == 0 and result["overall"]["cohen_kappa"]["value"] is None
    assert annotator_matrix(project=project) == {"annotators": [], "kappa": [], "counts": []}
    assert annotator_quality(project=project) == [] and family_kappa_table(project=project) == []


@pytest.mark.parametrize(
    ("kind", "label", "expected"),
    [
        (ItemKind.PAIR, {"preferred": "tie", "tags": {"first": ["x"]}}, "tie"),
        (ItemKind.STEP, {"chosen": "c2", "checklist": ["yes"]}, "c2"),
        (ItemKind.TRACE, {"verdict": "corrected"}, "corrected"),
        (ItemKind.PCA, {"perception": 1, "cognition": 0, "action": 1}, "1/0/1"),
        (ItemKind.RECORDING, {"actions": [], "judge_passed": True}, "true"),
        (ItemKind.PCA, {"perception": 1, "action": 1}, None),
        (ItemKind.PAIR, {"tags": {}}, None),
    ],
)
def test_database_extraction_matches_labels_comparable(kind, label, expected):
    """The table reads the compared key inside PostgreSQL; it must give what
    annotation.labels.comparable gives in Python, for every kind."""
    annotation = AnnotationFactory(label=label)
    expressions = value_expressions(kind, "label")
    row = Annotation.objects.filter(pk=annotation.pk).annotate(**expressions).values_list(*expressions).get()
    assert join_parts([(part,) for part in row]) == [expected]
    assert value_key(kind, label) == expected


def test_a_pca_project_is_compared_on_all_three_scores():
    project = ProjectFactory(kind=ItemKind.PCA)
    x, y = (MembershipFactory(project=project).user for _ in range(2))
    labels = [((1, 1, 1), (1, 1, 1)), ((1, 0, 1), (1, 0, 1)), ((0, 0, 0), (0, 0, 1))]
    for a, b in labels:
        item = PairItemFactory(
            project=project, kind=ItemKind.PCA, trajectory_first=None, trajectory_second=None
        )
        for user, scores in ((x, a), (y, b)):
            AnnotationFactory(
                item=item,
                annotator=user,
                label=dict(zip(("perception", "cognition", "action"), scores, strict=True)),
            )
    table = rating_table(project=project)
    assert table.categories == ("0/0/0", "0/0/1", "1/0/1", "1/1/1")
    result = agreement_by_stratum(project=project, bootstrap=0)["overall"]
    assert result["percent_agreement"] == pytest.approx(2 / 3)
