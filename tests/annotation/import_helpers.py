"""Helpers shared by the importer tests."""

from __future__ import annotations

import json
from pathlib import Path

from annotation.importers import ImportReport, import_jsonl
from annotation.models import (
    Annotation,
    ImportJob,
    Item,
    Membership,
    Project,
    Task,
    ToolEnv,
    Trajectory,
)
from review.models import AuditLog
from tests.fixtures_path import SHARED_FIXTURES

TABLES = (Project, Membership, ToolEnv, Task, Trajectory, Item, Annotation, ImportJob, AuditLog)


def table_counts() -> dict[str, int]:
    """Rows per table: a rejected import must leave every one unchanged."""
    return {model.__name__: model.objects.count() for model in TABLES}


def run(project, path, **kwargs) -> ImportReport:
    return import_jsonl(project=project, path=path, actor=kwargs.pop("actor", None), **kwargs)


def write_jsonl(path: Path, records) -> Path:
    """Records (dicts, or raw strings for broken lines) as a JSONL file."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def fixture_lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (SHARED_FIXTURES / name).read_text().splitlines() if line.strip()]
