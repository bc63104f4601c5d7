"""POST /api/projects/<slug>/import/ and GET .../import/<job_id>/."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import ImportJob, Item
from annotation.services.imports import import_job_run
from tests.api.factories import ImportJobFactory
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES


def upload(client, project, name, **extra):
    data = {"file": SimpleUploadedFile(name, (SHARED_FIXTURES / name).read_bytes()), **extra}
    return client.post(reverse("api:import-create", args=[project.slug]), data, format="multipart")


def upload_and_run(client, project, name, capture):
    """Upload, then do the worker's part: the job is queued on commit, run here in-process."""
    with capture(execute=False) as queued:
        response = upload(client, project, name)
    assert response.status_code == 202, response.content
    assert len(queued) == 1  # the job is handed to a worker only once the upload is committed
    import_job_run(job_id=response.json()["id"])
    return response


def test_manager_uploads_then_follows_the_job(
    client_for, project, manager, django_capture_on_commit_callbacks
):
    client = client_for(manager)
    response = upload_and_run(client, project, "pairs.jsonl", django_capture_on_commit_callbacks)

    body = response.json()
    assert body["status"] == "queued"
    assert body["status_url"].endswith(reverse("api:import-detail", args=[project.slug, body["id"]]))

    job = client.get(body["status_url"]).json()
    assert job["status"] == "done", job["errors"]
    assert job["counts"]["created"] == 42
    assert job["errors"] == []
    assert job["created_by"] == "man"
    assert Item.objects.filter(project=project).count() == 42


def test_bad_file_is_reported_line_by_line_and_imports_nothing(
    client_for, project, manager, django_capture_on_commit_callbacks
):
    client = client_for(manager)
    response = upload_and_run(client, project, "bad/pairs_bad_role.jsonl", django_capture_on_commit_callbacks)
    job = client.get(response.json()["status_url"]).json()
    assert job["status"] == "failed"
    assert job["errors"] and all("line" in e and "reason" in e for e in job["errors"])
    assert not Item.objects.filter(project=project).exists()


def test_upload_needs_a_file(client_for, project, manager):
    response = client_for(manager).post(
        reverse("api:import-create", args=[project.slug]), {}, format="multipart"
    )
    assert response.status_code == 400
    assert "file" in response.json()
    assert not ImportJob.objects.exists()


def test_only_managers_import(client_for, project, reviewer, annotator):
    for user in (reviewer, annotator):
        assert upload(client_for(user), project, "pairs.jsonl").status_code == 404
    assert not ImportJob.objects.exists()


def test_job_of_another_project_is_404(client_for, project, manager):
    foreign = ImportJobFactory(project=ProjectFactory())
    response = client_for(manager).get(reverse("api:import-detail", args=[project.slug, foreign.pk]))
    assert response.status_code == 404
