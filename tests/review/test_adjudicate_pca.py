"""Adjudicating a P/C/A item (PCA-Bench): each annotator's scores and evidence notes side by
side, differences marked, and the settled scores composed from them."""

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
    imported_item,
    in_adjudication,
    reviewer_client,
    token_of,
    url,
)

pytestmark = pytest.mark.django_db

ALICE = {
    "perception": 1,
    "cognition": 1,
    "action": 1,
    "evidence": {
        "perception": "names the clear road",
        "cognition": "no obstacle " + XSS,
        "action": "keeps driving",
    },
}
BOB = {
    "perception": 1,
    "cognition": 0,
    "action": 1,
    "evidence": {"cognition": "reason copied from the prompt"},
}


@pytest.fixture
def item():
    return in_adjudication(imported_item("pca", "pca.jsonl", "pca-traffic-0000"), [ALICE, BOB])


@pytest.fixture
def reviewer(client, item):
    return reviewer_client(client, item.project)


@pytest.fixture
def page(client, item, reviewer):
    return client.get(url(item)).content.decode()


def row(html: str, dim: str) -> str:
    return re.search(rf'<tr[^>]*data-dim="{dim}"[^>]*>.*?</tr>', html, re.S).group(0)


def settle(client, item, html, **fields):
    data = {"decision": "label", "state_token": token_of(html), "reason": "the reason is the prompt's"}
    data |= {"perception": "1", "cognition": "0", "action": "1", "evidence_cognition": "restates the prompt"}
    data.update(fields)
    return client.post(url(item), data)


def test_instance_rubric_and_both_labels_side_by_side(page):
    for text in (
        "Based on the current image",
        "Keep driving",
        "No car or obstacle ahead",
        "clear road",
        "vlm-c-api",
    ):
        assert text in page
    assert "correct action" in page and '<mark class="concept">' in page
    cognition, perception = row(page, "cognition"), row(page, "perception")
    assert 'data-differs="true"' in cognition and 'data-differs="true"' not in perception
    assert "reason copied from the prompt" in cognition and "names the clear road" in perception
    assert 'data-annotator="1"' in cognition and 'data-annotator="2"' in cognition


def test_prefill_holds_only_the_agreed_scores_until_one_label_is_taken(client, page, item):
    assert re.search(r'name="perception" value="1" form="adjudicate-form" required checked', page)
    assert not re.search(r'name="cognition" value="\d" [^>]*checked', page)
    taken = client.get(url(item, take=1)).content.decode()
    assert re.search(r'name="cognition" value="1" form="adjudicate-form" required checked', taken)
    assert 'name="evidence_perception" value="names the clear road"' in taken


def test_a_majority_prefills_its_scores_without_personal_notes(client):
    item = imported_item("pca", "pca.jsonl", "pca-traffic-0001")
    in_adjudication(item, [ALICE, BOB, dict(BOB)], names=("ann", "ben", "cat"))
    reviewer_client(client, item.project)
    html = client.get(url(item)).content.decode()
    assert "Pre-filled from <strong>majority</strong>" in html
    assert re.search(r'name="cognition" value="0" form="adjudicate-form" checked', html)
    assert 'name="evidence_cognition" value=""' in html


def test_composed_scores_settle_the_item_verified(client, page, item):
    response = settle(client, item, page)
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    assert item.settled_label == {"perception": 1, "cognition": 0, "action": 1}
    decision = Adjudication.objects.get(item=item)
    # The reviewer's evidence notes stay with the decision.
    assert decision.label["evidence"] == {"cognition": "restates the prompt"}
    assert AuditLog.objects.filter(item=item, action="state", to_state="verified").exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cognition": ""}, "Set cognition (C) to 1 or 0."),
        ({"action": "2"}, "Set action (A) to 1 or 0."),
        ({"evidence_action": "x" * 501}, "Keep the note to one line of at most 500 characters."),
    ],
)
def test_invalid_scores_are_refused_and_change_nothing(client, page, item, fields, message):
    assert_refused_unchanged(settle(client, item, page, **fields), item, message)
    assert not Adjudication.objects.exists()


def test_api_accepts_a_pca_label_and_refuses_a_bad_one(item, reviewer):
    bad = api_decide(item, reviewer, {"perception": 1, "cognition": 2, "action": 1})
    assert bad.status_code == 400 and "cognition" in bad.json()["errors"]
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    good = api_decide(
        item, reviewer, {"perception": 0, "cognition": 0, "action": 1, "evidence": {"perception": "x"}}
    )
    assert good.status_code == 201
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (
        ItemState.VERIFIED,
        {"perception": 0, "cognition": 0, "action": 1},
    )


def test_hostile_notes_are_escaped(page):
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def test_annotators_get_404(client, item):
    client.force_login(MembershipFactory(project=item.project, role=Role.ANNOTATOR).user)
    assert client.get(url(item)).status_code == 404
    assert client.post(url(item), {"decision": "label", "perception": "1", "reason": "x"}).status_code == 404
