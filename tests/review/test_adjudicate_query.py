"""Adjudicating a query refinement item: the visual, the candidate queries and each annotator's
decision side by side (rewrites as word diffs); the reviewer picks a candidate, takes or refines
a rewrite, or rejects them all."""

from __future__ import annotations

import re

import pytest

from annotation.models import ItemState, Role
from review.models import Adjudication, AuditLog
from tests.factories import MembershipFactory
from tests.review.adjudicate_helpers import (
    XSS,
    api_decide,
    assert_refused_unchanged,
    in_adjudication,
    query_item,
    reviewer_client,
    token_of,
    url,
)

pytestmark = pytest.mark.django_db

REWRITE = "How many bottles are on both shelves together?"
CANDIDATES = [
    "How many bottles are on the shelves?",
    "Use ObjectCounter to count the bottles. " + XSS,
    "What is in the image?",
]


@pytest.fixture
def item():
    return in_adjudication(
        query_item(candidates=CANDIDATES),
        [
            {"decision": "edit", "chosen": 0, "query": REWRITE, "note": "more specific " + XSS},
            {"decision": "pick", "chosen": 2, "query": CANDIDATES[2]},
        ],
    )


@pytest.fixture
def reviewer(client, item):
    return reviewer_client(client, item.project)


@pytest.fixture
def page(client, item, reviewer):
    return client.get(url(item)).content.decode()


def row(html: str, candidate: str) -> str:
    return re.search(rf'<tr class="query-row[^"]*" data-candidate="{candidate}".*?</tr>', html, re.S).group(0)


def settle(client, item, html, **fields):
    data = {"decision": "label", "state_token": token_of(html), "reason": "the first needs tools to answer"}
    data.update(fields)
    return client.post(url(item), data)


def test_visual_candidates_and_decisions_side_by_side(page):
    assert "ax-0000.1.png" in page
    assert 'data-differs="true"' in row(page, "0") and 'data-differs="true"' in row(page, "2")
    assert 'data-differs="true"' not in row(page, "1") and 'data-differs="true"' not in row(page, "reject")
    assert "edited" in row(page, "0") and "picked" in row(page, "2")
    decisions = re.search(r'<ul class="plain query-decisions">.*?</ul>', page, re.S).group(0)
    assert "rewrote candidate 1" in decisions and "picked candidate 3 as written" in decisions
    assert re.search(r"<ins>[^<]*both[^<]*</ins>", decisions) and re.search(
        r"<del>[^<]*the[^<]*</del>", decisions
    )
    assert "The annotators split: nothing is pre-filled." in page


def test_taking_a_rewrite_prefills_it(client, item, reviewer):
    html = client.get(url(item, take=1)).content.decode()
    assert re.search(r'name="choice" value="0" form="adjudicate-form" required checked', html)
    assert f'placeholder="leave empty to take the candidate as written">{REWRITE}</textarea>' in html


def test_picking_a_candidate_as_written(client, page, item):
    assert settle(client, item, page, choice="2").status_code == 302
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    assert item.settled_label == {"decision": "pick", "chosen": 2, "query": CANDIDATES[2]}
    assert AuditLog.objects.filter(item=item, to_state="verified").exists()


def test_refining_a_rewrite_further(client, page, item):
    refined = "How many bottles stand on the two shelves together?"
    assert settle(client, item, page, choice="0", query=refined, note="tighter").status_code == 302
    item.refresh_from_db()
    assert item.settled_label == {"decision": "edit", "chosen": 0, "query": refined, "note": "tighter"}
    assert Adjudication.objects.get(item=item).label["query"] == refined


def test_rejecting_all_needs_a_reason(client, page, item):
    refused = settle(client, item, page, choice="reject")
    assert refused.status_code == 400
    assert "Say why every candidate is rejected" in refused.content.decode()
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION and not Adjudication.objects.exists()
    assert settle(client, item, page, choice="reject", reject_reason="tool_hinting").status_code == 302
    item.refresh_from_db()
    assert item.settled_label == {"decision": "reject", "reject_reason": "tool_hinting"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Choose a candidate query, or reject them all."),
        ({"choice": "7"}, "Choose a candidate query, or reject them all."),
        ({"choice": "0", "query": "x" * 4001}, "Keep the query under 4000 characters."),
    ],
)
def test_bad_choices_are_refused_and_change_nothing(client, page, item, fields, message):
    assert_refused_unchanged(settle(client, item, page, **fields), item, message)


def test_api_accepts_query_labels(item, reviewer):
    bad = api_decide(item, reviewer, {"decision": "pick", "chosen": 5, "query": "x"})
    assert bad.status_code == 400 and "chosen" in bad.json()["errors"]
    good = api_decide(item, reviewer, {"decision": "edit", "chosen": 0, "query": REWRITE})
    assert good.status_code == 201
    item.refresh_from_db()
    assert item.settled_label["query"] == REWRITE


def test_hostile_content_is_escaped(page):
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def test_annotators_get_404(client, item):
    client.force_login(MembershipFactory(project=item.project, role=Role.ANNOTATOR).user)
    assert client.get(url(item)).status_code == 404
    assert client.post(url(item), {"decision": "label", "choice": "0", "reason": "x"}).status_code == 404
