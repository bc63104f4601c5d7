"""The step ranking page (Web-Shepherd) through the Django test client: import → queue → page →
label → lifecycle."""

from __future__ import annotations

import uuid

import pytest

from annotation.labels import LabelError, validate_label
from annotation.models import Annotation, Item, ItemState, Role
from annotation.rendering.step import candidate_order
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.annotation.labeling_helpers import imported_project, login, take, url
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert('x')</script>"


@pytest.fixture
def project():
    return imported_project("step", "steps.jsonl")


def ids(item):
    return [c["id"] for c in item.payload["candidates"]]


def step_post(client, item, chosen=None, **fields):
    data = {"client_id": str(uuid.uuid4()), "chosen": chosen or ids(item)[0], "rationale": "fastest"}
    data |= {f"check_{i}": "in_progress" for i in range(len(item.payload["checklist"]))}
    data.update(fields)
    return client.post(url("label_item", item.project, item.pk), data)


def positions(html, item):
    return sorted(ids(item), key=lambda cid: html.index(f'data-candidate="{cid}"'))


def test_page_shows_task_filmstrip_observation_checklist_and_candidates(client, project):
    user = login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert item.task.instruction in html and item.task.website in html and item.task.start_url in html
    obs = item.trajectory_first.messages[-1]["observation"]
    assert f"/p/{project.slug}/media/{obs['screenshot']}" in html and "Accessibility tree" in html
    for check in item.payload["checklist"]:
        assert check["title"] in html
    for c in item.payload["candidates"]:
        assert c["thought"] in html and c["action"]["name"] in html
    assert positions(html, item) == candidate_order(item=item, annotator_id=user.pk)
    assert "reference" not in html.lower() and "human-expert" not in html and "model-e-7b" not in html
    assert "Trajectory so far" in html and "<kbd>k</kbd> skip" in html


def test_filmstrip_shows_earlier_actions(client, tmp_path):
    project = ProjectFactory(kind="step", overlap=1)
    lines = [line for line in fixture_lines("steps.jsonl") if line["id"] == "wpc-00001-s1"]
    assert run(project, write_jsonl(tmp_path / "s.jsonl", lines), media_dir=SHARED_FIXTURES / "media").ok
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert 'class="frame"' in html and "click(" in html


def test_order_is_per_annotator_and_stable(client, project):
    orders = {
        tuple(
            candidate_order(
                item=Item(pk=7, payload={"candidates": [{"id": f"c{i}"} for i in range(5)]}), annotator_id=a
            )
        )
        for a in range(1, 9)
    }
    assert len(orders) > 1
    user = login(client, project)
    item = take(client, project).item
    first = client.get(url("label_item", project, item.pk)).content.decode()
    again = client.get(url("label_item", project, item.pk)).content.decode()
    assert (
        positions(first, item) == positions(again, item) == candidate_order(item=item, annotator_id=user.pk)
    )


def test_hostile_content_is_escaped(client, tmp_path):
    project = ProjectFactory(kind="step", overlap=1)
    line = fixture_lines("steps.jsonl")[0]
    line["task"]["instruction"] = f"I {HOSTILE}"
    line["checklist"][0]["title"] = f"T {HOSTILE}"
    line["candidates"][0]["thought"] = f"H {HOSTILE}"
    line["candidates"][0]["action"]["arguments"]["value"] = HOSTILE
    assert run(project, write_jsonl(tmp_path / "s.jsonl", [line]), media_dir=SHARED_FIXTURES / "media").ok
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert HOSTILE not in html and "I &lt;script&gt;" in html and "H &lt;script&gt;" in html


def test_submit_stores_canonical_ids(client, project):
    user = login(client, project)
    item = take(client, project).item
    a, b = ids(item)[:2]
    response = step_post(client, item, chosen=b, equivalent=[a], flagged="on")
    assert response.status_code == 302
    saved = Annotation.objects.get(annotator=user, item=item)
    n = len(item.payload["checklist"])
    assert saved.label == {
        "chosen": b,
        "equivalent": [a],
        "invalid": [],
        "checklist": ["in_progress"] * n,
        "checklist_version": 1,
    }
    assert saved.flagged and saved.rationale == "fastest"


