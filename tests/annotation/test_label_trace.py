"""The trace correction page (Agent-X) through the Django test client: import → queue → page →
verify / correct → versions, conflicts, blinding and the staff view."""

from __future__ import annotations

import json
import uuid

import pytest

from annotation.labels import TRACE_CHECKS
from annotation.models import Annotation, AnnotationRevision, Item, Role, Trajectory
from annotation.traces import trace_steps
from review.models import AuditLog
from tests.annotation.labeling_helpers import imported_project, login, take, url

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def project():
    return imported_project("trace", "traces.jsonl")


def steps_of(item):
    return trace_steps(item.trajectory_first.messages)


def checks(n, value="pass"):
    return {f"check_{i}_{name}": value for i in range(n) for name in TRACE_CHECKS}


def editor_steps(item):
    return [{k: s[k] for k in ("task", "thought", "tool", "arguments", "output")} for s in steps_of(item)]


def page(client, item):
    return client.get(url("label_item", item.project, item.pk))


def submit(client, item, **fields):
    data = {"client_id": str(uuid.uuid4()), "verdict": "correct", **checks(len(steps_of(item)))}
    data.update(fields)
    return client.post(url("label_item", item.project, item.pk), data)


def correction(item, steps=None, **fields):
    steps = editor_steps(item) if steps is None else steps
    return {
        "verdict": "corrected",
        "base_trajectory": str(item.trajectory_first_id),
        "steps_json": json.dumps(steps),
        "final_value": "$100.788",
        "final_justification": "4 bottles times $25.197.",
        "edit_reason": "final_answer",
        **fields,
    }


def held_item(client, project, external_id=None):
    """Take items from the queue until the wanted one (or any) is held."""
    for _ in range(20):
        assignment = take(client, project)
        if external_id is None or assignment.item.external_id == external_id:
            return assignment.item
        client.post(url("skip_item", project, assignment.item_id), {"reason": "not this one"})
    raise AssertionError(f"{external_id} never came up")


