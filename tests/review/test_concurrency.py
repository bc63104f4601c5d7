"""Two reviewers decide the same item at the same time, on real PostgreSQL connections: the
first decision stands, the second gets a conflict naming who settled it, nothing is
overwritten."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from annotation.models import Item, ItemState, Role
from review.models import Adjudication, AuditLog
from review.services import AdjudicationConflict, adjudication_decide, item_state_token
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.factories import disputed_pair

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(target, results, key):
    """Run `target` on its own database connection, keeping its result or exception."""

    def run():
        try:
            results[key] = target()
        except Exception as exc:  # noqa: BLE001 - the test inspects what was raised
            results[key] = exc
        finally:
            results[f"{key}_done_at"] = time.monotonic()
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.fixture
def setup():
    project = ProjectFactory(overlap=2)
    rita = MembershipFactory(project=project, role=Role.REVIEWER, user__username="rita").user
    max_ = MembershipFactory(project=project, role=Role.MANAGER, user__username="max").user
    return project, rita, max_


def label(preferred):
    return {"preferred": preferred, "tags": {"first": [], "second": []}}


def test_second_decision_waits_for_the_first_then_gets_a_conflict(setup):
    project, rita, max_ = setup
    item = disputed_pair(project)
    token = item_state_token(item)  # both reviewers opened the page
    results: dict = {}
    decided, release = threading.Event(), threading.Event()

    def first():
        with transaction.atomic():
            adjudication = adjudication_decide(
                item=item,
                reviewer=rita,
                decision="label",
                label=label("second"),
                reason="budget",
                expected_state_token=token,
            )
            decided.set()
            release.wait(10)  # hold the row lock while the second reviewer tries
        return adjudication

    def second():
        return adjudication_decide(
            item=item,
            reviewer=max_,
            decision="discard",
            label=None,
            reason="both wrong",
            expected_state_token=token,
        )

    a = in_thread(first, results, "first")
    assert decided.wait(10)
    b = in_thread(second, results, "second")
    time.sleep(0.5)
    assert "second" not in results, "the second decision must wait on the item's row lock"
    released_at = time.monotonic()
    release.set()
    a.join(10)
    b.join(10)

    assert isinstance(results["first"], Adjudication)
    conflict = results["second"]
    assert isinstance(conflict, AdjudicationConflict), conflict
    assert str(conflict).startswith("This item was already settled by rita at ")
    assert results["second_done_at"] >= released_at
    item.refresh_from_db()
    assert (item.state, item.settled_label["preferred"]) == (ItemState.VERIFIED, "second")
    assert list(Adjudication.objects.values_list("reviewer__username", flat=True)) == ["rita"]
    assert AuditLog.objects.filter(item=item, to_state__in=["verified", "discarded"]).count() == 1


@pytest.mark.parametrize("attempt", range(3))
def test_racing_reviewers_settle_an_item_exactly_once(setup, attempt):
    project, rita, max_ = setup
    item = disputed_pair(project)
    token = item_state_token(item)
    barrier = threading.Barrier(2)
    results: dict = {}

    def decide(reviewer, preferred):
        def run():
            barrier.wait(10)
            return adjudication_decide(
                item=Item.objects.get(pk=item.pk),
                reviewer=reviewer,
                decision="label",
                label=label(preferred),
                reason=f"{reviewer.username} thinks {preferred}",
                expected_state_token=token,
            )

        return run

    threads = [
        in_thread(decide(rita, "first"), results, "rita"),
        in_thread(decide(max_, "second"), results, "max"),
    ]
    for thread in threads:
        thread.join(10)

    outcomes = {name: type(results[name]).__name__ for name in ("rita", "max")}
    assert sorted(outcomes.values()) == ["Adjudication", "AdjudicationConflict"], outcomes
    winner = next(name for name, kind in outcomes.items() if kind == "Adjudication")
    loser = "max" if winner == "rita" else "rita"
    assert f"already settled by {winner} at" in str(results[loser])
    item.refresh_from_db()
    assert item.settled_label["preferred"] == ("first" if winner == "rita" else "second")
    assert Adjudication.objects.filter(item=item).count() == 1
