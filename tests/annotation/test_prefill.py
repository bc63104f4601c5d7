"""Machine suggestions pre-fill the label only where the project turns them on, clearly
marked, and the label records whether the annotator changed the judge's choice."""

from __future__ import annotations

import re

import pytest

from annotation.labels import to_letter
from annotation.models import Annotation, Suggestion
from tests.annotation.labeling_helpers import label_post, member, take, url
from tests.factories import PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def judged_item(show: bool, preferred: str = "second"):
    project = ProjectFactory(overlap=2, show_suggestions=show)
    item = PairItemFactory(project=project)
    Suggestion.objects.create(
        item=item, source="judge-gpt-x", label={"preferred": preferred}, rationale="B keeps the $450 cap."
    )
    return project, item


def open_as_annotator(client, project):
    client.force_login(member(project))
    lease = take(client, project)
    page = client.get(url("label_item", project, lease.item_id)).content.decode()
    return lease, page


def checked_choice(page: str) -> str | None:
    match = re.search(r'name="preferred" value="(A|B|tie)"[^>]*checked', page)
    return match.group(1) if match else None


def test_suggestions_stay_hidden_when_the_project_does_not_show_them(client):
    project, _ = judged_item(show=False)
    _, page = open_as_annotator(client, project)
    assert "judge-gpt-x" not in page and "Pre-filled" not in page
    assert checked_choice(page) is None


def test_suggestion_prefills_the_seen_letter_and_is_marked(client):
    project, _ = judged_item(show=True, preferred="second")
    lease, page = open_as_annotator(client, project)
    seen = to_letter(lease.display_order, "second")
    assert f"Pre-filled by a machine judge (judge-gpt-x): prefers {seen}." in page
    assert checked_choice(page) == seen
    assert "B keeps the $450 cap." in page


@pytest.mark.parametrize("keep", [True, False])
def test_label_records_whether_the_suggestion_was_changed(client, keep):
    project, item = judged_item(show=True, preferred="second")
    lease, page = open_as_annotator(client, project)
    suggestion_id = re.search(r'name="suggestion_id" value="(\d+)"', page).group(1)
    seen = to_letter(lease.display_order, "second")
    choice = seen if keep else ("A" if seen == "B" else "B")
    response = label_post(client, item, preferred=choice, suggestion_id=suggestion_id)
    assert response.status_code == 302
    prefill = Annotation.objects.get(item=item).prefill
    assert prefill["source"] == "judge-gpt-x" and prefill["proposed"] == "second"
    assert prefill["changed"] is (not keep)


def test_failed_or_inconsistent_verdicts_prefill_nothing(client):
    project, item = judged_item(show=True, preferred="inconsistent")
    Suggestion.objects.create(item=item, source="judge-y", label={}, error="malformed answer")
    _, page = open_as_annotator(client, project)
    assert "Pre-filled" not in page and checked_choice(page) is None
