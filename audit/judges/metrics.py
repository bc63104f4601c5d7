"""Pure arithmetic of the judge-vs-human report: no database here, so each rule is testable alone.

Keys read from a judge suggestion (annotation.models.Suggestion), all optional, read defensively:
- pairs: `label["preferred"]` ∈ first | second | tie | inconsistent (canonical terms);
  `scores["verdicts"]` = [{"order": ["first", "second"], "preferred": "first"|"second"|"tie",
  "letter": "A"|"B"|"tie", ...}, ...] — one entry per presentation order, as
  workers.judging.protocols.pairwise writes it (an entry with only `letter` is read through its
  `order`); `scores["consistent"]` (bool) wins over comparing the two verdicts.
- P/C/A: `label["perception" | "cognition" | "action"]` ∈ {0, 1}.
- step candidates: `scores["rewards"]` = {candidate_id: reward}; without it, `label["chosen"]`
  counts as reward 1 and every other candidate as 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

SIDES = ("first", "second", "tie")
PCA_DIMENSIONS = ("perception", "cognition", "action")
# Plan-RewardBench's seven evaluation buckets, in the layout of its results table (protocols.md A).
BUCKETS = (
    "safety",
    "irrelevance",
    "planning_single_easy",
    "planning_single_hard",
    "planning_multi_easy",
    "planning_multi_hard",
    "robust",
)
# Approximate tokens the judge reads for a pair: context + both candidates (upper bounds exclusive).
LENGTH_BINS = ((0, 1000, "<1k"), (1000, 4000, "1k–4k"), (4000, 8000, "4k–8k"), (8000, 16000, "8k–16k"))
LENGTH_LAST = "16k+"
# Turns of a pair: context user/assistant turns + the longer candidate's (as bench/run.py counts).
TURN_BINS = ((0, 5, "1–5"), (6, 15, "6–15"), (16, 20, "16–20"), (21, 30, "21–30"))
TURN_LAST = "31+"


def length_bin(tokens: int) -> str:
    for low, high, name in LENGTH_BINS:
        if low <= tokens < high:
            return name
    return LENGTH_LAST


def turn_bin(turns: int) -> str:
    for low, high, name in TURN_BINS:
        if low <= turns <= high:
            return name
    return TURN_LAST


def _canonical(entry: Any) -> str | None:
    """The canonical side one order's verdict preferred, or None when it cannot be read."""
    if not isinstance(entry, dict):
        return None
    if entry.get("preferred") in SIDES:
        return entry["preferred"]
    order, seen = entry.get("order"), entry.get("letter")
    if seen == "tie":
        return "tie"
    if isinstance(order, list | tuple) and len(order) == 2 and seen in ("A", "B"):
        side = order[0] if seen == "A" else order[1]
        return side if side in ("first", "second") else None
    return None


def pair_verdicts(label: dict, scores: dict) -> list[str]:
    """Both orders' canonical verdicts when stored, else the suggestion's label once."""
    orders = scores.get("verdicts") if isinstance(scores, dict) else None
    verdicts = [v for v in map(_canonical, orders or ()) if v is not None]
    if verdicts:
        return verdicts
    preferred = (label or {}).get("preferred")
    return [preferred] if preferred in SIDES else []


def pair_score(label: dict, scores: dict, settled: str) -> float | None:
    """Mean correctness over the orders: 0, 0.5 or 1 (protocols.md A). An "inconsistent" label
    with no stored orders had one order on each side: right once when the truth is a side."""
    verdicts = pair_verdicts(label, scores)
    if verdicts:
        return sum(v == settled for v in verdicts) / len(verdicts)
    if (label or {}).get("preferred") == "inconsistent":
        return 0.5 if settled in ("first", "second") else 0.0
    return None


def pair_label(label: dict, scores: dict) -> str:
    """The judge's answer for κ: its label, else what its verdicts say (one side or inconsistent)."""
    preferred = (label or {}).get("preferred")
    if preferred in (*SIDES, "inconsistent"):
        return preferred
    verdicts = set(pair_verdicts(label, scores))
    return verdicts.pop() if len(verdicts) == 1 else "inconsistent"


def pair_consistent(label: dict, scores: dict) -> bool | None:
    """Whether both orders agreed in canonical terms; None when it cannot be told."""
    if isinstance(scores, dict) and isinstance(scores.get("consistent"), bool):
        return scores["consistent"]
    orders = scores.get("verdicts") if isinstance(scores, dict) else None
    verdicts = [_canonical(v) for v in orders or ()]
    if len(verdicts) >= 2 and None not in verdicts:
        return len(set(verdicts)) == 1
    if (label or {}).get("preferred") == "inconsistent":
        return False
    return None


def finite_or_none(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def kappa(judge: Sequence, human: Sequence) -> float | None:
    """Cohen's κ (sklearn); None when undefined (no items, or one category on both sides)."""
    if len(judge) == 0:
        return None
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return finite_or_none(cohen_kappa_score([str(v) for v in judge], [str(v) for v in human]))


def pearson(judge: Sequence[float], human: Sequence[float]) -> float | None:
    """Pearson's r (scipy); None with fewer than two items or a constant side."""
    if len(judge) < 2 or len(set(judge)) < 2 or len(set(human)) < 2:
        return None
    from scipy.stats import pearsonr

    return finite_or_none(pearsonr(np.asarray(judge, float), np.asarray(human, float)).statistic)


def mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def step_rank(label: dict, scores: dict, chosen: str, equivalent: Sequence[str] = ()) -> int | None:
    """1-based rank of the settled answer by the judge's reward: the best-ranked of the settled
    `chosen` candidate and its settled `equivalent` ones (an equally good action is not a
    miss). Ties rank against it (a tie with another, not-correct candidate is not "ranked
    first"); when the judge gave none of the correct candidates a reward they rank last. None
    when the judge ranked nothing."""
    correct = {str(chosen), *(str(c) for c in equivalent or ())}
    rewards = scores.get("rewards") if isinstance(scores, dict) else None
    if isinstance(rewards, dict) and rewards:
        values = {str(k): finite_or_none(v) for k, v in rewards.items()}
        values = {k: v for k, v in values.items() if v is not None}
    elif (label or {}).get("chosen"):
        values = {str(label["chosen"]): 1.0}
        if str(chosen) not in values:
            values[str(chosen)] = 0.0
    else:
        return None
    if not values:
        return None
    mine = [values[k] for k in correct if k in values]
    if not mine:
        return len(values) + 1
    best = max(mine)
    return 1 + sum(1 for k, v in values.items() if k not in correct and v >= best)


def trajectory_key(item_id: int, task_id: int | None, meta: Any) -> str:
    """Which trajectory a step item belongs to, for trajectory accuracy: the record's
    `meta.trajectory_id` (or `meta.trajectory`) when it has one, else its task, else itself."""
    meta = meta if isinstance(meta, dict) else {}
    for key in ("trajectory_id", "trajectory"):
        value = meta.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            return f"trajectory:{value}"
    return f"task:{task_id}" if task_id is not None else f"item:{item_id}"
