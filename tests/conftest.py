"""Suite-wide fixtures. The suite runs against PostgreSQL (started by `make test`); SQLite is
the demo default and proves nothing about locking, so it is refused here."""

from __future__ import annotations

import os

import pytest

if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    raise pytest.UsageError("Run the tests with `make test`: it starts PostgreSQL and Redis for them.")
# Tasks run in-process unless a test starts a real worker (tests marked `worker`).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Uploaded and imported files land in a per-test folder."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.UPLOAD_ROOT = tmp_path / "uploads"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """One test database per pytest process, so that runs sharing a server do not collide."""
    from django.conf import settings

    for db in settings.DATABASES.values():
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"