@pytest.mark.parametrize(
    "fields",
    [{"chosen": "nope"}, {"invalid": ["__chosen__"]}, {"equivalent": ["zzz"]}, {"check_0": "maybe"}],
)
def test_validation_errors_change_nothing(client, project, fields):
    login(client, project)
    item = take(client, project).item
    chosen = ids(item)[0]
    fields = {k: ([chosen] if v == ["__chosen__"] else v) for k, v in fields.items()}
    response = step_post(client, item, **({"chosen": chosen} | fields))
    assert response.status_code == 400 and "Nothing was saved" in response.content.decode()
    assert not Annotation.objects.filter(item=item).exists()


def _two_labels(client, tmp_path, first, second):
    """One step item, overlap 2: two annotators pick candidate `first` and `second` (indexes)."""
    project = ProjectFactory(kind="step", overlap=2)
    lines = fixture_lines("steps.jsonl")[:1]
    assert run(project, write_jsonl(tmp_path / "s.jsonl", lines), media_dir=SHARED_FIXTURES / "media").ok
    for pick in (first, second):
        login(client, project)
        item = take(client, project).item
        assert step_post(client, item, chosen=ids(item)[pick]).status_code == 302
    item.refresh_from_db()
    return item


def test_two_agreeing_annotators_verify_the_item(client, tmp_path):
    item = _two_labels(client, tmp_path, 1, 1)
    assert item.state == ItemState.VERIFIED and item.settled_label["chosen"] == ids(item)[1]


def test_disagreeing_annotators_send_it_to_adjudication(client, tmp_path):
    assert _two_labels(client, tmp_path, 0, 1).state == ItemState.ADJUDICATION


def test_annotator_cannot_open_an_unassigned_item(client, project):
    login(client, project)
    item = take(client, project).item
    other = Item.objects.filter(project=project).exclude(pk=item.pk).first()
    assert client.get(url("label_item", project, other.pk)).status_code == 404
    assert step_post(client, other).status_code == 404


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_staff_read_only_with_gold(client, project, role):
    login(client, project)
    item = take(client, project).item
    step_post(client, item, rationale=f"why {HOSTILE}")
    login(client, project, role)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Read-only view" in html and 'id="label-form"' not in html
    assert f"Reference</dt><dd>{item.gold['chosen']}" in html and "why &lt;script&gt;" in html
    assert step_post(client, item).status_code == 403
    assert Annotation.objects.filter(item=item).count() == 1


def test_label_schema(project):
    item = Item.objects.filter(project=project).first()
    a, b = ids(item)[:2]
    n = len(item.payload["checklist"])
    ok = {"chosen": a, "equivalent": [b], "invalid": [], "checklist": ["yes"] * n}
    assert validate_label(project=project, item=item, label=ok) == ok
    for bad in (
        {"chosen": a, "invalid": [a]},
        {"chosen": a, "equivalent": [b, b]},
        {"chosen": a, "equivalent": [b], "invalid": [b]},
        {"chosen": a, "checklist": ["yes"] * (n + 1)},
        {"chosen": a, "extra": 1},
    ):
        with pytest.raises(LabelError):
            validate_label(project=project, item=item, label=bad)


def test_htmx_errors_swap_the_form_and_edit_uses_the_version(client, project):
    user = login(client, project)
    item = take(client, project).item
    a, b = ids(item)[:2]
    response = client.post(
        url("label_item", project, item.pk),
        {"client_id": str(uuid.uuid4()), "chosen": a, "invalid": [a]},
        headers={"HX-Request": "true"},
    )
    html = response.content.decode()
    assert response.status_code == 200 and 'id="label-form"' in html and "Nothing was saved" in html
    assert step_post(client, item, chosen=a).status_code == 302
    saved = Annotation.objects.get(annotator=user, item=item)
    assert step_post(client, item, chosen=b).status_code == 409  # a second label without the version
    response = step_post(client, item, chosen=b, version=str(saved.version), client_id="")
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.label["chosen"] == b


def test_label_keeps_the_candidate_order_the_annotator_saw(client, project):
    from annotation.rendering.step import candidate_order

    user = login(client, project)
    item = take(client, project).item
    assert step_post(client, item).status_code == 302
    saved = Annotation.objects.get(annotator=user, item=item)
    assert saved.display_order == candidate_order(item=item, annotator_id=user.pk)
    assert sorted(saved.display_order) == sorted(ids(item))
