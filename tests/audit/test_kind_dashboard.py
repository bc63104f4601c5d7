"""The per-kind sections of the audit dashboard and their CSV tables (P/C/A, step, trace, query)."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import ItemKind
from audit.kinds import KIND_TABLES
from tests.audit.kind_worlds import (
    make_item,
    pca,
    pca_world,
    query_world,
    staff,
    step_world,
    suggest,
    trace_world,
)
from tests.audit.test_dashboard import client_for, rows_of
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory, TaskFactory

pytestmark = pytest.mark.django_db

SECTIONS = ("pca-audit", "step-audit", "trace-audit", "query-audit")


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def page(world, role: str) -> str:
    response = client_for(world[role]).get(reverse("audit_dashboard", args=[world["project"].slug]))
    assert response.status_code == 200
    return response.content.decode()


def only_section(html: str, section: str) -> None:
    for other in SECTIONS:
        assert (f'id="{other}"' in html) is (other == section), other


def csv_rows(world, table: str) -> list[dict]:
    url = reverse("audit_table_csv", args=[world["project"].slug, table])
    response = client_for(world["reviewer"]).get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{world["project"].slug}-{table}.csv"'
    return list(csv.DictReader(io.StringIO(response.content.decode())))


@pytest.mark.parametrize("role", ["manager", "reviewer"])
def test_pca_sections(role):
    world = pca_world()
    html = page(world, role)
    only_section(html, "pca-audit")
    agreement = {row[0]: row for row in rows_of(html, "pca-agreement-table")[1:]}
    assert agreement["Perception"][1:5] == ["6", "2", "12", "66.7%"]
    assert agreement["Perception"][5].startswith("0.25 [") and "fair" in agreement["Perception"][5]
    assert agreement["Cognition"][5].startswith("1.00")
    assert agreement["Action"][5].startswith("-1.00") and "poor" in agreement["Action"][5]

    categories = rows_of(html, "pca-categories-table")
    assert categories[0] == [
        "Domain",
        "Items",
        "Perception failure",
        "Cognition failure",
        "Action-only failure",
        "No failure",
    ]
    assert categories[1] == ["(all)", "7", "2 28.6%", "1 14.3%", "1 14.3%", "3 42.9%"]
    assert categories[4] == ["traffic", "3", "1 33.3%", "1 33.3%", "0 0.0%", "1 33.3%"]

    domains = rows_of(html, "pca-domains-table")
    humans_avg = [r for r in domains if r[0] == "Humans (settled labels)" and r[1].startswith("Avg")]
    # P: (2/3 + 1 + 1/2)/3 = 72.2%; C the same; A: (2/3 + 1/2 + 1/2)/3 = 55.6%.
    assert humans_avg == [
        ["Humans (settled labels)", "Avg (plain mean over domains)", "3 domains", "72.2%", "72.2%", "55.6%"]
    ]
    judge_avg = [r for r in domains if r[0] == "judge:pca-dev" and r[1].startswith("Avg")]
    assert judge_avg[0][3] == "44.4%"  # (1/3 + 1 + 0)/3

    assert rows_of(html, "pca-judges-table")[1:] == [["judge:pca-dev", "6", "1", "0.71", "1.00", "0.96"]]
    items = rows_of(html, "pca-items-table")
    assert items[1] == ["pca-000", "traffic", "1", "1", "1", "No failure"]
    assert items[2][-1] == "Perception failure" and len(items) == 8
    for table in ("pca_categories", "pca_items", "pca_domains", "pca_judges", "kind_agreement"):
        assert reverse("audit_table_csv", args=[world["project"].slug, table]) in html


@pytest.mark.parametrize("role", ["manager", "reviewer"])
def test_step_sections(role):
    world = step_world()
    html = page(world, role)
    only_section(html, "step-audit")
    agreement = {row[0]: row for row in rows_of(html, "step-agreement-table")[1:]}
    assert agreement["Best candidate (strict)"][1:5] == ["6", "2", "12", "50.0%"]
    assert agreement["Best candidate (strict)"][5].startswith("0.25")
    assert agreement["Checklist marks"][1:5] == ["6", "2", "12", "66.7%"]
    assert agreement["Checklist marks"][5].startswith("0.50")
    assert "83.3%</strong> of label pairs, κ <strong>0.74</strong> over 6 items" in html
    machines = {row[0]: row for row in rows_of(html, "step-machines-table")[1:]}
    assert machines["prm-8b"] == ["prm-8b", "6", "0", "0.917", "83.3%", "2 +1 incomplete", "50.0%"]
    assert machines["checklist-judge"][1:3] == ["0", "1"]


@pytest.mark.parametrize("role", ["manager", "reviewer"])
def test_trace_and_query_sections(role):
    world = trace_world()
    html = page(world, role)
    only_section(html, "trace-audit")
    rows = {row[0]: row for row in rows_of(html, "trace-agreement-table")[1:]}
    assert rows["Verdict"][1:5] == ["6", "2", "12", "66.7%"] and rows["Verdict"][5].startswith("0.45")
    assert rows["Check: tool choice"][1:5] == ["6", "2", "12", "83.3%"]
    assert rows["Check: tool choice"][5].startswith("0.57")
    assert rows["Check: argument format"][5] == "–"
    assert rows["Check: evidence"][1] == "0"

    world = query_world()
    html = page(world, role)
    only_section(html, "query-audit")
    (row,) = rows_of(html, "query-agreement-table")[1:]
    assert row[1:5] == ["6", "2", "12", "66.7%"] and row[5].startswith("0.54")
    decisions = dict(map(tuple, rows_of(html, "query-decisions-table")[1:]))
    assert decisions["reject"] == "3" and decisions["reject: tool hinting"] == "2"


def test_pair_projects_show_none_of_the_kind_sections():
    project = ProjectFactory(slug="pairs-only")
    reviewer = MembershipFactory(project=project, role="reviewer").user
    PairItemFactory(project=project)
    html = client_for(reviewer).get(reverse("audit_dashboard", args=[project.slug])).content.decode()
    for section in SECTIONS:
        assert f'id="{section}"' not in html


def test_kind_tables_download_as_csv():
    world = pca_world()
    categories = csv_rows(world, "pca_categories")
    assert categories[0] == {
        "domain": "(all)",
        "items": "7",
        "perception": "2",
        "cognition": "1",
        "action": "1",
        "none": "3",
    }
    items = csv_rows(world, "pca_items")
    assert [r["category"] for r in items] == [
        "none",
        "perception",
        "cognition",
        "action",
        "none",
        "perception",
        "none",
    ]
    assert items[0]["external_id"] == "pca-000" and items[0]["domain"] == "traffic"
    judges = csv_rows(world, "pca_judges")
    assert judges == [
        {
            "source": "judge:pca-dev",
            "items": "6",
            "failed": "1",
            "pearson_perception": "0.7071",
            "pearson_cognition": "1.0",
            "pearson_action": "0.9649",
        }
    ]
    domains = csv_rows(world, "pca_domains")
    avg = [r for r in domains if r["source"] == "humans (settled)" and r["domain"].startswith("Avg")]
    assert avg[0]["perception"] == "0.7222"
    agreement = {r["measure"]: r for r in csv_rows(world, "kind_agreement")}
    assert agreement["perception"]["cohen"] == "0.25" and agreement["perception"]["units"] == "6"

    world = step_world()
    machines = {r["source"]: r for r in csv_rows(world, "step_machines")}
    assert machines["prm-8b"]["mrr"] == "0.9167" and machines["prm-8b"]["trajectory_accuracy"] == "0.5"
    agreement = {r["measure"]: r for r in csv_rows(world, "kind_agreement")}
    lenient = agreement["best candidate (lenient: equivalent counts)"]
    assert (lenient["percent_agreement"], lenient["cohen"]) == ("0.8333", "0.7391")
    assert agreement["checklist marks"]["level"] == "ordinal"

    world = query_world()
    decisions = csv_rows(world, "query_decisions")
    assert {"count_of": "decision", "value": "edit", "labels": "2"} in decisions


@pytest.mark.parametrize("table", KIND_TABLES)
def test_kind_tables_of_a_pair_project_are_empty_not_errors(table):
    project = ProjectFactory(slug="pairs-csv")
    reviewer = MembershipFactory(project=project, role="reviewer").user
    response = client_for(reviewer).get(reverse("audit_table_csv", args=[project.slug, table]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) == 1 and rows[0]


def test_hostile_names_render_as_text_and_csv_cells_are_defused():
    project = ProjectFactory(slug="hostile-pca", kind=ItemKind.PCA)
    users = staff(project)
    task = TaskFactory(project=project, domain="<script>alert(1)</script>")
    item = make_item(project, ItemKind.PCA, settled=pca(1, 0, 1), task=task, external_id="=HYPERLINK(1)")
    suggest(item, "<img src=x onerror=alert(2)>", pca(1, 1, 1))
    html = client_for(users["reviewer"]).get(reverse("audit_dashboard", args=[project.slug])).content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    world = {"project": project, "reviewer": users["reviewer"]}
    (row,) = csv_rows(world, "pca_items")
    assert row["external_id"] == "'=HYPERLINK(1)"
