"""The P/C/A labeling page (PCA-Bench) through the Django test client: import → queue → page →
label → lifecycle."""

from __future__ import annotations

import json
import uuid

import pytest

from annotation.models import Annotation, AnnotationRevision, Item, ItemState, Role
from annotation.rendering.pca import chosen_action, highlight, stem
from tests.annotation.import_helpers import fixture_lines, run, write_jsonl
from tests.annotation.labeling_helpers import imported_project, login, take, url
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert('x')</script>"


@pytest.fixture
def project():
    return imported_project("pca", "pca.jsonl")


def pca_post(client, item, headers=None, **fields):
    data = {
        "client_id": str(uuid.uuid4()),
        "perception": "1",
        "cognition": "1",
        "action": "1",
        "evidence_perception": "names the clear road",
        "evidence_cognition": "no obstacle, so keep going",
        "evidence_action": "Keep driving is correct",
    }
    data.update(fields)
    return client.post(url("label_item", item.project, item.pk), data, **(headers or {}))


def record(item: Item) -> dict:
    return item.payload["instance"] | {"text": item.payload["output"]["text"]}


# --- the rendering helpers ----------------------------------------------------------------


def test_stemming_folds_common_inflections():
    assert stem("Crosswalks") == stem("crosswalk")
    assert stem("driving") == stem("drive") == stem("drives")
    assert stem("pedestrians") == stem("pedestrian")


def test_highlight_marks_concepts_tolerantly_and_escapes_everything():
    html, found = highlight(
        "Two <b>Crosswalks</b>, no Pedestrians & clear  roads.",
        ["crosswalk", "no pedestrians", "clear road", "tree"],
    )
    assert '<mark class="concept">Crosswalks</mark>' in html
    assert '<mark class="concept">no Pedestrians</mark>' in html
    assert '<mark class="concept">clear  roads</mark>' in html
    assert "&lt;b&gt;" in html and "<b>" not in html and "&amp;" in html
    assert found == ["crosswalk", "no pedestrians", "clear road"]
    html, _ = highlight(HOSTILE, [HOSTILE, "script"])
    assert "<script>" not in html and "&lt;" in html


@pytest.mark.parametrize(
    ("text", "chosen"),
    [
        ("Final action: Keep driving", "Keep driving"),
        ("I could slow down or keep driving. Final answer: slow down.", "Slow down"),
        ("Slow down and keep driving", None),  # two candidates, no cue
        ("Stop the car now.", "Stop the car"),  # "Stop" inside "Stop the car" is one mention
        ("No idea.", None),
    ],
)
def test_chosen_action_is_read_from_the_answer(text, chosen):
    assert chosen_action(text, ["Slow down", "Keep driving", "Stop", "Stop the car"]) == chosen


# --- the page -------------------------------------------------------------------------------


def test_page_shows_instance_answer_and_rubric_with_concepts_and_prefilled_action(client, project):
    login(client, project)
    item = take(client, project).item
    r = record(item)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "label-form" in html and f"/p/{project.slug}/media/{r['image']}" in html
    assert r["question"] in html
    for candidate in r["candidates"]:
        assert candidate in html
    assert "Rubric" in html and r["reason"] in html and r["answer"] in html
    for concept in r["key_concepts"]:
        assert concept in html
    chosen = chosen_action(r["text"], r["candidates"])
    assert chosen is not None  # every fixture answer ends in "Final action: ..."
    expected = "1" if chosen == r["answer"] else "0"
    assert f'name="action" value="{expected}" checked' in html.replace(" required", "")
    assert 'name="perception" value="1" checked' not in html.replace(" required", "")


def test_key_concepts_are_highlighted_in_the_answer(client, tmp_path):
    project = ProjectFactory(kind="pca", overlap=1)
    lines = [line for line in fixture_lines("pca.jsonl") if line["id"] == "pca-traffic-0001"]
    assert run(project, write_jsonl(tmp_path / "pca.jsonl", lines), media_dir=SHARED_FIXTURES / "media").ok
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert '<mark class="concept">Crosswalks</mark>' in html  # the concept is "crosswalk"
    assert "it chose “Slow down”, which is the correct action" in html


def test_hostile_content_renders_as_text(client, tmp_path):
    project = ProjectFactory(kind="pca", overlap=1)
    line = fixture_lines("pca.jsonl")[0]
    line["id"] = "pca-hostile"
    line["instance"] |= {
        "question": f"Q {HOSTILE}",
        "context": "ctx <img src=x onerror=alert(1)>",
        "candidates": ["Keep driving", f"Go {HOSTILE}"],
        "reason": f"R {HOSTILE}",
        "key_concepts": ["clear road", "<b>bold</b>"],
    }
    line["output"] = {
        "model": f"m {HOSTILE}",
        "text": f"I see clear road {HOSTILE}. Final action: Keep driving",
    }
    path = write_jsonl(tmp_path / "pca.jsonl", [line])
    assert run(project, path, media_dir=SHARED_FIXTURES / "media").ok
    login(client, project)
    item = take(client, project).item
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert '<mark class="concept">clear road</mark>' in html


def test_a_correct_action_outside_the_candidates_is_flagged_on_the_page(client, tmp_path):
    project = ProjectFactory(kind="pca", overlap=1)
    line = fixture_lines("pca.jsonl")[0]
    assert run(project, write_jsonl(tmp_path / "pca.jsonl", [line]), media_dir=SHARED_FIXTURES / "media").ok
    login(client, project)
    item = take(client, project).item
    # The importer rejects this; an item changed afterwards (admin, data fix) still shows it.
    item.payload["instance"]["candidates"] = ["Slow down", "Stop the car"]
    item.save(update_fields=["payload"])
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "The correct action is not one of the candidates" in html


