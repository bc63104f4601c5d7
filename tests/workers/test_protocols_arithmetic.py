"""Judge protocols: combining answers into suggestions, the checklist reward, panel aggregation."""

from __future__ import annotations

import json
import math

import pytest

from tests.factories import PairItemFactory, TrajectoryFactory
from tests.workers.test_protocols import imported
from workers.judging.protocols import PROTOCOLS, ParseError, checklist_reward, panel_aggregate, toolset_f1

ln = math.log


def tok(token: str, logprob: float = 0.0, top: list[tuple[str, float]] | None = None) -> dict:
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in (top or [])],
    }


def choice(text: str, tokens: list[dict] | None = None) -> dict:
    out: dict = {"index": 0, "message": {"role": "assistant", "content": text}}
    if tokens is not None:
        out["logprobs"] = {"content": tokens}
    return out


# Q1: P(Yes)=.6, P(In)=.3, P(No)=.1                      → .6 + .5·.3 = .75
# Q2: top holds In .5, Yes .2, No .2 and " Maybe" .1;     renormalised over .9 → (.2 + .5·.5)/.9 = .5
# Q3: No .7, In .2, Yes .05, and "No" (no space) .05      → .05 + .5·.2 = .15
HAND = [
    tok("Q"),
    tok("1"),
    tok(":"),
    tok(" Yes", ln(0.6), [(" Yes", ln(0.6)), (" In", ln(0.3)), (" No", ln(0.1))]),
    tok("\n"),
    tok("Q"),
    tok("2"),
    tok(":"),
    tok(" In", ln(0.5), [(" In", ln(0.5)), (" Yes", ln(0.2)), (" No", ln(0.2)), (" Maybe", ln(0.1))]),
    tok(" Progress", ln(0.99)),
    tok("\n"),
    tok("Q3:"),
    tok(" "),
    tok("No", ln(0.7), [("No", ln(0.7)), ("In", ln(0.2)), ("Yes", ln(0.05)), (" No", ln(0.05))]),
]
HAND_TEXT = "Q1: Yes\nQ2: In Progress\nQ3: No"


def test_checklist_reward_from_hand_computed_logprobs():
    assert "".join(t["token"] for t in HAND).replace(" ", "") == HAND_TEXT.replace(" ", "")
    result = checklist_reward([choice(HAND_TEXT, HAND)])
    assert result["method"] == "logprobs"
    assert [round(p["reward"], 9) for p in result["per_item"]] == [0.75, 0.5, 0.15]
    assert result["per_item"][1]["yes"] == pytest.approx(0.2 / 0.9)
    assert result["per_item"][1]["in_progress"] == pytest.approx(0.5 / 0.9)
    assert result["per_item"][2]["no"] == pytest.approx(0.75)
    assert result["reward"] == pytest.approx((0.75 + 0.5 + 0.15) / 3)


def test_checklist_reward_averages_logprobs_over_samples():
    # A second sample certain of Yes everywhere: items average to (.75+1)/2, (.5+1)/2, (.15+1)/2.
    sure = [tok("Q1:"), tok(" Yes", 0.0), tok("\nQ2:"), tok(" Yes", 0.0), tok("\nQ3:"), tok(" Yes", 0.0)]
    result = checklist_reward([choice(HAND_TEXT, HAND), choice("Q1: Yes\nQ2: Yes\nQ3: Yes", sure)])
    assert [round(p["reward"], 9) for p in result["per_item"]] == [0.875, 0.75, 0.575]
    assert result["samples"] == 2


def test_checklist_reward_from_frequencies_without_logprobs():
    texts = [
        "Q1: Yes\nQ2: No",
        "Q1: Yes\nQ2: In Progress",
        "Q1: In Progress\nQ2: In Progress",
        "Q1: No\nQ2: No",
    ]
    result = checklist_reward([choice(t) for t in texts])
    assert result["method"] == "frequency"
    # Q1: Yes 2/4, In Progress 1/4 → .625; Q2: In Progress 2/4 → .25
    assert [p["reward"] for p in result["per_item"]] == [0.625, 0.25]
    assert result["reward"] == pytest.approx(0.4375)


def test_checklist_reward_skips_unusable_samples_and_fails_when_none_is_usable():
    result = checklist_reward([choice("Q1: Yes\nQ2: No"), choice("no idea"), choice("Q1: Yes")], n_items=2)
    assert (result["reward"], result["samples"], result["skipped"]) == (0.5, 1, 2)
    with pytest.raises(ParseError, match="Line 1 must look like"):
        checklist_reward([choice("no idea")])


