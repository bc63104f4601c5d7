"""Submitting and editing labels through the API: A/B mapping, idempotency, 400s and 409s."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from annotation.models import Annotation, ItemState
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.factories import PairItemFactory, ProjectFactory


def submit(client, project, **body):
    body.setdefault("client_id", str(uuid.uuid4()))
    return client.post(reverse("api:annotation-list", args=[project.slug]), body, format="json")


def edit(client, annotation, **body):
    url = reverse("api:annotation-detail", args=[annotation.item.project.slug, annotation.pk])
    return client.patch(url, body, format="json")


@pytest.fixture
def held(project, annotator):
    """An item the annotator holds, shown to them with B = the `first` trajectory."""
    item = PairItemFactory(project=project)
    AssignmentFactory(item=item, annotator=annotator, display_order=["second", "first"])
    return item


@pytest.mark.parametrize(
    ("order", "seen", "canonical"),
    [
        (["first", "second"], "A", "first"),
        (["first", "second"], "B", "second"),
        (["second", "first"], "A", "second"),
        (["second", "first"], "B", "first"),
        (["second", "first"], "tie", "tie"),
    ],
)
def test_label_seen_is_stored_canonically(client_for, project, annotator, order, seen, canonical):
    item = PairItemFactory(project=project)
    AssignmentFactory(item=item, annotator=annotator, display_order=order)
    tags = {"A": ["fabricated_result"], "B": []}

    response = submit(
        client_for(annotator),
        project,
        item=item.pk,
        label_seen={"preferred": seen, "tags": tags, "confidence": 4},
    )

    assert response.status_code == 201, response.json()
    stored = Annotation.objects.get(item=item, annotator=annotator)
    assert stored.label["preferred"] == canonical
    assert stored.label["tags"] == {order[0]: ["fabricated_result"], order[1]: []}
    assert stored.display_order == order
    assert response.json()["label_seen"] == {"preferred": seen, "tags": tags, "confidence": 4}


def test_canonical_label_is_accepted_as_is(client_for, project, annotator, held):
    response = submit(
        client_for(annotator),
        project,
        item=held.pk,
        label={"preferred": "first", "confidence": 5},
        rationale="  within budget  ",
        seconds_spent=95,
        flagged=True,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["label"] == {"preferred": "first", "confidence": 5}
    assert body["label_seen"] == {"preferred": "B", "confidence": 5}
    assert (body["rationale"], body["seconds_spent"], body["flagged"], body["version"]) == (
        "within budget",
        95,
        True,
        1,
    )
    held.refresh_from_db()
    assert held.state == ItemState.ANNOTATING and held.n_annotations == 1


def test_repeat_with_same_client_id_returns_the_same_label(client_for, project, annotator, held):
    client = client_for(annotator)
    client_id = str(uuid.uuid4())
    first = submit(client, project, item=held.pk, label_seen={"preferred": "A"}, client_id=client_id)
    again = submit(client, project, item=held.pk, label_seen={"preferred": "A"}, client_id=client_id)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert Annotation.objects.filter(item=held).count() == 1


def test_second_label_with_a_new_client_id_is_a_409(client_for, project, annotator, held):
    client = client_for(annotator)
    assert submit(client, project, item=held.pk, label_seen={"preferred": "A"}).status_code == 201
    response = submit(client, project, item=held.pk, label_seen={"preferred": "B"})
    assert response.status_code == 409
    assert "edit your label" in response.json()["detail"]
    assert Annotation.objects.get(item=held).label["preferred"] == "second"


def test_unknown_tag_is_a_400_naming_the_side_as_seen(client_for, project, annotator, held):
    response = submit(
        client_for(annotator),
        project,
        item=held.pk,
        label_seen={"preferred": "A", "tags": {"B": ["made_up_tag"]}},
    )
    assert response.status_code == 400
    body = response.json()
    assert "made_up_tag" in body["label_seen"]["tags.B"]
    assert "first" not in body["detail"]
    assert not Annotation.objects.exists()


def test_bad_canonical_label_is_a_400_with_field_errors(client_for, project, annotator, held):
    response = submit(client_for(annotator), project, item=held.pk, label={"preferred": "left"})
    assert response.status_code == 400
    assert "preferred" in response.json()["label"]


def test_tie_refused_when_the_project_forbids_ties(client_for, project, annotator, held):
    project.label_schema = {"allow_tie": False}
    project.save()
    response = submit(client_for(annotator), project, item=held.pk, label_seen={"preferred": "tie"})
    assert response.status_code == 400
    assert "ties" in response.json()["label_seen"]["preferred"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"label_seen": {"preferred": "C"}}, "label_seen"),
        ({}, "label"),
        ({"label": {"preferred": "first"}, "label_seen": {"preferred": "A"}}, "label"),
        ({"label_seen": {"preferred": "A"}, "client_id": "not-a-uuid"}, "client_id"),
        ({"label_seen": {"preferred": "A"}, "seconds_spent": -5}, "seconds_spent"),
    ],
)
def test_malformed_submits_are_400s(client_for, project, annotator, held, body, field):
    response = submit(client_for(annotator), project, item=held.pk, **body)
    assert response.status_code == 400
    assert field in response.json()
    assert not Annotation.objects.exists()


def test_submit_without_assignment_is_a_409(client_for, project, annotator):
    item = PairItemFactory(project=project)
    response = submit(client_for(annotator), project, item=item.pk, label_seen={"preferred": "A"})
    assert response.status_code == 409
    assert "not assigned" in response.json()["detail"]


def test_submit_for_an_item_of_another_project_is_404(client_for, project, annotator):
    foreign = PairItemFactory(project=ProjectFactory())
    AssignmentFactory(item=foreign, annotator=annotator)
    response = submit(client_for(annotator), project, item=foreign.pk, label_seen={"preferred": "A"})
    assert response.status_code == 404


def test_reviewers_do_not_submit(client_for, project, reviewer, held):
    response = submit(client_for(reviewer), project, item=held.pk, label={"preferred": "first"})
    assert response.status_code == 404


def test_list_annotators_see_own_reviewers_see_all(client_for, project, annotator, annotator2, reviewer):
    mine = AnnotationFactory(item=PairItemFactory(project=project), annotator=annotator)
    AnnotationFactory(item=mine.item, annotator=annotator2)
    AnnotationFactory(annotator=annotator)  # in another project
    url = reverse("api:annotation-list", args=[project.slug])

    own = client_for(annotator).get(url).json()
    everyone = client_for(reviewer).get(url).json()

    assert [row["id"] for row in own["results"]] == [mine.pk]
    assert own["results"][0]["annotator"] == "ann"
    assert everyone["count"] == 2
    assert {row["annotator"] for row in everyone["results"]} == {"ann", "ann2"}
    filtered = client_for(reviewer).get(url + f"?item={mine.item_id}").json()
    assert filtered["count"] == 2


def test_blinded_item_shows_my_own_label_to_reopen(client_for, project, annotator, held):
    client = client_for(annotator)
    submit(client, project, item=held.pk, label_seen={"preferred": "B"})
    body = client.get(reverse("api:item-detail", args=[project.slug, held.pk])).json()
    assert body["my_annotation"]["label_seen"]["preferred"] == "B"
    assert body["my_annotation"]["version"] == 1


def test_edit_with_current_version_then_stale_version(client_for, project, annotator, held):
    client = client_for(annotator)
    created = submit(client, project, item=held.pk, label_seen={"preferred": "A"}, rationale="first look")
    annotation = Annotation.objects.get(pk=created.json()["id"])

    ok = edit(client, annotation, version=1, label_seen={"preferred": "B", "confidence": 2})
    stale = edit(client, annotation, version=1, label_seen={"preferred": "tie"})

    assert ok.status_code == 200, ok.json()
    assert ok.json()["version"] == 2
    assert ok.json()["label"] == {"preferred": "first", "confidence": 2}
    assert ok.json()["rationale"] == "first look"  # kept when not sent
    assert stale.status_code == 409
    annotation.refresh_from_db()
    assert (annotation.version, annotation.label["preferred"]) == (2, "first")
    assert annotation.revisions.get().label["preferred"] == "second"


def test_edit_of_someone_elses_label_is_404(client_for, project, annotator, annotator2, reviewer):
    theirs = AnnotationFactory(item=PairItemFactory(project=project), annotator=annotator2)
    assert edit(client_for(annotator), theirs, version=1, label={"preferred": "tie"}).status_code == 404
    assert edit(client_for(reviewer), theirs, version=1, label={"preferred": "tie"}).status_code == 404
    detail = reverse("api:annotation-detail", args=[project.slug, theirs.pk])
    assert client_for(reviewer).get(detail).status_code == 200
    assert client_for(annotator).get(detail).status_code == 404


def test_edit_after_the_item_settled_is_a_409(client_for, project, annotator):
    item = PairItemFactory(project=project, state=ItemState.VERIFIED)
    annotation = AnnotationFactory(item=item, annotator=annotator)
    response = edit(client_for(annotator), annotation, version=1, label={"preferred": "second"})
    assert response.status_code == 409
    assert "settled" in response.json()["detail"]
