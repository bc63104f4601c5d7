"""The audit dashboard: the numbers of a hand-built project, CSV downloads, safe SVG charts."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from annotation.models import AssignmentStatus, Item, ItemState
from audit import agreement as engine
from review.lifecycle import item_transition
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db

SVG_NS = "{http://www.w3.org/2000/svg}"


def lab(preferred: str) -> dict:
    return {"preferred": preferred, "tags": {"first": [], "second": []}, "confidence": 4}


def labeled_item(project, family: str, labels: list[tuple], **fields) -> Item:
    """An audited item with one label per (annotator, preferred), then verified when they
    agree or sent to adjudication (through the lifecycle, which logs it)."""
    item = PairItemFactory(project=project, family=family, audited=True, n_annotations=len(labels), **fields)
    for user, preferred in labels:
        AnnotationFactory(item=item, annotator=user, label=lab(preferred))
    if len({p for _, p in labels}) == 1:
        settled = {"preferred": labels[0][1], "tags": {"first": [], "second": []}}
        item_transition(
            item=item, to_state=ItemState.VERIFIED, actor=None, reason="agree", settled_label=settled
        )
    else:
        item_transition(item=item, to_state=ItemState.ADJUDICATION, actor=None, reason="annotators disagree")
    return item


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def world():
    """complex_planning: ann1 f f s s / ann2 f f s f (κ 0.50, 75% agree);
    safety_refusal: both f, s (κ 1.00); overall 5 of 6 agree, κ = (5/6 − 1/2)/(1/2) = 0.67."""
    project = ProjectFactory(slug="dash", name="Dash")
    users = {
        name: MembershipFactory(project=project, role=role, user__username=name).user
        for name, role in (
            ("boss", "manager"),
            ("rev", "reviewer"),
            ("ann1", "annotator"),
            ("ann2", "annotator"),
            ("ann3", "annotator"),
        )
    }
    a1, a2 = users["ann1"], users["ann2"]
    for p1, p2 in (("first", "first"), ("first", "first"), ("second", "second"), ("second", "first")):
        labeled_item(project, "complex_planning", [(a1, p1), (a2, p2)])
    for p in ("first", "second"):
        labeled_item(project, "safety_refusal", [(a1, p), (a2, p)])
    fresh = [PairItemFactory(project=project, family="complex_planning") for _ in range(2)]
    AssignmentFactory(item=fresh[0], annotator=a2)  # in hand
    AssignmentFactory(item=fresh[1], annotator=a1, status=AssignmentStatus.SKIPPED, skip_reason="unclear")
    return project, users


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


class Tables(HTMLParser):
    """Rows (lists of cell texts) of every table inside the element with id `root`."""

    def __init__(self, root: str):
        super().__init__()
        self.root, self.depth, self.rows, self.cell = root, 0, [], None

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in ("br", "input", "link", "meta")
        elif dict(attrs).get("id") == self.root:
            self.depth = 1
        if self.depth and tag == "tr":
            self.rows.append([])
        if self.depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join(" ".join(self.cell).split()))
            self.cell = None
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def rows_of(html: str, root: str) -> list[list[str]]:
    parser = Tables(root)
    parser.feed(html)
    return parser.rows


def svgs(html: str) -> list[ET.Element]:
    """Every inline chart, parsed as XML: ET raises unless it is well-formed."""
    blocks = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    return [ET.fromstring(block) for block in blocks]  # noqa: S314 - our own markup, under test


@pytest.mark.parametrize("role", ["boss", "rev"])
def test_dashboard_shows_the_numbers_of_the_project(world, role):
    project, users = world
    response = client_for(users[role]).get(reverse("audit_dashboard", args=[project.slug]))
    assert response.status_code == 200
    html = response.content.decode()

    strata = rows_of(html, "strata-table")
    assert strata[0][:5] == ["Family", "Items", "Raters", "Labels", "% agree"]
    by_name = {row[0]: row for row in strata[1:]}
    assert by_name["(all)"][1:5] == ["6", "2", "12", "83.3%"]
    assert by_name["(all)"][5].startswith("0.67 [")
    assert by_name["complex_planning"][1:5] == ["4", "2", "8", "75.0%"]
    assert by_name["complex_planning"][5].startswith("0.50") and "moderate" in by_name["complex_planning"][5]
    assert by_name["safety_refusal"][4] == "100.0%"
    assert (
        by_name["safety_refusal"][5].startswith("1.00") and "almost perfect" in by_name["safety_refusal"][5]
    )

    family = rows_of(html, "family-kappa")
    assert family[0] == ["Family", "Audited", "κ [95% CI]", "Band"]
    assert [(r[0], r[1], r[2][:4], r[3]) for r in family[1:]] == [
        ("complex_planning", "4", "0.50", "moderate"),
        ("safety_refusal", "2", "1.00", "almost perfect"),
    ]

    assert rows_of(html, "items-by-state")[1:] == [
        ["New", "2", "0"],
        ["Annotating", "0", "0"],
        ["In adjudication", "1", "1"],
        ["Verified", "5", "5"],
        ["Discarded", "0", "0"],
    ]
    assert rows_of(html, "annotator-progress")[1:] == [
        ["ann1", "6", "0", "1"],
        ["ann2", "6", "1", "0"],
        ["ann3", "0", "0", "0"],
    ]
    matrix = rows_of(html, "annotator-matrix")
    assert matrix == [["", "ann1", "ann2"], ["ann1", "—", "0.67 6"], ["ann2", "0.67 6", "—"]]
    quality = {row[0]: row for row in rows_of(html, "annotator-quality")[1:]}
    assert quality["ann1"][1:] == ["6", "100.0%", "42 s", "14.3%", "16.7%"]
    assert quality["ann2"][1:] == ["6", "100.0%", "42 s", "0.0%", "16.7%"]

    # Every table has its CSV link, and the charts are there.
    for table in ("strata", "annotators", "states", "family_kappa", "matrix", "quality"):
        assert reverse("audit_table_csv", args=[project.slug, table]) in html
    assert {svg.get("id") for svg in svgs(html)} == {"kappa-chart", "states-chart"}
    assert ("Re-draw the audit sample" in html or "Draw an audit sample" in html) is (role == "boss")


def test_annotators_and_outsiders_get_404(world):
    project, users = world
    outsider = MembershipFactory(role="manager").user
    for user in (users["ann1"], outsider):
        client = client_for(user)
        assert client.get(reverse("audit_dashboard", args=[project.slug])).status_code == 404
        assert client.get(reverse("audit_table_csv", args=[project.slug, "strata"])).status_code == 404


CSV_HEADERS = {
    "strata": ["stratum_field", "stratum", "units", "raters", "ratings", "percent_agreement", "cohen"],
    "annotators": ["annotator", "done", "in_hand", "skipped"],
    "states": ["state", "items", "audited"],
    "family_kappa": ["family", "audited", "kappa", "ci_low", "ci_high", "band", "percent_agreement", "items"],
    "matrix": ["annotator_a", "annotator_b", "kappa", "shared_items"],
    "quality": [
        "annotator",
        "n_done",
        "agreement_with_settled",
        "median_seconds",
        "skip_rate",
        "adjudication_share",
    ],
}


@pytest.mark.parametrize("table", sorted(CSV_HEADERS))
def test_every_table_downloads_as_csv(world, table):
    project, users = world
    response = client_for(users["rev"]).get(reverse("audit_table_csv", args=[project.slug, table]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    suffix = "-family" if table == "strata" else ""
    assert response["Content-Disposition"] == f'attachment; filename="dash-{table}{suffix}.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][: len(CSV_HEADERS[table])] == CSV_HEADERS[table]
    assert len(rows) >= 2 and all(len(row) == len(rows[0]) for row in rows)


def test_csv_values(world):
    project, users = world
    client = client_for(users["rev"])

    def table(name, **params):
        url = reverse("audit_table_csv", args=[project.slug, name])
        rows = list(csv.DictReader(io.StringIO(client.get(url, params).content.decode())))
        return rows

    strata = {row["stratum"]: row for row in table("strata")}
    assert (strata["complex_planning"]["units"], strata["complex_planning"]["cohen"]) == ("4", "0.5")
    assert strata["complex_planning"]["cohen_band"] == "moderate"
    assert strata["(all)"]["percent_agreement"] == "0.8333"
    assert table("matrix") == [
        {"annotator_a": "ann1", "annotator_b": "ann2", "kappa": "0.6667", "shared_items": "6"}
    ]
    by_bucket = table("strata", by="bucket")
    assert {row["stratum_field"] for row in by_bucket} == {"bucket"}
    assert [row["stratum"] for row in by_bucket] == ["(all)", "planning_single_easy"]


def test_unknown_table_is_404(world):
    project, users = world
    url = reverse("audit_table_csv", args=[project.slug, "passwords"])
    assert client_for(users["boss"]).get(url).status_code == 404


def test_stratum_selector_swaps_the_agreement_section(world):
    project, users = world
    client = client_for(users["rev"])
    url = reverse("audit_dashboard", args=[project.slug])
    partial = client.get(url, {"by": "bucket"}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section class="card" id="agreement"')
    assert "<html" not in partial and "Agreement by bucket" in partial
    assert rows_of(partial, "strata-table")[2][0] == "planning_single_easy"
    # Without JavaScript the same link is a page of its own.
    page = client.get(url, {"by": "difficulty"}).content.decode()
    assert "<html" in page and "Agreement by difficulty" in page
    assert re.search(r'<a href="\?by=difficulty"[^>]*class="current"', page)
    # Anything else falls back to family.
    assert "Agreement by family" in client.get(url, {"by": "password"}).content.decode()


def test_svg_is_well_formed_and_stratum_names_are_escaped():
    project = ProjectFactory(slug="esc")
    reviewer = MembershipFactory(project=project, role="reviewer").user
    a1, a2 = (MembershipFactory(project=project).user for _ in range(2))
    for family in ("<b>x</b>", "=1+1"):
        for p in ("first", "second"):
            labeled_item(project, family, [(a1, p), (a2, p)])
    client = client_for(reviewer)
    html = client.get(reverse("audit_dashboard", args=[project.slug])).content.decode()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    charts = {svg.get("id"): svg for svg in svgs(html)}
    texts = [t.text for t in charts["kappa-chart"].iter(f"{SVG_NS}text")]
    assert "<b>x</b>" in texts  # the XML parser un-escapes what the builder escaped
    assert not list(charts["kappa-chart"].iter(f"{SVG_NS}b"))
    # A name a spreadsheet would run as a formula is defused in the CSV.
    body = client.get(reverse("audit_table_csv", args=[project.slug, "strata"])).content.decode()
    assert "'=1+1" in body and "\n=1+1" not in body


def test_agreement_is_cached_until_a_new_label_arrives(world, monkeypatch):
    project, users = world
    calls = []
    real = engine.agreement_by_stratum

    def counting(**kwargs):
        calls.append(kwargs["stratum_field"])
        return real(**kwargs)

    monkeypatch.setattr(engine, "agreement_by_stratum", counting)
    client = client_for(users["rev"])
    url = reverse("audit_dashboard", args=[project.slug])
    client.get(url)
    client.get(url)
    assert calls == ["family"]
    item = PairItemFactory(project=project, family="complex_planning")
    AnnotationFactory(item=item, annotator=users["ann3"])
    client.get(url)
    assert calls == ["family", "family"]


def test_empty_project_renders(db):
    project = ProjectFactory(slug="empty")
    manager = MembershipFactory(project=project, role="manager").user
    response = client_for(manager).get(reverse("audit_dashboard", args=[project.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "No audit sample drawn yet" in html
    for svg in svgs(html):
        assert svg.get("id") in {"kappa-chart", "states-chart"}