@pytest.mark.django_db
def test_checklist_combine_ranks_candidates_and_labels_the_best():
    item = imported("step", "steps.jsonl", "wpc-00000-s0")  # candidates c0, c1; 3 checklist items
    proto = PROTOCOLS["checklist"]
    texts = [HAND_TEXT, "Q1: No\nQ2: No\nQ3: No"]
    raw = [[choice(HAND_TEXT, HAND)], [choice(texts[1])]]
    verdict = proto.combine(item, [proto.parse(t) for t in texts], raw)
    assert verdict.label == {"chosen": "c0"}
    assert verdict.scores["rewards"] == {"c0": pytest.approx(1.4 / 3), "c1": 0.0}
    assert verdict.scores["per_candidate"]["c0"]["method"] == "logprobs"
    assert verdict.scores["per_candidate"]["c1"]["method"] == "frequency"
    # Without raw choices each parsed answer counts as one sample.
    verdict = proto.combine(item, [proto.parse("Q1: No\nQ2: No\nQ3: No"), proto.parse(HAND_TEXT)], [])
    assert verdict.label == {"chosen": "c1"}
    with pytest.raises(ParseError, match="checklist has 3"):
        proto.combine(item, [proto.parse("Q1: Yes"), proto.parse(HAND_TEXT)], [])


# --- pairwise -----------------------------------------------------------------------------


def _judge_prefers(text_in_winner: str, calls: list[list[dict]]) -> list[dict]:
    """A fake judge: prefers whichever candidate letter contains `text_in_winner`."""
    proto = PROTOCOLS["pairwise"]
    out = []
    for call in calls:
        a = call[1]["content"].split("### Candidate A\n")[1].split("### Candidate B\n")[0]
        letter = "A" if text_in_winner in a else "B"
        tags = {"A": [], "B": []}
        tags["B" if letter == "A" else "A"] = ["numeric_error"]
        out.append(
            proto.parse(json.dumps({"preferred": letter, "tags": tags, "rationale": f"{letter} wins"}))
        )
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("cheap_side", ["first", "second"])
def test_pairwise_consistent_verdict_in_canonical_terms_for_both_stored_orders(cheap_side):
    cheap = TrajectoryFactory(messages=[{"role": "assistant", "content": "Booked the $199 flight."}])
    dear = TrajectoryFactory(messages=[{"role": "assistant", "content": "Booked the $450 flight."}])
    sides = {"first": cheap, "second": dear} if cheap_side == "first" else {"first": dear, "second": cheap}
    item = PairItemFactory(trajectory_first=sides["first"], trajectory_second=sides["second"])
    proto = PROTOCOLS["pairwise"]
    parsed = _judge_prefers(
        "$199", proto.build(item, "### Candidate A\n$candidate_a\n### Candidate B\n$candidate_b")
    )
    # The letters differ between the two orders, the canonical side does not.
    assert {p["preferred"] for p in parsed} == {"A", "B"}
    verdict = proto.combine(item, parsed, [])
    other = "second" if cheap_side == "first" else "first"
    assert verdict.label == {"preferred": cheap_side, "tags": {cheap_side: [], other: ["numeric_error"]}}
    assert verdict.scores["consistent"] is True
    assert [v["order"] for v in verdict.scores["verdicts"]] == [["first", "second"], ["second", "first"]]
    assert [v["preferred"] for v in verdict.scores["verdicts"]] == [cheap_side, cheap_side]
    assert "Order first/second as A/B: " in verdict.rationale


@pytest.mark.django_db
def test_pairwise_position_bias_is_inconsistent():
    item = PairItemFactory()
    proto = PROTOCOLS["pairwise"]
    always_a = proto.parse('{"preferred": "A", "tags": {"A": [], "B": []}, "rationale": "A"}')
    verdict = proto.combine(item, [always_a, always_a], [])
    assert verdict.label == {"preferred": "inconsistent"}
    assert verdict.scores["consistent"] is False
    assert [v["preferred"] for v in verdict.scores["verdicts"]] == ["first", "second"]
    tie = proto.parse('{"preferred": "tie", "tags": {"A": [], "B": []}, "rationale": "same"}')
    assert proto.combine(item, [tie, tie], []).label["preferred"] == "tie"
    with pytest.raises(ParseError, match="expects 2"):
        proto.combine(item, [tie], [])


# --- pointwise and the panel --------------------------------------------------------------


@pytest.mark.django_db
def test_pointwise_combine_prefers_the_higher_score_unless_critical():
    item = PairItemFactory()
    proto = PROTOCOLS["pointwise"]
    hi = proto.parse('{"score": 4, "tags": [], "rationale": "good"}')
    lo = proto.parse('{"score": 2, "tags": ["numeric_error"], "rationale": "bad"}')
    verdict = proto.combine(item, [lo, hi], [])
    assert verdict.label == {"preferred": "second", "tags": {"first": ["numeric_error"], "second": []}}
    assert verdict.scores["first"]["score"] == 2
    hallucinated = proto.parse('{"score": 5, "tags": ["tool_hallucination"], "rationale": "fluent"}')
    assert proto.combine(item, [hallucinated, hi], []).label["preferred"] == "second"
    # numeric_error is critical for complex_planning too: both failed, so the scores decide.
    assert proto.combine(item, [hallucinated, lo], []).label["preferred"] == "first"


def _panel_member(first: int, second: int, first_tags=(), second_tags=()) -> dict:
    return {
        "first": {"score": first, "tags": list(first_tags)},
        "second": {"score": second, "tags": list(second_tags)},
    }


