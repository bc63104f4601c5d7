"""A real Celery worker (on Redis, against the test database) runs queued import jobs."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import ImportJob, Item, Role
from annotation.services.imports import import_job_create
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES
from tests.workers.celery_worker import start_worker, stop_worker, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def finished(job: ImportJob) -> bool:
    job.refresh_from_db()
    return job.status in (ImportJob.Status.DONE, ImportJob.Status.FAILED)


def media_zip(path: Path, prefix: str) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for image in sorted((SHARED_FIXTURES / "media").glob(f"{prefix}*")):
            zf.write(image, f"media/{image.name}")
    return path


def test_worker_runs_queued_imports(tmp_path, not_eager):
    project = ProjectFactory(kind="trace", slug="worker-traces")
    manager = MembershipFactory(project=project, role=Role.MANAGER).user
    log = tmp_path / "worker.log"
    worker = start_worker(log, queues="imports,celery", env={"MEDIA_ROOT": str(settings.MEDIA_ROOT)})
    try:
        with (
            (SHARED_FIXTURES / "traces.jsonl").open("rb") as upload,
            media_zip(tmp_path / "media.zip", "ax-").open("rb") as media,
            (SHARED_FIXTURES / "bad" / "not_json.jsonl").open("rb") as bad,
        ):
            job = import_job_create(project=project, actor=manager, upload=upload, media_zip=media)
            # Queued, not run here: this process does not wait on the import.
            assert ImportJob.objects.get(pk=job.pk).status in (
                ImportJob.Status.QUEUED,
                ImportJob.Status.RUNNING,
            )
            rejected = import_job_create(project=project, actor=manager, upload=bad)
        wait_until(lambda: finished(job) and finished(rejected), log, "both imports finished")
    finally:
        stop_worker(worker)
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.counts["created"] == 10 and job.counts["media"] == 13 and job.lines_read == 11
    assert Item.objects.filter(project=project).count() == 10
    assert (Path(settings.MEDIA_ROOT) / "projects" / project.slug / "media" / "ax-0009.1.png").is_file()
    assert rejected.status == ImportJob.Status.FAILED
    assert [(e["line"], e["field"]) for e in rejected.errors] == [(1, "(line)"), (2, "(line)")]
    assert Item.objects.filter(project=project).count() == 10
