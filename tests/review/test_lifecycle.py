"""Item lifecycle: every change goes through one service and leaves an audit-log row."""

from __future__ import annotations

import uuid

import pytest

from annotation.models import ItemState
from annotation.services.annotations import annotation_submit
from annotation.services.queue import item_assign
from review.lifecycle import (
    REASON_DISAGREE,
    REASON_FLAG,
    REASON_FLIP,
    REASON_TAGS,
    IllegalTransition,
    agreement_share,
    item_reopen,
    item_transition,
    label_groups,
    majority_label,
    settle_reasons,
)
from review.models import AuditLog
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory
from tests.review.factories import other_item, settled_by_rules

pytestmark = pytest.mark.django_db


def label(preferred, first=(), second=(), confidence=4):
    return {
        "preferred": preferred,
        "tags": {"first": list(first), "second": list(second)},
        "confidence": confidence,
    }


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


# --- every rule, its reason, and what the log keeps -------------------------------------------


@pytest.mark.parametrize(
    ("labels", "gold", "flagged", "expected"),
    [
        ([label("first"), label("first")], "first", False, []),
        ([label("first"), label("second")], "first", False, [REASON_DISAGREE]),
        ([label("first", ["tool_hallucination"]), label("first")], "first", False, [REASON_TAGS]),
        ([label("second"), label("second")], "first", False, [REASON_FLIP]),
        ([label("tie"), label("tie")], "first", False, [REASON_FLIP]),
        ([label("second"), label("second")], None, False, []),
        ([label("first"), label("first")], "first", True, [REASON_FLAG]),
        (
            [label("first", second=["numeric_error"]), label("second")],
            "first",
            True,
            [REASON_DISAGREE, REASON_TAGS, REASON_FLAG],
        ),
    ],
    ids=["agree", "disagree", "tags", "flip", "tie-vs-gold", "no-gold", "flag", "several"],
)
def test_settle_reasons(labels, gold, flagged, expected):
    item = PairItemFactory.build(gold={"preferred": gold} if gold else {})
    assert settle_reasons(item, labels, flagged) == expected


def test_adjudication_entry_keeps_reasons_and_agreement():
    project = ProjectFactory(overlap=3)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first"), label("second"), label("first")])
    assert item.state == ItemState.ADJUDICATION
    row = AuditLog.objects.filter(item=item, to_state=ItemState.ADJUDICATION).get()
    assert row.reason == "annotators disagree"
    assert row.data["reasons"] == ["annotators disagree"]
    assert row.data["agreement"] == pytest.approx(2 / 3)


def test_other_kinds_follow_the_same_rules():
    project = ProjectFactory(kind="pca", overlap=2)
    agreeing, split = other_item(project, "pca"), other_item(project, "pca")
    pca = {"perception": 1, "cognition": 0, "action": 1}
    settled_by_rules(agreeing, [pca, dict(pca)])
    settled_by_rules(split, [pca, {**pca, "action": 0}])
    agreeing.refresh_from_db()
    split.refresh_from_db()
    assert agreeing.state == ItemState.VERIFIED
    assert agreeing.settled_label == pca
    assert split.state == ItemState.ADJUDICATION


def test_agreement_share_majority_and_groups():
    labels = [label("first"), label("second"), label("first", confidence=2)]
    assert agreement_share("pair", labels) == pytest.approx(2 / 3)
    assert agreement_share("pair", []) is None
    assert majority_label("pair", labels) == {"preferred": "first", "tags": {"first": [], "second": []}}
    assert label_groups("pair", labels) == [[0, 2], [1]]
    assert majority_label("pair", labels[:2]) is None  # 1–1: no majority
    pca = [{"perception": 1, "cognition": 1, "action": 0}, {"perception": 1, "cognition": 1, "action": 1}]
    assert agreement_share("pca", pca) == 0.5


# --- re-opening ------------------------------------------------------------------------------


def test_reopen_a_verified_item_clears_its_settled_label():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    annotate(project, item, [label("first"), label("first")])
    reviewer = MembershipFactory(project=project, role="reviewer").user
    item_reopen(item=item, actor=reviewer, reason="audit found the budget was exceeded")
    item.refresh_from_db()
    assert (item.state, item.settled_label, item.settled_at) == (ItemState.ADJUDICATION, {}, None)
    row = AuditLog.objects.filter(item=item).last()
    assert (row.actor, row.from_state, row.to_state, row.reason) == (
        reviewer,
        "verified",
        "adjudication",
        "audit found the budget was exceeded",
    )


def test_reopen_needs_a_reason_and_a_settled_item():
    project = ProjectFactory()
    user = MembershipFactory(project=project, role="reviewer").user
    open_item = PairItemFactory(project=project, state=ItemState.ANNOTATING)
    with pytest.raises(IllegalTransition, match="Only verified or discarded"):
        item_reopen(item=open_item, actor=user, reason="why not")
    verified = PairItemFactory(
        project=project, state=ItemState.VERIFIED, settled_label={"preferred": "first"}
    )
    with pytest.raises(IllegalTransition, match="needs a reason"):
        item_reopen(item=verified, actor=user, reason="  ")
    verified.refresh_from_db()
    assert verified.state == ItemState.VERIFIED
    assert not AuditLog.objects.filter(item__in=[open_item, verified]).exists()


def test_reopen_a_discarded_item_clears_the_discard_reason():
    project = ProjectFactory()
    user = MembershipFactory(project=project, role="reviewer").user
    item = PairItemFactory(project=project)
    item_transition(item=item, to_state=ItemState.DISCARDED, actor=user, reason="looked broken")
    item_reopen(item=item, actor=user, reason="the tool output was fine after all")
    item.refresh_from_db()
    assert (item.state, item.discard_reason) == (ItemState.ADJUDICATION, "")
