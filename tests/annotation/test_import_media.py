"""Media named by records: copied into the project's folder, checked for safety and presence,
removed again when the import is rolled back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.annotation.import_helpers import fixture_lines, run, table_counts, write_jsonl
from tests.factories import ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db


def test_one_bad_line_among_good_ones_rolls_everything_back(tmp_path):
    project = ProjectFactory(kind="trace")
    lines = (SHARED_FIXTURES / "traces.jsonl").read_text().splitlines()
    lines.insert(5, json.dumps({"kind": "trace", "id": "broken", "query": "q", "final_answer": {"value": 1}}))
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(lines) + "\n")
    shutil.copytree(SHARED_FIXTURES / "media", tmp_path / "media")
    before = table_counts()
    report = run(project, path)
    assert not report.ok
    assert report.errors == [{"line": 6, "field": "trajectory", "reason": "is required"}]
    assert table_counts() == before
    # Media copied before the bad line are removed again.
    stored = Path(settings.MEDIA_ROOT) / "projects" / project.slug
    assert not stored.exists() or not any(p.is_file() for p in stored.rglob("*"))


def test_media_are_copied_into_the_project_folder():
    project = ProjectFactory(kind="step")
    report = run(project, SHARED_FIXTURES / "steps.jsonl")
    assert report.ok and report.counts["media"] == 12
    stored = Path(settings.MEDIA_ROOT) / "projects" / project.slug / "media" / "shop-000.png"
    assert stored.read_bytes() == (SHARED_FIXTURES / "media" / "shop-000.png").read_bytes()
    # A second import keeps what is there.
    assert run(project, SHARED_FIXTURES / "steps.jsonl").counts["media"] == 0


def test_media_from_another_folder(tmp_path):
    project = ProjectFactory(kind="pca")
    shutil.copy(SHARED_FIXTURES / "pca.jsonl", tmp_path / "pca.jsonl")
    assert not run(project, tmp_path / "pca.jsonl").ok  # no media/ beside the copy
    report = run(project, tmp_path / "pca.jsonl", media_dir=SHARED_FIXTURES / "media")
    assert report.ok, report.errors
    assert (Path(settings.MEDIA_ROOT) / "projects" / project.slug / "media" / "pca-000.png").is_file()


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("../pairs.jsonl.png", "leaves the media folder"),
        ("/etc/passwd.png", "is absolute"),
        ("media/../../secret.png", "leaves the media folder"),
        ("media/page.html", "is not an image or video file"),
        ("media/nothere.png", "was not found"),
    ],
)
def test_unsafe_or_missing_media_is_an_error_of_its_line(tmp_path, image, reason):
    project = ProjectFactory(kind="pca")
    record = fixture_lines("pca.jsonl")[0]
    record["instance"]["image"] = image
    shutil.copytree(SHARED_FIXTURES / "media", tmp_path / "media")
    (error,) = run(project, write_jsonl(tmp_path / "pca.jsonl", [record])).errors
    assert error["line"] == 1 and error["field"] == "instance.image" and reason in error["reason"]
