"""Traces as numbered steps and back (annotation.traces), the tool registry checks, and the
step-by-step diff of a correction (annotation.rendering.trace)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from annotation.importers.adapters import agentx_messages, tool_env_tools
from annotation.rendering.trace import trace_diff
from annotation.traces import (
    argument_errors,
    is_hallucinated,
    parse_editor_steps,
    steps_to_messages,
    tool_registry,
    trace_final,
    trace_query,
    trace_steps,
)
from tests.annotation.import_helpers import fixture_lines

RECORDS = {r["id"]: r for r in fixture_lines("traces.jsonl") if r["kind"] == "trace"}
ENV = next(r for r in fixture_lines("traces.jsonl") if r["kind"] == "tool_env")
REGISTRY = tool_registry(SimpleNamespace(tools=tool_env_tools(ENV["tools"])))


def native_messages(record_id: str) -> list[dict]:
    return agentx_messages(json.loads(json.dumps(RECORDS[record_id])))


def test_native_agentx_steps_become_numbered_steps():
    steps = trace_steps(native_messages("ax-0000"))
    assert [s["n"] for s in steps] == [1, 2]
    first = steps[0]
    assert first["task"] == "Count the bottles in each image."
    assert first["thought"] == "Two bottles on the first shelf."
    assert first["tool"] == "ObjectCounter"  # from `tool_used`
    assert first["arguments"] == {"image": "media/ax-0000.1.png", "text": "bottle"}
    assert first["output"] == "2" and first["malformed"] is False
    assert steps[1]["tool"] == "Calculator" and steps[1]["output"] == "50.394"


def test_final_answer_and_query_are_not_steps():
    messages = native_messages("ax-0000")
    assert trace_query(messages) == (RECORDS["ax-0000"]["query"], ["media/ax-0000.1.png"])
    assert trace_final(messages) == {"value": "$50.394", "justification": ""}
    assert all(s["task"] != "$50.394" for s in trace_steps(messages))


def test_round_trip_keeps_the_interchange_shape():
    messages = native_messages("ax-0000")
    record = RECORDS["ax-0000"]
    back = steps_to_messages(
        trace_steps(messages),
        query=record["query"],
        media=record["media"],
        final_answer={"value": "$50.394"},
    )
    assert back == messages
    assert trace_steps(back) == trace_steps(messages)


def test_interchange_trace_with_hallucinated_tool_and_malformed_arguments():
    record = RECORDS["ax-0003"]
    steps = trace_steps(record["trajectory"]["messages"])
    assert len(steps) == 3
    third = steps[2]
    assert third["tool"] == "Table Search Tool" and third["malformed"] is True
    assert third["arguments"] == {"_raw": "{'query': bottles"}
    assert is_hallucinated(third["tool"], REGISTRY) and not is_hallucinated("OCR", REGISTRY)
    flags = [s["hallucinated"] for s in trace_steps(record["trajectory"]["messages"], REGISTRY)]
    assert flags == [False, False, True]
    assert not is_hallucinated("Anything", {})  # no registry: nothing can be judged


def test_several_calls_in_one_turn_are_several_steps():
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "do two things",
            "reasoning": "why",
            "tool_calls": [
                {"id": "a", "name": "OCR", "arguments": '{"image": "x.png"}'},
                {"id": "b", "name": "Calculator", "arguments": {"expression": "1+1"}},
            ],
        },
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "tool", "tool_call_id": "a", "content": "TEXT"},
        {"role": "assistant", "content": "thinking without a tool"},
        {"role": "assistant", "content": "final"},
    ]
    steps = trace_steps(messages)
    assert [(s["tool"], s["output"], s["task"]) for s in steps] == [
        ("OCR", "TEXT", "do two things"),
        ("Calculator", "2", ""),
        ("", "", "thinking without a tool"),
    ]
    assert steps[0]["arguments"] == {"image": "x.png"}
    assert trace_final(messages)["value"] == "final"


def test_openai_function_calls_are_read():
    messages = [
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "OCR", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": {"text": "hi"}},
    ]
    (step,) = trace_steps(messages)
    assert step["tool"] == "OCR" and step["arguments"] == {} and json.loads(step["output"]) == {"text": "hi"}


def test_justification_travels_as_the_final_turns_reasoning():
    messages = steps_to_messages([], final_answer={"value": "4", "justification": "counted"})
    assert messages == [{"role": "assistant", "content": "4", "reasoning": "counted"}]
    assert trace_final(messages) == {"value": "4", "justification": "counted"}


def test_registry_from_typed_inputs_is_json_schema():
    calc = REGISTRY["Calculator"]
    assert calc["properties"]["expression"]["type"] == "string" and calc["required"] == ["expression"]
    assert argument_errors({"expression": "1+1"}, calc) == []
    assert argument_errors({}, calc) == ["'expression' is a required property"]
    assert argument_errors({"expression": 3}, calc) == ["expression: 3 is not of type 'string'"]
    assert argument_errors({"_raw": "{"}, calc) == ["Arguments must be a JSON object."]
    assert argument_errors({"k": "x", "query": "q"}, REGISTRY["WebSearch"]) == [
        "k: 'x' is not of type 'integer'"
    ]


def test_parse_editor_steps_checks_json_registry_and_schema():
    raw = json.dumps(
        [
            {"task": "t", "tool": "Calculator", "arguments": '{"expression": "2*2"}', "output": "4"},
            {"task": "t", "tool": "Calculator", "arguments": '{"expression": 2*2'},
            {"task": "t", "tool": "Table Search Tool", "arguments": {}},
            {"task": "t", "tool": "OCR", "arguments": {}},
            {"task": "just thinking", "tool": "", "arguments": {}},
        ]
    )
    steps, errors = parse_editor_steps(raw, REGISTRY)
    assert steps[0]["arguments"] == {"expression": "2*2"} and steps[0]["output"] == "4"
    assert set(errors) == {"steps.2.arguments", "steps.3.tool", "steps.4.arguments"}
    assert "not valid JSON" in errors["steps.2.arguments"]
    assert "not in the tool registry" in errors["steps.3.tool"]
    assert "'image' is a required property" in errors["steps.4.arguments"]
    assert parse_editor_steps("[", REGISTRY)[1]["steps"].startswith("The edited steps are not valid JSON")
    assert parse_editor_steps("[]", REGISTRY)[1] == {"steps": "A corrected trace needs at least one step."}
    assert "list of step objects" in parse_editor_steps('{"a": 1}', REGISTRY)[1]["steps"]


def test_diff_marks_words_and_inserted_and_deleted_steps():
    original = trace_steps(native_messages("ax-0000"))
    corrected = json.loads(json.dumps(original))
    corrected[0]["output"] = "4"
    corrected.insert(
        1, {"task": "Check the second shelf.", "thought": "", "tool": "OCR", "arguments": {}, "output": ""}
    )
    del corrected[2]
    diff = trace_diff(original, corrected, {"value": "$50.394"}, {"value": "$100.788"})
    statuses = [(s.a_n, s.b_n, s.status) for s in diff.steps]
    assert statuses[0] == (1, 1, "changed")
    assert {s.status for s in diff.steps[1:]} == {"inserted", "deleted"}
    output = next(f for f in diff.steps[0].fields if f.name == "output")
    assert output.changed and str(output.a) == "<del>2</del>" and str(output.b) == "<ins>4</ins>"
    assert diff.final[0].changed and diff.n_changed == 4


def test_diff_escapes_hostile_text():
    hostile = "<script>alert(1)</script>"
    step = {"task": hostile, "thought": "", "tool": "OCR", "arguments": {"x": hostile}, "output": hostile}
    other = {**step, "output": hostile + " more"}
    diff = trace_diff([step], [other], {"value": hostile}, {"value": hostile})
    rendered = "".join(str(f.a) + str(f.b) for s in diff.steps for f in s.fields) + str(diff.final[0].a)
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered
