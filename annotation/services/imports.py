"""Imports as services: the project a file goes into, and background import jobs.

The import itself (validation, adapters, writes) is annotation.importers.import_jsonl.
"""

from __future__ import annotations

import codecs
import json
import logging
import shutil
import uuid
import zipfile
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.db import connections, transaction
from django.utils import timezone
from django.utils.text import get_valid_filename, slugify

from annotation.importers import ImportRejected, ImportReport, import_jsonl
from annotation.importers.media import MediaError, extract_zip
from annotation.importers.report import LINE_FIELD
from annotation.importers.schemas import RECORD_KINDS
from annotation.models import ImportJob, Membership, Project, Role
from review.lifecycle import audit_log_write

logger = logging.getLogger(__name__)

SNIFF_LINES = 1000


def sniff_kind(path: Path) -> tuple[str | None, list[dict[str, Any]]]:
    """The record kind of the first record line (tool_env lines skipped), and the errors met
    on the way when there is none."""
    errors: list[dict[str, Any]] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno > SNIFF_LINES:
                break
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.removeprefix(codecs.BOM_UTF8).strip())
            except json.JSONDecodeError as exc:
                errors.append(
                    {
                        "line": lineno,
                        "field": LINE_FIELD,
                        "reason": f"not valid JSON at column {exc.colno}: {exc.msg}",
                    }
                )
                continue
            except ValueError:
                errors.append({"line": lineno, "field": LINE_FIELD, "reason": "not valid UTF-8 text"})
                continue
            kind = record.get("kind") if isinstance(record, dict) else None
            if kind in RECORD_KINDS:
                return kind, []
    return None, errors


@transaction.atomic
def project_get_or_create_for_import(
    *, slug: str, actor, path: Path | None = None, kind: str | None = None, name: str = ""
) -> tuple[Project, bool]:
    """The project named `slug`, created when missing with the kind of the file's records (or
    `kind`). The creator, when a user, becomes its manager. Raises ImportRejected."""
    project = Project.objects.filter(slug=slug).first()
    if project is not None:
        return project, False
    if slugify(slug) != slug or not slug or len(slug) > 80:
        raise ImportRejected(
            [{"line": 0, "field": "project", "reason": f"{slug!r} is not a valid project slug"}]
        )
    errors: list[dict[str, Any]] = []
    if kind is None and path is not None:
        kind, errors = sniff_kind(Path(path))
    if kind not in RECORD_KINDS:
        reason = "cannot tell the new project's kind: no line holds a record of a known kind"
        raise ImportRejected([*errors, {"line": 0, "field": "kind", "reason": reason}])
    project = Project.objects.create(slug=slug, name=name or slug, kind=kind)
    if actor is not None and actor.is_authenticated:
        Membership.objects.create(user=actor, project=project, role=Role.MANAGER)
    audit_log_write(
        project_id=project.pk, actor=actor, action="project_create", data={"kind": kind, "via": "import"}
    )
    return project, True


def _store(upload: Any, dest: Path) -> None:
    """Write an uploaded file chunk by chunk (Django UploadedFile or any binary file object)."""
    with dest.open("wb") as out:
        if hasattr(upload, "chunks"):
            for chunk in upload.chunks():
                out.write(chunk)
        else:
            shutil.copyfileobj(upload, out, 1024 * 1024)


def _upload_name(upload: Any, default: str) -> str:
    name = Path(str(getattr(upload, "name", "") or default)).name
    try:
        return get_valid_filename(name)[:200]
    except SuspiciousFileOperation:  # a name made only of odd characters
        return default


@transaction.atomic
def import_job_create(
    *,
    project: Project,
    actor,
    upload: IO[bytes] | Any,
    media_zip: IO[bytes] | Any | None = None,
    replace: bool = False,
) -> ImportJob:
    """Store the upload (and media zip) under UPLOAD_ROOT and queue the import in a worker."""
    job_dir = Path(settings.UPLOAD_ROOT) / "imports" / project.slug / uuid.uuid4().hex
    job_dir.mkdir(parents=True)
    filename = _upload_name(upload, "upload.jsonl")
    path = job_dir / filename
    _store(upload, path)
    media_path = ""
    if media_zip is not None:
        media_path = str(job_dir / "media.zip")
        _store(media_zip, Path(media_path))
    job = ImportJob.objects.create(
        project=project,
        created_by=actor,
        filename=filename,
        path=str(path),
        media_path=media_path,
        replace=replace,
    )
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="import_queued",
        data={"job": job.pk, "file": filename, "replace": replace},
    )
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    from workers.tasks.imports import import_job_task  # workers import this module

    import_job_task.delay(job_id)


class _ProgressWriter:
    """Progress has to be visible while the import's transaction is still open, so it goes
    through a connection of its own (PostgreSQL). SQLite would lock against the import: there
    the page sees the count at the end only."""

    def __init__(self, job_id: int, bytes_total: int):
        self.job_id = job_id
        self.bytes_total = bytes_total
        self.conn = None
        if connections["default"].vendor == "postgresql":
            self.conn = connections.create_connection("default")
        table = connections["default"].ops.quote_name(ImportJob._meta.db_table)
        self.sql = f"UPDATE {table} SET lines_read = %s, counts = %s::jsonb WHERE id = %s"  # noqa: S608

    def __call__(self, lines_read: int, bytes_read: int) -> None:
        if self.conn is not None:
            counts = json.dumps({"bytes_read": bytes_read, "bytes_total": self.bytes_total})
            with self.conn.cursor() as cursor:
                cursor.execute(self.sql, [lines_read, counts, self.job_id])

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def import_job_run(*, job_id: int) -> ImportJob:
    """Run a queued import job (in a worker). Not one transaction on purpose: the status is
    committed before and after, and the import holds its own all-or-nothing transaction."""
    job = ImportJob.objects.select_related("project", "created_by").get(pk=job_id)
    if job.status in (ImportJob.Status.DONE, ImportJob.Status.FAILED):
        return job  # a redelivered message must not import twice
    job.status = ImportJob.Status.RUNNING
    job.lines_read = 0
    job.save(update_fields=["status", "lines_read"])
    job_dir = Path(job.path).parent
    progress = _ProgressWriter(job.pk, Path(job.path).stat().st_size if Path(job.path).is_file() else 0)
    try:
        report = _run(job, job_dir, progress)
    except Exception as exc:
        logger.exception("import job %s stopped", job.pk)
        report = ImportReport(
            ok=False, errors=[{"line": 0, "field": "", "reason": f"the import stopped: {exc}"}]
        )
    finally:
        progress.close()
    job.status = ImportJob.Status.DONE if report.ok else ImportJob.Status.FAILED
    job.counts = report.counts
    job.errors = report.errors
    job.lines_read = report.lines_read
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "counts", "errors", "lines_read", "finished_at"])
    # The upload was only a vehicle; its content now lives in the database and MEDIA_ROOT.
    shutil.rmtree(job_dir, ignore_errors=True)
    return job


def _run(job: ImportJob, job_dir: Path, progress: _ProgressWriter) -> ImportReport:
    media_dir = None
    if job.media_path:
        media_dir = job_dir / "media-unpacked"
        try:
            extract_zip(Path(job.media_path), media_dir)
        except (MediaError, zipfile.BadZipFile, OSError) as exc:
            return ImportReport(ok=False, errors=[{"line": 0, "field": "media", "reason": str(exc)}])
    return import_jsonl(
        project=job.project,
        path=job.path,
        actor=job.created_by,
        media_dir=media_dir,
        replace=job.replace,
        on_progress=progress,
    )
