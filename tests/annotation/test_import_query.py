"""Import of `query` records (candidate queries to refine; docs/formats.md): the stored shape,
and bad lines rejected whole with line, field and reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Item, ItemKind, Task
from annotation.services.imports import project_get_or_create_for_import
from tests.annotation.import_helpers import run, table_counts, write_jsonl
from tests.factories import ProjectFactory, UserFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

HERE = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = HERE / "queries.jsonl"
BAD = HERE / "bad" / "queries_bad.jsonl"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def queries() -> list[dict]:
    return [r for r in records(GOOD) if r["kind"] == "query"]


def one(**fields) -> dict:
    record = {
        "kind": "query",
        "id": "q-x",
        "media": ["media/ax-0000.1.png"],
        "candidates": ["How many cars are parked?", "Which car is red?", "Is it day?"],
    }
    return record | fields


def errors_of(project, tmp_path, lines) -> list[dict]:
    before = table_counts()
    report = run(project, write_jsonl(tmp_path / "q.jsonl", lines), media_dir=SHARED_FIXTURES / "media")
    assert not report.ok
    assert table_counts() == before
    return report.errors


def test_fixture_imports_with_its_media_beside_it():
    project = ProjectFactory(kind="query", overlap=2)
    user = UserFactory()
    report = run(project, GOOD, actor=user)
    assert report.ok, report.errors
    expected = queries()
    assert report.counts["created"] == len(expected) >= 6
    for record in expected:
        item = Item.objects.select_related("task", "task__tool_env").get(
            project=project, external_id=record["id"]
        )
        assert item.kind == ItemKind.QUERY
        assert item.payload["candidates"] == record["candidates"]
        assert item.payload.get("source") == record.get("source")
        assert item.gold == {}
        assert item.meta == record.get("meta", {})
        assert item.stratum == record.get("environment", "")
        assert item.trajectory_first is None and item.overlap == 2
        assert item.task.media == record["media"]
        assert item.task.environment == record.get("environment", "")
        assert (item.task.tool_env.name if item.task.tool_env else None) == record.get("tool_env")
        for path in record["media"]:
            assert (Path(settings.MEDIA_ROOT) / "projects" / project.slug / path).is_file()


def test_fixture_imports_with_the_shared_media_folder_too():
    project = ProjectFactory(kind="query")
    assert run(project, GOOD, media_dir=SHARED_FIXTURES / "media").ok


def test_reimport_is_idempotent():
    project = ProjectFactory(kind="query")
    assert run(project, GOOD).ok
    again = run(project, GOOD)
    assert again.ok and again.counts["created"] == 0 and again.counts["duplicates"] == len(queries())


def test_records_of_one_visual_share_a_task_and_candidates_are_trimmed(tmp_path):
    project = ProjectFactory(kind="query")
    lines = [
        one(id="a", environment="outdoor", candidates=["  How many cars?\n", "Which one is red?"]),
        one(id="b", environment="outdoor"),
        one(id="c", environment="indoor"),
    ]
    assert run(project, write_jsonl(tmp_path / "q.jsonl", lines), media_dir=SHARED_FIXTURES / "media").ok
    assert Task.objects.filter(project=project).count() == 2
    a = Item.objects.get(project=project, external_id="a")
    assert a.payload == {"candidates": ["How many cars?", "Which one is red?"]}


def test_bad_fixture_is_rejected_whole_naming_line_and_field():
    project = ProjectFactory(kind="query")
    before = table_counts()
    report = run(project, BAD, media_dir=HERE / "media")
    assert not report.ok
    assert table_counts() == before
    assert not (Path(settings.MEDIA_ROOT) / "projects" / project.slug).exists() or not any(
        (Path(settings.MEDIA_ROOT) / "projects" / project.slug).rglob("*.png")
    )
    found = {(e["line"], e["field"]): e["reason"] for e in report.errors}
    assert 1 not in {line for line, _ in found}  # the first line is fine
    assert "at least 2" in found[(2, "candidates")]
    assert found[(3, "candidates[1]")] == "must not be empty"
    assert "repeats candidates[0]" in found[(4, "candidates[1]")]
    assert "at least 1" in found[(5, "media")]


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"candidates": ["Where?", "   "]}, "candidates[1]", "must not be blank"),
        ({"candidates": [f"Question {i}?" for i in range(6)]}, "candidates", "at most 5"),
        ({"candidates": "Where is it?"}, "candidates", "must be a list"),
        ({"candidates": ["Where?", 3]}, "candidates[1]", "must be a string"),
        ({"candidates": ["Where?", "x" * 4001]}, "candidates[1]", "at most 4000"),
        ({"media": ["media/missing.png"]}, "media[0]", "was not found"),
        ({"media": ["../secret.png"]}, "media[0]", "leaves the media folder"),
        ({"media": ["media/notes.txt"]}, "media[0]", "not an image or video"),
        ({"environment": "e" * 65}, "environment", "at most 64"),
        ({"tool_env": "nowhere"}, "tool_env", "unknown tool environment"),
        ({"source": "gpt"}, "source", "must be an object"),
    ],
)
def test_bad_lines_name_the_field_and_reason(tmp_path, fields, field, reason):
    project = ProjectFactory(kind="query")
    good = one(id="fine")
    errors = errors_of(project, tmp_path, [good, one(**fields)])
    assert [(e["line"], e["field"]) for e in errors] == [(2, field)], errors
    assert reason in errors[0]["reason"]


def test_missing_candidates_and_media_are_required(tmp_path):
    project = ProjectFactory(kind="query")
    errors = errors_of(project, tmp_path, [{"kind": "query", "id": "q-1", "media": ["media/ax-0000.1.png"]}])
    assert [(e["line"], e["field"], e["reason"]) for e in errors] == [(1, "candidates", "is required")]
    errors = errors_of(project, tmp_path, [{"kind": "query", "id": "q-1", "candidates": ["A?", "B?"]}])
    assert [(e["line"], e["field"], e["reason"]) for e in errors] == [(1, "media", "is required")]


def test_query_lines_go_only_into_query_projects(tmp_path):
    project = ProjectFactory(kind="trace")
    errors = errors_of(project, tmp_path, [one()])
    assert errors[0]["field"] == "kind" and "not query" in errors[0]["reason"]


def test_a_new_project_takes_the_query_kind_from_the_file():
    project, created = project_get_or_create_for_import(slug="refine", actor=UserFactory(), path=GOOD)
    assert created and project.kind == "query"
