"""The export form, API and command offer the files that fit the project's kind, and the
finished export lists what each file holds and what was left out of it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Item
from review.models import Export
from tests.factories import ProjectFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    fixture_project,
    manager_of,
    run_export,
    settle,
)

pytestmark = pytest.mark.django_db

OFFERED = {
    "pair": {"preference", "interchange", "parquet"},
    "trace": {"sft", "preference", "interchange", "parquet"},
    "step": {"preference", "checklists", "interchange", "parquet"},
    "query": {"queries", "interchange", "parquet"},
    "pca": {"interchange", "parquet"},
    "recording": {"interchange", "parquet"},
}
ALL = {"preference", "sft", "checklists", "queries", "interchange", "parquet"}


def logged_in(project) -> APIClient:
    client = APIClient()
    client.force_login(manager_of(project))
    return client


@pytest.mark.parametrize("kind", sorted(OFFERED))
def test_the_form_offers_the_formats_of_the_kind(kind):
    project = ProjectFactory(kind=kind, slug=f"form-{kind}")
    page = logged_in(project).get(reverse("export_list", args=[project.slug])).content.decode()
    offered = {f for f in ALL if f'name="formats" value="{f}"' in page}
    assert offered == OFFERED[kind]


def test_the_api_accepts_the_formats_of_the_kind_and_names_the_misfit():
    project = ProjectFactory(kind="trace", slug="api-trace")
    client = logged_in(project)
    url = reverse("api:export-list", args=[project.slug])
    accepted = client.post(url, {"splits": "all=1", "formats": ["sft", "preference"]}, format="json")
    assert accepted.status_code == 202, accepted.content
    assert Export.objects.get(pk=accepted.json()["id"]).formats == ["preference", "sft"]
    refused = client.post(url, {"splits": "all=1", "formats": ["sft", "checklists"]}, format="json")
    assert refused.status_code == 400
    assert "the checklists format is for step projects" in refused.json()["errors"]["formats"]
    assert Export.objects.filter(project=project).count() == 1


def test_the_command_writes_step_files(tmp_path):
    project, manager = fixture_project("step", "steps.jsonl", slug="cmd-steps")
    for item in Item.objects.filter(project=project):
        settle(item, {"chosen": item.gold["chosen"]})
    call_command(
        "export_verified",
        project.slug,
        "--out",
        str(tmp_path / "out"),
        "--splits",
        "all=1",
        "--format",
        "preference",
        "--format",
        "checklists",
        "--user",
        manager.username,
    )
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["all.checklists.jsonl", "all.preference.jsonl", "manifest.json"]


def test_the_detail_page_lists_rows_per_file_and_what_was_left_out():
    project, manager = fixture_project("trace", "traces.jsonl", slug="page-trace")
    for item in Item.objects.filter(project=project):
        settle(item, {"verdict": "discard", "discard_reason": "unsolvable"})
    export = run_export(project, manager)
    manifest = export.manifest
    assert manifest["counts"]["rows"] == {"preference": 0, "sft": 0, "interchange": 10}
    assert manifest["counts"]["left_out"] == {"preference": {"discard": 10}, "sft": {"discard": 10}}
    assert {f["name"]: f["rows"] for f in export.files}["train.interchange.jsonl"] > 0
    page = logged_in(project).get(reverse("export_detail", args=[project.slug, export.pk])).content.decode()
    assert "Left out of a file" in page
    assert "<td>sft</td><td>discard</td><td>10</td>" in page
    assert "train.sft.jsonl" in page


@pytest.mark.parametrize(
    ("kind", "fixture", "label", "formats"),
    [
        ("step", "steps.jsonl", lambda item: {"chosen": item.gold["chosen"]}, ["preference", "checklists"]),
        ("trace", "traces.jsonl", lambda item: {"verdict": "correct"}, ["sft", "interchange"]),
    ],
)
def test_parquet_copies_hold_the_rows_of_the_new_files(kind, fixture, label, formats):
    import pyarrow.parquet as pq

    project, manager = fixture_project(kind, fixture, slug=f"parquet-{kind}")
    for item in Item.objects.filter(project=project):
        settle(item, label(item))
    export = run_export(project, manager, splits="all=1", formats=[*formats, "parquet"])
    rows = {f["name"]: f["rows"] for f in export.files}
    for fmt in formats:
        table = pq.read_table(export_dir(export) / f"all.{fmt}.parquet")
        assert table.num_rows == rows[f"all.{fmt}.jsonl"] > 0
        assert "id" in table.column_names
