"""Judge protocols: strict parsing of every answer format, good, malformed and partial."""

from __future__ import annotations

import json

import pytest

from workers.judging.protocols import PROTOCOLS, ParseError, repair_messages

PCA_GOOD = """Action evidence: The model chose "Find wood", the correct action.
Action score: 1
Perception evidence: It mentions "have glass".
Perception score: 1
Cognition evidence: The reasoning matches the reference.
Cognition score: 0"""


def parse(protocol: str, text: str) -> dict:
    return PROTOCOLS[protocol].parse(text)


def fails(protocol: str, text: str, fragment: str) -> None:
    with pytest.raises(ParseError) as exc:
        parse(protocol, text)
    assert fragment in exc.value.message, exc.value.message


# --- pairwise -----------------------------------------------------------------------------


def test_pairwise_good_and_fenced():
    answer = {
        "preferred": "B",
        "tags": {"A": ["numeric_error", " numeric_error "], "B": []},
        "rationale": " ok ",
    }
    expected = {"preferred": "B", "tags": {"A": ["numeric_error"], "B": []}, "rationale": "ok"}
    assert parse("pairwise", json.dumps(answer)) == expected
    assert parse("pairwise", "```json\n" + json.dumps(answer) + "\n```") == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("I prefer A.", "not valid JSON"),
        ('{"preferred": "A", "tags": {"A": [], "B": []}', "not valid JSON"),  # cut off
        ("[1, 2]", "must be a JSON object"),
        ('{"preferred": "A", "tags": {"A": [], "B": []}}', "missing 'rationale'"),
        ('{"preferred": "first", "tags": {"A": [], "B": []}, "rationale": ""}', '"A", "B" or "tie"'),
        ('{"preferred": "A", "tags": ["x"], "rationale": ""}', '"tags" must be an object'),
        ('{"preferred": "A", "tags": {"A": []}, "rationale": ""}', "missing 'B'"),
        ('{"preferred": "A", "tags": {"A": [1], "B": []}, "rationale": ""}', "list of strings"),
        ('{"preferred": "A", "tags": {"A": [], "B": []}, "rationale": "", "x": 1}', "unexpected keys 'x'"),
        ('Sure! {"preferred": "A", "tags": {"A": [], "B": []}, "rationale": ""}', "not valid JSON"),
    ],
)
def test_pairwise_malformed(text, fragment):
    fails("pairwise", text, fragment)


# --- pointwise ----------------------------------------------------------------------------


def test_pointwise_good():
    assert parse("pointwise", '{"score": 4, "tags": ["late_refusal"], "rationale": "r"}') == {
        "score": 4,
        "tags": ["late_refusal"],
        "rationale": "r",
    }


@pytest.mark.parametrize("score", ["0", "6", "3.5", '"4"', "true", "null"])
def test_pointwise_score_must_be_an_int_from_1_to_5(score):
    fails("pointwise", f'{{"score": {score}, "tags": [], "rationale": ""}}', "integer from 1 to 5")


def test_pointwise_partial():
    fails("pointwise", '{"score": 3}', "missing 'rationale', 'tags'")


# --- P/C/A --------------------------------------------------------------------------------


def test_pca_good():
    parsed = parse("pca", PCA_GOOD)
    assert (parsed["action"], parsed["perception"], parsed["cognition"]) == (1, 1, 0)
    assert parsed["evidence"]["perception"] == 'It mentions "have glass".'
    # Blank lines between the six are layout only.
    assert parse("pca", PCA_GOOD.replace("\n", "\n\n")) == parsed


@pytest.mark.parametrize("bad", ["0.5", "yes", "1 (probably)", "", "2", "1/1", "one"])
def test_pca_score_line_holds_only_0_or_1(bad):
    text = PCA_GOOD.replace("Perception score: 1", f"Perception score: {bad}")
    fails("pca", text, "Line 4 (Perception score:) must hold only 0 or 1")


