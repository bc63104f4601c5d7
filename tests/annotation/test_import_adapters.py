"""Adapters and checks of the importer, without the database: typed tool registries, string
arguments, Agent-X traces, error paths and reasons, media paths, the quick schema check."""

from __future__ import annotations

import copy
import json

import pytest

from annotation.importers.adapters import (
    AdapterError,
    agentx_messages,
    normalize_arguments,
    tool_env_tools,
    type_schema,
)
from annotation.importers.checks import QUICK, field_path, schema_problems, semantic_problems
from annotation.importers.media import MediaError, clean_relative
from annotation.importers.schemas import VALIDATORS
from annotation.trajectory_stats import trajectory_stats
from tests.fixtures_path import SHARED_FIXTURES


def lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (SHARED_FIXTURES / name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("name", "schema"),
    [
        ("text", {"type": "string"}),
        ("str", {"type": "string"}),
        ("int", {"type": "integer"}),
        ("float", {"type": "number"}),
        ("number", {"type": "number"}),
        ("bool", {"type": "boolean"}),
        ("image", {"type": "string", "format": "image"}),
        ("video", {"type": "string", "format": "video"}),
        ("file", {"type": "string", "format": "file"}),
        ("list", {"type": "array"}),
        ("list[int]", {"type": "array", "items": {"type": "integer"}}),
    ],
)
def test_typed_inputs_map_to_json_schema_types(name, schema):
    assert type_schema(name) == schema


def test_typed_registry_becomes_json_schema_parameters():
    (tools,) = [r["tools"] for r in lines("tool_envs.jsonl") if r["id"] == "agentx-tools"]
    converted = {t["name"]: t for t in tool_env_tools(tools)}
    web = converted["WebSearch"]
    assert web["parameters"] == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "query"},
            "k": {"type": "integer", "description": "results", "default": 3},
        },
        "required": ["query"],  # optional → not required
    }
    assert converted["ObjectCounter"]["parameters"]["properties"]["image"]["format"] == "image"
    assert converted["ObjectCounter"]["returns"] == {
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    }
    assert "inputs" not in web and "outputs" not in web


def test_json_schema_tools_are_kept_as_they_are():
    (travel,) = [r for r in lines("tool_envs.jsonl") if r["id"] == "travel-v1"]
    converted = tool_env_tools(travel["tools"])
    assert [t["parameters"] for t in converted] == [t["parameters"] for t in travel["tools"]]


def test_unknown_input_type_names_the_field():
    with pytest.raises(AdapterError) as exc:
        tool_env_tools(
            [{"name": "t", "inputs": [{"name": "a", "type": "text"}, {"name": "b", "type": "matrix"}]}]
        )
    assert exc.value.field == "tools[0].inputs[1].type"
    assert "unknown type 'matrix'" in exc.value.reason


@pytest.mark.parametrize(
    ("value", "expected", "malformed"),
    [
        ({"a": 1}, {"a": 1}, False),
        ('{"a": 1}', {"a": 1}, False),
        ("{'query': bottles", {"_raw": "{'query': bottles"}, True),
        ("[1, 2]", {"_raw": "[1, 2]"}, True),
        (None, {}, False),
        ("", {}, False),
    ],
)
def test_string_arguments_are_parsed_or_kept_raw(value, expected, malformed):
    assert normalize_arguments(value) == (expected, malformed)


def test_raw_arguments_are_detected_by_trajectory_stats():
    args, _ = normalize_arguments("not json")
    stats = trajectory_stats([{"role": "assistant", "tool_calls": [{"name": "x", "arguments": args}]}])
    assert stats["has_malformed_arguments"] is True


