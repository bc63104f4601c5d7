"""The item editor in the Django admin checks a P/C/A instance the way the importer does: the
answer is one of the candidates (and the instance image is the task's image)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.admin import ItemAdminForm
from annotation.models import Item, ItemKind, Task
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

INSTANCE = {
    "domain": "traffic",
    "image": "media/t7.png",
    "question": "What should the driver do?",
    "candidates": ["Slow down", "Keep driving", "Stop the car"],
    "answer": "Keep driving",
    "reason": "The road is clear.",
    "key_concepts": ["clear road"],
}


@pytest.fixture
def pca_item():
    project = ProjectFactory(kind="pca", slug="pca-admin")
    task = Task.objects.create(
        project=project, content_hash="a" * 64, instruction=INSTANCE["question"], media=[INSTANCE["image"]]
    )
    return Item.objects.create(
        project=project,
        kind=ItemKind.PCA,
        external_id="pca-traffic-0007",
        task=task,
        payload={"instance": INSTANCE, "output": {"model": "m", "text": "Final action: Keep driving"}},
        stratum="traffic",
    )


def form_data(item: Item, **changes) -> dict:
    data = {
        "project": item.project_id,
        "kind": item.kind,
        "external_id": item.external_id,
        "state": item.state,
        "task": item.task_id or "",
        "payload": json.dumps(item.payload),
        "gold": json.dumps(item.gold),
        "meta": json.dumps(item.meta),
        "settled_label": json.dumps(item.settled_label),
        "stratum": item.stratum,
        "family": "",
        "difficulty": "",
        "priority": 0,
        "overlap": 2,
        "n_annotations": 0,
        "discard_reason": "",
    }
    return {**data, **changes}


def with_instance(item: Item, **fields) -> str:
    return json.dumps({**item.payload, "instance": {**INSTANCE, **fields}})


def test_a_valid_instance_saves(pca_item):
    form = ItemAdminForm(form_data(pca_item), instance=pca_item)
    assert form.is_valid(), form.errors


def test_an_answer_outside_the_candidates_is_refused_with_the_candidates_listed(pca_item):
    form = ItemAdminForm(
        form_data(pca_item, payload=with_instance(pca_item, answer="Speed up")), instance=pca_item
    )
    assert not form.is_valid()
    (message,) = form.errors["payload"]
    assert "The instance answer 'Speed up' is not one of its candidates" in message
    assert "'Slow down'; 'Keep driving'; 'Stop the car'" in message


def test_an_instance_without_candidates_is_refused(pca_item):
    form = ItemAdminForm(
        form_data(pca_item, payload=with_instance(pca_item, candidates=[])), instance=pca_item
    )
    assert not form.is_valid()
    assert "no candidate actions" in form.errors["payload"][0]


def test_an_instance_image_that_is_not_the_tasks_image_is_refused(pca_item):
    form = ItemAdminForm(
        form_data(pca_item, payload=with_instance(pca_item, image="media/other.png")), instance=pca_item
    )
    assert not form.is_valid()
    assert "is not the task's image (media/t7.png)" in form.errors["task"][0]


def test_other_kinds_are_not_held_to_the_pca_rules(pca_item):
    form = ItemAdminForm(form_data(pca_item, kind=ItemKind.STEP, payload="{}"), instance=pca_item)
    assert form.is_valid(), form.errors


def test_the_admin_page_shows_the_reason_and_keeps_the_item(client, pca_item):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456789")
    client.force_login(admin)
    url = reverse("admin:annotation_item_change", args=[pca_item.pk])
    response = client.post(url, form_data(pca_item, payload=with_instance(pca_item, answer="Fly away")))
    assert response.status_code == 200  # the form again, with the error
    assert "is not one of its candidates" in response.content.decode()
    pca_item.refresh_from_db()
    assert pca_item.payload["instance"]["answer"] == "Keep driving"
