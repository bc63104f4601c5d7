"""Trace items (Agent-X verification, protocols.md C) and query refinement.

Trace: agreement on the verdict (correct / corrected / discard, nominal), and per check of
protocols.md C (tool choice, argument format, step order, output alignment, evidence) on the
pass/fail marks, one unit per item × step of the original trace, pooled over items. A step an
annotator left unmarked on a check is not a rating of that unit.
Query refinement: agreement on the chosen candidate's index, or "reject" when all three were
rejected (annotation.labels.comparable); wording edits are not compared. The same number is the
project-wide agreement table's for a query project; here it comes with the decision and reject
reason counts of the labels.
"""

from __future__ import annotations

from collections import Counter

from annotation.labels import QUERY_REJECT_REASONS, TRACE_CHECKS, TRACE_VERDICTS
from annotation.models import ItemKind, Project

from .common import annotations, build_table, stats_of

CHECK_MARKS = ("fail", "pass")
QUERY_DECISIONS = ("pick", "edit", "reject")


def _check_rows(rated, check: str):
    for r in rated:
        steps = r.label.get("checks")
        if not isinstance(steps, list):
            continue
        for k, step in enumerate(steps):
            if isinstance(step, dict) and step.get(check) in CHECK_MARKS:
                yield (r.item_id, k), r.rater_id, r.rater, step[check]


def trace_metrics(*, project: Project, bootstrap: int, seed: int) -> dict:
    rated = annotations(project=project, kind=ItemKind.TRACE)
    verdicts = [(r.item_id, r.rater_id, r.rater, r.label.get("verdict")) for r in rated]
    return {
        "verdict": stats_of(
            build_table(verdicts, TRACE_VERDICTS, kind="trace.verdict"), bootstrap=bootstrap, seed=seed
        ),
        "checks": {
            check: stats_of(
                build_table(_check_rows(rated, check), CHECK_MARKS, kind=f"trace.{check}"),
                bootstrap=bootstrap,
                seed=seed,
            )
            for check in TRACE_CHECKS
        },
    }


def query_value(label: dict) -> str | None:
    if label.get("decision") == "reject":
        return "reject"
    chosen = label.get("chosen")
    return str(chosen) if isinstance(chosen, int) and not isinstance(chosen, bool) else None


def query_metrics(*, project: Project, bootstrap: int, seed: int) -> dict:
    rated = annotations(project=project, kind=ItemKind.QUERY)
    values = [(r.item_id, r.rater_id, r.rater, query_value(r.label)) for r in rated]
    observed = {v for *_, v in values if v is not None}
    categories = tuple(sorted(observed - {"reject"}, key=int)) + ("reject",)
    decisions = Counter(r.label.get("decision") for r in rated)
    reasons = Counter(r.label.get("reject_reason") for r in rated if r.label.get("decision") == "reject")
    return {
        "chosen": stats_of(
            build_table(values, categories, kind="query.chosen"), bootstrap=bootstrap, seed=seed
        ),
        "decisions": {d: decisions.get(d, 0) for d in QUERY_DECISIONS},
        "reject_reasons": {r: reasons.get(r, 0) for r in QUERY_REJECT_REASONS},
    }
