"""A real Celery worker (on Redis, against the test database) runs queued import jobs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from annotation.models import ImportJob, Item, Role
from annotation.services.imports import import_job_create
from config.celery import app
from tests.factories import MembershipFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 60


def database_url() -> str:
    """The test database (pytest-django renamed it), for the worker process."""
    db = settings.DATABASES["default"]
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture
def not_eager():
    """Tasks go to Redis instead of running in this process."""
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield
    finally:
        app.conf.task_always_eager = saved


def start_worker(log: Path) -> subprocess.Popen:
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("REDIS_URL is not set; run the suite with `make test`.")
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    celery = Path(sys.executable).parent / "celery"
    command = [
        str(celery),
        "-A",
        "config",
        "worker",
        "-Q",
        "imports,celery",
        "--pool=solo",
        "-c",
        "1",
        "--without-gossip",
        "--without-mingle",
        "-n",
        f"import-test-{uuid.uuid4().hex[:8]}@%h",
    ]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)


def stop_worker(worker: subprocess.Popen) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(timeout=10)


def wait_finished(job: ImportJob, log: Path) -> ImportJob:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status in (ImportJob.Status.DONE, ImportJob.Status.FAILED):
            return job
        time.sleep(0.25)
    pytest.fail(
        f"job {job.pk} still {job.status} after {WAIT_SECONDS}s; worker log:\n{log.read_text()[-4000:]}"
    )


def media_zip(path: Path, prefix: str) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for image in sorted((SHARED_FIXTURES / "media").glob(f"{prefix}*")):
            zf.write(image, f"media/{image.name}")
    return path


def test_worker_runs_queued_imports(tmp_path, not_eager):
    project = ProjectFactory(kind="trace", slug="worker-traces")
    manager = MembershipFactory(project=project, role=Role.MANAGER).user
    log = tmp_path / "worker.log"
    worker = start_worker(log)
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
        job = wait_finished(job, log)
        rejected = wait_finished(rejected, log)
    finally:
        stop_worker(worker)
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.counts["created"] == 10 and job.counts["media"] == 13 and job.lines_read == 11
    assert Item.objects.filter(project=project).count() == 10
    assert (Path(settings.MEDIA_ROOT) / "projects" / project.slug / "media" / "ax-0009.1.png").is_file()
    assert rejected.status == ImportJob.Status.FAILED
    assert [(e["line"], e["field"]) for e in rejected.errors] == [(1, "(line)"), (2, "(line)")]
    assert Item.objects.filter(project=project).count() == 10