def test_pca_wrong_order_missing_and_extra_lines():
    lines = PCA_GOOD.splitlines()
    fails("pca", "\n".join(lines[2:4] + lines[:2] + lines[4:]), "Line 1 must start with 'Action evidence:'")
    fails("pca", "\n".join(lines[:4]), "Expected exactly six lines")
    fails("pca", PCA_GOOD + "\nOverall: good", "got 7 non-empty line(s)")
    fails("pca", "\n".join(["Action evidence:  ", *lines[1:]]), "Line 1 (Action evidence:) is empty")
    fails("pca", "```\n" + PCA_GOOD + "\n```", "Expected exactly six lines")


# --- checklist ----------------------------------------------------------------------------


def test_checklist_good():
    assert parse("checklist", "Q1: Yes\nQ2: In Progress\n\nQ3: no") == {
        "answers": ["yes", "in_progress", "no"]
    }


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("Q1: Yes\nQ3: No", "Line 2 must be Q2, got Q3"),
        ("Q1: Yes\nQ2: Maybe", "Q2 must be answered Yes, In Progress or No; got 'Maybe'"),
        ("Q1: Yes\nThe rest is unclear", "Line 2 must look like `Q2:"),
        ("Q1: Yes.", "got 'Yes.'"),
    ],
)
def test_checklist_malformed(text, fragment):
    fails("checklist", text, fragment)


# --- trace --------------------------------------------------------------------------------

TRACE_GOOD = {
    "steps": [
        {"step": 1, "grounding": 1, "tool_precision": 1, "tool_accuracy": 1},
        {"step": 2, "grounding": 0.5, "tool_precision": 1, "tool_accuracy": 0},
    ],
    "faithfulness": 1,
    "context": 0.75,
    "factual_precision": 1,
    "semantic_accuracy": 1,
    "goal_accuracy": 0,
    "rationale": "Counted one shelf only.",
}


def test_trace_good():
    parsed = parse("trace", json.dumps(TRACE_GOOD))
    assert parsed["steps"][1] == {"step": 2, "grounding": 0.5, "tool_precision": 1.0, "tool_accuracy": 0.0}
    assert parsed["context"] == 0.75 and parsed["goal_accuracy"] == 0.0


def _trace(**changes) -> str:
    return json.dumps({**TRACE_GOOD, **changes})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (_trace(goal_accuracy=1.5), '"goal_accuracy" must be a number from 0 to 1'),
        (_trace(faithfulness=True), '"faithfulness" must be a number from 0 to 1'),
        (_trace(context="high"), '"context" must be a number'),
        (_trace(steps={"1": {}}), '"steps" must be a list'),
        (
            _trace(steps=[{"step": 2, "grounding": 1, "tool_precision": 1, "tool_accuracy": 1}]),
            "steps[0].step must be 1",
        ),
        (
            _trace(steps=[{"step": 1, "grounding": 1, "tool_precision": 1}]),
            "steps[0] is missing 'tool_accuracy'",
        ),
        (
            _trace(steps=[{"step": 1, "grounding": -1, "tool_precision": 1, "tool_accuracy": 1}]),
            "steps[0].grounding",
        ),
        (
            json.dumps({k: v for k, v in TRACE_GOOD.items() if k != "goal_accuracy"}),
            "missing 'goal_accuracy'",
        ),
    ],
)
def test_trace_malformed(text, fragment):
    fails("trace", text, fragment)


# --- repair -------------------------------------------------------------------------------


def test_repair_appends_the_bad_answer_and_restates_the_format():
    messages = [{"role": "system", "content": "<<arbiter:pca>>\nGrade."}, {"role": "user", "content": "item"}]
    repaired = repair_messages(
        messages, "Action score: maybe", "Line 2 (Action score:) must hold only 0 or 1"
    )
    assert repaired[:2] == messages and len(messages) == 2  # the original list is left alone
    assert repaired[2] == {"role": "assistant", "content": "Action score: maybe"}
    request = repaired[3]
    assert request["role"] == "user"
    assert request["content"].split("\n")[0] == "<<arbiter:repair>>"
    assert "must hold only 0 or 1" in request["content"]
    assert "Cognition score: <0 or 1>" in request["content"]  # the six-line format again


def test_repair_restates_json_format_for_json_protocols():
    messages = [{"role": "system", "content": "<<arbiter:trace>>\n..."}, {"role": "user", "content": "x"}]
    content = repair_messages(messages, "", "The answer is empty")[-1]["content"]
    assert '"goal_accuracy"' in content and "The answer is empty" in content
