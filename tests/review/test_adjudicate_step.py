"""Adjudicating a step item (Web-Shepherd): both annotators' rankings and checklist marks side
by side, differences marked, and a settled label composed from them."""

from __future__ import annotations

import re

import pytest

from annotation.models import ItemState, Role
from review.models import Adjudication, AuditLog
from tests.factories import MembershipFactory
from tests.review.adjudicate_helpers import (
    XSS,
    assert_refused_unchanged,
    imported_item,
    in_adjudication,
    reviewer_client,
    token_of,
    url,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def item():
    item = imported_item("step", "steps.jsonl", "wpc-00000-s0")
    return in_adjudication(
        item,
        [
            {"chosen": "c0", "equivalent": [], "invalid": ["c1"], "checklist": ["yes", "no", "no"]},
            {"chosen": "c1", "equivalent": [], "invalid": [], "checklist": ["yes", "in_progress", "no"]},
        ],
        rationales=["search is fastest " + XSS, "backpacks link"],
    )


@pytest.fixture
def page(client, item):
    reviewer_client(client, item.project)
    return client.get(url(item)).content.decode()


def settle(client, item, html, **fields):
    data = {"decision": "label", "state_token": token_of(html), "reason": "search finds tents"}
    data |= {"chosen": "c0", "check_0": "yes", "check_1": "in_progress", "check_2": "no"}
    data.update(fields)
    return client.post(url(item), data)


def row(html: str, attribute: str) -> str:
    return re.search(rf"<tr[^>]*{attribute}[^>]*>.*?</tr>", html, re.S).group(0)


def test_both_labels_side_by_side_with_differences_marked(page, item):
    assert 'id="adjudicate-form"' in page and 'id="settle"' in page and 'id="discard"' in page
    assert 'data-annotator="1"' in page and 'data-annotator="2"' in page
    assert "alice" in page and "bob" in page
    # c0: best for 1, nothing for 2; c1: invalid for 1, best for 2 → both rows differ.
    c0, c1 = row(page, 'data-candidate="c0"'), row(page, 'data-candidate="c1"')
    assert 'data-differs="true"' in c0 and 'data-differs="true"' in c1
    assert "reference" in c0 and "reference" not in c1  # reviewers are staff: reference shown
    assert "mark-best" in c0 and "mark-invalid" in c1
    # Checklist: item 0 agrees (yes/yes), item 1 differs (no/in progress).
    assert 'data-differs="true"' not in row(page, 'data-check="0"')
    assert 'data-differs="true"' in row(page, 'data-check="1"')
    assert "Find tents" in page and "Add the cheapest two-person tent to the cart." in page
    # No majority on the best candidate: only what both gave alike is pre-filled.
    assert "Pre-filled from <strong>the parts all annotators agree on</strong>" in page
    assert re.search(r'name="check_0" value="yes" form="adjudicate-form" required checked', page)
    assert not re.search(r'name="check_1" [^>]*checked', page)
    assert not re.search(r'name="chosen" [^>]*checked', page)


def test_take_prefills_from_one_annotator(client, page, item):
    html = client.get(url(item, take=2)).content.decode()
    assert "Pre-filled from <strong>bob-" in html
    assert re.search(r'name="chosen" value="c1" form="adjudicate-form" required[^>]*checked', html)
    assert re.search(r'name="check_1" value="in_progress" form="adjudicate-form" required checked', html)
    assert 'a class="button small take" data-take="1" href="?take=1#adjudicate-form"' in html


def test_composed_label_settles_the_item_verified(client, page, item):
    response = settle(client, item, page, equivalent=["c1"])
    assert response.status_code == 302
    item.refresh_from_db()
    expected = {
        "chosen": "c0",
        "equivalent": ["c1"],
        "invalid": [],
        "checklist": ["yes", "in_progress", "no"],
    }
    assert (item.state, item.settled_label) == (ItemState.VERIFIED, expected)
    decision = Adjudication.objects.get(item=item)
    assert (decision.label, decision.reason) == (expected, "search finds tents")
    log = AuditLog.objects.filter(item=item, action="state").last()
    assert (log.from_state, log.to_state) == ("adjudication", "verified")
    # Settled: the side-by-side view stays, the composing column gives way to re-opening.
    html = client.get(url(item)).content.decode()
    assert "This item is verified" in html and "Re-open for adjudication" in html
    assert 'id="adjudicate-form"' not in html and 'form="adjudicate-form"' not in html
    assert 'class="card side-by-side step-board"' in html


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"chosen": ""}, "Pick the best candidate."),
        ({"invalid": ["c0"]}, "The best candidate cannot also be invalid."),
        ({"check_2": "maybe"}, "Mark every checklist item Yes, In progress or No."),
        ({"equivalent": ["c9"]}, "Not candidates of this step: c9."),
        ({"reason": " "}, "Say why: the reason is kept with the decision."),
    ],
)
def test_invalid_label_is_refused_and_changes_nothing(client, page, item, fields, message):
    html = assert_refused_unchanged(settle(client, item, page, **fields), item, message)
    assert "Nothing was changed" in html and 'id="adjudicate-form"' in html
    assert not Adjudication.objects.exists()


