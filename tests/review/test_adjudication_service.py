"""A reviewer's decision: final label or discard, validated, logged, and never applied to an
item that changed since the reviewer opened it."""

from __future__ import annotations

import pytest

from annotation.models import ItemState, Role
from review.models import Adjudication, AuditLog
from review.services import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
    adjudication_reopen,
    item_state_token,
)
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.factories import disputed_pair, other_item, pair_label, settled_by_rules

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory(overlap=2)


@pytest.fixture
def reviewer(project):
    return MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita").user


@pytest.fixture
def item(project):
    return disputed_pair(project)


def decide(item, reviewer, **kwargs):
    args = {
        "decision": "label",
        "label": {"preferred": "second", "tags": {"second": ["numeric_error"]}},
        "reason": "second respects the budget; first books a $450 fare",
        "expected_state_token": item_state_token(item),
    }
    args.update(kwargs)
    return adjudication_decide(item=item, reviewer=reviewer, **args)


def test_final_label_verifies_the_item(item, reviewer):
    adjudication = decide(item, reviewer, seconds_spent=75)
    item.refresh_from_db()
    assert item.state == ItemState.VERIFIED
    expected = {"preferred": "second", "tags": {"first": [], "second": ["numeric_error"]}}
    assert item.settled_label == expected
    assert item.settled_at is not None
    assert (adjudication.decision, adjudication.label, adjudication.seconds_spent) == ("label", expected, 75)
    row = AuditLog.objects.filter(item=item).last()
    assert (row.actor, row.action, row.from_state, row.to_state) == (
        reviewer,
        "state",
        "adjudication",
        "verified",
    )
    assert row.reason == "second respects the budget; first books a $450 fare"
    assert row.data == {"adjudication": adjudication.pk, "decision": "label"}


def test_confidence_is_not_part_of_the_settled_label(item, reviewer):
    decide(item, reviewer, label={"preferred": "first", "confidence": 5})
    item.refresh_from_db()
    assert item.settled_label == {"preferred": "first", "tags": {"first": [], "second": []}}


def test_discard_needs_a_reason_and_records_it(item, reviewer):
    with pytest.raises(AdjudicationError, match="reason") as refused:
        decide(item, reviewer, decision="discard", label=None, reason="   ")
    assert refused.value.errors == {"reason": "Say why: the reason is kept with the decision."}
    adjudication = decide(item, reviewer, decision="discard", label=None, reason="both candidates crash")
    item.refresh_from_db()
    assert (item.state, item.discard_reason, item.settled_label) == ("discarded", "both candidates crash", {})
    assert (adjudication.decision, adjudication.label) == ("discard", {})
    assert AuditLog.objects.filter(item=item).last().to_state == "discarded"


@pytest.mark.parametrize(
    ("label", "field"),
    [
        (None, "label"),
        ({"preferred": "A"}, "preferred"),
        ({"preferred": "first", "tags": {"first": ["made_up_tag"]}}, "tags.first"),
        ({"preferred": "first", "extra": 1}, "label"),
    ],
    ids=["missing", "letters-not-sides", "unknown-tag", "extra-field"],
)
def test_bad_labels_are_refused_and_change_nothing(item, reviewer, label, field):
    before = item_state_token(item)
    with pytest.raises(AdjudicationError) as refused:
        decide(item, reviewer, label=label)
    assert refused.value.status == 400
    assert field in refused.value.errors
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    assert item_state_token(item) == before
    assert not Adjudication.objects.exists()


def test_tie_is_refused_where_the_project_forbids_it(project, item, reviewer):
    project.label_schema = {"allow_tie": False}
    project.save()
    with pytest.raises(AdjudicationError, match="ties"):
        decide(item, reviewer, label={"preferred": "tie"})


def test_unknown_decision_is_refused(item, reviewer):
    with pytest.raises(AdjudicationError) as refused:
        decide(item, reviewer, decision="maybe")
    assert "decision" in refused.value.errors


def test_annotators_cannot_adjudicate(project, item):
    annotator = MembershipFactory(project=project, role=Role.ANNOTATOR).user
    with pytest.raises(AdjudicationError) as refused:
        decide(item, annotator)
    assert refused.value.status == 403
    assert not Adjudication.objects.exists()


def test_second_reviewer_with_a_stale_token_gets_a_conflict(project, item, reviewer):
    other = MembershipFactory(project=project, role=Role.MANAGER, user__username="max").user
    token = item_state_token(item)  # both opened the page now
    decide(item, reviewer, expected_state_token=token)
    with pytest.raises(AdjudicationConflict) as conflict:
        decide(item, other, label={"preferred": "first"}, expected_state_token=token)
    message = str(conflict.value)
    assert message.startswith("This item was already settled by rita at ")
    settled_at = AuditLog.objects.filter(item=item, to_state="verified").get().created_at
    assert settled_at.strftime("%Y-%m-%d %H:%M:%S UTC") in message
    assert conflict.value.change.actor == "rita" and conflict.value.change.to_state == "verified"
    assert "Nothing was changed" in message
    assert conflict.value.status == 409
    item.refresh_from_db()
    assert item.settled_label["preferred"] == "second"  # the first decision stands
    assert Adjudication.objects.count() == 1


def test_a_change_while_the_item_stays_in_adjudication_is_a_conflict_too(project, item, reviewer):
    token = item_state_token(item)
    other = MembershipFactory(project=project, role=Role.MANAGER, user__username="max").user
    decide(item, other, decision="discard", label=None, reason="duplicate")
    item.refresh_from_db()
    adjudication_reopen(
        item=item, reviewer=other, reason="not a duplicate", expected_state_token=item_state_token(item)
    )
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION  # where the first reviewer saw it, but not as they saw it
    with pytest.raises(AdjudicationConflict, match="changed by max at .* since you opened it"):
        decide(item, reviewer, expected_state_token=token)


def test_missing_token_is_bad_input(item, reviewer):
    with pytest.raises(AdjudicationError) as refused:
        decide(item, reviewer, expected_state_token="")
    assert "state_token" in refused.value.errors


def test_other_kinds_settle_on_an_accepted_label(reviewer, project):
    item = other_item(project, "pca")
    a = {"perception": 1, "cognition": 1, "action": 0}
    settled_by_rules(item, [a, {**a, "action": 1}])
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    decide(item, reviewer, label=a)
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (ItemState.VERIFIED, a)


def test_reopen_needs_a_fresh_token_and_a_reason(item, reviewer):
    decide(item, reviewer)
    item.refresh_from_db()
    with pytest.raises(AdjudicationError, match="re-opened"):
        adjudication_reopen(
            item=item, reviewer=reviewer, reason="", expected_state_token=item_state_token(item)
        )
    with pytest.raises(AdjudicationConflict):
        adjudication_reopen(item=item, reviewer=reviewer, reason="audit", expected_state_token="verified.1")
    adjudication_reopen(
        item=item, reviewer=reviewer, reason="audit", expected_state_token=item_state_token(item)
    )
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (ItemState.ADJUDICATION, {})
    # Settled again by a new decision; the old one stays on record.
    decide(item, reviewer, label={"preferred": "first"})
    assert Adjudication.objects.filter(item=item).count() == 2


def test_decision_on_an_item_that_never_reached_adjudication_is_a_conflict(project, reviewer):
    item = disputed_pair(project, labels=[pair_label("first"), pair_label("first")])
    assert item.state == ItemState.VERIFIED
    with pytest.raises(AdjudicationConflict, match="already settled"):
        decide(item, reviewer)
