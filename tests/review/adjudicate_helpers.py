"""Items of each kind in adjudication with disagreeing annotators, for the kind-specific
adjudication views (tests/review/test_adjudicate_*.py)."""

from __future__ import annotations

import re

from django.urls import reverse

from annotation.models import Item, ItemKind, ItemState, Role, Trajectory
from annotation.traces import steps_to_messages, trace_final, trace_query, trace_steps
from tests.annotation.labeling_helpers import imported_project
from tests.factories import MembershipFactory, ProjectFactory, TaskFactory
from tests.review.factories import annotator, settled_by_rules

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def url(item: Item, **query) -> str:
    base = reverse("adjudicate_item", args=[item.project.slug, item.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def token_of(html: str) -> str:
    return re.search(r'name="state_token" value="([^"]+)"', html).group(1)


def reviewer_client(client, project, username="rita"):
    user = MembershipFactory(project=project, role=Role.REVIEWER, user__username=username).user
    client.force_login(user)
    return user


def imported_item(kind: str, fixture: str, external_id: str | None = None) -> Item:
    project = imported_project(kind, fixture)
    items = Item.objects.filter(project=project).order_by("id")
    return items.get(external_id=external_id) if external_id else items.first()


def in_adjudication(item: Item, labels: list[dict], *, names=("alice", "bob"), rationales=()) -> Item:
    users = [annotator(item.project, f"{name}-{item.pk}") for name in names[: len(labels)]]
    settled = settled_by_rules(item, labels, users=users, rationales=rationales)
    assert settled.state == ItemState.ADJUDICATION, settled.state
    return settled


def correction(item: Item, user, edit, *, final: dict | None = None) -> Trajectory:
    """A new version of the item's trace (parent = the original), `edit(steps)` applied."""
    original = item.trajectory_first
    steps = trace_steps(original.messages)
    edit(steps)
    query, media = trace_query(original.messages)
    messages = steps_to_messages(
        steps, query=query, media=media, final_answer=final or trace_final(original.messages)
    )
    return Trajectory.objects.create(
        project=item.project,
        task=item.task,
        messages=messages,
        parent=original,
        version=2,
        edit_reasons=["fixed the count"],
        created_by=user,
    )


def query_item(project=None, candidates=None) -> Item:
    project = project or ProjectFactory(kind=ItemKind.QUERY, overlap=2)
    task = TaskFactory(project=project, instruction="", media=["media/ax-0000.1.png"], context=[])
    return Item.objects.create(
        project=project,
        kind=ItemKind.QUERY,
        external_id=f"q-{Item.objects.count() + 1:04d}",
        task=task,
        payload={
            "candidates": candidates
            or [
                "How many bottles are on the shelves?",
                "Use ObjectCounter to count the bottles.",
                "What is in the image?",
            ]
        },
        state=ItemState.NEW,
        overlap=2,
    )


def api_decide(item: Item, user, label: dict, reason: str = "settled over the API"):
    """POST a final label to the DRF adjudication API as `user` (GET first, for the token)."""
    from rest_framework.test import APIClient

    from tests.api.factories import token_for

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    path = reverse("api:adjudication-decide", args=[item.project.slug, item.pk])
    token = api.get(path).json()["state_token"]
    return api.post(
        path, {"decision": "label", "label": label, "reason": reason, "state_token": token}, format="json"
    )


def assert_refused_unchanged(response, item: Item, message: str) -> str:
    """A bad settled label: 400 with `message`, the item still in adjudication with nothing
    settled. Returns the page, for more checks."""
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    item.refresh_from_db()
    assert (item.state, item.settled_label) == (ItemState.ADJUDICATION, {})
    return html
