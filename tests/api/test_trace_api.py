"""Trace verification and correction over the API (api:item-trace): the trace page's service and
checks, JSON in and out, token auth."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.labels import TRACE_CHECKS
from annotation.models import Annotation, Item, Role, Trajectory
from annotation.services.queue import item_assign
from annotation.traces import trace_steps
from tests.annotation.labeling_helpers import imported_project, member
from tests.api.factories import token_for

pytestmark = pytest.mark.django_db

PASS = {name: "pass" for name in TRACE_CHECKS}
FAIL_ORDER = {**PASS, "step_order": "fail", "note": "steps swapped"}


@pytest.fixture
def project():
    return imported_project("trace", "traces.jsonl")


def api(user) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def held(project, user, external_id="ax-0000") -> Item:
    """Lease items from the queue until `external_id` comes up."""
    for _ in range(20):
        assignment = item_assign(project=project, annotator=user)
        if assignment.item.external_id == external_id:
            return assignment.item
        assignment.status = "skipped"
        assignment.save(update_fields=["status"])
    raise AssertionError(external_id)


def trace_url(item) -> str:
    return reverse("api:item-trace", args=[item.project.slug, item.pk])


def edited_steps(body: dict, **changes) -> list[dict]:
    """The GET's steps as the editor posts them, with `s<n>_<field>` changes."""
    steps = [{k: s[k] for k in ("task", "thought", "tool", "arguments", "output")} for s in body["steps"]]
    for key, value in changes.items():
        n, name = key.split("_", 1)
        steps[int(n[1:]) - 1][name] = value
    return steps


def correction(body: dict, **changes) -> dict:
    return {
        "verdict": "corrected",
        "checks": [PASS, FAIL_ORDER],
        "steps": edited_steps(body, **changes),
        "final_answer": {"value": "$100.788", "justification": "4 bottles at $25.197."},
        "edit_reasons": ["tool_output", "other: recounted the bottles"],
        "client_id": str(uuid.uuid4()),
    }


def test_get_shows_numbered_steps_registry_and_final_answer_blinded(project):
    user = member(project)
    item = held(project, user)
    body = api(user).get(trace_url(item)).json()

    assert [s["n"] for s in body["steps"]] == [1, 2]
    assert body["steps"][0]["tool"] == "ObjectCounter" and body["steps"][1]["output"] == "50.394"
    assert "Calculator" in body["registry"] and body["final_answer"]["value"] == "$50.394"
    assert body["base_trajectory"] == item.trajectory_first_id
    assert body["my_annotation"] is None and body["my_correction"] is None
    # Blinding: no reference answer, no other people's labels, no source.
    assert "reference_answer" not in body and "labels" not in body
    assert "$100.788" not in str(body) and "source" not in body


