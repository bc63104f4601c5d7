"""What a step item's checklist marks judge is a project setting: the state after the best
candidate (default), the state after each candidate (a candidates x items grid), or the
trajectory so far. Managers change it on the settings page."""

from __future__ import annotations

import uuid

import pytest

from annotation.labels import LabelError, validate_label
from annotation.models import Annotation, Role
from annotation.rendering.step import candidate_order
from review.models import AuditLog
from tests.annotation.import_helpers import fixture_lines
from tests.annotation.labeling_helpers import login, take, url
from tests.annotation.test_step_checklists import one_step_project
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def ids(item):
    return [c["id"] for c in item.payload["candidates"]]


def grid_post(client, item, order, marks: dict[str, list[str]], **fields):
    """Post marks per candidate id, on the grid fields the annotator's page shows (by position)."""
    data = {"client_id": str(uuid.uuid4()), "chosen": order[0]}
    for n, cid in enumerate(order, start=1):
        for i, mark in enumerate(marks.get(cid, [])):
            data[f"mark_{n}_{i}"] = mark
    return client.post(url("label_item", item.project, item.pk), data | fields)


def test_default_scope_judges_the_state_after_the_best_candidate(client, tmp_path):
    project = one_step_project(tmp_path)
    assert project.checklist_scope == "chosen"
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Checklist after the best candidate" in html and 'data-scope="chosen"' in html
    assert 'name="check_0"' in html and "mark_1_0" not in html


def test_per_candidate_scope_shows_a_grid_in_the_annotators_order(client, tmp_path):
    lines = [line for line in fixture_lines("steps.jsonl") if len(line["candidates"]) >= 3][:1]
    project = one_step_project(tmp_path, scope="per_candidate", lines=lines)
    user = login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Checklist after each candidate" in html and 'data-scope="per_candidate"' in html
    assert 'class="grid marks-grid"' in html and 'name="check_0"' not in html
    n_items, order = len(item.payload["checklist"]), candidate_order(item=item, annotator_id=user.pk)
    for n in range(1, len(order) + 1):
        for i in range(n_items):
            assert html.count(f'name="mark_{n}_{i}"') == 3  # Yes, In progress, No
    assert f'name="mark_{len(order) + 1}_0"' not in html
    # Rows follow the annotator's candidate order: row n names the action of candidate n.
    names = {c["id"]: c["action"]["name"] for c in item.payload["candidates"]}
    grid = html.split('class="grid marks-grid"')[1]
    for n, cid in enumerate(order, start=1):
        assert f'<tr data-n="{n}"><th scope="row">{n} <code>{names[cid]}</code>' in grid


def test_per_candidate_marks_are_stored_by_candidate_id(client, tmp_path):
    project = one_step_project(tmp_path, scope="per_candidate")
    user = login(client, project)
    item = take(client, project).item
    order = candidate_order(item=item, annotator_id=user.pk)
    n = len(item.payload["checklist"])
    marks = {cid: [["yes", "in_progress", "no"][k % 3]] * n for k, cid in enumerate(order)}
    assert grid_post(client, item, order, marks).status_code == 302
    label = Annotation.objects.get(annotator=user).label
    assert label["checklist_by_candidate"] == marks
    # The best candidate's row is also the label's plain checklist.
    assert label["chosen"] == order[0] and label["checklist"] == marks[order[0]]
    assert label["checklist_version"] == 1


def test_per_candidate_needs_every_cell(client, tmp_path):
    project = one_step_project(tmp_path, scope="per_candidate")
    user = login(client, project)
    item = take(client, project).item
    order = candidate_order(item=item, annotator_id=user.pk)
    n = len(item.payload["checklist"])
    marks = {cid: ["yes"] * n for cid in order}
    marks[order[1]] = ["yes"] * (n - 1)
    response = grid_post(client, item, order, marks)
    html = response.content.decode()
    assert response.status_code == 400 and "not done for candidate 2" in html
    assert not Annotation.objects.exists()


def test_validate_label_checks_marks_per_candidate(tmp_path):
    project = one_step_project(tmp_path, scope="per_candidate")
    item = project.items.get()
    a, b = ids(item)[:2]
    n = len(item.payload["checklist"])
    full = {cid: ["no"] * n for cid in ids(item)}
    ok = {"chosen": a, "checklist": ["no"] * n, "checklist_by_candidate": full}
    assert validate_label(project=project, item=item, label=ok) == ok
    for by_candidate, says in (
        ({a: ["no"] * n}, f"after candidate(s) {b}"),
        (full | {b: ["no"] * (n + 1)}, f"once after candidate(s) {b}"),
        (full | {"zz": ["no"] * n}, "Not candidates of this step: zz"),
        (full | {a: ["maybe"] * n}, "is not one of"),
    ):
        with pytest.raises(LabelError) as exc:
            validate_label(project=project, item=item, label=ok | {"checklist_by_candidate": by_candidate})
        assert says in str(exc.value)


def test_trajectory_scope_judges_the_trajectory_so_far(client, tmp_path):
    project = one_step_project(tmp_path, scope="trajectory")
    user = login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Checklist for the trajectory so far" in html and "before any candidate is taken" in html
    assert "Checklist after the best candidate" not in html and 'name="check_0"' in html
    data = {"client_id": str(uuid.uuid4()), "chosen": ids(item)[1]}
    data |= {f"check_{i}": "in_progress" for i in range(len(item.payload["checklist"]))}
    assert client.post(url("label_item", project, item.pk), data).status_code == 302
    label = Annotation.objects.get(annotator=user).label
    assert label["checklist"] == ["in_progress"] * len(item.payload["checklist"])
    assert "checklist_by_candidate" not in label


def test_manager_sets_the_scope_on_the_settings_page(client, tmp_path):
    project = one_step_project(tmp_path)
    login(client, project, Role.MANAGER)
    page = client.get(url("project_settings", project)).content.decode()
    assert 'name="checklist_scope"' in page and "the state after each candidate" in page
    form = {"name": project.name, "overlap": "2", "allow_tie": "on", "checklist_scope": "per_candidate"}
    response = client.post(url("project_settings", project), form, follow=True)
    assert "Settings saved." in response.content.decode()
    project.refresh_from_db()
    assert project.checklist_scope == "per_candidate"
    log = AuditLog.objects.filter(project=project, action="project_settings").latest("pk")
    assert "checklist_scope" in log.data["changed"]
    assert log.data["checklist_scope_from_to"] == ["chosen", "per_candidate"]

    response = client.post(url("project_settings", project), form | {"checklist_scope": "everything"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    project.refresh_from_db()
    assert project.checklist_scope == "per_candidate"


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.REVIEWER])
def test_only_managers_change_the_scope(client, tmp_path, role):
    project = one_step_project(tmp_path)
    login(client, project, role)
    form = {"name": project.name, "overlap": "2", "checklist_scope": "trajectory"}
    assert client.get(url("project_settings", project)).status_code == 404
    assert client.post(url("project_settings", project), form).status_code == 404
    project.refresh_from_db()
    assert project.checklist_scope == "chosen"


def test_pair_projects_have_no_checklist_setting(client):
    project = ProjectFactory()
    login(client, project, Role.MANAGER)
    assert 'name="checklist_scope"' not in client.get(url("project_settings", project)).content.decode()