def test_discard_still_works(client, page, item):
    response = client.post(
        url(item), {"decision": "discard", "state_token": token_of(page), "reason": "404 page"}
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.state == ItemState.DISCARDED


def test_hostile_content_is_escaped(page):
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def test_names_hidden_by_the_project(client, page, item):
    item.project.label_schema = {**item.project.label_schema, "show_annotator_names": False}
    item.project.save()
    html = client.get(url(item)).content.decode()
    assert "alice" not in html and "bob" not in html
    assert "1 · Annotator 1" in html and "2 · Annotator 2" in html


def test_annotators_get_404(client, item):
    client.force_login(MembershipFactory(project=item.project, role=Role.ANNOTATOR).user)
    assert client.get(url(item)).status_code == 404
    assert client.post(url(item), {"decision": "label", "chosen": "c0", "reason": "x"}).status_code == 404
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION


def test_marks_on_an_edited_checklist_settle_on_that_version(client):
    from annotation.models import ChecklistVersion
    from tests.review.factories import annotator, settled_by_rules

    item = imported_item("step", "steps.jsonl", "wpc-00000-s0")
    alice, bob = annotator(item.project, "alice"), annotator(item.project, "bob")
    items = [{"title": "Search for tents", "goal": ""}, {"title": "Cart holds the cheapest", "goal": ""}]
    ChecklistVersion.objects.create(
        item=item, version=2, parent_version=1, items=items, reason="merge", author=alice
    )
    labels = [
        {"chosen": "c0", "checklist": ["yes", "no"], "checklist_version": 2},
        {"chosen": "c1", "checklist": ["yes", "no", "no"]},
    ]
    settled_by_rules(item, labels, users=[alice, bob])
    reviewer_client(client, item.project)
    html = client.get(url(item)).content.decode()
    assert "Checklist version 2" in html and "Cart holds the cheapest" in html
    assert 'name="checklist_version" value="2"' in html
    assert "other version" in row(html, 'data-check="0"')
    response = settle(client, item, html, checklist_version="2", check_0="yes", check_1="in_progress")
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.settled_label["checklist_version"] == 2
    assert item.settled_label["checklist"] == ["yes", "in_progress"]


def test_page_queries_do_not_grow_with_the_annotators(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    labels = [
        {"chosen": "c0", "checklist": ["yes", "no", "no"]},
        {"chosen": "c1", "checklist": ["no", "no", "no"]},
    ]
    few = in_adjudication(imported_item("step", "steps.jsonl", "wpc-00000-s0"), labels)
    many = in_adjudication(
        imported_item("step", "steps.jsonl", "wpc-00000-s0"), labels * 2, names=("a", "b", "c", "d")
    )
    counts = []
    for item in (few, many):
        reviewer_client(client, item.project, username=f"rev-{item.pk}")
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(item)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