def test_correction_creates_version_2_with_parent(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    body = client.get(trace_url(item)).json()

    response = client.post(trace_url(item), correction(body, s1_output="4"), format="json")

    assert response.status_code == 201, response.json()
    saved = response.json()
    fix = saved["my_correction"]
    trajectory = Trajectory.objects.get(pk=fix["trajectory"])
    assert trajectory.parent_id == item.trajectory_first_id and trajectory.version == 2
    assert trajectory.created_by == user
    assert fix["version"] == 2 and fix["steps"][0]["output"] == "4"
    assert fix["final_answer"]["value"] == "$100.788"
    label = Annotation.objects.get(item=item, annotator=user).label
    assert label["verdict"] == "corrected" and label["corrected_trajectory"] == trajectory.pk
    assert label["edit_reasons"] == ["tool_output", "other: recounted the bottles"]
    assert label["checks"][1]["step_order"] == "fail" and label["checks"][1]["note"] == "steps swapped"
    # The next edit starts from the saved correction.
    assert saved["base_trajectory"] == trajectory.pk and saved["my_annotation"]["version"] == 1


def test_repeat_with_the_same_client_id_is_harmless(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    data = correction(client.get(trace_url(item)).json(), s1_output="4")

    first = client.post(trace_url(item), data, format="json")
    again = client.post(trace_url(item), data, format="json")

    assert first.status_code == 201 and again.status_code == 200
    assert Annotation.objects.filter(item=item).count() == 1
    assert Trajectory.objects.filter(parent=item.trajectory_first).count() == 1


def test_edit_with_stale_version_is_409_and_writes_nothing(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    body = client.get(trace_url(item)).json()
    client.post(trace_url(item), correction(body, s1_output="4"), format="json")
    # Another tab edits: version 2.
    opened = client.get(trace_url(item)).json()
    edit = {**correction(opened, s1_output="5"), "version": 1}
    edit.pop("client_id")
    assert client.post(trace_url(item), edit, format="json").status_code == 200
    trajectories = Trajectory.objects.count()

    stale = {**correction(opened, s1_output="6"), "version": 1}
    stale.pop("client_id")
    response = client.post(trace_url(item), stale, format="json")

    assert response.status_code == 409
    assert response.json()["current"]["version"] == 2
    assert Trajectory.objects.count() == trajectories
    annotation = Annotation.objects.get(item=item, annotator=user)
    assert annotation.version == 2
    saved = Trajectory.objects.get(pk=annotation.label["corrected_trajectory"])
    assert trace_steps(saved.messages)[0]["output"] == "5" and saved.version == 3


def test_second_first_save_without_version_is_a_conflict(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    client.post(
        trace_url(item), {"verdict": "correct", "checks": [PASS, PASS], "client_id": str(uuid.uuid4())}
    )

    response = client.post(
        trace_url(item),
        {"verdict": "discard", "discard_reason": "unsolvable", "client_id": str(uuid.uuid4())},
        format="json",
    )

    assert response.status_code == 409 and response.json()["current"]["label"]["verdict"] == "correct"


def test_bad_arguments_json_is_400_naming_the_field(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    data = correction(client.get(trace_url(item)).json(), s2_arguments='{"expression": ')

    response = client.post(trace_url(item), data, format="json")

    assert response.status_code == 400
    assert "steps.2.arguments" in response.json()["errors"]
    assert not Annotation.objects.filter(item=item).exists()
    assert not Trajectory.objects.filter(parent=item.trajectory_first).exists()


def test_tool_outside_the_registry_is_400(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    data = correction(client.get(trace_url(item)).json(), s1_tool="MagicCounter")

    response = client.post(trace_url(item), data, format="json")

    assert response.status_code == 400 and "steps.1.tool" in response.json()["errors"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"verdict": "correct", "checks": [PASS, FAIL_ORDER]}, "verdict"),
        ({"verdict": "correct", "checks": [PASS]}, "checks"),
        ({"verdict": "discard"}, "discard_reason"),
        (
            {"verdict": "correct", "checks": [PASS, PASS], "evidence": [{"step": 0, "url": "javascript:x"}]},
            "evidence.0",
        ),
    ],
)
def test_page_checks_apply(project, data, field):
    user = member(project)
    item = held(project, user)

    response = api(user).post(trace_url(item), {**data, "client_id": str(uuid.uuid4())}, format="json")

    assert response.status_code == 400 and field in response.json()["errors"], response.json()
    assert not Annotation.objects.filter(item=item).exists()


def test_unknown_edit_reason_and_missing_client_id_are_400(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    data = correction(client.get(trace_url(item)).json(), s1_output="4")

    unknown = client.post(trace_url(item), {**data, "edit_reasons": ["vibes"]}, format="json")
    data.pop("client_id")
    no_id = client.post(trace_url(item), data, format="json")

    assert unknown.status_code == 400 and "edit_reasons" in unknown.json()["errors"]
    assert no_id.status_code == 400 and "client_id" in no_id.json()


def test_verify_with_evidence_url_and_discard(project):
    user = member(project)
    item = held(project, user)
    data = {
        "verdict": "correct",
        "checks": [PASS, PASS],
        "evidence": [{"step": 1, "url": "https://example.org/price"}],
        "client_id": str(uuid.uuid4()),
    }
    assert api(user).post(trace_url(item), data, format="json").status_code == 201
    label = Annotation.objects.get(item=item, annotator=user).label
    assert label["evidence"] == [{"step": 1, "url": "https://example.org/price"}]


def test_annotators_never_see_others_labels_and_cannot_open_unheld_items(project):
    user, other = member(project), member(project)
    item = held(project, user)
    held(project, other)
    api(other).post(
        trace_url(item), {"verdict": "correct", "checks": [PASS, PASS], "client_id": str(uuid.uuid4())}
    )
    body = api(user).get(trace_url(item)).json()
    assert body["my_annotation"] is None and "labels" not in body

    stranger = member(project)
    assert api(stranger).get(trace_url(item)).status_code == 404


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.MANAGER])
def test_staff_read_everything_but_cannot_save(project, role):
    user = member(project)
    item = held(project, user)
    client = api(user)
    client.post(trace_url(item), correction(client.get(trace_url(item)).json(), s1_output="4"), format="json")
    staff = api(member(project, role))

    body = staff.get(trace_url(item)).json()
    response = staff.post(trace_url(item), {"verdict": "correct", "client_id": str(uuid.uuid4())})

    assert body["reference_answer"] == "$100.788"
    assert [label["correction"]["version"] for label in body["labels"]] == [2]
    assert response.status_code == 403


def test_other_kinds_and_annotation_list_refuse_trace_labels(project):
    user = member(project)
    item = held(project, user)
    response = api(user).post(
        reverse("api:annotation-list", args=[project.slug]),
        {"item": item.pk, "label": {"verdict": "correct"}, "client_id": str(uuid.uuid4())},
        format="json",
    )
    assert response.status_code == 400 and "item-trace" in str(response.json()["label"])
    assert not Annotation.objects.filter(item=item).exists()


def test_correction_that_changes_nothing_is_400(project):
    user = member(project)
    item = held(project, user)
    client = api(user)
    body = client.get(trace_url(item)).json()
    data = {**correction(body), "final_answer": body["final_answer"]}

    response = client.post(trace_url(item), data, format="json")

    assert response.status_code == 400 and "steps" in response.json()["errors"]
    assert not Trajectory.objects.filter(parent=item.trajectory_first).exists()
