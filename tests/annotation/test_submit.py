"""Submitting and editing labels: validated, idempotent, never silently overwritten."""

from __future__ import annotations

import uuid

import pytest

from annotation.models import Annotation, AnnotationRevision
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit
from annotation.services.queue import item_assign
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db
GOOD = {"preferred": "first", "tags": {"first": [], "second": ["numeric_error"]}, "confidence": 4}


@pytest.fixture
def leased():
    project = ProjectFactory(overlap=2, label_schema={"allow_tie": False})
    item = PairItemFactory(project=project)
    user = MembershipFactory(project=project).user
    item_assign(project=project, annotator=user)
    return project, item, user


def test_submit_records_label_and_display_order(leased):
    project, item, user = leased
    result = annotation_submit(
        item=item, annotator=user, label=GOOD, client_id=uuid.uuid4(), seconds_spent=42
    )
    ann = result.annotation
    assert result.created and ann.label == GOOD and ann.seconds_spent == 42
    assert ann.display_order == item.assignments.get(annotator=user).display_order


def test_same_client_id_twice_stores_one_label(leased):
    project, item, user = leased
    cid = uuid.uuid4()
    first = annotation_submit(item=item, annotator=user, label=GOOD, client_id=cid)
    again = annotation_submit(item=item, annotator=user, label=GOOD, client_id=cid)
    assert not again.created and again.annotation.pk == first.annotation.pk
    assert Annotation.objects.count() == 1


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"preferred": "A"}, "preferred"),
        ({"preferred": "tie"}, "preferred"),  # ties are off in this project
        ({"preferred": "first", "tags": {"first": ["made_up_tag"]}}, "tags.first"),
        ({"preferred": "first", "confidence": 9}, "confidence"),
    ],
)
def test_bad_labels_are_refused_with_the_field(leased, bad, field):
    project, item, user = leased
    with pytest.raises(SubmitError) as info:
        annotation_submit(item=item, annotator=user, label=bad, client_id=uuid.uuid4())
    assert field in info.value.errors
    assert not Annotation.objects.exists()


def test_submit_without_assignment_is_refused():
    project = ProjectFactory()
    item = PairItemFactory(project=project)
    user = MembershipFactory(project=project).user
    with pytest.raises(SubmitError, match="not assigned"):
        annotation_submit(item=item, annotator=user, label=GOOD, client_id=uuid.uuid4())


def test_edit_keeps_revision_and_refuses_stale_version(leased):
    project, item, user = leased
    ann = annotation_submit(item=item, annotator=user, label=GOOD, client_id=uuid.uuid4()).annotation
    changed = {**GOOD, "preferred": "second"}
    annotation_edit(
        annotation=ann, editor=user, label=changed, rationale="misread step 3", expected_version=1
    )
    ann.refresh_from_db()
    assert ann.version == 2 and ann.label == changed
    assert AnnotationRevision.objects.get(annotation=ann).label == GOOD
    with pytest.raises(SubmitError, match="changed elsewhere"):
        annotation_edit(annotation=ann, editor=user, label=GOOD, rationale="", expected_version=1)
    ann.refresh_from_db()
    assert ann.label == changed


def test_edit_can_raise_the_review_flag(leased):
    project, item, user = leased
    ann = annotation_submit(item=item, annotator=user, label=GOOD, client_id=uuid.uuid4()).annotation
    annotation_edit(
        annotation=ann, editor=user, label=GOOD, rationale="unsure", expected_version=1, flagged=True
    )
    ann.refresh_from_db()
    assert ann.flagged and ann.version == 2
