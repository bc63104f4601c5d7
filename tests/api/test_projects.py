"""GET /api/projects/ and /api/projects/<slug>/."""

from __future__ import annotations

from django.urls import reverse

from annotation.models import Role
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory


def test_project_list_shows_only_my_projects_with_my_role(client_for, project, annotator):
    other = ProjectFactory(name="Other")
    MembershipFactory(project=other)  # someone else's project
    mine_too = ProjectFactory(name="Another of mine")
    MembershipFactory(project=mine_too, user=annotator, role=Role.REVIEWER)
    PairItemFactory.create_batch(2, project=project)

    response = client_for(annotator).get(reverse("api:project-list"))

    assert response.status_code == 200
    rows = {row["slug"]: row for row in response.json()["results"]}
    assert set(rows) == {project.slug, mine_too.slug}
    assert rows[project.slug]["role"] == "annotator"
    assert rows[project.slug]["n_items"] == 2
    assert rows[mine_too.slug]["role"] == "reviewer"


def test_project_detail_has_schema_guidelines_and_progress(client_for, project, annotator):
    project.guidelines = "Prefer the trajectory that **respects the budget**."
    project.label_schema = {"allow_tie": False, "critical_tags": {"*": ["fabricated_result"]}}
    project.save()
    PairItemFactory.create_batch(3, project=project)

    body = client_for(annotator).get(reverse("api:project-detail", args=[project.slug])).json()

    assert body["kind"] == "pair"
    assert body["role"] == "annotator"
    assert body["guidelines"].startswith("Prefer the trajectory")
    assert body["label_schema"] == {"critical_tags": {"*": ["fabricated_result"]}, "allow_tie": False}
    assert body["allow_tie"] is False
    assert body["overlap"] == 2
    assert body["progress"]["total"] == 3
    assert body["progress"]["remaining_slots"] == 6
    assert body["progress"]["done"] == 0


def test_project_detail_of_a_project_i_am_not_in_is_404(client_for, project):
    outsider = MembershipFactory(project=ProjectFactory()).user
    response = client_for(outsider).get(reverse("api:project-detail", args=[project.slug]))
    assert response.status_code == 404
    assert (
        client_for(outsider).get(reverse("api:project-detail", args=["no-such-project"])).status_code == 404
    )
