"""`manage.py export_verified`, and exports run by a real Celery worker."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Role
from review.models import AuditLog, Export
from review.services.exports import export_create
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    exports_root,
    manager_of,
    read_jsonl,
    verified_pair,
)
from tests.workers.celery_worker import start_worker, stop_worker, wait_until

WAIT_SECONDS = 60


@pytest.fixture
def project(db):
    project = ProjectFactory(slug="cli-export")
    for n in range(30):
        verified_pair(project, preferred="second" if n % 4 == 0 else "first")
    return project


def command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("export_verified", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_exports_into_the_folder_and_prints_files_and_counts(project, tmp_path):
    manager = manager_of(project)
    out_dir = tmp_path / "dataset"
    out, _ = command(project.slug, "--out", str(out_dir), "--splits", "train=0.5,test=0.5", "--seed", "3")
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert f"Export {manifest['export']} of cli-export: 30 verified items in 30 groups" in out
    train, test = manifest["counts"]["per_split"]["train"], manifest["counts"]["per_split"]["test"]
    assert train["items"] + test["items"] == 30
    assert f"train: {train['items']} items" in out and f"test: {test['items']} items" in out
    for entry in manifest["files"]:
        data = (out_dir / entry["name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert f"{entry['name']}  {len(data)} bytes  sha256 {entry['sha256']}" in out
    assert len(read_jsonl(out_dir / "train.preference.jsonl")) == train["items"]
    assert manifest["created_by"] == manager.username
    export = Export.objects.get(pk=manifest["export"])
    assert export.status == Export.Status.DONE and export.directory == str(out_dir.resolve())
    assert AuditLog.objects.filter(action="export_done", actor=manager).exists()
    # The same request again gives the same bytes.
    again = tmp_path / "again"
    command(project.slug, "--out", str(again), "--splits", "train=0.5,test=0.5", "--seed", "3")
    for name in ("train.preference.jsonl", "test.interchange.jsonl"):
        assert (again / name).read_bytes() == (out_dir / name).read_bytes()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--splits", "train=0.8,dev=0.1"], "--splits: the ratios must sum to 1, but 0.8 + 0.1 = 0.9"),
        (["--splits", "train"], "--splits: 'train' has no ratio; write name=ratio"),
        (["--seed", "-2"], "--seed: the seed must be a whole number"),
        (["--strata", "moon"], "--strata: not a stratum of this project: moon"),
        (["--settled-from", "yesterday"], "--settled-from: 'yesterday' is not a date"),
        (
            ["--format", "interchange", "--format", "parquet", "--format", "preference", "--user", "nobody"],
            "--user: no user named 'nobody'",
        ),
    ],
)
def test_bad_options_stop_with_a_clear_message(project, tmp_path, args, message):
    manager_of(project)
    with pytest.raises(CommandError) as caught:
        command(project.slug, "--out", str(tmp_path / "x"), *args)
    assert message in str(caught.value)
    assert not Export.objects.exists()
    assert not (tmp_path / "x").exists()


@pytest.mark.django_db
def test_refuses_a_folder_with_files_and_a_non_manager(project, tmp_path):
    manager_of(project)
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="is not empty; choose a new folder or pass --overwrite"):
        command(project.slug, "--out", str(tmp_path))
    reviewer = MembershipFactory(project=project, role=Role.REVIEWER).user
    with pytest.raises(CommandError, match=f"'{reviewer.username}' is not a manager of 'cli-export'"):
        command(project.slug, "--out", str(tmp_path / "new"), "--user", reviewer.username)
    with pytest.raises(CommandError, match="No project 'missing'"):
        command("missing", "--out", str(tmp_path / "new"))
    out, _ = command(project.slug, "--out", str(tmp_path), "--overwrite")
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert (tmp_path / "manifest.json").is_file()


# --- a real worker ---------------------------------------------------------------------------


def export_finished(export: Export) -> bool:
    export.refresh_from_db()
    return export.status in (Export.Status.DONE, Export.Status.FAILED)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("not_eager")
def test_a_worker_on_the_exports_queue_runs_the_export(tmp_path, settings):
    var_dir = tmp_path / "var"
    settings.EXPORT_ROOT = var_dir / "exports"
    project = ProjectFactory(slug="worker-export")
    manager = manager_of(project)
    for n in range(25):
        verified_pair(project, preferred="first" if n % 2 else "second")
    log = tmp_path / "worker.log"
    # EXPORT_ROOT is <var>/exports in the worker too.
    worker = start_worker(log, queues="exports", env={"ARBITER_VAR_DIR": str(var_dir)})
    try:
        export = export_create(
            project=project,
            actor=manager,
            filters={},
            split_policy={"splits": "train=0.8,test=0.2", "seed": 1},
            formats=["preference", "interchange", "parquet"],
        )
        # Queued, not run here: this process never waits on the export.
        assert Export.objects.get(pk=export.pk).status in (Export.Status.QUEUED, Export.Status.RUNNING)
        wait_until(lambda: export_finished(export), log, "export finished")
    finally:
        stop_worker(worker)
    assert export.status == Export.Status.DONE, export.error
    assert export.items_done == export.items_total == 25
    folder = Path(export.directory)
    assert folder == settings.EXPORT_ROOT / "worker-export" / str(export.pk)
    for entry in export.files:
        assert hashlib.sha256((folder / entry["name"]).read_bytes()).hexdigest() == entry["sha256"]
    rows = sum(len(read_jsonl(folder / f"{s}.preference.jsonl")) for s in ("train", "test"))
    assert rows == 25
