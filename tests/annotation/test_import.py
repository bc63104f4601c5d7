"""import_jsonl end to end: every fixture imports, every bad file is rejected whole, re-imports
are idempotent, --replace rewrites only unannotated items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from annotation.importers.records import chosen_goes_first
from annotation.models import Annotation, Item, Task, ToolEnv, Trajectory
from review.models import AuditLog
from tests.annotation.import_helpers import fixture_lines, run, table_counts, write_jsonl
from tests.factories import ProjectFactory, UserFactory
from tests.fixtures_path import SHARED_FIXTURES

pytestmark = pytest.mark.django_db

FIXTURES = [
    ("pairs.jsonl", "pair", 42),
    ("steps.jsonl", "step", 12),
    ("traces.jsonl", "trace", 10),
    ("pca.jsonl", "pca", 12),
    ("recordings.jsonl", "recording", 5),
]


@pytest.mark.parametrize(("name", "kind", "n"), FIXTURES)
def test_every_fixture_file_imports_into_a_new_project(name, kind, n):
    project = ProjectFactory(kind=kind, overlap=3)
    user = UserFactory()
    report = run(project, SHARED_FIXTURES / name, actor=user)
    assert report.ok, report.errors
    assert report.counts["created"] == n
    items = Item.objects.filter(project=project)
    assert items.count() == n
    assert set(items.values_list("kind", flat=True)) == {kind}
    assert set(items.values_list("overlap", flat=True)) == {3}
    assert all(items.values_list("task_id", flat=True))
    log = AuditLog.objects.get(project=project, action="import")
    assert log.actor == user
    assert log.data["counts"]["created"] == n


def test_pairs_keep_gold_hidden_in_canonical_order():
    project = ProjectFactory(kind="pair")
    assert run(project, SHARED_FIXTURES / "pairs.jsonl").ok
    assert set(ToolEnv.objects.filter(project=project).values_list("name", flat=True)) == {
        "chemlab-v1",
        "finance-v2",
        "travel-v1",
    }
    golds = set()
    for record in fixture_lines("pairs.jsonl"):
        item = Item.objects.select_related("task", "trajectory_first", "trajectory_second").get(
            project=project, external_id=record["id"]
        )
        side = "first" if chosen_goes_first(record["id"]) else "second"
        golds.add(side)
        assert item.gold == {"preferred": side}
        chosen = item.trajectory_first if side == "first" else item.trajectory_second
        assert chosen.messages == record["chosen"]["messages"]
        assert chosen.source == record["chosen"]["source"]
        assert item.stratum == record["meta"]["bucket"]
        assert item.family == record["meta"]["family"]
        assert item.difficulty == record["meta"]["pair_difficulty"]
        assert item.meta == record["meta"]
        assert item.payload == {}
        assert item.task.context == record["context"]
        assert item.task.tool_env.name in {"chemlab-v1", "finance-v2", "travel-v1"}
        assert chosen.n_turns > 0 and chosen.approx_tokens > 0
    assert golds == {"first", "second"}  # the order really is randomised
    # Records with the same context share one task.
    contexts = {json.dumps(r["context"], sort_keys=True) for r in fixture_lines("pairs.jsonl")}
    assert Task.objects.filter(project=project).count() == len(contexts)


def test_steps_traces_pca_recordings_have_the_stored_shape():
    step_project = ProjectFactory(kind="step")
    assert run(step_project, SHARED_FIXTURES / "steps.jsonl").ok
    record = fixture_lines("steps.jsonl")[0]
    item = Item.objects.get(project=step_project, external_id=record["id"])
    reference = next(c["id"] for c in record["candidates"] if c["reference"])
    assert item.gold == {"chosen": reference}
    assert [c["id"] for c in item.payload["candidates"]] == [c["id"] for c in record["candidates"]]
    assert all("reference" not in c for c in item.payload["candidates"])
    assert item.payload["checklist"] == record["checklist"]
    assert item.stratum == record["task"]["difficulty"] == item.task.difficulty
    assert item.task.start_url == record["task"]["start_url"]
    assert item.trajectory_first.messages == record["prefix"]

    pca_project = ProjectFactory(kind="pca")
    assert run(pca_project, SHARED_FIXTURES / "pca.jsonl").ok
    record = fixture_lines("pca.jsonl")[0]
    item = Item.objects.get(project=pca_project, external_id=record["id"])
    assert item.payload == {"instance": record["instance"], "output": record["output"]}
    assert item.task.media == [record["instance"]["image"]]
    assert item.stratum == item.task.domain == record["instance"]["domain"]

    rec_project = ProjectFactory(kind="recording")
    assert run(rec_project, SHARED_FIXTURES / "recordings.jsonl").ok
    record = fixture_lines("recordings.jsonl")[0]
    item = Item.objects.get(project=rec_project, external_id=record["id"])
    assert item.payload == {"judge": record["task"]["judge"]}
    assert item.task.metadata == {"judge": record["task"]["judge"]}
    assert item.stratum == "easy"


def test_traces_native_and_standard_become_one_shape():
    project = ProjectFactory(kind="trace")
    assert run(project, SHARED_FIXTURES / "traces.jsonl").ok
    native = Item.objects.get(project=project, external_id="ax-0000")  # reasoning_steps, tool and tool_used
    messages = native.trajectory_first.messages
    assert messages[0] == {
        "role": "user",
        "content": native.task.instruction,
        "media": ["media/ax-0000.1.png"],
    }
    calls = [m["tool_calls"][0]["name"] for m in messages if m.get("tool_calls")]
    assert calls == ["ObjectCounter", "Calculator"]
    tools = [m for m in messages if m["role"] == "tool"]
    assert [t["content"] for t in tools] == ["2", "50.394"]
    assert messages[-1] == {"role": "assistant", "content": "$50.394"}
    assert native.payload == {
        "final_answer": {"value": "$50.394", "justification": "2 bottles times $25.197."}
    }
    assert native.gold == {"reference_answer": "$100.788"}
    assert native.stratum == "sports"
    standard = Item.objects.get(project=project, external_id="ax-0001")
    assert standard.gold == {}  # reference_answer null
    assert {m["role"] for m in standard.trajectory_first.messages} == {"user", "assistant", "tool"}
    env = ToolEnv.objects.get(project=project, name="agentx-tools")
    web = next(t for t in env.tools if t["name"] == "WebSearch")
    assert web["parameters"]["required"] == ["query"]
    assert web["parameters"]["properties"]["k"] == {"type": "integer", "description": "results", "default": 3}


def test_malformed_arguments_are_kept_and_flagged():
    project = ProjectFactory(kind="trace")
    assert run(project, SHARED_FIXTURES / "traces.jsonl").ok
    item = Item.objects.get(project=project, external_id="ax-0003")
    trajectory = item.trajectory_first
    assert trajectory.has_malformed_arguments
    bad = [
        c for m in trajectory.messages for c in m.get("tool_calls") or () if c["name"] == "Table Search Tool"
    ]
    assert bad[0]["arguments"] == {"_raw": "{'query': bottles"}
    assert bad[0]["malformed_arguments"] is True
    assert not Item.objects.get(
        project=project, external_id="ax-0001"
    ).trajectory_first.has_malformed_arguments


def test_agentx_both_final_answer_variants(tmp_path):
    project = ProjectFactory(kind="trace")
    env = {
        "kind": "tool_env",
        "id": "ax",
        "tools": [
            {
                "name": "OCR",
                "inputs": [{"name": "image", "type": "image"}],
                "outputs": [{"name": "text", "type": "text"}],
            }
        ],
    }
    step = {
        "step": 1,
        "task": "Read the sign.",
        "arguments": '{"image": "x"}',
        "tool_output": {"text": "STOP"},
        "thought": "It says stop.",
    }
    one = {
        "kind": "trace",
        "id": "t1",
        "tool_env": "ax",
        "query": "What does the sign say?",
        "reasoning_steps": [{**step, "tool": "OCR"}],
        "final_answer": {"value": "STOP", "justification": "OCR"},
    }
    two = {
        "kind": "trace",
        "id": "t2",
        "tool_env": "ax",
        "query": "What does the sign say?",
        "reasoning_steps": [{**step, "tool_used": "OCR"}],
        "final_output": {"final_answer": "STOP", "justification": "OCR"},
    }
    report = run(project, write_jsonl(tmp_path / "ax.jsonl", [env, one, two]))
    assert report.ok, report.errors
    first, second = (Item.objects.get(project=project, external_id=i) for i in ("t1", "t2"))
    assert first.trajectory_first.messages == second.trajectory_first.messages
    assert first.payload == second.payload == {"final_answer": {"value": "STOP", "justification": "OCR"}}
    call = first.trajectory_first.messages[1]["tool_calls"][0]
    assert call == {"id": "call_1", "name": "OCR", "arguments": {"image": "x"}}
    assert first.trajectory_first.messages[2]["content"] == '{"text": "STOP"}'
    assert first.task_id == second.task_id  # same query, same task


def test_tool_env_file_first_then_records_naming_them(tmp_path):
    project = ProjectFactory(kind="pair")
    report = run(project, SHARED_FIXTURES / "tool_envs.jsonl")
    assert report.ok and report.counts["tool_envs"] == 4
    lines = fixture_lines("pairs.jsonl")
    for record in lines:  # name every environment instead of embedding it
        if isinstance(record["tool_env"], dict):
            record["tool_env"] = record["tool_env"]["id"]
    report = run(project, write_jsonl(tmp_path / "pairs.jsonl", lines))
    assert report.ok, report.errors
    assert report.counts["created"] == 42 and report.counts["tool_envs"] == 0
    assert ToolEnv.objects.filter(project=project).count() == 4
    again = run(project, SHARED_FIXTURES / "tool_envs.jsonl")
    assert again.ok and again.counts["tool_envs_existing"] == 4 and again.counts["tool_envs"] == 0


def test_unknown_tool_env_is_an_error_of_its_line(tmp_path):
    project = ProjectFactory(kind="pair")
    record = fixture_lines("pairs.jsonl")[1]
    assert record["tool_env"] == "chemlab-v1"  # named, never embedded in this file
    report = run(project, write_jsonl(tmp_path / "p.jsonl", [record]))
    assert not report.ok
    assert report.errors == [
        {
            "line": 1,
            "field": "tool_env",
            "reason": "unknown tool environment 'chemlab-v1'; import its tool_env line first",
        }
    ]


BAD_EXPECTED = {
    "not_json.jsonl": ("pair", {(1, "(line)"), (2, "(line)")}),
    "pairs_bad_role.jsonl": ("pair", {(1, "chosen.messages[0].role")}),
    "pairs_missing_rejected.jsonl": ("pair", {(1, "rejected")}),
    "pca_answer_not_candidate.jsonl": ("pca", {(1, "instance.answer")}),
    "steps_too_many_checklist.jsonl": ("step", {(1, "checklist")}),
}


def test_every_bad_fixture_is_listed_here():
    assert {p.name for p in (SHARED_FIXTURES / "bad").glob("*.jsonl")} <= set(BAD_EXPECTED)


@pytest.mark.parametrize("path", sorted((SHARED_FIXTURES / "bad").glob("*.jsonl")), ids=lambda p: p.name)
def test_bad_files_are_rejected_whole_with_line_numbered_errors(path):
    kind, expected = BAD_EXPECTED[path.name]
    project = ProjectFactory(kind=kind)
    # Environments the bad lines name exist, so that only the real fault is reported.
    assert run(project, SHARED_FIXTURES / "tool_envs.jsonl").ok
    before = table_counts()
    report = run(project, path)
    assert not report.ok
    assert table_counts() == before
    assert all(e["line"] >= 1 and e["field"] and e["reason"] for e in report.errors)
    assert expected <= {(e["line"], e["field"]) for e in report.errors}
    assert not (Path(settings.MEDIA_ROOT) / "projects" / project.slug).exists()


def test_bad_role_reason_names_the_allowed_roles():
    project = ProjectFactory(kind="pair")
    run(project, SHARED_FIXTURES / "tool_envs.jsonl")
    report = run(project, SHARED_FIXTURES / "bad" / "pairs_bad_role.jsonl")
    (error,) = report.errors
    assert error["reason"] == "'wizard' is not one of 'system', 'user', 'assistant', 'tool'"
    assert report.error_lines() == [f"line 1: chosen.messages[0].role: {error['reason']}"]


def test_pca_bad_file_reports_answer_and_missing_image(tmp_path):
    project = ProjectFactory(kind="pca")
    report = run(project, SHARED_FIXTURES / "bad" / "pca_answer_not_candidate.jsonl")
    assert {(e["field"], e["reason"]) for e in report.errors} == {
        ("instance.answer", "'c' is not one of instance.candidates"),
    }
    # The image is checked once the record is otherwise valid.
    record = json.loads((SHARED_FIXTURES / "bad" / "pca_answer_not_candidate.jsonl").read_text())
    record["instance"]["answer"] = "a"
    path = write_jsonl(tmp_path / "pca.jsonl", [record])
    (error,) = run(project, path).errors
    assert error["field"] == "instance.image" and "not found" in error["reason"]


def test_file_level_problems(tmp_path):
    project = ProjectFactory(kind="pair")
    run(project, SHARED_FIXTURES / "tool_envs.jsonl")
    record = fixture_lines("pairs.jsonl")[0]
    cases = {
        "dup": [record, record],
        "kind": [{**record, "kind": "conversation"}],
        "mismatch": [fixture_lines("pca.jsonl")[0]],
        "array": ["[1, 2]"],
        "empty": ["", "   "],
    }
    reports = {
        name: run(project, write_jsonl(tmp_path / f"{name}.jsonl", lines)) for name, lines in cases.items()
    }
    assert reports["dup"].errors == [
        {"line": 2, "field": "id", "reason": "duplicate id 'prb-00001' (first on line 1)"}
    ]
    assert reports["kind"].errors[0]["field"] == "kind"
    assert "unknown kind 'conversation'" in reports["kind"].errors[0]["reason"]
    assert reports["mismatch"].errors == [
        {"line": 1, "field": "kind", "reason": "this project holds pair records, not pca"}
    ]
    assert reports["array"].errors == [
        {"line": 1, "field": "(line)", "reason": "a line must hold one JSON object"}
    ]
    assert reports["empty"].errors == [{"line": 0, "field": "", "reason": "the file holds no records"}]
    assert not Item.objects.filter(project=project).exists()


def test_reimport_reports_duplicates_and_writes_nothing():
    project = ProjectFactory(kind="pair")
    assert run(project, SHARED_FIXTURES / "pairs.jsonl").ok
    before = table_counts()
    stamps = dict(Item.objects.filter(project=project).values_list("external_id", "updated_at"))
    report = run(project, SHARED_FIXTURES / "pairs.jsonl")
    assert report.ok
    assert report.counts["created"] == 0 and report.counts["duplicates"] == 42
    assert sorted(report.duplicates) == sorted(stamps)
    after = table_counts()
    assert after == {**before, "AuditLog": before["AuditLog"] + 1}  # only the import's own log row
    assert dict(Item.objects.filter(project=project).values_list("external_id", "updated_at")) == stamps


def test_replace_rewrites_items_without_annotations_only(tmp_path):
    project = ProjectFactory(kind="pair")
    assert run(project, SHARED_FIXTURES / "pairs.jsonl").ok
    annotated = Item.objects.get(project=project, external_id="prb-00001")
    Annotation.objects.create(item=annotated, annotator=UserFactory(), label={"preferred": "first"})
    ids = dict(Item.objects.filter(project=project).values_list("external_id", "pk"))
    n_trajectories = Trajectory.objects.count()
    lines = fixture_lines("pairs.jsonl")
    for record in lines:
        record["chosen"]["messages"][-1]["content"] = "REVISED"
        record["meta"]["bucket"] = "robust"
    path = write_jsonl(tmp_path / "pairs.jsonl", lines)
    assert run(project, path).counts["replaced"] == 0  # without the flag: duplicates only
    report = run(project, path, replace=True)
    assert report.ok
    assert report.counts["replaced"] == 41 and report.counts["duplicates"] == 1
    assert report.duplicates == ["prb-00001"]
    assert dict(Item.objects.filter(project=project).values_list("external_id", "pk")) == ids
    assert Trajectory.objects.count() == n_trajectories  # old trajectories are gone, new ones in
    item = Item.objects.get(project=project, external_id="prb-00002")
    side = item.gold["preferred"]
    chosen = item.trajectory_first if side == "first" else item.trajectory_second
    assert chosen.messages[-1]["content"] == "REVISED" and item.stratum == "robust"
    annotated.refresh_from_db()
    assert annotated.stratum == "safety"
