"""POST queue/next/ and queue/<item>/skip/."""

from __future__ import annotations

from django.urls import reverse

from annotation.models import Assignment, AssignmentStatus
from tests.factories import PairItemFactory


def next_item(client, project):
    return client.post(reverse("api:queue-next", args=[project.slug]))


def skip(client, project, item_id, **body):
    return client.post(reverse("api:queue-skip", args=[project.slug, item_id]), body, format="json")


def test_next_hands_a_blinded_item_with_lease_and_keeps_it(client_for, project, annotator):
    PairItemFactory.create_batch(2, project=project)
    client = client_for(annotator)

    first = next_item(client, project)
    again = next_item(client, project)

    assert first.status_code == 200
    body = first.json()
    assignment = Assignment.objects.get(annotator=annotator)
    assert body["id"] == assignment.item_id
    assert body["display_order"] == assignment.display_order
    assert [c["letter"] for c in body["candidates"]] == ["A", "B"]
    assert body["candidates"][0]["stats"]["n_tool_calls"] == 1
    assert body["lease"]["assignment"] == assignment.pk
    assert body["lease"]["expires_at"]
    assert "gold" not in body
    assert again.json()["id"] == body["id"]


def test_next_is_204_when_nothing_is_left(client_for, project, annotator):
    response = next_item(client_for(annotator), project)
    assert response.status_code == 204
    assert response.content == b""


def test_reviewers_and_managers_have_no_queue(client_for, project, reviewer, manager):
    PairItemFactory(project=project)
    assert next_item(client_for(reviewer), project).status_code == 404
    assert next_item(client_for(manager), project).status_code == 404
    assert not Assignment.objects.exists()


def test_skip_needs_a_reason_and_then_moves_on(client_for, project, annotator):
    PairItemFactory.create_batch(2, project=project)
    client = client_for(annotator)
    held = next_item(client, project).json()["id"]

    blank = skip(client, project, held, reason="   ")
    done = skip(client, project, held, reason="tool output is truncated")
    twice = skip(client, project, held, reason="again")

    assert blank.status_code == 400 and "reason" in blank.json()
    assert done.status_code == 200
    assert done.json() == {"item": held, "status": "skipped", "skip_reason": "tool output is truncated"}
    assert twice.status_code == 409
    assert Assignment.objects.get(item_id=held).status == AssignmentStatus.SKIPPED
    assert next_item(client, project).json()["id"] != held


def test_skip_of_an_item_i_do_not_hold_is_404(client_for, project, annotator):
    item = PairItemFactory(project=project)
    assert skip(client_for(annotator), project, item.pk, reason="nope").status_code == 404
