"""A step item's versioned checklist over the API (api:item-checklist): same service and rules
as the step page's checklist edit."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ChecklistVersion, Role
from annotation.services.queue import item_assign
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.annotation.labeling_helpers import member
from tests.api.factories import token_for
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

NEW_ITEMS = [
    {"title": "Open the tents category", "goal": "The tents list is shown."},
    {"title": "Sort by price", "goal": ""},
    {"title": "Add to cart", "goal": "The cart shows one tent."},
]
REASON = "The imported list misses the sorting step."


@pytest.fixture
def project(tmp_path):
    """One step item, so every annotator gets the same one."""
    project = ProjectFactory(kind="step", overlap=3)
    lines = fixture_lines("steps.jsonl")[:1]
    report = run(project, write_jsonl(tmp_path / "s.jsonl", lines), media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project


def api(user) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def holder(project):
    user = member(project)
    return user, item_assign(project=project, annotator=user).item


def checklist_url(item) -> str:
    return reverse("api:item-checklist", args=[item.project.slug, item.pk])


def test_get_lists_the_imported_version(project):
    user, item = holder(project)
    body = api(user).get(checklist_url(item)).json()

    assert body["latest"] == 1 and body["scope"] == "chosen" and body["max_items"] == 5
    (v1,) = body["versions"]
    assert v1["number"] == 1 and v1["who"] == "imported" and v1["parent"] is None
    assert [c["title"] for c in v1["items"]] == [c["title"] for c in item.payload["checklist"]]


def test_edit_creates_version_2_and_annotators_see_no_names(project):
    user, item = holder(project)
    other, _ = holder(project)

    response = api(user).post(
        checklist_url(item), {"items": NEW_ITEMS, "reason": REASON, "parent_version": 1}
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["latest"] == 2 and body["versions"][-1]["who"] == "you"
    saved = ChecklistVersion.objects.get(item=item, version=2)
    assert saved.parent_version == 1 and saved.author == user and saved.reason == REASON
    assert saved.items == NEW_ITEMS
    seen_by_other = api(other).get(checklist_url(item)).json()["versions"][-1]
    assert seen_by_other["who"] == "another annotator"
    assert user.username not in str(api(other).get(checklist_url(item)).json())
    staff = api(member(project, Role.REVIEWER)).get(checklist_url(item)).json()
    assert staff["versions"][-1]["who"] == user.username


def test_stale_parent_is_409_and_nothing_changes(project):
    user, item = holder(project)
    other, _ = holder(project)
    api(other).post(checklist_url(item), {"items": NEW_ITEMS, "reason": REASON, "parent_version": 1})

    response = api(user).post(
        checklist_url(item), {"items": NEW_ITEMS[:1], "reason": "shorter", "parent_version": 1}
    )

    assert response.status_code == 409
    assert response.json()["latest"] == 2 and "parent_version" in response.json()["errors"]
    assert ChecklistVersion.objects.filter(item=item).count() == 1


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"items": NEW_ITEMS, "reason": "  ", "parent_version": 1}, "reason"),
        (
            {"items": [{"title": f"t{n}", "goal": ""} for n in range(6)], "reason": "x", "parent_version": 1},
            "items",
        ),
        ({"items": [{"title": "", "goal": "a goal"}], "reason": "x", "parent_version": 1}, "items"),
        ({"items": [], "reason": "x", "parent_version": 1}, "items"),
    ],
)
def test_bad_edits_are_400_naming_the_field(project, data, field):
    user, item = holder(project)

    response = api(user).post(checklist_url(item), data)

    assert response.status_code == 400 and field in response.json()["errors"], response.json()
    assert not ChecklistVersion.objects.filter(item=item).exists()


def test_malformed_body_is_400_from_the_serializer(project):
    user, item = holder(project)
    response = api(user).post(checklist_url(item), {"items": "nope", "reason": "x"})
    assert response.status_code == 400 and {"items", "parent_version"} <= set(response.json())


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_staff_read_only(project, role):
    _, item = holder(project)
    staff = api(member(project, role))
    assert staff.get(checklist_url(item)).status_code == 200
    response = staff.post(checklist_url(item), {"items": NEW_ITEMS, "reason": REASON, "parent_version": 1})
    assert response.status_code == 403
    assert not ChecklistVersion.objects.filter(item=item).exists()


def test_annotator_without_the_item_gets_404(project):
    _, item = holder(project)
    stranger = member(project)
    assert api(stranger).get(checklist_url(item)).status_code == 404
