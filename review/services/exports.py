"""Exports as services: a manager asks for one (queued in a worker), the worker runs it.

The export itself (grouping, splits, files, manifest) is review.exports.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from annotation.models import Project
from review.exports.manifest import agreement_snapshot, build_manifest, write_manifest
from review.exports.pipeline import planned_files, run_export
from review.exports.policy import (
    ExportRequestError,
    normalize_filters,
    normalize_formats,
    normalize_split_policy,
)
from review.exports.selectors import export_items, project_strata
from review.lifecycle import audit_log_write
from review.models import Export

logger = logging.getLogger(__name__)

__all__ = ["ExportRequestError", "export_create", "export_directory", "export_run"]


def export_directory(export: Export) -> Path:
    return Path(settings.EXPORT_ROOT) / export.project.slug / str(export.pk)


@transaction.atomic
def export_create(
    *,
    project: Project,
    actor,
    filters: dict[str, Any],
    split_policy: dict[str, Any],
    formats: list[str] | None,
    directory: Path | None = None,
    enqueue: bool = True,
) -> Export:
    """Check the request and queue the export in a worker (after commit). `directory` puts the
    files somewhere else than EXPORT_ROOT (the command line); `enqueue=False` leaves running it
    to the caller. Raises ExportRequestError (field → reason) and writes nothing then."""
    errors: dict[str, str] = {}
    normal: dict[str, Any] = {}
    for name, check in (
        ("filters", lambda: normalize_filters(project, filters or {}, project_strata(project=project))),
        ("split_policy", lambda: normalize_split_policy(split_policy or {})),
        ("formats", lambda: normalize_formats(project, formats)),
    ):
        try:
            normal[name] = check()
        except ExportRequestError as exc:
            errors.update(exc.errors)
    if errors:
        raise ExportRequestError(errors)
    export = Export.objects.create(
        project=project,
        created_by=actor,
        filters=normal["filters"],
        split_policy=normal["split_policy"],
        formats=normal["formats"],
        items_total=export_items(project=project, filters=normal["filters"]).count(),
    )
    export.directory = str(Path(directory).resolve() if directory else export_directory(export))
    export.save(update_fields=["directory"])
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="export_queued",
        data={
            "export": export.pk,
            "filters": export.filters,
            "split_policy": export.split_policy,
            "formats": export.formats,
        },
    )
    if enqueue:
        transaction.on_commit(lambda: _enqueue(export.pk))
    return export


def _enqueue(export_id: int) -> None:
    from workers.tasks.exports import export_task  # workers import this module

    export_task.delay(export_id)


class _ProgressWriter:
    """The export reads inside one transaction (a consistent snapshot, a streaming cursor), so
    its progress goes through a connection of its own to be seen meanwhile (PostgreSQL; with
    SQLite the page sees the count at the end)."""

    def __init__(self, export_id: int, echo: Callable[[int, int], None] | None):
        self.export_id = export_id
        self.echo = echo
        self.conn = None
        if connections["default"].vendor == "postgresql":
            self.conn = connections.create_connection("default")
        table = connections["default"].ops.quote_name(Export._meta.db_table)
        self.sql = f"UPDATE {table} SET items_done = %s, items_total = %s WHERE id = %s"  # noqa: S608

    def __call__(self, done: int, total: int) -> None:
        if self.conn is not None:
            with self.conn.cursor() as cursor:
                cursor.execute(self.sql, [done, total, self.export_id])
        if self.echo is not None:
            self.echo(done, total)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def export_run(*, export_id: int, on_progress: Callable[[int, int], None] | None = None) -> Export:
    """Run a queued export (in a worker, or the command line). Not one transaction on purpose:
    the status is committed before and after, so the page can follow it. A message delivered
    again after the export finished does nothing; one for an export a dead worker left running
    starts it over."""
    export = Export.objects.select_related("project", "created_by").get(pk=export_id)
    if export.status in (Export.Status.DONE, Export.Status.FAILED):
        return export
    directory = Path(export.directory) if export.directory else export_directory(export)
    export.status = Export.Status.RUNNING
    export.items_done = 0
    export.directory = str(directory)
    export.save(update_fields=["status", "items_done", "directory"])
    progress = _ProgressWriter(export.pk, on_progress)
    try:
        result = run_export(export=export, directory=directory, on_progress=progress)
        manifest = build_manifest(export=export, result=result, agreement=agreement_snapshot(export.project))
        manifest_entry = write_manifest(directory, manifest)
    except Exception as exc:
        logger.exception("export %s stopped", export.pk)
        _remove_outputs(directory, export)
        export.status = Export.Status.FAILED
        export.error = f"The export stopped: {type(exc).__name__}: {exc}"
        export.finished_at = timezone.now()
        export.save(update_fields=["status", "error", "finished_at"])
        audit_log_write(
            project_id=export.project_id,
            actor=export.created_by,
            action="export_failed",
            reason=export.error,
            data={"export": export.pk},
        )
        return export
    finally:
        progress.close()
    export.status = Export.Status.DONE
    export.items_total = export.items_done = result.counts["items"]
    export.files = [*result.files, manifest_entry]
    # The stored copy loses key order (jsonb); manifest.json on disk is the one to cite.
    export.manifest = json.loads(json.dumps(manifest))
    export.error = ""
    export.finished_at = timezone.now()
    export.save(
        update_fields=["status", "items_total", "items_done", "files", "manifest", "error", "finished_at"]
    )
    audit_log_write(
        project_id=export.project_id,
        actor=export.created_by,
        action="export_done",
        data={
            "export": export.pk,
            "items": result.counts["items"],
            "files": {f["name"]: f["sha256"] for f in export.files},
        },
    )
    return export


def _remove_outputs(directory: Path, export: Export) -> None:
    """Half-written files are worse than none. A folder of our own goes whole; in a folder the
    caller chose, only the files this export writes."""
    if directory == export_directory(export):
        shutil.rmtree(directory, ignore_errors=True)
        return
    for name in planned_files(export):
        (directory / name).unlink(missing_ok=True)
