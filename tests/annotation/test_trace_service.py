"""Saving trace labels (annotation.services.traces) and the TRACE part of validate_label."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.labels import TRACE_CHECKS, LabelError, validate_label
from annotation.models import Annotation, Item, Trajectory
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit
from annotation.services.queue import item_assign
from annotation.services.traces import (
    MAX_EVIDENCE_BYTES,
    Correction,
    TraceConflict,
    evidence_check,
    evidence_store,
    trace_base,
    trace_label_save,
)
from annotation.traces import trace_steps
from review.models import AuditLog
from tests.annotation.labeling_helpers import imported_project, member
from tests.factories import TrajectoryFactory

pytestmark = pytest.mark.django_db

PASS = {name: "pass" for name in TRACE_CHECKS}


@pytest.fixture
def project():
    return imported_project("trace", "traces.jsonl")


def held(project, user, external_id="ax-0000") -> Item:
    for _ in range(20):
        assignment = item_assign(project=project, annotator=user)
        if assignment.item.external_id == external_id:
            return assignment.item
        assignment.status = "skipped"
        assignment.save(update_fields=["status"])
    raise AssertionError(external_id)


def steps(item, **changes):
    out = [
        {k: s[k] for k in ("task", "thought", "tool", "arguments", "output")}
        for s in trace_steps(item.trajectory_first.messages)
    ]
    for key, value in changes.items():
        n, name = key.split("_", 1)
        out[int(n[1:]) - 1][name] = value
    return out


def submitter(item, user):
    def save(label):
        annotation_submit(item=item, annotator=user, label=label, client_id=uuid.uuid4())

    return save


def corrected(item, base=None, **changes):
    return Correction(
        steps=steps(item, **changes),
        final_answer={"value": "$100.788", "justification": "4 bottles."},
        edit_reasons=["final_answer"],
        base_trajectory_id=base or item.trajectory_first_id,
    )


def test_correction_is_a_new_version_with_parent_and_stats(project):
    user = member(project)
    item = held(project, user)
    trajectory = trace_label_save(
        item=item,
        annotator=user,
        label={"verdict": "corrected", "checks": [PASS, PASS]},
        correction=corrected(item, s1_output="4"),
        expected_version=None,
        save_label=submitter(item, user),
    )
    assert trajectory.parent_id == item.trajectory_first_id and trajectory.version == 2
    assert trajectory.created_by == user and trajectory.edit_reasons == ["final_answer"]
    assert trajectory.project_id == project.pk and trajectory.task_id == item.task_id
    assert trajectory.n_tool_calls == 2 and trajectory.n_chars > 0 and not trajectory.has_malformed_arguments
    label = Annotation.objects.get(item=item, annotator=user).label
    assert label["corrected_trajectory"] == trajectory.pk and label["edit_reasons"] == ["final_answer"]
    log = AuditLog.objects.get(action="trace_correct")
    assert log.actor == user and log.data == {
        "trajectory": trajectory.pk,
        "parent": item.trajectory_first_id,
        "version": 2,
    }
    annotation = Annotation.objects.get(item=item, annotator=user)
    assert trace_base(item=item, annotation=annotation) == trajectory


def test_a_failed_label_save_leaves_no_trajectory(project):
    user = member(project)
    item = held(project, user)
    before = Trajectory.objects.count()

    def refuse(label):
        raise SubmitError("This item is settled.", status=409)

    with pytest.raises(SubmitError):
        trace_label_save(
            item=item,
            annotator=user,
            label={"verdict": "corrected", "checks": [PASS, PASS]},
            correction=corrected(item, s1_output="4"),
            expected_version=None,
            save_label=refuse,
        )
    assert (
        Trajectory.objects.count() == before and not AuditLog.objects.filter(action="trace_correct").exists()
    )


def test_tool_outside_registry_and_bad_arguments_are_refused_by_the_server(project):
    user = member(project)
    item = held(project, user)
    correction = corrected(item, s1_tool="Table Search Tool", s2_arguments='{"expression": ')
    with pytest.raises(SubmitError) as exc:
        trace_label_save(
            item=item,
            annotator=user,
            label={"verdict": "corrected"},
            correction=correction,
            expected_version=None,
            save_label=submitter(item, user),
        )
    assert set(exc.value.errors) == {"steps.1.tool", "steps.2.arguments"}
    assert not Annotation.objects.filter(item=item).exists()


def test_stale_base_or_version_is_a_conflict(project):
    user = member(project)
    item = held(project, user)
    trace_label_save(
        item=item,
        annotator=user,
        label={"verdict": "corrected", "checks": [PASS, PASS]},
        correction=corrected(item, s1_output="4"),
        expected_version=None,
        save_label=submitter(item, user),
    )
    annotation = Annotation.objects.get(item=item, annotator=user)

    def edit(label):
        annotation_edit(annotation=annotation, editor=user, label=label, rationale="", expected_version=1)

    # Started from the original although the annotator's own v2 is saved: a stale page.
    with pytest.raises(TraceConflict) as exc:
        trace_label_save(
            item=item,
            annotator=user,
            label={"verdict": "corrected", "checks": [PASS, PASS]},
            correction=corrected(item, s1_output="5"),
            expected_version=1,
            save_label=edit,
        )
    assert exc.value.status == 409 and exc.value.current == annotation
    with pytest.raises(TraceConflict):
        trace_label_save(
            item=item,
            annotator=user,
            label={"verdict": "correct"},
            correction=None,
            expected_version=7,
            save_label=edit,
        )
    with pytest.raises(TraceConflict):
        trace_label_save(
            item=item,
            annotator=user,
            label={"verdict": "correct"},
            correction=None,
            expected_version=None,
            save_label=edit,
        )
    assert Trajectory.objects.filter(parent__isnull=False).count() == 1


def test_validate_label_trace_rules(project):
    user = member(project)
    item = held(project, user)
    other_item = Item.objects.filter(project=project).exclude(pk=item.pk).first()
    ok = {"verdict": "correct", "checks": [PASS, PASS]}
    assert validate_label(project=project, item=item, label=ok) == ok
    with pytest.raises(LabelError) as exc:
        validate_label(project=project, item=item, label={"verdict": "correct", "checks": [PASS]})
    assert "once per step of the original trace (2)" in exc.value.errors["checks"]
    with pytest.raises(LabelError) as exc:
        validate_label(project=project, item=item, label={"verdict": "discard"})
    assert "discard_reason" in str(exc.value)
    foreign = TrajectoryFactory(project=project, parent=other_item.trajectory_first, version=2)
    bad = {"verdict": "corrected", "corrected_trajectory": foreign.pk, "edit_reasons": ["x"]}
    with pytest.raises(LabelError) as exc:
        validate_label(project=project, item=item, label=bad)
    assert "new version of this item's trace" in exc.value.errors["corrected_trajectory"]
    with pytest.raises(LabelError):
        validate_label(
            project=project, item=item, label={**bad, "corrected_trajectory": item.trajectory_first_id}
        )
    mine = TrajectoryFactory(project=project, parent=item.trajectory_first, version=2)
    grandchild = TrajectoryFactory(project=project, parent=mine, version=3)
    assert validate_label(project=project, item=item, label={**bad, "corrected_trajectory": grandchild.pk})
    with pytest.raises(LabelError) as exc:
        validate_label(
            project=project, item=item, label={"verdict": "correct", "corrected_trajectory": mine.pk}
        )
    assert "Only a label with the verdict 'corrected'" in exc.value.errors["corrected_trajectory"]
    with pytest.raises(LabelError) as exc:
        validate_label(
            project=project,
            item=item,
            label={"verdict": "correct", "evidence": [{"step": 5, "url": "https://x.org"}]},
        )
    assert "the trace has 2 steps" in exc.value.errors["evidence"]


def test_evidence_files_are_checked_and_stored_in_project_media(project, settings):
    user = member(project)
    png = SimpleUploadedFile("a.png", b"\x89PNG\r\n\x1a\n" + b"0" * 10)
    path = evidence_store(project=project, upload=png, actor=user)
    stored = settings.MEDIA_ROOT / "projects" / project.slug / path
    assert path.startswith("evidence/") and path.endswith(".png") and stored.is_file()
    assert AuditLog.objects.filter(action="evidence_upload", data__media=path).exists()
    with pytest.raises(SubmitError, match="is not a screenshot"):
        evidence_check(SimpleUploadedFile("a.html", b"<html>"))
    with pytest.raises(SubmitError, match="is not a JPG image"):
        evidence_check(SimpleUploadedFile("a.jpg", b"\x89PNG\r\n\x1a\n"))
    with pytest.raises(SubmitError, match="larger than 5 MB"):
        evidence_check(SimpleUploadedFile("a.png", b"\x89PNG\r\n\x1a\n" + b"0" * MAX_EVIDENCE_BYTES))


def test_exported_shape_round_trips(project):
    """What other engineers import: corrected messages read back as the same steps."""
    user = member(project)
    item = held(project, user)
    trajectory = trace_label_save(
        item=item,
        annotator=user,
        label={"verdict": "corrected", "checks": [PASS, PASS]},
        correction=corrected(item, s2_arguments=json.dumps({"expression": "4*25.197"})),
        expected_version=None,
        save_label=submitter(item, user),
    )
    got = trace_steps(trajectory.messages)
    assert got[1]["arguments"] == {"expression": "4*25.197"}
    assert trajectory.messages[0] == item.trajectory_first.messages[0]
    assert trajectory.messages[-1] == {"role": "assistant", "content": "$100.788", "reasoning": "4 bottles."}
