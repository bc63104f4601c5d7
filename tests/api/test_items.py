"""Item list (reviewers and managers) and item detail (full, or blinded for annotators)."""

from __future__ import annotations

import json

from django.urls import reverse

from annotation.models import AssignmentStatus, ItemState
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.factories import PairItemFactory, ProjectFactory, TrajectoryFactory


def items_url(project, **query):
    url = reverse("api:item-list", args=[project.slug])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_annotators_cannot_list_items(client_for, project, annotator):
    PairItemFactory(project=project)
    assert client_for(annotator).get(items_url(project)).status_code == 404


def test_reviewer_lists_items_with_gold_paginated(client_for, project, reviewer):
    PairItemFactory.create_batch(5, project=project)

    first = client_for(reviewer).get(items_url(project, limit=2)).json()
    last = client_for(reviewer).get(items_url(project, limit=2, offset=4)).json()

    assert first["count"] == 5
    assert len(first["results"]) == 2
    assert first["next"] and "offset=2" in first["next"]
    assert len(last["results"]) == 1 and last["next"] is None
    assert first["results"][0]["gold"] == {"preferred": "first"}


def test_item_list_filters_by_state_and_stratum(client_for, project, manager):
    PairItemFactory(project=project, stratum="safety", external_id="s-new")
    PairItemFactory(project=project, stratum="safety", state=ItemState.VERIFIED, external_id="s-done")
    PairItemFactory(project=project, stratum="robust", state=ItemState.VERIFIED, external_id="r-done")
    client = client_for(manager)

    def ids(**query):
        return {row["external_id"] for row in client.get(items_url(project, **query)).json()["results"]}

    assert ids(state="verified") == {"s-done", "r-done"}
    assert ids(stratum="safety") == {"s-new", "s-done"}
    assert ids(state="verified", stratum="safety") == {"s-done"}
    assert ids(state="", stratum="") == {"s-new", "s-done", "r-done"}


def test_unknown_state_filter_is_a_400_naming_the_field(client_for, project, manager):
    response = client_for(manager).get(items_url(project, state="finished"))
    assert response.status_code == 400
    assert "state" in response.json()


def test_reviewer_sees_the_full_item(client_for, project, reviewer):
    item = PairItemFactory(project=project)
    body = client_for(reviewer).get(reverse("api:item-detail", args=[project.slug, item.pk])).json()
    assert body["gold"] == {"preferred": "first"}
    assert body["trajectory_first"]["source"] == {"type": "natural", "model": "model-a"}
    assert body["trajectory_second"]["messages"][-1]["content"] == "I booked the $450 flight."
    assert body["task"]["instruction"].startswith("Book the cheapest flight")


def test_annotator_sees_assigned_item_blinded_in_their_order(client_for, project, annotator, annotator2):
    item = PairItemFactory(
        project=project,
        trajectory_second=TrajectoryFactory(
            project=project,
            messages=[{"role": "assistant", "content": "<script>alert(1)</script> $450"}],
            source={"type": "llm_minimal_edit", "model": "secret-model", "perturbation": "constraint_drop"},
        ),
    )
    AssignmentFactory(item=item, annotator=annotator, display_order=["second", "first"])
    AnnotationFactory(item=item, annotator=annotator2, label={"preferred": "second"})

    response = client_for(annotator).get(reverse("api:item-detail", args=[project.slug, item.pk]))

    assert response.status_code == 200
    body = response.json()
    assert body["display_order"] == ["second", "first"]
    a, b = body["candidates"]
    assert (a["letter"], b["letter"]) == ("A", "B")
    assert a["messages"] == [{"role": "assistant", "content": "<script>alert(1)</script> $450"}]
    assert b["messages"][-1]["content"] == "I booked the $199 flight."
    assert a["stats"]["n_turns"] == 1
    assert body["lease"]["expires_at"]
    assert body["my_annotation"] is None
    text = json.dumps(body)
    # No gold, no provenance, no one else's label.
    for secret in ("gold", "secret-model", "constraint_drop", "natural", "source", "ann2"):
        assert secret not in text, secret
    assert "preferred" not in text


def test_annotator_gets_404_for_items_not_assigned_to_them(client_for, project, annotator, annotator2):
    item = PairItemFactory(project=project)
    AssignmentFactory(item=item, annotator=annotator2)
    response = client_for(annotator).get(reverse("api:item-detail", args=[project.slug, item.pk]))
    assert response.status_code == 404


def test_item_of_another_project_is_404_even_for_its_manager(client_for, project, manager):
    foreign = PairItemFactory(project=ProjectFactory())
    response = client_for(manager).get(reverse("api:item-detail", args=[project.slug, foreign.pk]))
    assert response.status_code == 404


def test_item_i_skipped_is_closed_to_me(client_for, project, annotator):
    item = PairItemFactory(project=project)
    AssignmentFactory(item=item, annotator=annotator, status=AssignmentStatus.SKIPPED)
    response = client_for(annotator).get(reverse("api:item-detail", args=[project.slug, item.pk]))
    assert response.status_code == 404
