"""`manage.py import_jsonl`; big files in constant memory; imports beside other work."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from annotation.importers import import_jsonl
from annotation.models import Item, Membership, Project, Role, ToolEnv
from review.lifecycle import audit_log_write
from review.models import AuditLog
from tests.factories import ProjectFactory, UserFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db


def command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_jsonl", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_creates_the_project_with_the_kind_of_its_records():
    user = UserFactory(username="importer")
    out, _ = command(str(SHARED_FIXTURES / "traces.jsonl"), "--project", "agentx", "--user", "importer")
    project = Project.objects.get(slug="agentx")
    assert project.kind == "trace"
    assert Item.objects.filter(project=project).count() == 10
    assert Membership.objects.get(project=project, user=user).role == Role.MANAGER
    assert "Created project 'agentx' (trace)" in out
    assert "10 created" in out
    assert (Path(settings.MEDIA_ROOT) / "projects" / "agentx" / "media" / "ax-0002.2.png").is_file()


def database_url() -> str:
    """The test database, for a subprocess (pytest-django renamed it)."""
    db = settings.DATABASES["default"]
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_rejected_file_exits_non_zero_prints_errors_and_creates_nothing(tmp_path):
    env = {**os.environ, "DATABASE_URL": database_url(), "MEDIA_ROOT": str(tmp_path / "media")}
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "import_jsonl",
            str(SHARED_FIXTURES / "bad" / "pairs_bad_role.jsonl"),
            "--project",
            "new-one",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "line 1: chosen.messages[0].role: 'wizard' is not one of" in result.stderr
    assert "pairs_bad_role.jsonl rejected: 1 error(s); nothing was imported." in result.stderr
    assert not Project.objects.filter(slug="new-one").exists()
    assert not AuditLog.objects.exists()


def test_file_of_bad_json_into_a_new_project_lists_its_lines():
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_jsonl", str(SHARED_FIXTURES / "bad" / "not_json.jsonl"), "--project", "nope", stderr=err
        )
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("line 1: (line): not valid JSON")
    assert lines[1].startswith("line 2: (line): not valid JSON")
    assert "cannot tell the new project's kind" in lines[2]
    assert not Project.objects.exists()


def test_reimport_lists_duplicates_and_replace_flag(tmp_path):
    command(str(SHARED_FIXTURES / "recordings.jsonl"), "--project", "rec")
    out, _ = command(str(SHARED_FIXTURES / "recordings.jsonl"), "--project", "rec")
    assert "5 duplicates" in out and "Already imported (not updated): rec-shop-000" in out
    out, _ = command(str(SHARED_FIXTURES / "recordings.jsonl"), "--project", "rec", "--replace")
    assert "5 replaced" in out
    assert Item.objects.filter(project__slug="rec").count() == 5


def test_media_folder_option(tmp_path):
    shutil.copy(SHARED_FIXTURES / "steps.jsonl", tmp_path / "steps.jsonl")
    with pytest.raises(CommandError):
        command(str(tmp_path / "steps.jsonl"), "--project", "web")
    out, _ = command(
        str(tmp_path / "steps.jsonl"), "--project", "web", "--media", str(SHARED_FIXTURES / "media")
    )
    assert "12 created" in out
    assert (Path(settings.MEDIA_ROOT) / "projects" / "web" / "media" / "shop-011.png").is_file()


def test_kind_mismatch_with_an_existing_project():
    ProjectFactory(slug="pairs-only", kind="pair")
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_jsonl", str(SHARED_FIXTURES / "pca.jsonl"), "--project", "pairs-only", stderr=err
        )
    assert "line 1: kind: this project holds pair records, not pca" in err.getvalue()


def big_file(path: Path, n: int, pad: int) -> Path:
    """n pair records of about `pad` characters each, naming tool envs of tool_envs.jsonl."""
    base = json.loads((SHARED_FIXTURES / "pairs.jsonl").read_text().splitlines()[0])
    base["tool_env"] = "chemlab-v1"
    with path.open("w") as fh:
        fh.write((SHARED_FIXTURES / "tool_envs.jsonl").read_text())
        for i in range(n):
            base["id"] = f"big-{i:06d}"
            base["chosen"]["messages"][0]["content"] = f"{i} " + "x" * pad
            fh.write(json.dumps(base) + "\n")
    return path


def peak_memory_of_import(path: Path) -> int:
    project = ProjectFactory(kind="pair")
    tracemalloc.start()
    try:
        report = import_jsonl(project=project, path=path, actor=None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.ok, report.errors
    assert ToolEnv.objects.filter(project=project).count() == 4
    assert Item.objects.filter(project=project).count() == report.counts["created"]
    return peak


def test_big_files_stream_in_constant_memory(tmp_path):
    small = big_file(tmp_path / "small.jsonl", n=1000, pad=8000)  # ~10 MB
    large = big_file(tmp_path / "large.jsonl", n=3000, pad=8000)  # ~30 MB
    peak_small, peak_large = peak_memory_of_import(small), peak_memory_of_import(large)
    # Three times the lines, not three times the memory; and far less than the file.
    assert peak_large < 1.5 * peak_small, (peak_small, peak_large)
    assert peak_large < large.stat().st_size / 2, (peak_large, large.stat().st_size)


@pytest.mark.django_db(transaction=True)
def test_a_running_import_does_not_hold_up_work_in_its_project():
    """Imports into one project queue up behind a lock on the project row; that lock must not
    stop annotators, whose every step writes rows pointing at the project."""
    project = ProjectFactory(kind="recording")
    inside, release = threading.Event(), threading.Event()

    def hold(lines_read: int, bytes_read: int) -> None:  # called at the end, inside the transaction
        inside.set()
        release.wait(30)

    def background() -> None:
        try:
            import_jsonl(
                project=project, path=SHARED_FIXTURES / "recordings.jsonl", actor=None, on_progress=hold
            )
        finally:
            connection.close()

    thread = threading.Thread(target=background)
    thread.start()
    try:
        assert inside.wait(30)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")
            audit_log_write(project_id=project.pk, actor=None, action="assign")  # raises if it has to wait
            cursor.execute("SET lock_timeout = 0")
    finally:
        release.set()
        thread.join(30)
    assert Item.objects.filter(project=project).count() == 5
