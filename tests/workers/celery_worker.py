"""A real Celery worker process for tests marked `worker`: on the Redis that `make test`
started, against this test run's PostgreSQL database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

WAIT_SECONDS = 60


def database_url() -> str:
    """The test database (pytest-django renamed it), for the worker process."""
    db = settings.DATABASES["default"]
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def start_worker(log: Path, *, queues: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`celery -A config worker -Q <queues>` with its output in `log`."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.fail("REDIS_URL is not set; run the suite with `make test`.")
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **(env or {}),
    }
    command = [
        str(Path(sys.executable).parent / "celery"),
        *("-A", "config", "worker", "-Q", queues, "--pool=solo", "-c", "1"),
        *("--without-gossip", "--without-mingle", "-n", f"test-{uuid.uuid4().hex[:8]}@%h"),
    ]
    with log.open("ab") as out:
        return subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=environment, stdout=out, stderr=subprocess.STDOUT
        )


def stop_worker(worker: subprocess.Popen) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(timeout=10)


def wait_until(condition: Callable[[], bool], log: Path, what: str, seconds: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} not reached after {seconds}s; worker log:\n{log.read_text()[-4000:]}")
