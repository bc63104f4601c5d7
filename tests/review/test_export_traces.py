"""Exports of verified traces: corrected traces as interchange records, chat-format SFT records
and original/corrected preference records — what a data scientist checks before training."""

from __future__ import annotations

import copy
import json

import pytest

from annotation.importers import import_jsonl
from annotation.labels import validate_label
from annotation.models import Item, Trajectory
from tests.factories import ProjectFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    fixture_project,
    media_root,
    read_jsonl,
    records,
    run_export,
    settle,
    split_of_ids,
)

pytestmark = pytest.mark.django_db
SPLITS = ("train", "dev", "test")
CORRECTED_IDS = ("ax-0000", "ax-0003")
DISCARDED_IDS = ("ax-0001",)
REASONS = ["wrong_count", "final_answer_fixed"]


def all_records(export, fmt: str) -> list[dict]:
    return [r for split in SPLITS for r in records(export, split, fmt)]


def corrected_messages(original: list[dict]) -> list[dict]:
    """The annotator's fix: the first tool call gets other arguments, the last answer changes."""
    messages = copy.deepcopy(original)
    for message in messages:
        if message.get("tool_calls"):
            message["tool_calls"][0]["arguments"] = {**message["tool_calls"][0]["arguments"], "fixed": "yes"}
            message["reasoning"] = "Recounted: four bottles in all."
            break
    messages[-1] = {"role": "assistant", "content": "$100.788"}
    return messages


def correct(item: Item, manager) -> Trajectory:
    original = item.trajectory_first
    child = Trajectory.objects.create(
        project=item.project,
        task=item.task,
        messages=corrected_messages(original.messages),
        source={"type": "human"},
        parent=original,
        version=2,
        edit_reasons=REASONS,
        created_by=manager,
    )
    label = {
        "verdict": "corrected",
        "corrected_trajectory": child.pk,
        "edit_reasons": REASONS,
        "final_answer": {"value": "$100.788", "justification": "4 bottles times $25.197."},
    }
    settle(item, validate_label(project=item.project, item=item, label=label))
    return child


@pytest.fixture
def traces():
    project, manager = fixture_project("trace", "traces.jsonl", slug="agentx")
    children = {}
    for item in Item.objects.filter(project=project).select_related("trajectory_first", "task"):
        if item.external_id in CORRECTED_IDS:
            children[item.external_id] = correct(item, manager)
        elif item.external_id in DISCARDED_IDS:
            label = {
                "verdict": "discard",
                "discard_reason": "ambiguous_query",
                "discard_note": "which shelf?",
            }
            settle(item, validate_label(project=project, item=item, label=label))
        else:
            settle(item, validate_label(project=project, item=item, label={"verdict": "correct"}))
    return project, manager, children


def test_the_form_defaults_of_a_trace_project_are_sft_preference_and_interchange(traces):
    project, manager, _ = traces
    export = run_export(project, manager)
    assert export.formats == ["preference", "sft", "interchange"]
    names = {f["name"] for f in export.files}
    for split in SPLITS:
        assert {f"{split}.sft.jsonl", f"{split}.preference.jsonl", f"{split}.interchange.jsonl"} <= names


def test_interchange_records_carry_the_corrected_trajectory(traces):
    project, manager, children = traces
    export = run_export(project, manager, formats=["interchange"])
    rows = {r["id"]: r for r in all_records(export, "interchange")}
    items = {
        i.external_id: i for i in Item.objects.filter(project=project).select_related("trajectory_first")
    }
    assert set(rows) == set(items)  # discarded traces stay on record here, with their label
    for external_id, row in rows.items():
        item = items[external_id]
        assert row["label"] == item.settled_label
        if external_id in CORRECTED_IDS:
            child = children[external_id]
            assert row["trajectory"]["messages"] == child.messages
            assert row["trajectory"]["messages"] != item.trajectory_first.messages
            assert row["final_answer"] == {"value": "$100.788", "justification": "4 bottles times $25.197."}
            source = row["trajectory"]["source"]
            assert source["type"] == "human"
            assert source["parent"] == external_id
            assert source["parent_trajectory"] == item.trajectory_first_id
            assert source["parent_version"] == 1 and source["version"] == 2
            assert source["edit_reasons"] == REASONS
            assert source["original_source"] == item.trajectory_first.source
        else:
            # Correct as is (and discarded): the original, unchanged.
            assert row["trajectory"]["messages"] == item.trajectory_first.messages
            assert row["trajectory"]["source"] == item.trajectory_first.source
            assert row["final_answer"] == item.payload["final_answer"]


