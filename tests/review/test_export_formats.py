"""What an export writes: preference records with the settled preference, interchange records
that import again, Parquet copies, a manifest whose hashes match, in constant memory."""

from __future__ import annotations

import hashlib
import json
import tracemalloc

import pyarrow.parquet as pq
import pytest

from annotation.importers import import_jsonl
from annotation.models import Item, Trajectory
from annotation.trajectory_stats import trajectory_stats
from review.exports import pipeline
from review.models import AuditLog
from tests.factories import ProjectFactory, long_messages
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    LABELS,
    export_dir,
    exports_root,
    fixture_project,
    manager_of,
    media_root,
    read_jsonl,
    records,
    run_export,
    settle,
    verified_pair,
    verify_all,
)

pytestmark = pytest.mark.django_db
SPLIT_NAMES = ("train", "dev", "test")


def all_records(export, fmt: str) -> dict[str, dict]:
    return {r["id"]: r for split in SPLIT_NAMES for r in records(export, split, fmt)}


def flipped(item: Item) -> dict:
    """A settled label that contradicts the source gold on every third pair, agrees otherwise."""
    gold = item.gold["preferred"]
    other = "second" if gold == "first" else "first"
    preferred = other if int(item.external_id[-2:]) % 3 == 0 else gold
    rejected = "second" if preferred == "first" else "first"
    return {"preferred": preferred, "tags": {preferred: [], rejected: ["fabricated_result"]}}


@pytest.fixture
def pairs():
    project, manager = fixture_project("pair", "pairs.jsonl", slug="prb")
    verify_all(project, flipped)
    return project, manager


def test_preference_records_take_the_settled_side_as_chosen(pairs):
    project, manager = pairs
    export = run_export(project, manager)
    rows = all_records(export, "preference")
    assert len(rows) == 42
    for item in Item.objects.filter(project=project).select_related(
        "task__tool_env", "trajectory_first", "trajectory_second"
    ):
        row = rows[item.external_id]
        settled = item.settled_label["preferred"]
        chosen = item.trajectory_first if settled == "first" else item.trajectory_second
        rejected = item.trajectory_second if settled == "first" else item.trajectory_first
        assert [m["content"] for m in row["chosen"]] == [m.get("content") for m in chosen.messages]
        assert [m["content"] for m in row["rejected"]] == [m.get("content") for m in rejected.messages]
        assert [m["role"] for m in row["prompt"]] == [m["role"] for m in item.task.context]
        assert row["meta"]["label"]["preferred"] == "chosen"
        assert row["meta"]["label"]["tags"] == {"chosen": [], "rejected": ["fabricated_result"]}
        assert row["meta"]["bucket"] == item.stratum
        assert row["meta"]["chosen_source"] == chosen.source
        assert [t["function"]["name"] for t in row["tools"]] == [t["name"] for t in item.task.tool_env.tools]
        assert all(t["type"] == "function" and "parameters" in t["function"] for t in row["tools"])


def test_preference_messages_are_in_the_chat_template_shape():
    project = ProjectFactory(slug="chat-shape")
    manager = manager_of(project)
    item = verified_pair(project, preferred="second")
    export = run_export(project, manager, splits="all=1")
    (row,) = records(export, "all", "preference")
    assert row["prompt"] == [
        {
            "role": "user",
            "content": "Book the cheapest flight from SFO to JFK.",
        }
    ]
    call, tool, answer = row["chosen"]
    assert call == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search_flights", "arguments": {"from": "SFO", "to": "JFK"}},
            }
        ],
    }
    assert tool == {
        "role": "tool",
        "content": '{"cheapest": 199}',
        "tool_call_id": "call_1",
        "name": "search_flights",
    }
    assert answer["content"] == item.trajectory_second.messages[-1]["content"] == "I booked the $450 flight."
    assert row["rejected"][-1]["content"] == "I booked the $199 flight."
    assert row["tools"] == []


