"""The import pages (managers only) and project media (members only)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.importers import import_jsonl
from annotation.models import ImportJob, Item, Role
from tests.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return ProjectFactory(kind="pair", slug="prefs")


def member(project, role):
    return MembershipFactory(project=project, role=role).user


def login(client, user):
    client.force_login(user)
    return client


def upload(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(Path(name).name, (SHARED_FIXTURES / name).read_bytes())


def media_zip(prefix: str) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path in sorted((SHARED_FIXTURES / "media").glob(f"{prefix}*")):
            zf.write(path, f"media/{path.name}")
    return SimpleUploadedFile("media.zip", buffer.getvalue(), content_type="application/zip")


def test_manager_sees_the_upload_form(client, project):
    response = login(client, member(project, Role.MANAGER)).get(reverse("import_upload", args=[project.slug]))
    assert response.status_code == 200
    assert b'enctype="multipart/form-data"' in response.content
    assert b'name="replace"' in response.content


def test_manager_upload_runs_in_the_worker_and_shows_counts(
    client, project, django_capture_on_commit_callbacks
):
    manager = member(project, Role.MANAGER)
    login(client, manager)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("import_upload", args=[project.slug]), {"file": upload("pairs.jsonl")})
    job = ImportJob.objects.get(project=project)
    assert response.status_code == 302
    assert response["Location"] == reverse("import_status", args=[project.slug, job.pk])
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.created_by == manager and job.lines_read == 42 and job.counts["created"] == 42
    assert Item.objects.filter(project=project).count() == 42
    assert not Path(job.path).exists()  # the upload is removed once imported
    page = client.get(response["Location"])
    assert b"Done" in page.content and b"42 new" in page.content
    assert b"hx-trigger" not in page.content


def test_upload_with_a_media_zip(client, django_capture_on_commit_callbacks):
    project = ProjectFactory(kind="step", slug="web")
    login(client, member(project, Role.MANAGER))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("import_upload", args=[project.slug]),
            {"file": upload("steps.jsonl"), "media": media_zip("shop-")},
        )
    job = ImportJob.objects.get(project=project)
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.counts["media"] == 12
    stored = Path(settings.MEDIA_ROOT) / "projects" / "web" / "media" / "shop-003.png"
    assert stored.read_bytes() == (SHARED_FIXTURES / "media" / "shop-003.png").read_bytes()


def test_rejected_upload_lists_bad_lines(client, project, django_capture_on_commit_callbacks):
    login(client, member(project, Role.MANAGER))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("import_upload", args=[project.slug]), {"file": upload("bad/pairs_bad_role.jsonl")}
        )
    job = ImportJob.objects.get(project=project)
    assert job.status == ImportJob.Status.FAILED
    assert job.errors[0]["line"] == 1 and job.errors[0]["field"] == "chosen.messages[0].role"
    page = client.get(response["Location"]).content.decode()
    assert "Rejected: nothing was imported" in page
    assert "chosen.messages[0].role" in page
    assert "&#x27;wizard&#x27; is not one of" in page  # escaped, as all content
    assert not Item.objects.filter(project=project).exists()


def test_form_refuses_files_that_are_not_jsonl(client, project):
    login(client, member(project, Role.MANAGER))
    bad_zip = SimpleUploadedFile("media.zip", b"not a zip")
    response = client.post(
        reverse("import_upload", args=[project.slug]),
        {"file": SimpleUploadedFile("notes.txt", b"{}"), "media": bad_zip},
    )
    assert response.status_code == 200
    assert b"Upload a .jsonl file" in response.content
    assert b"must be a zip archive" in response.content
    assert not ImportJob.objects.exists()


def test_status_partial_polls_until_the_job_is_finished(client, project):
    manager = member(project, Role.MANAGER)
    job = ImportJob.objects.create(
        project=project,
        created_by=manager,
        filename="big.jsonl",
        path="/nowhere",
        status=ImportJob.Status.RUNNING,
        lines_read=1234,
    )
    url = reverse("import_status", args=[project.slug, job.pk])
    login(client, manager)
    partial = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial
    assert 'hx-trigger="every 1s"' in partial and f'hx-get="{url}"' in partial
    assert "1234" in partial and "Running" in partial
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.DONE, counts={"created": 7})
    partial = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in partial and "7 new" in partial


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.REVIEWER, None])
def test_only_managers_reach_the_import_pages(client, project, role, django_capture_on_commit_callbacks):
    user = member(project, role) if role else UserFactory()
    job = ImportJob.objects.create(
        project=project, created_by=member(project, Role.MANAGER), filename="f.jsonl", path="/nowhere"
    )
    login(client, user)
    assert client.get(reverse("import_upload", args=[project.slug])).status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("import_upload", args=[project.slug]), {"file": upload("pairs.jsonl")})
    assert response.status_code == 404
    assert client.get(reverse("import_status", args=[project.slug, job.pk])).status_code == 404
    assert ImportJob.objects.count() == 1 and not Item.objects.exists()


def test_anonymous_is_sent_to_login(client, project):
    response = client.get(reverse("import_upload", args=[project.slug]))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_job_of_another_project_is_404(client, project):
    other = ProjectFactory()
    job = ImportJob.objects.create(
        project=other, created_by=member(other, Role.MANAGER), filename="f.jsonl", path="/nowhere"
    )
    login(client, member(project, Role.MANAGER))
    assert client.get(reverse("import_status", args=[project.slug, job.pk])).status_code == 404


@pytest.fixture
def traces():
    project = ProjectFactory(kind="trace", slug="agentx")
    assert import_jsonl(project=project, path=SHARED_FIXTURES / "traces.jsonl", actor=None).ok
    return project


def test_media_are_served_to_every_member(client, traces):
    url = reverse("media_file", args=[traces.slug, "media/ax-0000.1.png"])
    assert url == "/p/agentx/media/media/ax-0000.1.png"
    for role in (Role.ANNOTATOR, Role.REVIEWER, Role.MANAGER):
        response = login(client, member(traces, role)).get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "image/png"
        assert (
            b"".join(response.streaming_content) == (SHARED_FIXTURES / "media" / "ax-0000.1.png").read_bytes()
        )


def test_media_are_hidden_from_outsiders(client, traces):
    url = reverse("media_file", args=[traces.slug, "media/ax-0000.1.png"])
    other = ProjectFactory()
    login(client, member(other, Role.MANAGER))
    assert client.get(url).status_code == 404
    # Nor can a member of another project reach them through its own URL.
    assert client.get(reverse("media_file", args=[other.slug, "media/ax-0000.1.png"])).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


@pytest.mark.parametrize(
    "path",
    [
        "media/nothere.png",
        "media/../../../etc/passwd",
        "../agentx/media/ax-0000.1.png",
        "media/",
        "media/x.html",
    ],
)
def test_media_missing_or_unsafe_paths_are_404(client, traces, path):
    login(client, member(traces, Role.ANNOTATOR))
    assert client.get(f"/p/{traces.slug}/media/{path}").status_code == 404
