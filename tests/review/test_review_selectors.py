"""The adjudication queue's order and the item history's order."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import AnnotationRevision, ItemState, Role
from annotation.services.annotations import annotation_edit, annotation_submit
from annotation.services.queue import item_assign
from review.lifecycle import agreement_share
from review.models import AuditLog
from review.selectors import adjudication_queue, item_history, next_in_queue, with_agreement
from review.services import adjudication_decide, item_state_token
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory
from tests.review.factories import SuggestionFactory, disputed_pair, other_item, pair_label, settled_by_rules

pytestmark = pytest.mark.django_db

F, S, T = pair_label("first"), pair_label("second"), pair_label("tie")


def test_queue_least_agreement_first_then_priority_then_id():
    project = ProjectFactory()
    two_thirds_low = disputed_pair(project, [F, F, S], external_id="q-23-low", priority=0)
    half = disputed_pair(project, [F, S], external_id="q-half", priority=0)
    third = disputed_pair(project, [F, S, T], external_id="q-third", priority=0)
    two_thirds_high = disputed_pair(project, [S, F, S], external_id="q-23-high", priority=5)
    half_urgent = disputed_pair(project, [S, F], external_id="q-half-urgent", priority=9)
    flagged = PairItemFactory(project=project, external_id="q-flag")
    settled_by_rules(flagged, [F], flagged=[0])  # unanimous, but flagged
    half_later = disputed_pair(project, [F, S], external_id="q-half-later", priority=0)
    disputed_pair(project, [F, F], external_id="verified")  # agrees: never queued
    disputed_pair(ProjectFactory(), [F, S], external_id="elsewhere")

    queue = list(adjudication_queue(project=project))
    assert [i.external_id for i in queue] == [
        third.external_id,
        half_urgent.external_id,
        half.external_id,
        half_later.external_id,
        two_thirds_high.external_id,
        two_thirds_low.external_id,
        flagged.external_id,
    ]
    assert [round(i.agreement, 3) for i in queue] == [0.333, 0.5, 0.5, 0.5, 0.667, 0.667, 1.0]
    assert [i.n_labels for i in queue] == [3, 2, 2, 2, 3, 3, 1]
    assert queue[-1].queue_reason == "flagged by an annotator"
    assert queue[0].queued_at is not None
    assert next_in_queue(project=project, after=third) == half_urgent


def test_sql_agreement_matches_the_rule_for_every_kind():
    project = ProjectFactory(kind="pca")
    a = {"perception": 1, "cognition": 0, "action": 1}
    b = {**a, "action": 0}
    item = other_item(project, "pca")
    settled_by_rules(item, [a, b, dict(a)])
    pair_project = ProjectFactory()
    pair = disputed_pair(pair_project, [F, pair_label("first", second=["numeric_error"]), S, T])
    for it, labels in ((item, [a, b, a]), (pair, [F, F, S, T])):
        row = with_agreement(type(it).objects.filter(pk=it.pk)).get()
        assert row.agreement == pytest.approx(agreement_share(it.kind, labels))


def test_queue_costs_the_same_few_queries_for_any_length():
    project = ProjectFactory()
    for _ in range(3):
        disputed_pair(project)
    with CaptureQueriesContext(connection) as small:
        rows = list(adjudication_queue(project=project))
        _ = [(r.task, r.queue_reason, r.agreement) for r in rows]
    for _ in range(12):
        disputed_pair(project)
    with CaptureQueriesContext(connection) as large:
        rows = list(adjudication_queue(project=project))
        _ = [(r.task, r.queue_reason, r.agreement) for r in rows]
    assert len(rows) == 15
    assert len(large) == len(small) == 1


def submit(project, item, user, label):
    assert item_assign(project=project, annotator=user).item_id == item.pk
    return annotation_submit(item=item, annotator=user, label=label, client_id=uuid.uuid4()).annotation


def test_history_tells_everything_in_time_order():
    project = ProjectFactory(overlap=2)
    reviewer = MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita").user
    ann, other = (MembershipFactory(project=project, role=Role.ANNOTATOR).user for _ in range(2))
    item = PairItemFactory(project=project)
    suggestion = SuggestionFactory(item=item)
    mine = submit(project, item, ann, F)
    annotation_edit(annotation=mine, editor=ann, label=S, rationale="changed my mind", expected_version=1)
    submit(project, item, other, F)
    item.refresh_from_db()
    assert item.state == ItemState.ADJUDICATION
    adjudication = adjudication_decide(
        item=item,
        reviewer=reviewer,
        decision="label",
        label={"preferred": "first"},
        reason="first cites the fare",
        expected_state_token=item_state_token(item),
    )

    events = item_history(item=item)
    assert [e.at for e in events] == sorted(e.at for e in events)
    told = [(e.kind, e.action, e.from_state, e.to_state) for e in events]
    assert told == [
        ("suggestion", "", "", ""),
        ("log", "assign", "", ""),
        ("annotation", "", "", ""),  # shows the current label; the revision keeps the first one
        ("log", "annotate", "", ""),
        ("log", "state", "new", "annotating"),
        ("revision", "", "", ""),
        ("log", "edit", "", ""),
        ("log", "assign", "", ""),
        ("annotation", "", "", ""),
        ("log", "annotate", "", ""),
        ("log", "state", "annotating", "adjudication"),
        ("adjudication", "label", "", ""),
        ("log", "state", "adjudication", "verified"),
    ]
    revision = next(e for e in events if e.kind == "revision")
    assert (revision.label, revision.detail["replaced_version"]) == (F, 1)
    assert revision.ref == AnnotationRevision.objects.get().pk
    assert events[2].label == S and events[2].actor == ann
    assert events[-2].ref == adjudication.pk and events[-2].actor == reviewer
    assert events[-1].reason == "first cites the fare"
    assert events[0].source == suggestion.source


def test_history_breaks_ties_in_a_stable_order():
    project = ProjectFactory()
    item = PairItemFactory(project=project)
    at = timezone.now() - timedelta(days=1)
    s = SuggestionFactory(item=item)
    log = AuditLog.objects.create(project=project, item=item, action="import")
    type(s).objects.filter(pk=s.pk).update(created_at=at)
    AuditLog.objects.filter(pk=log.pk).update(created_at=at)
    assert [e.kind for e in item_history(item=item)] == ["suggestion", "log"]
