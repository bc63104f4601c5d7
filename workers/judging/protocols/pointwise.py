"""Pointwise 1–5 rubric scoring of each trajectory, and the panel's aggregation (section A)."""

from __future__ import annotations

from statistics import median
from typing import Any

from annotation.models.project import DEFAULT_CRITICAL_TAGS

from .base import (
    JudgeVerdict,
    ParseError,
    Protocol,
    check_keys,
    expect_calls,
    json_object,
    messages,
    string_list,
    text_field,
)
from .pairwise import critical_tags, pair_variables
from .templates import instructions
from .text import messages_text

ALL_CRITICAL = frozenset(tag for group in DEFAULT_CRITICAL_TAGS.values() for tag in group)
META_REVIEW_RANGE = 2  # a panel whose scores for one trajectory span 2+ points disagrees


def sides_of(item: Any) -> list[str]:
    return ["first", "second"] if item.trajectory_second_id else ["first"]


class Pointwise(Protocol):
    name = "pointwise"

    def build(self, item: Any, template: str) -> list[list[dict]]:
        system = instructions("pointwise", family=item.family, critical_tags=critical_tags(item))
        calls = []
        for side in sides_of(item):
            trajectory = getattr(item, f"trajectory_{side}")
            variables = {**pair_variables(item), "candidate": messages_text(trajectory.messages)}
            calls.append(messages("pointwise", system, template, variables))
        return calls

    def parse(self, text: str) -> dict[str, Any]:
        obj = json_object(text)
        check_keys(obj, {"score", "tags", "rationale"})
        score = obj["score"]
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise ParseError(f'"score" must be an integer from 1 to 5, not {score!r}.')
        return {
            "score": score,
            "tags": string_list(obj["tags"], '"tags"'),
            "rationale": text_field(obj, "rationale"),
        }

    def combine(self, item: Any, parsed_list: list[dict], raw_choices: list[Any]) -> JudgeVerdict:
        sides = sides_of(item)
        expect_calls(parsed_list, len(sides), "pointwise")
        scores = {side: dict(parsed) for side, parsed in zip(sides, parsed_list, strict=True)}
        rationale = "\n\n".join(f"{side}: {scores[side]['rationale']}" for side in sides)
        if len(sides) == 1:
            label: dict[str, Any] = {"score": scores["first"]["score"], "tags": scores["first"]["tags"]}
        else:
            critical = set(critical_tags(item)) | ALL_CRITICAL
            label = {
                "preferred": prefer(
                    {s: scores[s]["score"] for s in sides}, {s: scores[s]["tags"] for s in sides}, critical
                ),
                "tags": {s: scores[s]["tags"] for s in sides},
            }
        return JudgeVerdict(label=label, scores=scores, rationale=rationale)


def prefer(values: dict[str, float], tags: dict[str, list[str]], critical: set[str] | frozenset[str]) -> str:
    """A critical failure on one side only overrides the scores; otherwise the higher score."""
    failed = {side for side, side_tags in tags.items() if critical & set(side_tags)}
    if len(failed) == 1 and len(values) == 2:
        return next(side for side in values if side not in failed)
    first, second = values.get("first"), values.get("second")
    if second is None or first == second:
        return "tie"
    return "first" if first > second else "second"


def panel_aggregate(verdicts: list[Any], critical: set[str] | frozenset[str] | None = None) -> dict[str, Any]:
    """Aggregate the pointwise verdicts of a panel of judge configs on one item.

    Each verdict is a pointwise JudgeVerdict or its `scores` dict ({"first": {"score", "tags"},
    "second": {...}}; a single {"score", "tags"} means one trajectory). Per trajectory: the median
    score (x.5 for an even panel), the tags more than half of the panel gave, the range. A
    meta-review is flagged when a range is 2 or more, when a critical tag is given by some but not
    all of the panel for the same trajectory, or when the two trajectories' medians tie.
    """
    if not verdicts:
        raise ValueError("panel_aggregate needs at least one verdict")
    critical = ALL_CRITICAL if critical is None else frozenset(critical)
    panel = [_per_side(v) for v in verdicts]
    sides = [s for s in ("first", "second") if all(s in p for p in panel)]
    n = len(panel)
    out: dict[str, Any] = {"panel_size": n, "sides": {}}
    reasons: list[str] = []
    for side in sides:
        values = [p[side]["score"] for p in panel]
        counts: dict[str, int] = {}
        for p in panel:
            for tag in dict.fromkeys(p[side].get("tags") or ()):
                counts[tag] = counts.get(tag, 0) + 1
        majority = [tag for tag, count in counts.items() if count * 2 > n]
        conflicts = sorted(tag for tag, count in counts.items() if tag in critical and count < n)
        spread = max(values) - min(values)
        out["sides"][side] = {
            "median": median(values),
            "scores": values,
            "range": spread,
            "tags": majority,
            "critical_conflicts": conflicts,
        }
        if spread >= META_REVIEW_RANGE:
            reasons.append(f"{side}: scores range {min(values)}–{max(values)}")
        if conflicts:
            reasons.append(f"{side}: panel split on critical tags {', '.join(conflicts)}")
    if len(sides) == 2:
        medians = {s: out["sides"][s]["median"] for s in sides}
        if medians["first"] == medians["second"]:
            reasons.append(f"medians tie at {medians['first']}")
        out["preferred"] = prefer(medians, {s: out["sides"][s]["tags"] for s in sides}, critical)
    out["meta_review"] = bool(reasons)
    out["reasons"] = reasons
    return out


def _per_side(verdict: Any) -> dict[str, dict]:
    scores = getattr(verdict, "scores", verdict)
    if not isinstance(scores, dict):
        raise ValueError(f"not a pointwise verdict: {verdict!r}")
    if "score" in scores:
        return {"first": scores}
    return scores
