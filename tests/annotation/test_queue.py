"""The queue hands out slots: overlap respected, no duplicates, leases expire and return."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.utils import timezone

from annotation.models import Assignment, AssignmentStatus
from annotation.services.queue import QueueError, assignment_skip, item_assign
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def annotators(project, n):
    return [MembershipFactory(project=project).user for _ in range(n)]


def test_next_returns_held_lease_until_finished():
    project = ProjectFactory(overlap=2)
    PairItemFactory.create_batch(3, project=project)
    (ann,) = annotators(project, 1)
    first = item_assign(project=project, annotator=ann)
    again = item_assign(project=project, annotator=ann)
    assert first.pk == again.pk
    assert first.display_order in (["first", "second"], ["second", "first"])


def test_overlap_limits_annotators_per_item():
    project = ProjectFactory(overlap=2)
    item = PairItemFactory(project=project)
    a, b, c = annotators(project, 3)
    assert item_assign(project=project, annotator=a).item == item
    assert item_assign(project=project, annotator=b).item == item
    assert item_assign(project=project, annotator=c) is None


def test_expired_lease_returns_to_pool():
    project = ProjectFactory(overlap=1)
    item = PairItemFactory(project=project)
    a, b = annotators(project, 2)
    lease = item_assign(project=project, annotator=a)
    assert item_assign(project=project, annotator=b) is None
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    taken = item_assign(project=project, annotator=b)
    assert taken is not None and taken.item == item


def test_skip_needs_reason_and_moves_on():
    project = ProjectFactory(overlap=1)
    PairItemFactory.create_batch(2, project=project)
    (ann,) = annotators(project, 1)
    lease = item_assign(project=project, annotator=ann)
    with pytest.raises(QueueError):
        assignment_skip(assignment=lease, actor=ann, reason="  ")
    assignment_skip(assignment=lease, actor=ann, reason="unreadable tool output")
    nxt = item_assign(project=project, annotator=ann)
    assert nxt.item_id != lease.item_id
    lease.refresh_from_db()
    assert lease.status == AssignmentStatus.SKIPPED


def test_outsider_project_items_never_assigned():
    project = ProjectFactory(overlap=1)
    other = ProjectFactory(overlap=1)
    PairItemFactory(project=other)
    (ann,) = annotators(project, 1)
    assert item_assign(project=project, annotator=ann) is None


@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_never_share_a_slot():
    """Many threads, each with its own PostgreSQL connection, ask for work at once."""
    assert connection.vendor == "postgresql"
    project = ProjectFactory(overlap=2)
    PairItemFactory.create_batch(30, project=project)
    users = [UserFactory() for _ in range(24)]
    for user in users:
        MembershipFactory(project=project, user=user)
    barrier = threading.Barrier(len(users))
    errors: list[BaseException] = []

    def work(user):
        try:
            barrier.wait()
            for _ in range(4):
                lease = item_assign(project=project, annotator=user)
                if lease is None:
                    return
                Assignment.objects.filter(pk=lease.pk).update(status=AssignmentStatus.SUBMITTED)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=work, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    rows = list(Assignment.objects.filter(item__project=project).values_list("item_id", "annotator_id"))
    assert len(rows) == len(set(rows))  # nobody twice on one item
    per_item: dict[int, int] = {}
    for item_id, _ in rows:
        per_item[item_id] = per_item.get(item_id, 0) + 1
    assert max(per_item.values()) <= 2  # overlap never exceeded
    assert len(rows) == min(24 * 4, 30 * 2)  # and every slot that could be handed out was