def test_corrected_traces_import_again_as_the_corrected_version(traces):
    project, manager, children = traces
    export = run_export(project, manager, formats=["interchange"])
    again = ProjectFactory(slug="agentx-again", kind="trace")
    for split in SPLITS:
        if export.manifest["counts"]["per_split"][split]["items"]:
            path = export_dir(export) / f"{split}.interchange.jsonl"
            report = import_jsonl(project=again, path=path, actor=None, media_dir=media_root(project))
            assert report.ok, report.errors
    imported = {
        i.external_id: i for i in Item.objects.filter(project=again).select_related("trajectory_first")
    }
    assert len(imported) == 10
    for external_id, child in children.items():
        assert imported[external_id].trajectory_first.messages == child.messages
        assert imported[external_id].payload["final_answer"]["value"] == "$100.788"


def test_sft_records_are_chat_fine_tuning_conversations(traces):
    project, manager, children = traces
    export = run_export(project, manager, formats=["sft"])
    rows = {r["id"]: r for r in all_records(export, "sft")}
    items = {i.external_id: i for i in Item.objects.filter(project=project).select_related("task__tool_env")}
    # Discarded traces teach nothing: every other verified trace is one conversation.
    assert set(rows) == set(items) - set(DISCARDED_IDS)
    assert export.manifest["counts"]["left_out"]["sft"] == {"discard": 1}
    for external_id, row in rows.items():
        item = items[external_id]
        messages = row["messages"]
        assert set(row) == {"id", "messages", "tools", "meta"}
        assert [t["function"]["name"] for t in row["tools"]] == [t["name"] for t in item.task.tool_env.tools]
        # The user turn: the query, then the images as content parts.
        user = messages[0]
        assert user["role"] == "user"
        assert user["content"][0] == {"type": "text", "text": item.task.instruction}
        assert [p["image_url"]["url"] for p in user["content"][1:]] == item.task.media
        calls = {}
        for message in messages[1:]:
            assert message["role"] in ("assistant", "tool")
            assert "reasoning" not in message and "media" not in message
            for call in message.get("tool_calls") or ():
                assert call["type"] == "function"
                assert isinstance(call["function"]["arguments"], str)  # OpenAI: JSON text
                calls[call["id"]] = json.loads(call["function"]["arguments"])
            if message["role"] == "tool":
                assert message["tool_call_id"] in calls  # every answer follows its call
        assert calls, "a trace without tool calls"
        final = messages[-1]
        assert final["role"] == "assistant" and "tool_calls" not in final
        assert row["meta"]["verdict"] == item.settled_label["verdict"]
        if external_id in CORRECTED_IDS:
            # The settled answer, then its justification.
            assert final["content"] == "$100.788\n4 bottles times $25.197."
            assert {"image", "text", "fixed"} <= set(next(iter(calls.values())))
            assert any("Recounted: four bottles in all." in (m.get("content") or "") for m in messages)
            assert row["meta"]["edit_reasons"] == REASONS
        else:
            answer = item.payload["final_answer"]
            assert final["content"] == "\n".join(
                t for t in (str(answer["value"]), answer["justification"]) if t
            )
            assert all("fixed" not in arguments for arguments in calls.values())