def test_agentx_steps_with_tool_and_tool_used_and_no_tool():
    record = {
        "query": "How many?",
        "media": ["media/a.png"],
        "reasoning_steps": [
            {
                "step": 1,
                "task": "Count.",
                "tool": "Counter",
                "arguments": {"x": 1},
                "tool_output": 2,
                "thought": "t1",
            },
            {"step": 2, "task": "Think.", "thought": "t2"},
            {"step": 3, "task": "Add.", "tool_used": "Calc", "arguments": "1+1", "tool_output": "2"},
        ],
        "final_output": {"final_answer": "2", "justification": "counted"},
    }
    assert agentx_messages(record) == [
        {"role": "user", "content": "How many?", "media": ["media/a.png"]},
        {
            "role": "assistant",
            "content": "Count.",
            "reasoning": "t1",
            "tool_calls": [{"id": "call_1", "name": "Counter", "arguments": {"x": 1}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "Counter", "content": "2"},
        {"role": "assistant", "content": "Think.", "reasoning": "t2"},
        {
            "role": "assistant",
            "content": "Add.",
            "tool_calls": [
                {"id": "call_3", "name": "Calc", "arguments": {"_raw": "1+1"}, "malformed_arguments": True}
            ],
        },
        {"role": "tool", "tool_call_id": "call_3", "name": "Calc", "content": "2"},
        {"role": "assistant", "content": "2"},
    ]


def test_field_paths_are_dotted_with_indexes():
    assert field_path(["chosen", "messages", 0, "role"]) == "chosen.messages[0].role"
    assert field_path([]) == ""


def test_schema_reasons_are_short_and_specific():
    record = lines("pairs.jsonl")[1]
    record["chosen"]["messages"][0]["content"] = 5
    record["meta"]["bucket"] = "b" * 65
    del record["rejected"]
    problems = dict(schema_problems("pair", record))
    assert problems == {
        "rejected": "is required",
        "chosen.messages[0].content": "must be a string or null, not int 5",
        "meta.bucket": "is 65 characters long; at most 64 allowed",
    }


def test_step_rules():
    record = lines("steps.jsonl")[0]
    record["candidates"][1]["reference"] = True
    record["candidates"].append(copy.deepcopy(record["candidates"][0]))
    assert list(semantic_problems("step", record)) == [
        ("candidates", "exactly one candidate must have reference: true (found 3)"),
        ("candidates[2].id", "duplicate candidate id 'c0'"),
    ]
    record["candidates"] = record["candidates"] * 2
    assert ("candidates", "has 6 items; at most 5 allowed") in schema_problems("step", record)


def test_quick_check_agrees_with_jsonschema_on_every_fixture_and_bad_line():
    cases = []
    for name in (
        "pairs.jsonl",
        "steps.jsonl",
        "traces.jsonl",
        "pca.jsonl",
        "recordings.jsonl",
        "tool_envs.jsonl",
    ):
        cases += lines(name)
    for path in (SHARED_FIXTURES / "bad").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                cases.append(json.loads(line))
            except ValueError:
                continue
    # Mutations the quick check must not let through.
    pair = lines("pairs.jsonl")[0]
    for mutate in (
        lambda r: r.update(id=7),
        lambda r: r.update(id=""),
        lambda r: r["chosen"]["messages"].clear(),
        lambda r: r["chosen"]["messages"][0].update(role="robot"),
        lambda r: r["chosen"]["messages"][0].update(content=True),
        lambda r: r["context"][2]["tool_calls"][0].update(arguments=3),
        lambda r: r.update(tool_env={"id": "x"}),
        lambda r: r.update(tool_env=""),
        lambda r: r.update(kind="pca"),
    ):
        bad = copy.deepcopy(pair)
        mutate(bad)
        cases.append(bad)
    checked = 0
    for record in cases:
        kind = record.get("kind")
        name = "trace_agentx" if kind == "trace" and "reasoning_steps" in record else kind
        if name not in QUICK:
            continue
        checked += 1
        valid = not any(VALIDATORS[name].iter_errors(record))
        assert QUICK[name](record) == valid, record.get("id")
    assert checked > 90


@pytest.mark.parametrize("path", ["media/a.png", "media/sub/b.JPG", "c.webm"])
def test_safe_media_paths(path):
    assert str(clean_relative(path)) == path


@pytest.mark.parametrize(
    "path",
    ["", "/abs.png", "../up.png", "media/../../x.png", "C:/x.png", "a\\b.png", "media/x.svg", "media/x.html"],
)
def test_unsafe_media_paths(path):
    with pytest.raises(MediaError):
        clean_relative(path)
