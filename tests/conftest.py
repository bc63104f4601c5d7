"""Suite-wide fixtures. The suite runs against PostgreSQL (started by `make test`); SQLite is
the demo default and proves nothing about locking, so it is refused here."""

from __future__ import annotations

import os

import pytest

if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    raise pytest.UsageError("Run the tests with `make test`: it starts PostgreSQL and Redis for them.")


@pytest.fixture(autouse=True)
def _test_settings(settings, tmp_path):
    """Uploaded and imported files land in a per-test folder; passwords hash fast."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.UPLOAD_ROOT = tmp_path / "uploads"
    settings.EXPORT_ROOT = tmp_path / "exports"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _celery_mode(request):
    """Tasks run in-process, except in tests marked `worker`, which start a real worker."""
    from config.celery import app

    eager = request.node.get_closest_marker("worker") is None
    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = eager
    app.conf.task_eager_propagates = eager
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """One test database per pytest process, so that runs sharing a server do not collide."""
    from django.conf import settings

    for db in settings.DATABASES.values():
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"


@pytest.fixture
def not_eager():
    """For tests with a real worker (tests/workers/celery_worker.py): tasks go to Redis."""
    from config.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield
    finally:
        app.conf.task_always_eager = saved
