"""A pair project with one member per role, and API clients logged in as them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Role
from tests.factories import MembershipFactory, ProjectFactory


@pytest.fixture
def project(db):
    return ProjectFactory(slug="flights", name="Flights", overlap=2)


def _member(project, role, username):
    return MembershipFactory(project=project, role=role, user__username=username).user


@pytest.fixture
def annotator(project):
    return _member(project, Role.ANNOTATOR, "ann")


@pytest.fixture
def annotator2(project):
    return _member(project, Role.ANNOTATOR, "ann2")


@pytest.fixture
def reviewer(project):
    return _member(project, Role.REVIEWER, "rev")


@pytest.fixture
def manager(project):
    return _member(project, Role.MANAGER, "man")


@pytest.fixture
def client_for():
    """client_for(user) → an APIClient with that user's session (None: anonymous)."""

    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make