def test_panel_median_majority_tags_and_no_meta_review():
    result = panel_aggregate(
        [
            _panel_member(4, 2, second_tags=["blind_retry", "verbose"]),
            _panel_member(5, 2, second_tags=["blind_retry"]),
            _panel_member(4, 3, second_tags=["blind_retry", "verbose"], first_tags=["verbose"]),
        ]
    )
    assert result["sides"]["first"]["median"] == 4 and result["sides"]["second"]["median"] == 2
    assert result["sides"]["second"]["tags"] == ["blind_retry", "verbose"]  # 3/3 and 2/3 > half
    assert result["sides"]["first"]["tags"] == []  # 1/3 is not a majority
    assert result["preferred"] == "first"
    assert (result["meta_review"], result["reasons"]) == (False, [])


def test_panel_meta_review_on_range_critical_conflict_and_tie():
    wide = panel_aggregate([_panel_member(5, 1), _panel_member(3, 1), _panel_member(4, 2)])
    assert wide["meta_review"] and wide["reasons"] == ["first: scores range 3–5"]
    split = panel_aggregate(
        [_panel_member(4, 2, first_tags=["fabricated_result"]), _panel_member(4, 2), _panel_member(4, 3)]
    )
    assert split["meta_review"]
    assert split["reasons"] == ["first: panel split on critical tags fabricated_result"]
    assert split["sides"]["first"]["tags"] == []
    tie = panel_aggregate([_panel_member(3, 3), _panel_member(4, 4)])
    assert tie["sides"]["first"]["median"] == 3.5  # even panel: the mean of the middle two
    assert tie["preferred"] == "tie" and tie["reasons"] == ["medians tie at 3.5"]


def test_panel_critical_majority_overrides_medians_and_accepts_verdicts():
    from workers.judging.protocols import JudgeVerdict

    members = [_panel_member(5, 3, first_tags=["unsafe_compliance"]) for _ in range(3)]
    result = panel_aggregate([JudgeVerdict(label={}, scores=m) for m in members])
    assert result["preferred"] == "second" and not result["meta_review"]
    single = panel_aggregate([{"score": 2, "tags": []}, {"score": 3, "tags": []}, {"score": 5, "tags": []}])
    assert single["sides"]["first"]["median"] == 3 and "preferred" not in single and single["meta_review"]
    with pytest.raises(ValueError):
        panel_aggregate([])


# --- P/C/A and trace ----------------------------------------------------------------------


@pytest.mark.django_db
def test_pca_combine_maps_to_the_label():
    item = imported("pca", "pca.jsonl", "pca-game-0003")
    proto = PROTOCOLS["pca"]
    text = (
        "Action evidence: right action\nAction score: 1\nPerception evidence: none\nPerception score: 0\n"
        "Cognition evidence: agrees\nCognition score: 1"
    )
    verdict = proto.combine(item, [proto.parse(text)], [])
    assert verdict.label == {"perception": 0, "cognition": 1, "action": 1}
    assert verdict.scores["evidence"]["perception"] == "none"


def test_toolset_f1_definition():
    assert toolset_f1({"OCR", "Calculator"}, {"OCR", "Calculator"}) == 1.0
    assert toolset_f1({"OCR", "Calculator"}, {"OCR"}) == pytest.approx(2 / 3)
    assert toolset_f1({"OCR"}, set()) == 0.0
    assert toolset_f1(set(), set()) == 1.0


@pytest.mark.django_db
def test_trace_combine_scores_steps_and_toolset_f1():
    item = imported("trace", "traces.jsonl", "ax-0000")  # ObjectCounter then Calculator
    proto = PROTOCOLS["trace"]
    answer = {
        "steps": [
            {"step": 1, "grounding": 1, "tool_precision": 1, "tool_accuracy": 1},
            {"step": 2, "grounding": 0.25, "tool_precision": 1, "tool_accuracy": 0},
        ],
        "faithfulness": 1,
        "context": 1,
        "factual_precision": 0.5,
        "semantic_accuracy": 1,
        "goal_accuracy": 0,
        "rationale": "Only one shelf counted.",
    }
    verdict = proto.combine(item, [proto.parse(json.dumps(answer))], [])
    assert verdict.label == {"verdict": "corrected", "errors": ["step_2"]}
    assert verdict.scores["toolset_f1"] == pytest.approx(2 / 3)
    assert verdict.scores["tools_used"] == ["Calculator", "ObjectCounter"]
    assert verdict.scores["tools_accurate"] == ["ObjectCounter"]
    assert verdict.rationale == "Only one shelf counted."
    good = {**answer, "goal_accuracy": 1, "steps": [answer["steps"][0], {**answer["steps"][0], "step": 2}]}
    verdict = proto.combine(item, [proto.parse(json.dumps(good))], [])
    assert verdict.label == {"verdict": "correct"} and verdict.scores["toolset_f1"] == 1.0
    with pytest.raises(ParseError, match="The trace has 2 step"):
        proto.combine(item, [proto.parse(json.dumps({**answer, "steps": answer["steps"][:1]}))], [])
