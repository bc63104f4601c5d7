"""Adjudicating a trace item (Agent-X): verdicts, per-step checks and corrections side by side,
each correction as a step-by-step diff against the original; the settled label points to the
correction the reviewer accepts."""

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
    correction,
    imported_item,
    reviewer_client,
    token_of,
    url,
)
from tests.review.factories import settled_by_rules

pytestmark = pytest.mark.django_db

PASS = dict.fromkeys(("tool_choice", "argument_format", "step_order", "output_alignment", "evidence"), "pass")


def recount(steps):
    steps[0]["output"] = "4"
    steps[1]["arguments"] = {"expression": "4*25.197"}
    steps[1]["thought"] = "Each costs $25.197. " + XSS


@pytest.fixture
def item():
    item = imported_item("trace", "traces.jsonl", "ax-0000")
    alice = MembershipFactory(project=item.project, role=Role.ANNOTATOR, user__username="alice").user
    fixed = correction(item, alice, recount, final={"value": "$100.788", "justification": "4 bottles."})
    bob = MembershipFactory(project=item.project, role=Role.ANNOTATOR, user__username="bob").user
    labels = [
        {
            "verdict": "corrected",
            "corrected_trajectory": fixed.pk,
            "edit_reasons": ["both shelves count " + XSS],
            "final_answer": {"value": "$100.788", "justification": "4 bottles."},
            "checks": [{**PASS, "output_alignment": "fail", "note": "missed a shelf"}, PASS],
        },
        {"verdict": "correct", "checks": [PASS, PASS]},
    ]
    settled = settled_by_rules(item, labels, users=[alice, bob])
    assert settled.state == ItemState.ADJUDICATION
    settled.fixed = fixed
    return settled


@pytest.fixture
def reviewer(client, item):
    return reviewer_client(client, item.project)


@pytest.fixture
def page(client, item, reviewer):
    return client.get(url(item)).content.decode()


def cell(html: str, step: int, check: str) -> str:
    row = re.search(rf'<tr data-step="{step}">.*?</tr>', html, re.S).group(0)
    return re.search(rf'<td class="check-cell[^"]*" data-check="{check}".*?</td>', row, re.S).group(0)


def annotation_pk(item, username):
    return item.annotations.get(annotator__username=username).pk


def settle(client, item, html, **fields):
    data = {"decision": "label", "state_token": token_of(html), "reason": "the second shelf has two more"}
    data.update(fields)
    return client.post(url(item), data)


def test_verdicts_checks_and_correction_side_by_side(page, item):
    verdict = re.search(r'<tr[^>]*data-row="verdict".*?</tr>', page, re.S).group(0)
    assert 'data-differs="true"' in verdict and "corrected" in verdict and "correct" in verdict
    assert 'data-differs="true"' in cell(page, 1, "output_alignment")
    assert 'data-differs="true"' not in cell(page, 1, "tool_choice")
    assert 'data-differs="true"' not in cell(page, 2, "output_alignment")
    assert "missed a shelf" in page
    # The correction, step by step against the original, changed words marked.
    fix = re.search(
        r'<section class="card trace-correction" data-annotator="1".*?</section>', page, re.S
    ).group(0)
    assert "<del>2</del>" in fix and "<ins>4</ins>" in fix
    assert "<del>&quot;2*25.197&quot;</del>" in fix and "<ins>&quot;4*25.197&quot;</ins>" in fix
    assert "$100.788" in fix
    assert 'data-annotator="2"' not in re.findall(r'<section class="card trace-correction"[^>]*>', page)[0]
    # The original trace and the query are there too.
    assert "How many bottles are on the two shelves" in page and "ObjectCounter" in page


def test_prefill_takes_the_agreed_checks_and_no_outcome(page, item):
    assert 'name="check_0_tool_choice" form="adjudicate-form"' in page
    assert re.search(r'name="check_0_tool_choice"[^>]*>.*?value="pass" selected', page, re.S)
    assert not re.search(r'name="outcome" value="[^"]*" [^>]*checked', page)


def test_accepting_a_correction_settles_on_that_trajectory(client, page, item):
    checks = {f"check_0_{c}": "pass" for c in PASS} | {"check_0_output_alignment": "fail"}
    checks |= {f"check_1_{c}": "pass" for c in PASS}
    response = settle(client, item, page, outcome=f"correction:{annotation_pk(item, 'alice')}", **checks)
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    label = item.settled_label
    assert (label["verdict"], label["corrected_trajectory"]) == ("corrected", item.fixed.pk)
    assert label["edit_reasons"] == ["both shelves count " + XSS]
    assert label["final_answer"]["value"] == "$100.788"
    assert label["checks"] == [{**PASS, "output_alignment": "fail"}, PASS]
    assert Adjudication.objects.get(item=item).decision == "label"
    assert AuditLog.objects.filter(item=item, to_state="verified").exists()


def test_taking_an_annotator_prefills_their_correction(client, item, reviewer):
    html = client.get(url(item, take=1)).content.decode()
    value = f"correction:{annotation_pk(item, 'alice')}"
    assert re.search(rf'name="outcome" value="{value}" checked', html)
    assert re.search(r'name="check_0_note" value="missed a shelf"', html)


def test_correct_as_is_and_discard_verdicts(client, page, item):
    refused = settle(client, item, page, outcome="discard")
    assert refused.status_code == 400
    assert "Say why the trace is discarded" in refused.content.decode()
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION and not Adjudication.objects.exists()
    response = settle(
        client, item, page, outcome="discard", discard_reason="unsolvable", discard_note="prices vary"
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.settled_label == {
        "verdict": "discard",
        "discard_reason": "unsolvable",
        "discard_note": "prices vary",
    }


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Choose an outcome: correct as is, one annotator&#x27;s correction, or discard."),
        ({"outcome": "correction:999999"}, "That annotator did not correct the trace"),
        ({"outcome": "correct", "check_0_note": "n" * 1001}, "Step 1: keep the note under 1000 characters."),
    ],
)
def test_bad_outcomes_are_refused_and_change_nothing(client, page, item, fields, message):
    assert_refused_unchanged(settle(client, item, page, **fields), item, message)


def test_api_refuses_a_trajectory_of_another_item(item, reviewer):
    other = imported_item("trace", "traces.jsonl", "ax-0000")
    stranger = correction(other, reviewer, recount)
    bad = api_decide(
        item, reviewer, {"verdict": "corrected", "corrected_trajectory": stranger.pk, "edit_reasons": ["x"]}
    )
    assert bad.status_code == 400 and "corrected_trajectory" in bad.json()["errors"]
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    good = api_decide(
        item, reviewer, {"verdict": "corrected", "corrected_trajectory": item.fixed.pk, "edit_reasons": ["x"]}
    )
    assert good.status_code == 201
    item.refresh_from_db()
    assert item.settled_label["corrected_trajectory"] == item.fixed.pk


def test_hostile_content_is_escaped(page):
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def test_annotators_get_404(client, item):
    client.force_login(MembershipFactory(project=item.project, role=Role.ANNOTATOR).user)
    assert client.get(url(item)).status_code == 404
    assert (
        client.post(url(item), {"decision": "label", "outcome": "correct", "reason": "x"}).status_code == 404
    )