def test_ties_stay_in_the_interchange_file_and_are_counted(pairs):
    project, manager = pairs
    tie = Item.objects.filter(project=project).order_by("id").first()
    Item.objects.filter(pk=tie.pk).update(settled_label={"preferred": "tie"})
    export = run_export(project, manager)
    assert tie.external_id not in all_records(export, "preference")
    assert all_records(export, "interchange")[tie.external_id]["label"] == {"preferred": "tie"}
    counts = export.manifest["counts"]
    assert counts["preference_left_out"] == {"ties": 1, "unlabeled": 0}
    assert sum(s["rows"]["preference"] for s in counts["per_split"].values()) == 41
    assert sum(s["rows"]["interchange"] for s in counts["per_split"].values()) == 42


def test_interchange_pairs_round_trip_through_the_importer(pairs, tmp_path):
    project, manager = pairs
    export = run_export(project, manager)
    copy = ProjectFactory(slug="prb-copy")
    imported = 0
    for split in SPLIT_NAMES:
        if not export.manifest["counts"]["per_split"][split]["items"]:
            continue  # the importer refuses a file without records
        report = import_jsonl(
            project=copy, path=export_dir(export) / f"{split}.interchange.jsonl", actor=None
        )
        assert report.ok, report.errors
        imported += report.counts["created"]
    assert imported == 42
    originals = {
        i.external_id: i
        for i in Item.objects.filter(project=project).select_related(
            "task__tool_env", "trajectory_first", "trajectory_second"
        )
    }
    for again in Item.objects.filter(project=copy).select_related(
        "task__tool_env", "trajectory_first", "trajectory_second"
    ):
        source = originals[again.external_id]
        settled = source.settled_label["preferred"]
        preferred = source.trajectory_first if settled == "first" else source.trajectory_second
        gold = again.trajectory_first if again.gold["preferred"] == "first" else again.trajectory_second
        # The settled preference is the gold of the re-imported pair.
        assert gold.messages == preferred.messages
        assert gold.source == preferred.source
        assert again.task.context == source.task.context
        assert again.task.tool_env.tools == source.task.tool_env.tools
        assert (again.meta, again.stratum, again.family) == (source.meta, source.stratum, source.family)


@pytest.mark.parametrize(
    ("kind", "fixture"),
    [
        ("step", "steps.jsonl"),
        ("trace", "traces.jsonl"),
        ("pca", "pca.jsonl"),
        ("recording", "recordings.jsonl"),
    ],
)
def test_other_kinds_round_trip_with_their_settled_label(kind, fixture):
    project, manager = fixture_project(kind, fixture)
    verify_all(project, LABELS[kind])
    export = run_export(project, manager)
    rows = all_records(export, "interchange")
    items = {i.external_id: i for i in Item.objects.filter(project=project).select_related("task")}
    assert set(rows) == set(items)
    for external_id, row in rows.items():
        assert row["kind"] == kind
        assert row["label"] == items[external_id].settled_label
    copy = ProjectFactory(slug=f"{kind}-copy", kind=kind)
    for split in SPLIT_NAMES:
        if not export.manifest["counts"]["per_split"][split]["items"]:
            continue
        path = export_dir(export) / f"{split}.interchange.jsonl"
        report = import_jsonl(project=copy, path=path, actor=None, media_dir=media_root(project))
        assert report.ok, report.errors
    for again in Item.objects.filter(project=copy).select_related("task"):
        source = items[again.external_id]
        assert (again.payload, again.gold, again.stratum) == (source.payload, source.gold, source.stratum)
        assert again.task.instruction == source.task.instruction
        assert again.task.media == source.task.media


def test_a_step_exports_the_settled_candidate_as_reference():
    project, manager = fixture_project("step", "steps.jsonl")
    item = Item.objects.filter(project=project).order_by("id").first()
    other = next(c["id"] for c in item.payload["candidates"] if c["id"] != item.gold["chosen"])
    settle(item, {"chosen": other})
    export = run_export(project, manager, splits="all=1")
    (row,) = records(export, "all", "interchange")
    assert [c["id"] for c in row["candidates"] if c["reference"]] == [other]
    assert row["label"] == {"chosen": other}


