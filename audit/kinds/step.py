"""Step items (Web-Shepherd, protocols.md B): agreement on the best candidate and on checklist
marks, and machine suggestions (checklist judges, reward models) against settled labels.

Best candidate
- strict: the chosen candidate id is a nominal category (pooled over items); Cohen's κ,
  Fleiss' κ and Krippendorff's α as for any other label.
- lenient: two annotators agree when they chose the same candidate or when either one's chosen
  candidate is in the other's "equivalent" set (equally good is not a disagreement).
  `percent_agreement`: agreeing pairs among all pairs of labels on the same item. `kappa`:
  Cohen's κ (scikit-learn) per annotator pair after counting a lenient match as the same
  answer (the second annotator's choice is replaced by the first's), averaged over pairs as
  the strict κ is (two annotators: their one pair; more: pairs sharing ≥ 10 items).
Checklist marks: ordinal no < in_progress < yes; one unit per item × checklist position × judged
  state (see mark_units), pooled over items.
Machine suggestions against verified items: a suggestion ranks the candidates by
  `scores["rewards"]` (else its `label["chosen"]` counts as the top one); the settled chosen
  candidate and its settled equivalents are correct.
  MRR = mean over steps of 1 / rank of the best-ranked correct candidate (ties rank against);
  step accuracy = share of steps where a correct candidate is ranked first; trajectory
  accuracy = share of trajectories whose every step is ranked right, over the trajectories
  whose every (not discarded) step item is verified and judged. A trajectory is the item's
  `meta.trajectory_id` (or `meta.trajectory`) when the record has one, else its task.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from annotation.models import Item, ItemKind, ItemState, Project
from audit.agreement.stats import DEFAULT_MIN_COMMON
from audit.judges.metrics import kappa, step_rank, trajectory_key

from .common import (
    Rated,
    annotations,
    build_table,
    machine_suggestions,
    mean_or_none,
    settled_items,
    stats_of,
)

MARKS = ("no", "in_progress", "yes")


def _equivalent(label: dict) -> set[str]:
    return {str(c) for c in label.get("equivalent") or ()}


def lenient_match(a: dict, b: dict) -> bool:
    """Same best candidate, or one's best is in the other's equivalent set."""
    x, y = str(a.get("chosen")), str(b.get("chosen"))
    return x == y or x in _equivalent(b) or y in _equivalent(a)


def lenient_agreement(rated: list[Rated], *, min_common: int = DEFAULT_MIN_COMMON) -> dict:
    """Lenient % agreement and κ on the best candidate (module doc)."""
    by_item: dict[int, list[Rated]] = defaultdict(list)
    for r in rated:
        if r.label.get("chosen"):
            by_item[r.item_id].append(r)
    hits = pairs = 0
    # (rater a, rater b) → (a's answers, b's answers with lenient matches counted as a's).
    sequences: dict[tuple[int, int], tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for labels in by_item.values():
        for a, b in combinations(sorted(labels, key=lambda r: r.rater_id), 2):
            match = lenient_match(a.label, b.label)
            pairs += 1
            hits += match
            first, second = sequences[(a.rater_id, b.rater_id)]
            first.append(str(a.label["chosen"]))
            second.append(str(a.label["chosen"]) if match else str(b.label["chosen"]))
    n_raters = len({r.rater_id for labels in by_item.values() if len(labels) >= 2 for r in labels})
    needed = 1 if n_raters == 2 else min_common
    values = [
        k
        for first, second in sequences.values()
        if len(first) >= needed and (k := kappa(first, second)) is not None
    ]
    return {
        "n_units": sum(1 for labels in by_item.values() if len(labels) >= 2),
        "n_pairs": pairs,
        "percent_agreement": hits / pairs if pairs else None,
        "kappa": mean_or_none(values),
    }


def mark_units(r: Rated, scope: str):
    """(unit, mark) of a label's checklist marks. A unit is one checklist item (position in
    the label's `checklist_version`) in one judged state, so only marks on the same items of
    the same state are compared: with `checklist_by_candidate` (project scope "per_candidate")
    the state after each candidate; with `checklist` under scope "chosen" the state after the
    annotator's chosen candidate (annotators who chose differently judged different states:
    their marks are not paired); under scope "trajectory" the trajectory so far."""
    version = r.label.get("checklist_version", 1)
    by_candidate = r.label.get("checklist_by_candidate")
    if isinstance(by_candidate, dict):
        for cid, marks in sorted(by_candidate.items()):
            if isinstance(marks, list):
                yield from (((r.item_id, version, str(cid), k), m) for k, m in enumerate(marks))
        return
    marks = r.label.get("checklist")
    if isinstance(marks, list):
        state = str(r.label.get("chosen")) if scope == "chosen" else ""
        yield from (((r.item_id, version, state, k), m) for k, m in enumerate(marks))


def step_agreement(*, project: Project, bootstrap: int, seed: int) -> dict:
    rated = annotations(project=project, kind=ItemKind.STEP)
    chosen = [
        (r.item_id, r.rater_id, r.rater, str(r.label["chosen"])) for r in rated if r.label.get("chosen")
    ]
    candidates = tuple(sorted({row[3] for row in chosen}))
    scope = project.checklist_scope
    marks = [(unit, r.rater_id, r.rater, mark) for r in rated for unit, mark in mark_units(r, scope)]
    return {
        "best": stats_of(build_table(chosen, candidates, kind="step.chosen"), bootstrap=bootstrap, seed=seed),
        "best_lenient": lenient_agreement(rated),
        "checklist": stats_of(
            build_table(marks, MARKS, kind="step.checklist"), level="ordinal", bootstrap=bootstrap, seed=seed
        ),
    }


def machine_metrics(rows: list[tuple[str, dict, dict, dict]], steps_per_trajectory: dict[str, int]) -> dict:
    """rows: (trajectory key, settled label, suggestion label, suggestion scores) of verified
    steps. MRR, step accuracy, trajectory accuracy (module doc)."""
    ranks: list[int] = []
    by_trajectory: dict[str, list[bool]] = defaultdict(list)
    for key, settled, label, scores in rows:
        chosen = settled.get("chosen")
        rank = step_rank(label, scores, chosen, settled.get("equivalent") or ()) if chosen else None
        if rank is None:
            continue
        ranks.append(rank)
        by_trajectory[key].append(rank == 1)
    complete = [all(h) for key, h in by_trajectory.items() if len(h) == steps_per_trajectory.get(key)]
    return {
        "n": len(ranks),
        "mrr": mean_or_none([1 / r for r in ranks]),
        "step_accuracy": mean_or_none([float(r == 1) for r in ranks]),
        "n_trajectories": len(complete),
        "n_trajectories_incomplete": len(by_trajectory) - len(complete),
        "trajectory_accuracy": mean_or_none([float(c) for c in complete]),
    }


def step_machines(*, project: Project) -> list[dict]:
    items = Item.objects.filter(project=project, kind=ItemKind.STEP).exclude(state=ItemState.DISCARDED)
    keys = {
        iid: trajectory_key(iid, task, meta) for iid, task, meta in items.values_list("id", "task_id", "meta")
    }
    steps_per_trajectory: dict[str, int] = defaultdict(int)
    for key in keys.values():
        steps_per_trajectory[key] += 1
    settled = {row["id"]: row["settled_label"] for row in settled_items(project=project, kind=ItemKind.STEP)}
    suggestions, failed = machine_suggestions(project=project, kind=ItemKind.STEP)
    out = []
    for name, per_item in suggestions.items():
        rows = [
            (keys[iid], settled[iid], label, scores)
            for iid, (label, scores) in sorted(per_item.items())
            if iid in settled and iid in keys
        ]
        out.append(
            {"name": name, "n_failed": failed.get(name, 0), **machine_metrics(rows, steps_per_trajectory)}
        )
    return out


def step_metrics(*, project: Project, bootstrap: int, seed: int) -> dict:
    return {
        **step_agreement(project=project, bootstrap=bootstrap, seed=seed),
        "machines": step_machines(project=project),
    }