def test_page_shows_query_media_registry_steps_and_final_answer(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0002")
    html = page(client, item).content.decode()
    assert item.task.instruction in html
    for path in item.task.media:
        assert f"/p/{project.slug}/media/{path}" in html
    assert html.count('class="trace-medium"') == 2
    assert 'id="tool-registry"' in html and 'data-tool="ObjectCounter"' in html
    for n, step in enumerate(steps_of(item), 1):
        assert f'data-step="{n}"' in html and step["task"] in html and step["thought"] in html
    assert "$50.394" in html and "2 bottles times $25.197." in html
    assert 'id="label-form"' in html and 'name="verdict"' in html and 'id="save"' in html
    assert 'data-check="tool_choice"' in html and 'name="check_1_evidence"' in html
    assert 'id="trace-data"' in html and 'id="steps-json"' in html


def test_blinding_no_reference_answer_for_annotators(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0000")
    html = page(client, item).content.decode()
    assert item.gold["reference_answer"] == "$100.788"
    assert "100.788" not in html and "reference_answer" not in html and "Reference answer" not in html


def test_hallucinated_tool_and_malformed_arguments_are_flagged(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0003")
    html = page(client, item).content.decode()
    assert 'data-flag="hallucinated"' in html and "Table Search Tool" in html
    assert 'data-flag="malformed"' in html
    assert html.count('data-flag="hallucinated"') == 1


def test_verify_only_submit_stores_checks_and_verdict(client, project):
    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    data = checks(2)
    data["check_1_output_alignment"] = "fail"
    data["check_1_note"] = "2 bottles per shelf, not 2 in total"
    response = submit(client, item, verdict="discard", discard_reason="unsolvable", **data)
    assert response.status_code == 302
    label = Annotation.objects.get(item=item, annotator=user).label
    assert label["verdict"] == "discard" and label["discard_reason"] == "unsolvable"
    assert len(label["checks"]) == 2 and label["checks"][1]["output_alignment"] == "fail"
    assert label["checks"][1]["note"] == "2 bottles per shelf, not 2 in total"
    assert Trajectory.objects.filter(parent__isnull=False).count() == 0


def test_correct_with_a_failed_check_is_refused(client, project):
    login(client, project)
    item = held_item(client, project)
    data = checks(len(steps_of(item)))
    data["check_0_tool_choice"] = "fail"
    response = submit(client, item, **data)
    assert response.status_code == 400
    assert "not correct as is" in response.content.decode()
    assert not Annotation.objects.filter(item=item).exists()


def test_missing_checks_are_named(client, project):
    login(client, project)
    item = held_item(client, project)
    response = client.post(
        url("label_item", project, item.pk), {"client_id": str(uuid.uuid4()), "verdict": "correct"}
    )
    assert response.status_code == 400
    assert "step 1: tool choice" in response.content.decode()
    assert not Annotation.objects.filter(item=item).exists()


def test_corrected_submit_creates_version_2_with_parent(client, project):
    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[0]["output"] = "4"
    steps[1]["arguments"] = json.dumps({"expression": "4*25.197"})
    response = submit(client, item, **correction(item, steps))
    assert response.status_code == 302
    assert response["Location"].endswith(f"/items/{item.pk}/label/#trace-diff")
    label = Annotation.objects.get(item=item, annotator=user).label
    corrected = Trajectory.objects.get(pk=label["corrected_trajectory"])
    assert corrected.parent_id == item.trajectory_first_id and corrected.version == 2
    assert corrected.created_by == user and corrected.edit_reasons == ["final_answer"]
    assert label["edit_reasons"] == ["final_answer"]
    new_steps = trace_steps(corrected.messages)
    assert new_steps[0]["output"] == "4" and new_steps[1]["arguments"] == {"expression": "4*25.197"}
    assert corrected.messages[0]["role"] == "user" and corrected.messages[-1]["content"] == "$100.788"
    assert corrected.n_tool_calls == 2
    assert AuditLog.objects.filter(action="trace_correct", item=item).count() == 1
    # After saving, the page shows the diff, word by word.
    html = page(client, item).content.decode()
    assert 'id="trace-diff"' in html and "<del>2</del>" in html and "<ins>4</ins>" in html
    assert "<ins>$100.788</ins>" in html


def test_editing_own_correction_makes_version_3_from_version_2(client, project):
    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[0]["output"] = "4"
    assert submit(client, item, **correction(item, steps)).status_code == 302
    annotation = Annotation.objects.get(item=item, annotator=user)
    v2 = Trajectory.objects.get(pk=annotation.label["corrected_trajectory"])
    html = page(client, item).content.decode()
    assert f'name="base_trajectory" value="{v2.pk}"' in html and 'name="version" value="1"' in html
    steps[1]["thought"] = "Four bottles at $25.197 each."
    data = correction(item, steps, base_trajectory=str(v2.pk), version="1")
    data.pop("client_id", None)
    response = client.post(url("label_item", project, item.pk), {**checks(2), **data})
    assert response.status_code == 302
    annotation.refresh_from_db()
    v3 = Trajectory.objects.get(pk=annotation.label["corrected_trajectory"])
    assert v3.parent_id == v2.pk and v3.version == 3 and annotation.version == 2
    assert AnnotationRevision.objects.filter(annotation=annotation).count() == 1


def test_bad_json_arguments_are_rejected_and_nothing_is_saved(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[1]["arguments"] = '{"expression": 4*25'
    before = Trajectory.objects.count()
    response = submit(client, item, **correction(item, steps))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Step 2: the arguments are not valid JSON" in html
    assert Trajectory.objects.count() == before and not Annotation.objects.filter(item=item).exists()
    # What the annotator typed comes back in the editor.
    assert "{\\&quot;expression\\&quot;: 4*25" in html or "4*25" in html


def test_schema_errors_and_tools_outside_the_registry_are_rejected(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[1]["arguments"] = {"expression": 42}
    steps[0]["tool"] = "Table Search Tool"
    response = submit(client, item, **correction(item, steps))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Step 1: &#x27;Table Search Tool&#x27; is not in the tool registry" in html
    assert "Step 2 (Calculator): expression: 42 is not of type &#x27;string&#x27;" in html
    assert not Annotation.objects.filter(item=item).exists()


def test_an_unchanged_correction_is_refused(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0000")
    data = correction(item, final_value="$50.394", final_justification="2 bottles times $25.197.")
    response = submit(client, item, **data)
    assert response.status_code == 400 and "Nothing was changed" in response.content.decode()


def test_second_tab_edit_gets_a_409_and_keeps_the_draft(client, project):
    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    assert submit(client, item).status_code == 302
    annotation = Annotation.objects.get(item=item, annotator=user)
    # Tab 1 saves an edit (version 1 → 2) ...
    tab1 = {**checks(2), "verdict": "discard", "discard_reason": "ambiguous_query", "version": "1"}
    assert client.post(url("label_item", project, item.pk), tab1).status_code == 302
    # ... tab 2, opened at version 1, then saves its correction.
    steps = editor_steps(item)
    steps[0]["thought"] = "DRAFT-THOUGHT: count both shelves."
    tab2 = {**checks(2), **correction(item, steps), "version": "1"}
    response = client.post(url("label_item", project, item.pk), tab2)
    assert response.status_code == 409
    html = response.content.decode()
    assert 'id="trace-conflict"' in html and "saved elsewhere" in html
    assert "Saved meanwhile" in html and "Your unsaved edits" in html and "discard" in html
    assert "DRAFT-THOUGHT" in html  # in the editor field, the diff and the editor data
    assert 'name="version" value="2"' in html
    annotation.refresh_from_db()
    assert annotation.version == 2 and annotation.label["verdict"] == "discard"
    assert Trajectory.objects.filter(parent__isnull=False).count() == 0


def test_two_tabs_submitting_first_labels_conflict(client, project):
    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    assert submit(client, item).status_code == 302
    steps = editor_steps(item)
    steps[0]["thought"] = "SECOND-TAB"
    response = submit(client, item, **correction(item, steps))
    assert response.status_code == 409 and "SECOND-TAB" in response.content.decode()
    assert Annotation.objects.get(item=item, annotator=user).label["verdict"] == "correct"


def test_two_annotators_correct_independently(client, project):
    first = login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[0]["output"] = "4"
    assert submit(client, item, **correction(item, steps)).status_code == 302
    second = login(client, project)
    while take(client, project).item_id != item.pk:
        pass
    steps[0]["output"] = "3"
    assert submit(client, item, **correction(item, steps)).status_code == 302
    versions = {
        a.annotator_id: Trajectory.objects.get(pk=a.label["corrected_trajectory"])
        for a in Annotation.objects.filter(item=item)
    }
    assert {t.parent_id for t in versions.values()} == {item.trajectory_first_id}
    assert versions[first.pk].pk != versions[second.pk].pk


def test_evidence_url_and_screenshot(client, project):
    from django.core.files.uploadedfile import SimpleUploadedFile

    user = login(client, project)
    item = held_item(client, project, "ax-0000")
    shot = SimpleUploadedFile("shot.png", PNG, content_type="image/png")
    response = submit(client, item, evidence_url_0="https://example.org/shelf", evidence_file_1=shot)
    assert response.status_code == 302
    evidence = Annotation.objects.get(item=item, annotator=user).label["evidence"]
    assert evidence[0] == {"step": 0, "url": "https://example.org/shelf"}
    assert evidence[1]["step"] == 1 and evidence[1]["media"].startswith("evidence/")
    served = client.get(url("media_file", project, evidence[1]["media"]))
    assert served.status_code == 200 and served["Content-Type"] == "image/png"
    # Reviewers see both; the screenshot is served to members only.
    login(client, project, Role.REVIEWER)
    html = page(client, item).content.decode()
    assert 'href="https://example.org/shelf"' in html
    assert f'href="/p/{project.slug}/media/{evidence[1]["media"]}"' in html
    client.logout()
    assert client.get(url("media_file", project, evidence[1]["media"])).status_code == 302


def test_evidence_that_is_not_an_image_is_refused(client, project):
    from django.core.files.uploadedfile import SimpleUploadedFile

    login(client, project)
    item = held_item(client, project, "ax-0000")
    fake = SimpleUploadedFile("shot.png", b"<html><script>x</script>", content_type="image/png")
    response = submit(client, item, evidence_file_0=fake, evidence_url_1="javascript:alert(1)")
    assert response.status_code == 400
    html = response.content.decode()
    assert "is not a PNG image" in html and "must be an http(s) address" in html
    assert not Annotation.objects.filter(item=item).exists()


def test_staff_read_only_view_shows_reference_and_each_correction_diff(client, project):
    login(client, project)
    item = held_item(client, project, "ax-0000")
    steps = editor_steps(item)
    steps[0]["output"] = "4"
    assert submit(client, item, **correction(item, steps)).status_code == 302
    reviewer = login(client, project, Role.REVIEWER)
    assert reviewer
    response = page(client, item)
    html = response.content.decode()
    assert response.status_code == 200 and "Read-only view" in html
    assert 'id="reference-answer"' in html and "$100.788" in html
    assert 'class="card staff-correction"' in html and "<ins>4</ins>" in html
    assert 'id="label-form"' not in html and 'name="check_0_tool_choice"' not in html
    post = client.post(url("label_item", project, item.pk), {"verdict": "correct"})
    assert post.status_code == 403


def test_hostile_content_renders_as_text(client, project):
    hostile = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    item = Item.objects.get(project=project, external_id="ax-0003")
    messages = item.trajectory_first.messages
    messages[0]["content"] = hostile
    messages[1]["content"] = hostile
    messages[1]["reasoning"] = hostile
    messages[1]["tool_calls"][0]["arguments"] = {"text": hostile}
    messages[2]["content"] = hostile
    messages[5]["tool_calls"][0]["name"] = hostile
    messages[-1]["content"] = hostile
    item.trajectory_first.save()
    item.task.instruction = hostile
    item.task.save()
    item.payload = {"final_answer": {"value": hostile, "justification": hostile}}
    item.save()
    login(client, project)
    held_item(client, project, "ax-0003")
    html = page(client, item).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    # The editor's data is JSON in a script element, with < > & escaped.
    assert "\\u003Cscript\\u003E" in html


def test_video_gets_a_player_and_images_sit_side_by_side(client, project):
    item = Item.objects.get(project=project, external_id="ax-0005")
    item.task.media = ["media/ax-0005.1.png", "media/clip.mp4"]
    item.task.save()
    login(client, project)
    held_item(client, project, "ax-0005")
    html = page(client, item).content.decode()
    assert f'<video controls preload="none" src="/p/{project.slug}/media/media/clip.mp4">' in html
    assert 'id="trace-media"' in html and html.count('class="trace-medium"') == 2


def test_hostile_tool_registry_renders_as_text(client, project):
    hostile = '"><script>alert(1)</script>'
    item = Item.objects.get(project=project, external_id="ax-0000")
    env = item.task.tool_env
    env.tools = [*env.tools, {"name": hostile, "description": hostile, "parameters": {"title": hostile}}]
    env.save()
    login(client, project)
    held_item(client, project, "ax-0000")
    html = page(client, item).content.decode()
    assert "<script>alert(1)" not in html
    assert 'data-tool="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in html


def test_a_trace_without_registry_or_agentx_shape_still_renders(client):
    from tests.factories import ProjectFactory, TaskFactory, TrajectoryFactory

    project = ProjectFactory(kind="trace")
    item = Item.objects.create(
        project=project,
        kind="trace",
        external_id="ax-1",
        task=TaskFactory(project=project, instruction="How many <b>bottles</b>?"),
        payload={"final_answer": {"value": "<script>x()</script>", "justification": "Counted twice."}},
        gold={"reference_answer": "secret-gold-answer"},
        trajectory_first=TrajectoryFactory(project=project, source={"model": "hidden-model"}),
    )
    login(client, project)
    take(client, project)
    response = page(client, item)
    html = response.content.decode()
    assert response.status_code == 200 and "This trace has no tool registry" in html
    assert "How many &lt;b&gt;bottles&lt;/b&gt;" in html and "&lt;script&gt;x()&lt;/script&gt;" in html
    assert "hidden-model" not in html and "secret-gold-answer" not in html
    assert client.post(url("label_item", project, item.pk), {"preferred": "A"}).status_code == 400
