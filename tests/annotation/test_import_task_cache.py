"""A file with more distinct tasks than the importer keeps in memory still imports whole."""

from __future__ import annotations

import pytest

from annotation.importers import writer
from annotation.models import Item, Task
from annotation.synthetic import generate_pairs
from tests.annotation.import_helpers import run, write_jsonl
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def test_task_cache_overflow_mid_file(monkeypatch, tmp_path):
    monkeypatch.setattr(writer, "TASK_CACHE_LIMIT", 5)
    monkeypatch.setattr(writer, "BATCH_RECORDS", 7)
    records = list(generate_pairs(40, seed=3))
    # Each record is followed by a second pair on the previous record's task, so batches mix
    # tasks still in the cache with new ones while the cache overflows.
    lines = [records[0]]
    for previous, record in zip(records, records[1:], strict=False):
        lines += [record, {**previous, "id": previous["id"] + "-again"}]
    project = ProjectFactory(kind="pair")
    report = run(project, write_jsonl(tmp_path / "pairs.jsonl", lines))
    assert report.ok, report.errors
    assert Item.objects.filter(project=project).count() == len(lines)
    distinct = {item.task_id for item in Item.objects.filter(project=project)}
    assert Task.objects.filter(project=project).count() == len(distinct)
