"""Trace and query audit numbers on hand-built projects (tests/audit/kind_worlds.py): κ on the
verdict and per check, and on the chosen query (also through the project-wide table)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from annotation.models import Annotation, Item, ItemKind, ItemState
from audit.agreement import agreement_by_stratum, annotator_quality, rating_table, value_key
from audit.agreement.table import join_parts, value_expressions
from audit.kinds import kind_metrics
from tests.api.factories import AnnotationFactory
from tests.audit.kind_worlds import query_world, trace_world

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_trace_project_numbers():
    world = trace_world()
    report = kind_metrics(project=world["project"], bootstrap=0)
    assert report["pca"] is None and report["step"] is None and report["query"] is None
    trace = report["trace"]
    # Verdicts ann1 c c C d C c, ann2 c C C d c c (c correct, C corrected, d discard): p_o = 4/6;
    # margins 3, 2, 1 on both sides → p_e = (9 + 4 + 1)/36 = 7/18; κ = (2/3 − 7/18)/(11/18) = 5/11.
    verdict = trace["verdict"]
    assert verdict["n_units"] == 6
    assert verdict["cohen_kappa"]["value"] == pytest.approx(5 / 11, abs=1e-3)
    assert verdict["categories"] == ["correct", "corrected", "discard"]
    # Tool choice on 2 items × 3 steps: (p,p) (p,p) (f,f) (p,p) (p,f) (p,p) → p_o = 5/6;
    # margins ann1 p5 f1, ann2 p4 f2 → p_e = (20 + 2)/36; κ = (30 − 22)/(36 − 22) = 8/14 = 0.571.
    tool = trace["checks"]["tool_choice"]
    assert tool["n_units"] == 6
    assert tool["percent_agreement"] == pytest.approx(5 / 6)
    assert tool["cohen_kappa"]["value"] == pytest.approx(8 / 14, abs=1e-3)
    # Everyone passed every argument format: full agreement, κ undefined.
    fmt = trace["checks"]["argument_format"]
    assert fmt["percent_agreement"] == pytest.approx(1.0) and fmt["cohen_kappa"]["value"] is None
    # Nobody marked evidence: nothing to measure.
    assert trace["checks"]["evidence"]["n_units"] == 0


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ({"decision": "pick", "chosen": 2, "query": "q"}, "2"),
        ({"decision": "edit", "chosen": 0, "query": "q"}, "0"),
        ({"decision": "reject", "reject_reason": "ambiguous"}, "reject"),
        ({"decision": "reject", "chosen": 1, "reject_reason": "ambiguous"}, "reject"),
        ({"decision": "pick"}, None),
    ],
)
def test_query_extraction_in_the_database_matches_comparable(label, expected):
    annotation = AnnotationFactory(label=label)
    expressions = value_expressions(ItemKind.QUERY, "label")
    row = Annotation.objects.filter(pk=annotation.pk).annotate(**expressions).values_list(*expressions).get()
    assert join_parts([(part,) for part in row]) == [expected]
    assert value_key(ItemKind.QUERY, label) == expected


def test_query_project_numbers():
    world = query_world()
    # ann1 0 1 r 2 0 r, ann2 0 1 r 0 0 1 → p_o = 4/6. Margins ann1 0:2 1:1 2:1 r:2, ann2 0:3 1:2
    # r:1 → p_e = (6 + 2 + 0 + 2)/36 = 10/36; κ = (24 − 10)/(36 − 10) = 7/13 = 0.538.
    query = kind_metrics(project=world["project"], bootstrap=0)["query"]
    assert query["chosen"]["cohen_kappa"]["value"] == pytest.approx(7 / 13, abs=1e-3)
    assert query["decisions"] == {"pick": 7, "edit": 2, "reject": 3}
    assert query["reject_reasons"] == {"tool_hinting": 2, "trivially_answerable": 0, "ambiguous": 1}
    # The project-wide agreement table compares the same values.
    table = rating_table(project=world["project"])
    assert table.categories == ("0", "1", "2", "reject")
    overall = agreement_by_stratum(project=world["project"], bootstrap=0)["overall"]
    assert overall["cohen_kappa"]["value"] == pytest.approx(7 / 13, abs=1e-3)


def test_query_labels_agree_with_a_settled_rejection_in_the_database():
    world = query_world()
    third = Item.objects.filter(project=world["project"]).order_by("id")[2]  # both rejected
    settled = {"decision": "reject", "reject_reason": "ambiguous"}
    Item.objects.filter(pk=third.pk).update(state=ItemState.VERIFIED, settled_label=settled)
    quality = {row["username"]: row for row in annotator_quality(project=world["project"])}
    assert quality[world["ann1"].username]["n_settled"] == 1
    assert quality[world["ann1"].username]["agreement_with_settled"] == 1.0
