"""Adjudication over the API: queue, one item, the decision (201 / 400 / 409), the history."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ItemState, Role
from review.models import Adjudication
from tests.api.factories import token_for
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.factories import SuggestionFactory, annotator, disputed_pair, pair_label

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory(slug="flights", overlap=2)


@pytest.fixture
def reviewer(project):
    return MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita").user


@pytest.fixture
def api(reviewer):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(reviewer)}")
    return client


@pytest.fixture
def item(project):
    users = [annotator(project, "alice"), annotator(project, "bob")]
    return disputed_pair(
        project, [pair_label("first"), pair_label("second")], users=users, external_id="pair-1", priority=3
    )


def u(name, project, *args):
    return reverse(f"api:{name}", args=[project.slug, *args])


def test_queue_is_ordered_and_paginated(api, project, item):
    three = disputed_pair(project, [pair_label("first"), pair_label("second"), pair_label("tie")])
    body = api.get(u("adjudication-list", project), {"limit": 1}).json()
    assert body["count"] == 2
    assert [row["id"] for row in body["results"]] == [three.pk]
    assert body["next"]
    row = api.get(u("adjudication-list", project), {"limit": 1, "offset": 1}).json()["results"][0]
    assert row == {
        "id": item.pk,
        "external_id": "pair-1",
        "kind": "pair",
        "stratum": item.stratum,
        "family": item.family,
        "difficulty": "",
        "priority": 3,
        "n_labels": 2,
        "agreement": 0.5,
        "reasons": "annotators disagree",
        "queued_at": row["queued_at"],
    }


def test_item_view_shows_everything_to_reviewers(api, project, item):
    SuggestionFactory(item=item)
    body = api.get(u("adjudication-decide", project, item.pk)).json()
    assert body["item"]["gold"] == {"preferred": "first"}
    assert body["item"]["trajectory_first"]["messages"]
    assert body["can_decide"] is True and body["can_reopen"] is False
    assert body["reasons"] == ["annotators disagree"]
    assert body["agreement"] == 0.5 and body["majority_label"] is None
    assert [a["annotator"] for a in body["annotations"]] == ["alice", "bob"]
    assert body["annotations"][0]["label"]["preferred"] == "first"
    assert body["suggestions"][0]["source"] == "judge:gpt-test"
    assert body["state_token"].startswith("adjudication.")


def test_item_view_hides_names_when_the_project_does(api, project, item):
    project.label_schema = {"show_annotator_names": False}
    project.save()
    body = api.get(u("adjudication-decide", project, item.pk)).json()
    assert [a["annotator"] for a in body["annotations"]] == ["Annotator 1", "Annotator 2"]
    assert body["names_hidden"] is True


def test_decide_201_then_409_for_the_stale_second_decision(api, project, item):
    token = api.get(u("adjudication-decide", project, item.pk)).json()["state_token"]
    following = disputed_pair(project)
    response = api.post(
        u("adjudication-decide", project, item.pk),
        {
            "decision": "label",
            "label": {"preferred": "second", "tags": {"first": ["numeric_error"]}},
            "reason": "first overspends",
            "state_token": token,
            "seconds_spent": 40,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["state"] == "verified" and body["next_item"] == following.pk
    assert body["adjudication"]["reviewer"] == "rita"
    assert body["adjudication"]["label"] == {
        "preferred": "second",
        "tags": {"first": ["numeric_error"], "second": []},
    }

    manager = MembershipFactory(project=project, role=Role.MANAGER, user__username="max").user
    other = APIClient()
    other.force_authenticate(manager)
    late = other.post(
        u("adjudication-decide", project, item.pk),
        {"decision": "discard", "reason": "dup", "state_token": token},
        format="json",
    )
    assert late.status_code == 409
    conflict = late.json()
    assert conflict["detail"].startswith("This item was already settled by rita at ")
    assert conflict["state"] == "verified" and conflict["changed_by"] == "rita"
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    assert Adjudication.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"decision": "label", "label": {"preferred": "B"}, "reason": "x"}, "preferred"),
        ({"decision": "label", "reason": "x"}, "label"),
        ({"decision": "discard", "reason": " "}, "reason"),
        (
            {"decision": "label", "label": {"preferred": "first"}, "reason": "x", "state_token": ""},
            "state_token",
        ),
    ],
    ids=["bad-label", "no-label", "no-reason", "no-token"],
)
def test_decide_400_names_the_field(api, project, item, body, field):
    token = api.get(u("adjudication-decide", project, item.pk)).json()["state_token"]
    response = api.post(
        u("adjudication-decide", project, item.pk), {"state_token": token, **body}, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Adjudication.objects.exists()


def test_reopen_over_the_api(api, project, item):
    token = api.get(u("adjudication-decide", project, item.pk)).json()["state_token"]
    api.post(
        u("adjudication-decide", project, item.pk),
        {"decision": "discard", "reason": "dup", "state_token": token},
        format="json",
    )
    view = api.get(u("adjudication-decide", project, item.pk)).json()
    assert view["can_reopen"] is True and view["can_decide"] is False
    response = api.post(
        u("adjudication-decide", project, item.pk),
        {"decision": "reopen", "reason": "not a duplicate", "state_token": view["state_token"]},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["state"] == "adjudication" and response.json()["adjudication"] is None


def test_history_in_time_order(api, project, item):
    body = api.get(u("item-history", project, item.pk)).json()
    assert body["external_id"] == "pair-1"
    types = [(e["event_type"], e["action"], e["to_state"]) for e in body["events"]]
    assert types[:2] == [("annotation", "", ""), ("annotation", "", "")]
    assert types[-1] == ("log", "state", "adjudication")
    assert [e["at"] for e in body["events"]] == sorted(e["at"] for e in body["events"])
    assert body["events"][0]["actor"] == "alice"


def test_annotators_get_404_everywhere(project, item):
    client = APIClient()
    client.force_authenticate(MembershipFactory(project=project, role=Role.ANNOTATOR).user)
    for name, args in (
        ("adjudication-list", []),
        ("adjudication-decide", [item.pk]),
        ("item-history", [item.pk]),
    ):
        assert client.get(u(name, project, *args)).status_code == 404
    post = client.post(
        u("adjudication-decide", project, item.pk), {"decision": "discard", "reason": "x"}, format="json"
    )
    assert post.status_code == 404