# --- submitting -------------------------------------------------------------------------------


def test_submit_stores_canonical_label_with_evidence_and_moves_on(client, project):
    user = login(client, project)
    item = take(client, project).item
    response = pca_post(client, item, cognition="0", evidence_cognition="reasoning\nskips the sign")
    assert response.status_code == 302 and response["Location"] == url("queue_next", project)
    annotation = Annotation.objects.get(item=item, annotator=user)
    assert annotation.label == {
        "perception": 1,
        "cognition": 0,
        "action": 1,
        "evidence": {
            "perception": "names the clear road",
            "cognition": "reasoning skips the sign",
            "action": "Keep driving is correct",
        },
    }
    # A was pre-filled from the answer: the label records it and whether it was changed.
    r = record(item)
    proposed = int(chosen_action(r["text"], r["candidates"]) == r["answer"])
    assert annotation.prefill["proposed"] == {"action": proposed}
    assert annotation.prefill["changed"] == (proposed != 1)
    item.refresh_from_db()
    assert item.state == ItemState.ANNOTATING


def test_submit_is_idempotent_and_htmx_swaps_the_next_item(client, project):
    user = login(client, project)
    item = take(client, project).item
    client_id = str(uuid.uuid4())
    response = pca_post(client, item, client_id=client_id, headers={"headers": {"HX-Request": "true"}})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="label-page"' in html and "Here is the next item" in html and "<html" not in html
    assert response["HX-Push-Url"] != url("label_item", project, item.pk)
    pca_post(client, item, client_id=client_id)  # a retry of the same submit
    assert Annotation.objects.filter(item=item, annotator=user).count() == 1


def test_errors_are_shown_in_place_and_nothing_is_saved(client, project):
    login(client, project)
    item = take(client, project).item
    response = pca_post(client, item, perception="", evidence_action="x" * 501)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Set perception to 1 (correct) or 0 (wrong)." in html
    assert "Keep the note to 500 characters" in html
    assert not Annotation.objects.filter(item=item).exists()
    response = pca_post(client, item, action="2", headers={"headers": {"HX-Request": "true"}})
    assert response.status_code == 200 and response["HX-Retarget"] == "#label-form"
    assert "Set action to 1" in response.content.decode()


def test_edit_with_optimistic_version(client, project):
    user = login(client, project)
    item = take(client, project).item
    pca_post(client, item)
    annotation = Annotation.objects.get(item=item, annotator=user)
    html = client.get(url("label_item", project, item.pk)).content.decode()
    assert "Edit your label" in html and 'value="names the clear road"' in html
    response = pca_post(client, item, version=str(annotation.version), perception="0")
    assert response.status_code == 302
    annotation.refresh_from_db()
    assert annotation.label["perception"] == 0
    assert AnnotationRevision.objects.filter(annotation=annotation).exists()
    stale = pca_post(client, item, version=str(annotation.version - 1), perception="1")
    assert stale.status_code == 409
    annotation.refresh_from_db()
    assert annotation.label["perception"] == 0


# --- lifecycle ----------------------------------------------------------------------------------


def _two_labels(client, project, first: dict, second: dict) -> Item:
    login(client, project)
    item = take(client, project).item
    pca_post(client, item, **first)
    login(client, project)
    assert take(client, project).item == item  # overlap 2: the open item goes to the next annotator
    pca_post(client, item, **second)
    item.refresh_from_db()
    return item


def test_two_agreeing_annotators_verify_the_item(client, project):
    item = _two_labels(
        client, project, {"cognition": "0"}, {"cognition": "0", "evidence_perception": "other words"}
    )
    assert item.state == ItemState.VERIFIED
    assert {k: item.settled_label[k] for k in ("perception", "cognition", "action")} == {
        "perception": 1,
        "cognition": 0,
        "action": 1,
    }


def test_disagreeing_annotators_send_it_to_adjudication(client, project):
    item = _two_labels(client, project, {"action": "1"}, {"action": "0"})
    assert item.state == ItemState.ADJUDICATION


# --- access -------------------------------------------------------------------------------------


def test_annotator_cannot_open_an_item_not_assigned(client, project):
    login(client, project)
    item = take(client, project).item
    other = Item.objects.filter(project=project).exclude(pk=item.pk).first()
    assert client.get(url("label_item", project, other.pk)).status_code == 404
    assert pca_post(client, other).status_code == 404


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_reviewers_and_managers_read_only(client, project, role):
    login(client, project)
    item = take(client, project).item
    pca_post(client, item, evidence_action=f"note {HOSTILE}")
    login(client, project, role)
    response = client.get(url("label_item", project, item.pk))
    html = response.content.decode()
    assert response.status_code == 200 and "Read-only view" in html
    assert 'id="label-form"' not in html and "note &lt;script&gt;" in html
    assert pca_post(client, item).status_code == 403
    assert Annotation.objects.filter(item=item).count() == 1


def test_label_schema_accepts_evidence_and_rejects_bad_shapes(project):
    from annotation.labels import LabelError, validate_label

    item = Item.objects.filter(project=project).first()
    ok = {"perception": 1, "cognition": 0, "action": 1, "evidence": {"action": "fine"}}
    assert validate_label(project=project, item=item, label=ok) == ok
    for bad in (
        {"perception": 1, "cognition": 0},
        {"perception": 2, "cognition": 0, "action": 1},
        {"perception": 1, "cognition": 0, "action": 1, "evidence": {"other": "x"}},
        {"perception": 1, "cognition": 0, "action": 1, "evidence": {"action": "x" * 501}},
    ):
        with pytest.raises(LabelError):
            validate_label(project=project, item=item, label=json.loads(json.dumps(bad)))
