"""Step, P/C/A and query labels through api:annotation-list, and what api:item-detail shows an
annotator of those kinds (blinded as their pages are)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Annotation, Role
from annotation.rendering.query import query_order
from annotation.rendering.step.view import candidate_order
from annotation.services.checklists import checklist_edit
from annotation.services.queue import item_assign
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.annotation.labeling_helpers import imported_project, member
from tests.api.factories import token_for
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

QUERIES = Path(__file__).resolve().parent.parent / "fixtures" / "queries.jsonl"


def api(user) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def holder(project):
    user = member(project)
    return user, item_assign(project=project, annotator=user).item


def submit(user, item, label):
    return api(user).post(
        reverse("api:annotation-list", args=[item.project.slug]),
        {"item": item.pk, "label": label, "client_id": str(uuid.uuid4())},
    )


def detail(user, item) -> dict:
    return api(user).get(reverse("api:item-detail", args=[item.project.slug, item.pk])).json()


def step_project(tmp_path, scope=""):
    project = ProjectFactory(kind="step", overlap=3)
    if scope:
        project.label_schema = {**project.label_schema, "checklist_scope": scope}
        project.save()
    lines = fixture_lines("steps.jsonl")[:1]
    report = run(project, write_jsonl(tmp_path / "s.jsonl", lines), media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project


# --- step ----------------------------------------------------------------------------------


def test_step_detail_shows_candidates_in_the_annotators_order_without_the_reference(tmp_path):
    project = step_project(tmp_path)
    user, item = holder(project)

    body = detail(user, item)

    assert [o["id"] for o in body["options"]] == candidate_order(item=item, annotator_id=user.pk)
    assert [o["n"] for o in body["options"]] == list(range(1, len(body["options"]) + 1))
    assert body["options"][0]["action"]["name"] and "thought" in body["options"][0]
    text = str(body)
    assert "reference" not in text and "human-expert" not in text and "gold" not in body
    assert "candidates" not in body["payload"] and body["payload"]["checklist"]


def test_step_label_with_checklist_version_is_stored_with_the_order_shown(tmp_path):
    project = step_project(tmp_path)
    user, item = holder(project)
    checklist_edit(
        item=item,
        author=user,
        items=[{"title": "Find tents", "goal": ""}],
        reason="simpler",
        parent_version=1,
    )
    ids = [c["id"] for c in item.payload["candidates"]]

    response = submit(user, item, {"chosen": ids[1], "checklist": ["yes"], "checklist_version": 2})

    assert response.status_code == 201, response.json()
    annotation = Annotation.objects.get(item=item, annotator=user)
    assert annotation.label == {"chosen": ids[1], "checklist": ["yes"], "checklist_version": 2}
    assert annotation.display_order == candidate_order(item=item, annotator_id=user.pk)


def test_step_label_per_candidate_marks(tmp_path):
    project = step_project(tmp_path, scope="per_candidate")
    user, item = holder(project)
    ids = [c["id"] for c in item.payload["candidates"]]
    n = len(item.payload["checklist"])
    marks = {cid: ["no"] * n for cid in ids}

    response = submit(user, item, {"chosen": ids[0], "equivalent": [], "checklist_by_candidate": marks})

    assert response.status_code == 201, response.json()


@pytest.mark.parametrize(
    ("label", "field"),
    [
        ({"chosen": "c9"}, "chosen"),
        ({"chosen": "c0", "checklist_version": 7}, "checklist_version"),
        ({"chosen": "c0", "checklist": ["yes"]}, "checklist"),
        ({"chosen": "c0", "invalid": ["c0"]}, "invalid"),
        ({"chosen": "c0", "checklist_by_candidate": {"c0": ["yes", "yes", "yes"]}}, "checklist_by_candidate"),
        ({"chosen": "c0", "rank": 1}, "label"),
    ],
)
def test_bad_step_labels_are_400_naming_the_field(tmp_path, label, field):
    project = step_project(tmp_path)
    user, item = holder(project)

    response = submit(user, item, label)

    assert response.status_code == 400 and field in response.json()["label"], response.json()
    assert not Annotation.objects.filter(item=item).exists()


# --- P/C/A ---------------------------------------------------------------------------------


@pytest.fixture
def pca_project():
    return imported_project("pca", "pca.jsonl")


def test_pca_detail_shows_the_rubric(pca_project):
    user, item = holder(pca_project)
    instance = detail(user, item)["payload"]["instance"]
    assert instance["answer"] == item.payload["instance"]["answer"]
    assert instance["reason"] and instance["key_concepts"] and instance["candidates"]


def test_pca_label_and_bad_scores(pca_project):
    user, item = holder(pca_project)
    bad = submit(user, item, {"perception": 2, "cognition": 1, "action": 1})
    good = submit(
        user,
        item,
        {"perception": 1, "cognition": 0, "action": 1, "evidence": {"cognition": "Reason misses the sign."}},
    )
    assert bad.status_code == 400 and "perception" in bad.json()["label"]
    assert good.status_code == 201, good.json()
    assert Annotation.objects.get(item=item).label["cognition"] == 0


# --- query ---------------------------------------------------------------------------------


@pytest.fixture
def query_project():
    project = ProjectFactory(kind="query", overlap=2)
    report = run(project, QUERIES, media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project


def test_query_detail_numbers_candidates_in_the_annotators_order_with_record_indexes(query_project):
    user, item = holder(query_project)
    body = detail(user, item)
    texts = item.payload["candidates"]

    order = query_order(item=item, annotator_id=user.pk)
    assert [o["index"] for o in body["options"]] == [int(i) for i in order]
    assert all(o["text"] == texts[o["index"]] for o in body["options"])
    assert "candidates" not in body["payload"] and "source" not in str(body["payload"])


def test_query_labels_use_record_indexes(query_project):
    user, item = holder(query_project)
    response = submit(user, item, {"decision": "edit", "chosen": 2, "query": "How many red cars?"})
    assert response.status_code == 201, response.json()
    annotation = Annotation.objects.get(item=item, annotator=user)
    assert annotation.label["chosen"] == 2
    assert annotation.display_order == query_order(item=item, annotator_id=user.pk)


@pytest.mark.parametrize(
    ("label", "field"),
    [
        ({"decision": "pick", "chosen": 9, "query": "x"}, "chosen"),
        ({"decision": "reject"}, "label"),
        ({"decision": "reject", "reject_reason": "boring"}, "reject_reason"),
        ({"decision": "maybe"}, "decision"),
    ],
)
def test_bad_query_labels_are_400(query_project, label, field):
    user, item = holder(query_project)
    response = submit(user, item, label)
    assert response.status_code == 400 and field in response.json()["label"], response.json()


def test_staff_see_full_items_of_every_kind(tmp_path):
    project = step_project(tmp_path)
    _, item = holder(project)
    body = detail(member(project, Role.REVIEWER), item)
    assert body["gold"] == item.gold and body["gold"]
    assert body["payload"]["candidates"] == item.payload["candidates"]
