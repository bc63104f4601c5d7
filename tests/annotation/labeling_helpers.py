"""Helpers shared by the labeling page tests."""

from __future__ import annotations

import re
import uuid

from django.urls import reverse

from annotation.models import Assignment, Role
from tests.factories import MembershipFactory


def member(project, role=Role.ANNOTATOR):
    return MembershipFactory(project=project, role=role).user


def url(name, project, *args):
    return reverse(name, args=[project.slug, *args])


def take(client, project) -> Assignment:
    """What the 'Start labeling' button does: the queue leases an item and redirects to it."""
    response = client.get(url("queue_next", project))
    assert response.status_code == 302
    item_id = int(re.search(r"/items/(\d+)/label/", response["Location"]).group(1))
    return Assignment.objects.get(item_id=item_id, annotator=response.wsgi_request.user)


def label_post(client, item, headers=None, **fields):
    data = {
        "client_id": str(uuid.uuid4()),
        "preferred": "A",
        "confidence": "4",
        "rationale": "A fits the budget.",
    }
    data.update(fields)
    return client.post(url("label_item", item.project, item.pk), data, **(headers or {}))


def login(client, project, role=Role.ANNOTATOR):
    """A new member of `project` with `role`, logged in on `client`."""
    user = member(project, role)
    client.force_login(user)
    return user


def imported_project(kind: str, fixture: str):
    """A project of `kind` holding the shared fixture file, imported with its media."""
    from tests.annotation.import_helpers import run
    from tests.factories import ProjectFactory
    from tests.fixtures_path import SHARED_FIXTURES

    project = ProjectFactory(kind=kind, overlap=2)
    report = run(project, SHARED_FIXTURES / fixture, media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    return project
