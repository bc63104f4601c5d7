"""Exports of verified query-refinement items: the refined queries file (what was decided for
each visual) and interchange records that import again."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.importers import import_jsonl
from annotation.labels import validate_label
from annotation.models import Item
from tests.factories import ProjectFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    manager_of,
    media_root,
    records,
    run_export,
    settle,
    split_of_ids,
)

pytestmark = pytest.mark.django_db
SPLITS = ("train", "dev", "test")
QUERIES = Path(__file__).resolve().parent.parent / "fixtures" / "queries.jsonl"
EDITED = "How many cars are parked on the left side of the street in this photo?"


def all_records(export, fmt: str) -> list[dict]:
    return [r for split in SPLITS for r in records(export, split, fmt)]


def label_for(n: int) -> dict:
    """The first item keeps candidate 0, the second gets candidate 1 rewritten, the third is
    rejected as tool-hinting; the others keep their first candidate."""
    if n == 1:
        return {"decision": "edit", "chosen": 1, "query": EDITED, "note": "named the side"}
    if n == 2:
        return {"decision": "reject", "reject_reason": "tool_hinting"}
    return {"decision": "pick", "chosen": 0}


@pytest.fixture
def queries():
    project = ProjectFactory(kind="query", slug="queries")
    manager = manager_of(project)
    report = import_jsonl(project=project, path=QUERIES, actor=manager)
    assert report.ok, report.errors
    items = list(Item.objects.filter(project=project).order_by("id"))
    assert len(items) >= 3
    for n, item in enumerate(items):
        label = label_for(n)
        if label["decision"] == "pick":
            label["query"] = item.payload["candidates"][label["chosen"]]
        settle(item, validate_label(project=project, item=item, label=label))
    return project, manager, items


def test_refined_queries_hold_the_decision_per_visual(queries):
    project, manager, items = queries
    export = run_export(project, manager)
    assert export.formats == ["queries", "interchange"]
    rows = {r["id"]: r for r in all_records(export, "queries")}
    assert set(rows) == {i.external_id for i in items}  # rejected visuals stay, with their reason
    for n, item in enumerate(items):
        row = rows[item.external_id]
        assert row["media"] == item.task.media and row["media"]
        assert row["candidates"] == item.payload["candidates"]
        if n == 1:
            assert row["decision"] == "edit" and row["chosen"] == 1 and row["query"] == EDITED
            assert row["note"] == "named the side"
            assert row["reject_reason"] is None
        elif n == 2:
            assert row["decision"] == "reject" and row["reject_reason"] == "tool_hinting"
            assert row["query"] is None and row["chosen"] is None
        else:
            assert row["decision"] == "pick" and row["query"] == item.payload["candidates"][0]
    assert export.manifest["counts"]["rows"]["queries"] == len(items)
    # The refined query and its visual sit in the same split in every file.
    splits = split_of_ids(export, "interchange")
    for split in SPLITS:
        for row in records(export, split, "queries"):
            assert splits[row["id"]] == split


def test_query_interchange_records_import_again_with_the_label(queries):
    project, manager, items = queries
    export = run_export(project, manager, formats=["interchange"])
    again = ProjectFactory(kind="query", slug="queries-again")
    for split in SPLITS:
        if export.manifest["counts"]["per_split"][split]["items"]:
            path = export_dir(export) / f"{split}.interchange.jsonl"
            report = import_jsonl(project=again, path=path, actor=None, media_dir=media_root(project))
            assert report.ok, report.errors
    originals = {i.external_id: i for i in items}
    copies = list(Item.objects.filter(project=again).select_related("task"))
    assert len(copies) == len(items)
    for copy in copies:
        source = Item.objects.select_related("task").get(pk=originals[copy.external_id].pk)
        assert copy.payload["candidates"] == source.payload["candidates"]
        assert copy.task.media == source.task.media
    interchange = {r["id"]: r for r in all_records(export, "interchange")}
    for item in items:
        item.refresh_from_db()
        assert interchange[item.external_id]["label"] == item.settled_label


def test_a_query_project_is_not_offered_the_files_of_other_kinds(queries):
    from review.exports.policy import ExportRequestError
    from review.services.exports import export_create

    project, manager, _ = queries
    with pytest.raises(ExportRequestError) as caught:
        export_create(project=project, actor=manager, filters={}, split_policy={}, formats=["sft"])
    assert "the sft format is for trace projects" in caught.value.errors["formats"]
    assert "its formats: queries, interchange, parquet" in caught.value.errors["formats"]
