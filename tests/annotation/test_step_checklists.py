"""Step checklists are versioned: an annotator edits the checklist (at most five items) with a
reason; every edit is a new version, the page shows the latest one and its history, and a label
names the version its marks refer to."""

from __future__ import annotations

import uuid

import pytest

from annotation.labels import LabelError, validate_label
from annotation.models import Annotation, ChecklistVersion, Role
from annotation.services.checklists import ChecklistConflict, ChecklistError, checklist_edit
from review.models import AuditLog
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.annotation.labeling_helpers import login, take, url
from tests.factories import PairItemFactory, ProjectFactory, UserFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert('x')</script>"
NEW_ITEMS = [
    {"title": "Open the tents category", "goal": "The tents list is shown."},
    {"title": "Sort by price", "goal": ""},
    {"title": "Pick the cheapest 2-person tent", "goal": "Its page is open."},
    {"title": "Add to cart", "goal": "The cart shows one tent."},
]


def one_step_project(tmp_path, *, overlap: int = 2, scope: str = "", lines=None):
    """A step project holding the first fixture step only, so every annotator gets that item."""
    project = ProjectFactory(kind="step", overlap=overlap)
    if scope:
        project.label_schema = {**project.label_schema, "checklist_scope": scope}
        project.save()
    lines = lines or fixture_lines("steps.jsonl")[:1]
    report = run(project, write_jsonl(tmp_path / "s.jsonl", lines), media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project


def edit_data(items, reason="The imported list misses the sorting step.", parent=1) -> dict:
    data = {"reason": reason, "parent_version": str(parent)}
    for n, c in enumerate(items, start=1):
        data[f"title_{n}"], data[f"goal_{n}"] = c["title"], c.get("goal", "")
    return data


def edit_post(client, item, items=NEW_ITEMS, **kwargs):
    return client.post(url("step_checklist_edit", item.project, item.pk), edit_data(items, **kwargs))


def step_label(client, item, *, checklist=None, marks=None, **fields):
    """Post a label marking every item of checklist version `checklist` with `marks`."""
    n = len(marks) if marks is not None else len(item.payload["checklist"])
    data = {"client_id": str(uuid.uuid4()), "chosen": item.payload["candidates"][0]["id"]}
    data |= {f"check_{i}": (marks[i] if marks else "yes") for i in range(n)}
    if checklist is not None:
        data["checklist_version"] = str(checklist)
    return client.post(url("label_item", item.project, item.pk), data | fields)


def test_edit_creates_version_2_with_its_reason(client, tmp_path):
    project = one_step_project(tmp_path)
    user = login(client, project)
    item = take(client, project).item
    response = edit_post(client, item)
    assert response.status_code == 302
    assert response["Location"] == url("label_item", project, item.pk) + "?checklist=2#checklist"
    saved = ChecklistVersion.objects.get(item=item)
    assert (saved.version, saved.parent_version, saved.author, saved.items) == (2, 1, user, NEW_ITEMS)
    assert saved.reason == "The imported list misses the sorting step."
    log = AuditLog.objects.get(project=project, action="checklist_edit")
    assert log.item_id == item.pk and log.data["version"] == 2 and log.reason == saved.reason
    # The imported checklist is untouched: version 1 stays what was imported.
    item.refresh_from_db()
    assert [c["title"] for c in item.payload["checklist"]] == [
        c["title"] for c in fixture_lines("steps.jsonl")[0]["checklist"]
    ]

    html = client.get(response["Location"]).content.decode()
    assert 'class="pill checklist-version" data-version="2">version 2<' in html
    assert 'name="checklist_version" value="2"' in html and "(checklist v2)" in html
    for i in range(4):
        assert f'name="check_{i}"' in html
    assert 'name="check_4"' not in html


def test_more_than_five_items_are_refused(client, tmp_path):
    project = one_step_project(tmp_path)
    login(client, project)
    item = take(client, project).item
    six = [{"title": f"Step {n}", "goal": ""} for n in range(6)]
    response = edit_post(client, item, items=six)
    html = response.content.decode()
    assert response.status_code == 400 and "at most 5 items; this one has 6" in html
    assert 'value="Step 5"' in html  # what was typed comes back
    assert not ChecklistVersion.objects.exists()


def test_a_reason_is_required(client, tmp_path):
    project = one_step_project(tmp_path)
    login(client, project)
    item = take(client, project).item
    response = edit_post(client, item, reason="   ")
    html = response.content.decode()
    assert response.status_code == 400 and "Say why the checklist needs this change" in html
    assert 'value="Sort by price"' in html
    assert not ChecklistVersion.objects.exists()
    assert not AuditLog.objects.filter(action="checklist_edit").exists()


def test_an_edit_of_a_stale_version_is_a_conflict(client, tmp_path):
    project = one_step_project(tmp_path)
    first = UserFactory()
    item = project.items.get()
    checklist_edit(item=item, author=first, items=NEW_ITEMS, reason="add sorting", parent_version=1)
    login(client, project)
    take(client, project)
    # This annotator's page was opened at version 1: their edit names parent 1.
    response = edit_post(client, item, items=NEW_ITEMS[:2], parent=1)
    html = response.content.decode()
    assert response.status_code == 409
    assert "changed to version 2 since you opened version 1" in html and "add sorting" in html
    assert list(ChecklistVersion.objects.values_list("version", flat=True)) == [2]
    # Saving again, after seeing version 2, edits version 2: the form now names it.
    assert 'name="parent_version" value="2"' in html and 'value="Sort by price"' in html
    assert edit_post(client, item, items=NEW_ITEMS[:2], parent=2).status_code == 302
    with pytest.raises(ChecklistConflict) as exc:
        checklist_edit(item=item, author=first, items=NEW_ITEMS[:2], reason="again", parent_version=1)
    assert exc.value.latest == 3


def test_versions_count_up_and_are_never_overwritten(tmp_path):
    project = one_step_project(tmp_path)
    item, author = project.items.get(), UserFactory()
    checklist_edit(item=item, author=author, items=NEW_ITEMS, reason="one", parent_version=1)
    third = checklist_edit(item=item, author=author, items=NEW_ITEMS[:3], reason="two", parent_version=2)
    assert (third.version, third.parent_version) == (3, 2)
    assert ChecklistVersion.objects.get(item=item, version=2).items == NEW_ITEMS
    with pytest.raises(ChecklistError, match="Nothing changed"):
        checklist_edit(item=item, author=author, items=NEW_ITEMS[:3], reason="same", parent_version=3)
    with pytest.raises(ChecklistError, match="at least one item"):
        checklist_edit(item=item, author=author, items=[{"title": " "}], reason="empty", parent_version=3)
    with pytest.raises(ChecklistError, match="no title"):
        checklist_edit(item=item, author=author, items=[{"goal": "x"}], reason="r", parent_version=3)
    pair = PairItemFactory(project=project)
    with pytest.raises(ChecklistError, match="Only step items"):
        checklist_edit(item=pair, author=author, items=NEW_ITEMS, reason="r", parent_version=1)


def test_label_names_the_checklist_version_it_marks(client, tmp_path):
    project = one_step_project(tmp_path)
    user = login(client, project)
    item = take(client, project).item
    assert edit_post(client, item).status_code == 302
    # Three marks for a four-item version: refused, nothing saved.
    response = step_label(client, item, checklist=2, marks=["yes"] * 3)
    assert response.status_code == 400 and not Annotation.objects.exists()
    response = step_label(client, item, checklist=2, marks=["yes", "no", "in_progress", "no"])
    assert response.status_code == 302
    label = Annotation.objects.get(annotator=user).label
    assert label["checklist_version"] == 2 and label["checklist"] == ["yes", "no", "in_progress", "no"]

    cid = item.payload["candidates"][0]["id"]
    ok = {"chosen": cid, "checklist_version": 2, "checklist": ["yes"] * 4}
    assert validate_label(project=project, item=item, label=ok) == ok
    for bad, field in (
        ({"chosen": cid, "checklist_version": 2, "checklist": ["yes"] * 3}, "checklist"),
        ({"chosen": cid, "checklist": ["yes"] * 4}, "checklist"),  # version 1 has three items
        ({"chosen": cid, "checklist_version": 9, "checklist": ["yes"] * 4}, "checklist_version"),
        ({"chosen": cid, "checklist_version": 0}, "checklist_version"),
    ):
        with pytest.raises(LabelError) as exc:
            validate_label(project=project, item=item, label=bad)
        assert field in exc.value.errors


def test_history_is_shown_and_annotators_never_see_who_edited(client, tmp_path):
    project = one_step_project(tmp_path)
    editor = login(client, project)
    item = take(client, project).item
    hostile_items = [{"title": f"T {HOSTILE}", "goal": f"G {HOSTILE}"}, *NEW_ITEMS[1:]]
    assert edit_post(client, item, items=hostile_items, reason=f"why {HOSTILE}").status_code == 302
    own = client.get(url("label_item", project, item.pk)).content.decode()
    assert 'id="checklist-history"' in own and "edited from v1 by you" in own
    assert "imported with the item" in own and "why &lt;script&gt;" in own and HOSTILE not in own
    assert "T &lt;script&gt;" in own and "G &lt;script&gt;" in own

    other = login(client, project)
    assert take(client, project).item == item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Edited by another annotator: why &lt;script&gt;" in html
    assert "edited from v1 by another annotator" in html and editor.username not in html
    assert other.username not in html.split('id="checklist"')[1].split("</section>")[0]
    # Everyone labeling afterwards marks the latest version.
    assert 'name="checklist_version" value="2"' in html

    login(client, project, Role.REVIEWER)
    staff = client.get(url("label_item", project, item.pk)).content.decode()
    assert f"edited from v1 by {editor.username}" in staff and 'id="checklist-edit"' not in staff


def test_a_label_on_an_older_version_is_offered_the_latest(client, tmp_path):
    project = one_step_project(tmp_path)
    user = login(client, project)
    item = take(client, project).item
    assert step_label(client, item).status_code == 302
    checklist_edit(item=item, author=UserFactory(), items=NEW_ITEMS, reason="add sorting", parent_version=1)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Your marks are for checklist version 1; version 2 is now in force." in html
    assert 'name="checklist_version" value="1"' in html
    switched = client.get(url("label_item", project, item.pk) + "?checklist=2").content.decode()
    marks_html = switched.split("step-marks")[1].split("</fieldset>")[0]
    assert 'name="checklist_version" value="2"' in switched and "checked" not in marks_html
    saved = Annotation.objects.get(annotator=user)
    response = step_label(
        client, item, checklist=2, marks=["no"] * 4, client_id="", version=str(saved.version)
    )
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.label["checklist_version"] == 2 and saved.label["checklist"] == ["no"] * 4


def test_who_may_edit(client, tmp_path):
    project = one_step_project(tmp_path, overlap=1)
    login(client, project)
    item = take(client, project).item
    for role in (Role.REVIEWER, Role.MANAGER):
        login(client, project, role)
        assert edit_post(client, item).status_code == 403
    login(client, project)  # an annotator who does not hold the item
    assert edit_post(client, item).status_code == 404
    assert client.get(url("step_checklist_edit", project, item.pk)).status_code == 405
    assert not ChecklistVersion.objects.exists()
