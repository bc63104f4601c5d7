"""Managers manage who is in their project; the project always keeps a manager."""

from __future__ import annotations

import pytest

from annotation.models import Membership, Role
from review.models import AuditLog
from tests.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager_client(client):
    project = ProjectFactory()
    manager = MembershipFactory(project=project, role=Role.MANAGER).user
    client.force_login(manager)
    return client, project


def test_manager_adds_and_promotes_a_member(manager_client):
    client, project = manager_client
    newcomer = UserFactory(username="newcomer")
    url = f"/p/{project.slug}/members/"
    response = client.post(url, {"username": "newcomer", "role": "annotator"}, follow=True)
    assert "newcomer is now annotator" in response.content.decode()
    client.post(url, {"username": "newcomer", "role": "reviewer"})
    assert Membership.objects.get(project=project, user=newcomer).role == Role.REVIEWER
    assert AuditLog.objects.filter(project=project, action="membership").count() == 2


def test_unknown_user_is_named_in_the_error(manager_client):
    client, project = manager_client
    response = client.post(f"/p/{project.slug}/members/", {"username": "ghost", "role": "annotator"})
    assert "There is no user called &#x27;ghost&#x27;" in response.content.decode()
    assert Membership.objects.filter(project=project).count() == 1


def test_last_manager_cannot_be_removed(manager_client):
    client, project = manager_client
    membership = Membership.objects.get(project=project)
    response = client.post(f"/p/{project.slug}/members/{membership.pk}/remove/", follow=True)
    assert "at least one manager" in response.content.decode()
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_membership_of_another_project_is_404(manager_client):
    client, project = manager_client
    elsewhere = MembershipFactory()
    response = client.post(f"/p/{project.slug}/members/{elsewhere.pk}/remove/")
    assert response.status_code == 404
    assert Membership.objects.filter(pk=elsewhere.pk).exists()


def test_manager_turns_suggestions_on_and_ties_off(manager_client):
    client, project = manager_client
    response = client.post(
        f"/p/{project.slug}/settings/",
        {"name": "Flights v2", "guidelines": "# Judge the plan", "overlap": "3", "show_suggestions": "on"},
        follow=True,
    )
    assert "Settings saved." in response.content.decode()
    project.refresh_from_db()
    assert (project.name, project.overlap, project.show_suggestions) == ("Flights v2", 3, True)
    assert project.allow_tie is False and project.label_schema["show_annotator_names"] is False
    assert AuditLog.objects.filter(project=project, action="project_settings").exists()


def test_bad_overlap_changes_nothing(manager_client):
    client, project = manager_client
    response = client.post(f"/p/{project.slug}/settings/", {"name": "X", "overlap": "0"})
    assert response.status_code == 200 and "greater than or equal to 1" in response.content.decode()
    project.refresh_from_db()
    assert project.overlap == 2 and project.name != "X"
