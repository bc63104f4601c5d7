"""Annotators see only what they hold, in their own A/B order, and nothing that tells the
answer: no gold, no sources, no other people's labels, no canonical side names."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from annotation.labels import to_letter
from annotation.models import Annotation, Assignment, Role
from annotation.services.queue import item_assign
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory, TrajectoryFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET_SOURCE = {
    "type": "llm_minimal_edit",
    "model": "secret-model-9b",
    "perturbation": "constraint_drop",
    "runtime": "runtime-zz",
    "parent": "cand-77",
}


def url(name, project, *args):
    return reverse(name, args=[project.slug, *args])


def member(project, role=Role.ANNOTATOR):
    return MembershipFactory(project=project, role=role).user


@pytest.fixture
def project():
    return ProjectFactory(overlap=2)


@pytest.fixture
def item(project):
    return PairItemFactory(
        project=project,
        trajectory_second=TrajectoryFactory(
            project=project,
            source=SECRET_SOURCE,
            messages=[{"role": "assistant", "content": "I booked the $450 flight."}],
        ),
        meta={"pair_difficulty": "hard_pair", "family": "complex_planning"},
        difficulty="hard_pair",
    )


def labeled_by_someone_else(project, item):
    other = member(project)
    assignment = item_assign(project=project, annotator=other)
    assert assignment.item == item
    from annotation.services.annotations import annotation_submit

    annotation_submit(
        item=item,
        annotator=other,
        label={"preferred": "second", "tags": {"first": [], "second": []}},
        client_id=uuid.uuid4(),
        rationale="OTHER-PERSON-RATIONALE",
    )
    return other


def test_annotator_page_hides_gold_sources_meta_and_other_labels(client, project, item):
    other = labeled_by_someone_else(project, item)
    user = member(project)
    client.force_login(user)
    item_assign(project=project, annotator=user)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    for secret in (
        "secret-model-9b",
        "constraint_drop",
        "runtime-zz",
        "cand-77",
        "llm_minimal_edit",
        "model-a",
        "hard_pair",
        "OTHER-PERSON-RATIONALE",
        other.username,
    ):
        assert secret not in html, secret
    assert "gold" not in html.lower()
    # Canonical side names never reach the annotator: not in URLs, fields, values or text.
    assert not re.search(r"\b(first|second)\b", html), re.search(r".{60}\b(first|second)\b.{60}", html)


def test_annotator_message_body_follows_their_own_order(client, project, item):
    user = member(project)
    client.force_login(user)
    assignment = item_assign(project=project, annotator=user)
    letter_of_second = to_letter(assignment.display_order, "second")
    body = client.get(url("message_body", project, item.pk, letter_of_second, 0)).content.decode()
    assert "$450" in body
    assert "secret-model-9b" not in body


def test_annotator_cannot_open_items_not_assigned_to_them(client, project, item):
    holder, outsider = member(project), member(project)
    item_assign(project=project, annotator=holder)
    client.force_login(outsider)
    assert client.get(url("label_item", project, item.pk)).status_code == 404
    assert client.get(url("message_body", project, item.pk, "A", 0)).status_code == 404
    assert client.post(url("label_item", project, item.pk), {"preferred": "A"}).status_code == 404
    assert client.post(url("skip_item", project, item.pk), {"reason": "x"}).status_code == 404
    assert not Assignment.objects.filter(annotator=outsider).exists()


def test_items_of_other_projects_and_non_members_get_404(client, project, item):
    other_project = ProjectFactory()
    foreign = PairItemFactory(project=other_project)
    user = member(project)
    client.force_login(user)
    assert client.get(url("label_item", project, foreign.pk)).status_code == 404
    assert client.get(url("label_item", other_project, foreign.pk)).status_code == 404
    client.force_login(UserFactory())
    assert client.get(url("label_item", project, item.pk)).status_code == 404
    assert client.get(url("queue_next", project)).status_code == 404


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_staff_view_is_read_only_canonical_and_takes_no_slot(client, project, item, role):
    labeled_by_someone_else(project, item)
    staff = member(project, role)
    client.force_login(staff)
    response = client.get(url("label_item", project, item.pk))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="label-form"' not in html and 'name="preferred"' not in html
    assert "Read-only view" in html
    assert html.index("$199") < html.index("$450")  # first, then second
    assert "secret-model-9b" in html and "OTHER-PERSON-RATIONALE" in html  # staff see sources and labels
    assert not Assignment.objects.filter(annotator=staff).exists()
    assert client.post(url("label_item", project, item.pk), {"preferred": "A"}).status_code == 403
    assert not Annotation.objects.filter(annotator=staff).exists()
    body = client.get(url("message_body", project, item.pk, "B", 0)).content.decode()
    assert "$450" in body  # B is `second` in the canonical view
    queue = client.get(url("queue_next", project))
    assert queue.status_code == 302 and queue["Location"] == url("item_list", project)
    assert not Assignment.objects.filter(annotator=staff).exists()
