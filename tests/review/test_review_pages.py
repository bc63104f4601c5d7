"""The adjudication queue, the adjudication page and the item history, as a reviewer uses them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import ItemState, Role
from review.models import Adjudication
from review.services import item_state_token
from tests.factories import MembershipFactory, ProjectFactory, pair_with_messages
from tests.review.factories import (
    SuggestionFactory,
    annotator,
    disputed_pair,
    other_item,
    pair_label,
    settled_by_rules,
)

pytestmark = pytest.mark.django_db

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def project():
    return ProjectFactory(slug="flights", name="Flights", overlap=2)


@pytest.fixture
def reviewer(project):
    return MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita").user


@pytest.fixture
def client(client, reviewer):
    client.force_login(reviewer)
    return client


@pytest.fixture
def item(project):
    users = [annotator(project, "alice"), annotator(project, "bob")]
    item = pair_with_messages(
        project,
        [{"role": "assistant", "content": "First books UA199. " + XSS}],
        [{"role": "assistant", "content": "Second books DL450."}],
        external_id="pair-disputed",
    )
    return settled_by_rules(
        item,
        [pair_label("first", second=["numeric_error"], confidence=5), pair_label("second", confidence=2)],
        users=users,
        rationales=["A is cheaper. " + XSS, "B explains itself"],
    )


def url(name, project, *args):
    return reverse(name, args=[project.slug, *args])


def page_token(html: str) -> str:
    return re.search(r'name="state_token" value="([^"]+)"', html).group(1)


# --- the queue -------------------------------------------------------------------------------


def test_queue_lists_items_least_agreement_first(client, project, item):
    three_way = disputed_pair(
        project, [pair_label("first"), pair_label("second"), pair_label("tie")], external_id="pair-3way"
    )
    response = client.get(url("adjudication_queue", project))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("pair-3way") < html.index("pair-disputed")
    assert url("adjudicate_item", project, three_way.pk) in html
    assert url("item_history", project, item.pk) in html
    assert "annotators disagree; critical tags conflict" in html
    assert "33%" in html and "50%" in html


def test_empty_queue_says_so(client, project):
    assert "Nothing waits for a reviewer." in client.get(url("adjudication_queue", project)).content.decode()


def test_queue_pages_under_htmx_return_only_the_table(client, project, item):
    response = client.get(url("adjudication_queue", project), headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="queue-table">')
    assert "<html" not in html


# --- the adjudication page -------------------------------------------------------------------


def test_page_shows_the_pair_all_annotations_and_suggestions(client, project, item):
    SuggestionFactory(item=item, source="judge:panel-3", rationale="second wins " + XSS)
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    # The candidates in stored order, named first/second, with the gold side marked.
    assert 'aria-label="Candidate first"' in html and 'aria-label="Candidate second"' in html
    assert html.index("First books UA199.") < html.index("Second books DL450.")
    assert "gold: preferred" in html
    # Every annotation: who, choice, what they saw, tags, confidence, rationale, time.
    for expected in ("alice", "bob", "confidence 5/5", "confidence 2/5", "numeric_error", "42 s on the item"):
        assert expected in html
    assert html.count("saw A = ") == 2
    assert "B explains itself" in html
    assert "judge:panel-3" in html
    assert "annotators disagree" in html and "critical tags conflict" in html


def test_page_escapes_everything_from_trajectories_labels_and_suggestions(client, project, item):
    SuggestionFactory(item=item, rationale=XSS)
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_keyboard_shortcuts_are_documented_and_wired(client, project, item):
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    keys = html[html.index('class="card shortcuts"') :]
    for key in ("<kbd>1</kbd> first", "<kbd>2</kbd> second", "<kbd>3</kbd> tie", "<kbd>t</kbd> tags"):
        assert key in keys
    assert "<kbd>Enter</kbd> save the decision" in keys and "<kbd>d</kbd> discard" in keys
    assert "js/adjudication.js" in html and "css/review.css" in html


def test_names_can_be_hidden_by_the_project(client, project, item):
    project.label_schema = {**project.label_schema, "show_annotator_names": False}
    project.save()
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    assert "alice" not in html and "bob" not in html
    assert "Annotator 1" in html and "Annotator 2" in html
    assert "names hidden by the project setting" in html


def test_final_label_settles_the_item_and_opens_the_next(client, project, item):
    following = disputed_pair(project, external_id="pair-next")
    token = page_token(client.get(url("adjudicate_item", project, item.pk)).content.decode())
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {
            "decision": "label",
            "state_token": token,
            "preferred": "second",
            "tags_first": ["numeric_error"],
            "reason": "first overspends",
            "page_loaded_at": "1000",
            "submitted_at": "31000",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == url("adjudicate_item", project, following.pk)
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    assert item.settled_label == {"preferred": "second", "tags": {"first": ["numeric_error"], "second": []}}
    assert Adjudication.objects.get().seconds_spent == 30
    landing = client.get(response["Location"]).content.decode()
    assert "pair-disputed verified with the final label." in landing


def test_last_decision_returns_to_the_empty_queue(client, project, item):
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "discard", "state_token": item_state_token(item), "reason": "tool output truncated"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == url("adjudication_queue", project)
    assert "The adjudication queue is empty." in response.content.decode()
    item.refresh_from_db()
    assert (item.state, item.discard_reason) == (ItemState.DISCARDED, "tool output truncated")


def test_incomplete_form_is_refused_with_reasons_and_changes_nothing(client, project, item):
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "label", "state_token": item_state_token(item), "tags_second": ["made_up"]},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose the better candidate" in html
    assert "Unknown critical tag for second: made_up" in html
    assert "Say why" in html
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    assert not Adjudication.objects.exists()


def test_second_reviewer_sees_who_settled_it(client, project, item):
    token = item_state_token(item)
    max_ = MembershipFactory(project=project, role=Role.MANAGER, user__username="max").user
    other = type(client)()
    other.force_login(max_)
    first = other.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "label", "state_token": token, "preferred": "first", "reason": "cheaper"},
    )
    assert first.status_code == 302
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "label", "state_token": token, "preferred": "second", "reason": "I disagree"},
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert re.search(r"This item was already settled by max at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", html)
    assert "Nothing was changed." in html
    assert 'id="final-form"' not in html  # the settled item offers re-opening, not a second decision
    item.refresh_from_db()
    assert item.settled_label["preferred"] == "first"


def test_settled_item_can_be_reopened_with_a_reason(client, project, item):
    client.post(
        url("adjudicate_item", project, item.pk),
        {
            "decision": "label",
            "state_token": item_state_token(item),
            "preferred": "first",
            "reason": "cheaper",
        },
    )
    item.refresh_from_db()
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    assert "This item is verified" in html and "Re-open for adjudication" in html
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "reopen", "state_token": page_token(html), "reason": "audit: fare was wrong"},
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (ItemState.ADJUDICATION, {})


def test_other_kinds_accept_the_majority_label(client, project):
    item = other_item(project, "recording", external_id="rec-7")
    a = {"actions": [], "judge_passed": True}
    settled_by_rules(item, [a, {**a, "judge_passed": False}, dict(a)])
    item.refresh_from_db()
    html = client.get(url("adjudicate_item", project, item.pk)).content.decode()
    assert "cannot be composed here yet: accept the label most annotators gave" in html
    assert "<strong>majority</strong> · 2 of 3" in html
    assert "What should the driver do?" in html  # the item's content, read-only
    accept = re.search(r'name="accept" value="(\d+)" required checked', html).group(1)
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {
            "decision": "label",
            "accept": accept,
            "state_token": page_token(html),
            "reason": "majority is right",
        },
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (ItemState.VERIFIED, a)


def test_other_kinds_need_a_label_to_accept(client, project):
    item = other_item(project, "recording")
    settled_by_rules(item, [{"actions": [], "judge_passed": True}, {"actions": [], "judge_passed": False}])
    item.refresh_from_db()
    response = client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "label", "state_token": item_state_token(item), "reason": "?"},
    )
    assert response.status_code == 400
    assert "Choose one of the annotators&#x27; labels to accept." in response.content.decode()


# --- history ---------------------------------------------------------------------------------


def test_history_page_lists_events_in_time_order_escaped(client, project, item):
    client.post(
        url("adjudicate_item", project, item.pk),
        {"decision": "discard", "state_token": item_state_token(item), "reason": "broken " + XSS},
    )
    html = client.get(url("item_history", project, item.pk)).content.decode()
    order = [
        html.index("Annotation #"),
        html.index("State: Annotating → In adjudication"),
        html.index("Adjudication: discard"),
        html.index("State: In adjudication → Discarded"),
    ]
    assert order == sorted(order)
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "alice" in html and "rita" in html


def test_history_hides_annotator_names_from_reviewers_not_managers(client, project, item):
    project.label_schema = {"show_annotator_names": False}
    project.save()
    html = client.get(url("item_history", project, item.pk)).content.decode()
    assert "alice" not in html and "Annotator 1" in html
    manager = MembershipFactory(project=project, role=Role.MANAGER).user
    client.force_login(manager)
    assert "alice" in client.get(url("item_history", project, item.pk)).content.decode()


# --- who may come in -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["adjudication_queue", "adjudicate_item", "item_history"])
def test_annotators_get_404(client, project, item, name):
    client.force_login(MembershipFactory(project=project, role=Role.ANNOTATOR).user)
    args = [] if name == "adjudication_queue" else [item.pk]
    assert client.get(url(name, project, *args)).status_code == 404
    if name == "adjudicate_item":
        post = client.post(url(name, project, *args), {"decision": "discard", "reason": "x"})
        assert post.status_code == 404
        item.refresh_from_db()
        assert item.state == ItemState.ADJUDICATION


def test_item_of_another_project_is_404(client, project):
    elsewhere = disputed_pair(ProjectFactory())
    assert client.get(url("adjudicate_item", project, elsewhere.pk)).status_code == 404
    assert client.get(url("item_history", project, elsewhere.pk)).status_code == 404


@pytest.mark.parametrize("hidden", [False, True])
def test_page_queries_do_not_grow_with_the_annotations(
    client, project, hidden, django_assert_max_num_queries
):
    project.label_schema = {"show_annotator_names": not hidden}
    project.save()
    few = disputed_pair(project, [pair_label("first"), pair_label("second")])
    many = disputed_pair(
        project, [pair_label(p) for p in ("first", "second", "tie", "first", "second", "tie")]
    )
    for s in range(4):
        SuggestionFactory(item=many, source=f"judge-{s}")
    counts = []
    for item in (few, many):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url("adjudicate_item", project, item.pk)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    with django_assert_max_num_queries(20):
        client.get(url("adjudicate_item", project, many.pk))