def test_preference_records_prefer_the_correction_over_the_original(traces):
    project, manager, children = traces
    export = run_export(project, manager, formats=["preference", "interchange"])
    rows = {r["id"]: r for r in all_records(export, "preference")}
    assert set(rows) == set(CORRECTED_IDS)
    assert export.manifest["counts"]["left_out"]["preference"] == {"correct": 7, "discard": 1}
    assert export.manifest["counts"]["rows"] == {"preference": 2, "interchange": 10}
    items = {
        i.external_id: i for i in Item.objects.filter(project=project).select_related("trajectory_first")
    }
    for external_id, row in rows.items():
        assert set(row) == {"id", "prompt", "chosen", "rejected", "tools", "meta"}
        assert row["chosen"] != row["rejected"]
        assert [m["role"] for m in row["prompt"]] == ["user"]
        assert row["prompt"][0]["content"] == items[external_id].task.instruction
        chosen_calls = [m["tool_calls"] for m in row["chosen"] if m.get("tool_calls")]
        rejected_calls = [m["tool_calls"] for m in row["rejected"] if m.get("tool_calls")]
        assert chosen_calls[0][0]["function"]["arguments"]["fixed"] == "yes"
        assert "fixed" not in rejected_calls[0][0]["function"]["arguments"]
        assert row["chosen"][-1]["content"] == "$100.788"
        assert row["chosen"][-1]["reasoning_content"] == "4 bottles times $25.197."
        assert row["rejected"][-1]["content"] == str(items[external_id].payload["final_answer"]["value"])
        assert row["meta"]["edit_reasons"] == REASONS
        assert row["meta"]["source"]["trajectory"] == children[external_id].pk
    # A preference record sits in the same split as its trace.
    interchange_split = split_of_ids(export, "interchange")
    for split in SPLITS:
        for row in records(export, split, "preference"):
            assert interchange_split[row["id"]] == split


def test_a_correction_from_another_project_is_never_exported(traces):
    project, manager, children = traces
    other = ProjectFactory(slug="elsewhere", kind="trace")
    stray = Trajectory.objects.create(project=other, messages=[{"role": "assistant", "content": "leak"}])
    item = Item.objects.get(project=project, external_id="ax-0002")
    item.settled_label = {"verdict": "corrected", "corrected_trajectory": stray.pk, "edit_reasons": ["x"]}
    item.save(update_fields=["settled_label"])
    export = run_export(project, manager)
    assert "ax-0002" not in {r["id"] for r in all_records(export, "sft")}
    assert export.manifest["counts"]["left_out"]["sft"]["missing_correction"] == 1
    text = "".join(
        (export_dir(export) / f"{s}.{fmt}.jsonl").read_text() for s in SPLITS for fmt in export.formats
    )
    assert "leak" not in text


def test_every_file_is_valid_json_lines(traces):
    project, manager, _ = traces
    export = run_export(project, manager, formats=["sft", "preference", "interchange", "parquet"])
    for entry in export.files:
        if entry["name"].endswith(".jsonl"):
            lines = (export_dir(export) / entry["name"]).read_text(encoding="utf-8").splitlines()
            parsed = read_jsonl(export_dir(export) / entry["name"])
            assert len(parsed) == len(lines)
            assert entry["rows"] == len([r for r in parsed if r.get("kind") != "tool_env"])
    manifest = json.loads((export_dir(export) / "manifest.json").read_text())
    assert {f["name"] for f in manifest["files"]} == {f["name"] for f in export.files} - {"manifest.json"}
    assert set(manifest["format_notes"]) == {"preference", "sft", "interchange", "parquet"}


def test_a_correction_of_a_correction_names_the_version_it_was_made_from(traces):
    project, manager, children = traces
    item = Item.objects.get(project=project, external_id="ax-0000")
    second = children["ax-0000"]
    third = Trajectory.objects.create(
        project=project,
        task=item.task,
        messages=[*second.messages[:-1], {"role": "assistant", "content": "$100.79"}],
        source={"type": "human"},
        parent=second,
        version=3,
        edit_reasons=["rounding"],
        created_by=manager,
    )
    item.settled_label = {
        **item.settled_label,
        "corrected_trajectory": third.pk,
        "edit_reasons": ["rounding"],
        "final_answer": {"value": "$100.79", "justification": "rounded"},
    }
    item.save(update_fields=["settled_label"])
    export = run_export(project, manager, formats=["interchange", "preference"])
    row = {r["id"]: r for r in all_records(export, "interchange")}["ax-0000"]
    source = row["trajectory"]["source"]
    assert (source["parent_trajectory"], source["parent_version"], source["version"]) == (second.pk, 2, 3)
    assert source["edit_reasons"] == ["rounding"]
    preference = {r["id"]: r for r in all_records(export, "preference")}["ax-0000"]
    # The preference still holds the correction against the original the annotators saw.
    assert preference["chosen"][-1]["content"] == "$100.79"
    assert preference["rejected"][-1]["content"] == str(item.payload["final_answer"]["value"])
