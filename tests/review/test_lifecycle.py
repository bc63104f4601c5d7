"""Item lifecycle: every change goes through one service and leaves an audit-log row."""

from __future__ import annotations

import uuid

import pytest

from annotation.models import ItemState
from annotation.services.annotations import annotation_submit
from annotation.services.queue import item_assign
from review.lifecycle import IllegalTransition, item_transition
from review.models import AuditLog
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def label(preferred, first=(), second=()):
    return {"preferred": preferred, "tags": {"first": list(first), "second": list(second)}, "confidence": 4}


def annotate(project, item, labels, flagged=False):
    users = []
    for lab in labels:
        user = MembershipFactory(project=project).user
        lease = item_assign(project=project, annotator=user)
        assert lease.item_id == item.pk
        annotation_submit(item=item, annotator=user, label=lab, client_id=uuid.uuid4(), flagged=flagged)
        users.append(user)
    item.refresh_from_db()
    return users


def reasons(item):
    return list(AuditLog.objects.filter(item=item, action="state").values_list("to_state", "reason"))


def test_agreeing_labels_verify_the_item():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first"), label("first")])
    assert item.state == ItemState.VERIFIED
    assert reasons(item) == [("annotating", "first annotation"), ("verified", "annotators agree")]


def test_one_annotation_is_not_enough_with_overlap_two():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first")])
    assert item.state == ItemState.ANNOTATING


def test_disagreement_goes_to_adjudication():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first"), label("second")])
    assert item.state == ItemState.ADJUDICATION
    assert "annotators disagree" in reasons(item)[-1][1]


def test_critical_tag_conflict_goes_to_adjudication():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first", second=["constraint_violation"]), label("first")])
    assert item.state == ItemState.ADJUDICATION
    assert "critical tags conflict" in reasons(item)[-1][1]


def test_consensus_against_gold_is_a_label_flip():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project, gold={"preferred": "first"})
    annotate(project, item, [label("second"), label("second")])
    assert item.state == ItemState.ADJUDICATION
    assert "label flip" in reasons(item)[-1][1]


def test_flag_sends_item_to_review():
    project = ProjectFactory(overlap=1)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first")], flagged=True)
    assert item.state == ItemState.ADJUDICATION
    assert "flagged" in reasons(item)[-1][1]


def test_illegal_transition_is_refused_and_logs_nothing():
    project = ProjectFactory()
    item = PairItemFactory(project=project, state=ItemState.VERIFIED)
    user = MembershipFactory(project=project).user
    with pytest.raises(IllegalTransition):
        item_transition(item=item, to_state=ItemState.ANNOTATING, actor=user, reason="")
    with pytest.raises(IllegalTransition, match="reason"):
        item_transition(item=item, to_state=ItemState.DISCARDED, actor=user, reason=" ")
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    assert not AuditLog.objects.filter(item=item).exists()


def test_discard_records_who_and_why():
    project = ProjectFactory()
    item = PairItemFactory(project=project)
    user = MembershipFactory(project=project).user
    item_transition(item=item, to_state=ItemState.DISCARDED, actor=user, reason="duplicate of pair-7")
    row = AuditLog.objects.get(item=item)
    assert (row.actor, row.from_state, row.to_state, row.reason) == (
        user,
        "new",
        "discarded",
        "duplicate of pair-7",
    )


def test_verified_item_keeps_the_consensus_label():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(
        project, item, [label("first", second=["numeric_error"]), label("first", second=["numeric_error"])]
    )
    assert item.settled_label == {"preferred": "first", "tags": {"first": [], "second": ["numeric_error"]}}
    assert item.settled_at is not None


def test_verifying_without_a_label_is_refused():
    project = ProjectFactory()
    item = PairItemFactory(project=project)
    user = MembershipFactory(project=project).user
    with pytest.raises(IllegalTransition, match="label"):
        item_transition(item=item, to_state=ItemState.VERIFIED, actor=user, reason="looks fine")