def test_manifest_hashes_match_the_files(pairs):
    project, manager = pairs
    export = run_export(project, manager, formats=["preference", "interchange", "parquet"])
    folder = export_dir(export)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {f["name"] for f in manifest["files"]} == {
        f"{s}.{fmt}.{ext}"
        for s in SPLIT_NAMES
        for fmt in ("preference", "interchange")
        for ext in ("jsonl", "parquet")
    }
    for entry in manifest["files"]:
        data = (folder / entry["name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["bytes"] == len(data)
    listed = {f["name"]: f for f in export.files}
    assert (
        listed["manifest.json"]["sha256"]
        == hashlib.sha256((folder / "manifest.json").read_bytes()).hexdigest()
    )
    assert manifest["split_policy"]["seed"] == 7
    assert manifest["split_policy"]["splits_text"] == "train=0.8,dev=0.1,test=0.1"
    assert manifest["platform"] == {"name": "arbiter", "version": "0.1.0"}
    assert manifest["created_by"] == manager.username
    assert manifest["filters"] == {"states": ["verified"]}
    assert manifest["counts"]["items"] == 42
    assert sum(s["items"] for s in manifest["counts"]["per_split"].values()) == 42
    assert set(manifest["counts"]["per_stratum"]) == {i.stratum for i in Item.objects.filter(project=project)}
    assert "agreement" in manifest  # the statistics, or why they could not be computed
    assert manifest["tool_envs"]
    assert AuditLog.objects.filter(project=project, action="export_done").exists()


def test_parquet_copies_hold_the_same_rows(pairs):
    project, manager = pairs
    export = run_export(project, manager, formats=["preference", "interchange", "parquet"])
    for split in SPLIT_NAMES:
        for fmt in ("preference", "interchange"):
            table = pq.read_table(export_dir(export) / f"{split}.{fmt}.parquet")
            jsonl = records(export, split, fmt)
            assert table.num_rows == len(jsonl)
            assert table.column("id").to_pylist() == [r["id"] for r in jsonl]
            if fmt == "preference" and jsonl:
                first = table.slice(0, 1).to_pylist()[0]
                assert json.loads(first["chosen"]) == jsonl[0]["chosen"]


def test_interchange_files_start_with_the_tool_environments_they_name(pairs):
    project, manager = pairs
    export = run_export(project, manager)
    for split in SPLIT_NAMES:
        lines = read_jsonl(export_dir(export) / f"{split}.interchange.jsonl")
        envs = [line["id"] for line in lines if line.get("kind") == "tool_env"]
        named = {line["tool_env"] for line in lines if line.get("kind") == "pair"}
        assert set(envs) == named
        assert all(line.get("kind") == "tool_env" for line in lines[: len(envs)])


def test_export_streams_in_bounded_memory(monkeypatch):
    """Peak memory of an export of 3,000 pairs (~90 MB of JSONL) stays far below the data."""
    project = ProjectFactory(slug="streaming")
    manager = manager_of(project)
    messages = long_messages(12, output_chars=1500)
    stats = trajectory_stats(messages)
    first = Trajectory.objects.create(project=project, messages=messages, **stats)
    second = Trajectory.objects.create(project=project, messages=messages, **stats)
    template = verified_pair(project, trajectory_first=first, trajectory_second=second)
    clones = []
    for n in range(2999):
        clone = Item(
            project=project,
            kind="pair",
            external_id=f"clone-{n:05d}",
            task_id=template.task_id,
            trajectory_first=first,
            trajectory_second=second,
            state="verified",
            settled_label={"preferred": "first"},
            settled_at=template.settled_at,
            stratum=template.stratum,
        )
        clones.append(clone)
    Item.objects.bulk_create(clones, batch_size=1000)
    monkeypatch.setattr(pipeline, "CHUNK_SIZE", 200)
    tracemalloc.start()
    try:
        export = run_export(project, manager, splits="all=1")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    written = sum(f["bytes"] for f in export.files)
    assert export.items_done == 3000
    assert written > 60 * 2**20
    assert peak < 30 * 2**20, f"peak {peak / 2**20:.1f} MiB for {written / 2**20:.0f} MiB written"
