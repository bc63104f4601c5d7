"""The judge-vs-human report: each judge config's suggestions against settled human labels.

Only verified items count (their `settled_label` is the truth). Per config and item the latest
suggestion without an error is used (a newer prompt version replaces an older one); failed
suggestions are counted, never scored. A constant number of queries whatever the project size:
suggestions, items (with their trajectories' lengths), pair contexts, step counts per task.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from annotation.models import Item, ItemKind, ItemState, Project, Suggestion, Task
from annotation.trajectory_stats import trajectory_stats
from audit.services.sampling import STRATUM_FIELDS
from workers.models import JudgeConfig

from . import metrics as m


class JudgeReportError(ValueError):
    pass


def _suggestions(configs: list[JudgeConfig]) -> tuple[dict, dict]:
    """({config_id: {item_id: (label, scores)}}, {config_id: failed item ids})."""
    ok: dict[int, dict[int, tuple[dict, dict]]] = defaultdict(dict)
    failed: dict[int, set[int]] = defaultdict(set)
    rows = (
        Suggestion.objects.filter(judge_config__in=configs, item__state=ItemState.VERIFIED)
        .order_by("id")
        .values_list("judge_config_id", "item_id", "label", "scores", "error")
    )
    for config_id, item_id, label, scores, error in rows:
        if error:
            failed[config_id].add(item_id)
        else:
            ok[config_id][item_id] = (label or {}, scores or {})
    return ok, {cid: ids - set(ok[cid]) for cid, ids in failed.items()}


def _items(project: Project, item_ids: set[int], stratum_field: str) -> dict[int, dict]:
    fields = (
        "id",
        "kind",
        "settled_label",
        "stratum",
        STRATUM_FIELDS[stratum_field],
        "task_id",
        "meta",
        "task__domain",
        "trajectory_first__approx_tokens",
        "trajectory_second__approx_tokens",
        "trajectory_first__n_turns",
        "trajectory_second__n_turns",
    )
    items = {}
    verified = Item.objects.filter(project=project, state=ItemState.VERIFIED, id__in=item_ids)
    rows = verified.values_list(*fields)
    for iid, kind, settled, bucket, stratum, task_id, meta, domain, tok1, tok2, turns1, turns2 in rows:
        items[iid] = {
            "kind": kind,
            "settled": settled or {},
            "bucket": bucket or "",
            "stratum": stratum or "",
            "task": task_id,
            "trajectory": m.trajectory_key(iid, task_id, meta) if kind == ItemKind.STEP else None,
            "domain": domain or "",
            "tokens": (tok1 or 0) + (tok2 or 0),
            "turns": max(turns1 or 0, turns2 or 0),
        }
    # A pair's context (shared by both candidates) adds to its length and turns.
    pair_tasks = {i["task"] for i in items.values() if i["kind"] == ItemKind.PAIR and i["task"]}
    context = {}
    for task_id, messages in Task.objects.filter(id__in=pair_tasks).values_list("id", "context"):
        stats = trajectory_stats(messages if isinstance(messages, list) else [])
        context[task_id] = (stats["approx_tokens"], stats["n_turns"])
    for item in items.values():
        if item["kind"] == ItemKind.PAIR and item["task"] in context:
            item["tokens"] += context[item["task"]][0]
            item["turns"] += context[item["task"]][1]
    return items


def _accuracy_table(scored: list[tuple[str, float]], names: tuple[str, ...] | None = None) -> list[dict]:
    groups: dict[str, list[float]] = defaultdict(list)
    for name, score in scored:
        groups[name].append(score)
    order = list(names) if names is not None else sorted(groups, key=str)
    return [{"name": n, "n": len(groups.get(n, ())), "accuracy": m.mean(groups.get(n, []))} for n in order]


def pair_report(rows: list[tuple[dict, dict, dict]]) -> dict:
    """rows: (item facts, judge label, judge scores) of verified pairs."""
    scored, judge_labels, human_labels, consistent = [], [], [], []
    for item, label, scores in rows:
        settled = item["settled"].get("preferred")
        score = m.pair_score(label, scores, settled) if settled in m.SIDES else None
        if score is None:
            continue
        scored.append((item, score))
        judge_labels.append(m.pair_label(label, scores))
        human_labels.append(settled)
        flag = m.pair_consistent(label, scores)
        if flag is not None:
            consistent.append(flag)
    buckets = _accuracy_table([(i["bucket"], s) for i, s in scored], m.BUCKETS)
    present = [b["accuracy"] for b in buckets if b["n"]]
    return {
        "n": len(scored),
        "accuracy": m.mean([s for _, s in scored]),
        "kappa": m.kappa(judge_labels, human_labels),
        "consistency": m.mean([float(c) for c in consistent]),
        "n_consistency": len(consistent),
        "strata": _accuracy_table([(i["stratum"] or "(none)", s) for i, s in scored]),
        "buckets": buckets,
        "avg": m.mean(present),
        "avg_complete": len(present) == len(m.BUCKETS),
        "length_bins": _accuracy_table(
            [(m.length_bin(i["tokens"]), s) for i, s in scored],
            tuple(b[2] for b in m.LENGTH_BINS) + (m.LENGTH_LAST,),
        ),
        "turn_bins": _accuracy_table(
            [(m.turn_bin(i["turns"]), s) for i, s in scored],
            tuple(b[2] for b in m.TURN_BINS) + (m.TURN_LAST,),
        ),
    }


def pca_report(rows: list[tuple[dict, dict, dict]]) -> dict:
    judge: dict[str, list[int]] = defaultdict(list)
    human: dict[str, list[int]] = defaultdict(list)
    by_domain: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    n = 0
    for item, label, _ in rows:
        settled = item["settled"]
        pairs = [(label.get(d), settled.get(d)) for d in m.PCA_DIMENSIONS]
        if any(j not in (0, 1) or h not in (0, 1) for j, h in pairs):
            continue
        n += 1
        for dim, (j, h) in zip(m.PCA_DIMENSIONS, pairs, strict=True):
            judge[dim].append(j)
            human[dim].append(h)
            by_domain[item["domain"] or "(none)"][dim].append(float(j == h))
    dimensions = {
        dim: {
            "pearson": m.pearson(judge[dim], human[dim]),
            "kappa": m.kappa(judge[dim], human[dim]),
            "accuracy": m.mean([float(a == b) for a, b in zip(judge[dim], human[dim], strict=True)]),
        }
        for dim in m.PCA_DIMENSIONS
    }
    domains = [
        {"name": name, "n": len(dims[m.PCA_DIMENSIONS[0]]), **{d: m.mean(dims[d]) for d in m.PCA_DIMENSIONS}}
        for name, dims in sorted(by_domain.items())
    ]
    # protocols.md D: a domain average is the plain mean over the domains, not over items.
    average = {d: m.mean([row[d] for row in domains]) for d in m.PCA_DIMENSIONS}
    return {"n": n, "dimensions": dimensions, "domains": domains, "domain_average": average}


def step_report(rows: list[tuple[dict, dict, dict]], steps_per_trajectory: dict[Any, int]) -> dict:
    ranks, by_task = [], defaultdict(list)
    for item, label, scores in rows:
        chosen = item["settled"].get("chosen")
        equivalent = item["settled"].get("equivalent") or ()
        rank = m.step_rank(label, scores, chosen, equivalent) if chosen else None
        if rank is None:
            continue
        ranks.append(rank)
        by_task[item["trajectory"]].append(rank == 1)
    # A trajectory counts only when every one of its steps was judged and settled.
    complete = [all(hits) for key, hits in by_task.items() if len(hits) == steps_per_trajectory.get(key)]
    return {
        "n": len(ranks),
        "mrr": m.mean([1 / r for r in ranks]),
        "step_accuracy": m.mean([float(r == 1) for r in ranks]),
        "n_tasks": len(complete),
        "n_tasks_incomplete": len(by_task) - len(complete),
        "trajectory_accuracy": m.mean([float(c) for c in complete]),
    }


def _steps_per_trajectory(project: Project, tasks: set[int]) -> dict[str, int]:
    """Step items per trajectory (metrics.trajectory_key; discarded ones left out): a
    trajectory needs all of them judged. A trajectory's steps share its task."""
    if not tasks:
        return {}
    rows = (
        Item.objects.filter(project=project, kind=ItemKind.STEP, task_id__in=tasks)
        .exclude(state=ItemState.DISCARDED)
        .values_list("id", "task_id", "meta")
    )
    return dict(Counter(m.trajectory_key(iid, task_id, meta) for iid, task_id, meta in rows))


def judge_vs_human(
    *, project: Project, config: JudgeConfig | None = None, stratum_field: str = "bucket"
) -> dict:
    """The report for one judge config, or every config of the project (see the module doc)."""
    if stratum_field not in STRATUM_FIELDS:
        raise JudgeReportError(
            f"Unknown stratum field {stratum_field!r}; choose one of {', '.join(STRATUM_FIELDS)}."
        )
    if config is not None and config.project_id != project.pk:
        raise JudgeReportError("That judge belongs to another project.")
    if config is not None:
        configs = [config]
    else:
        configs = list(JudgeConfig.objects.filter(project=project).order_by("name", "id"))
    ok, failed = _suggestions(configs)
    items = _items(project, {iid for per in ok.values() for iid in per}, stratum_field)
    per_trajectory = _steps_per_trajectory(
        project, {i["task"] for i in items.values() if i["kind"] == ItemKind.STEP}
    )
    judges = []
    for cfg in configs:
        by_kind: dict[str, list] = defaultdict(list)
        for item_id, (label, scores) in ok.get(cfg.pk, {}).items():
            item = items.get(item_id)
            if item is not None:
                by_kind[item["kind"]].append((item, label, scores))
        judges.append(
            {
                "id": cfg.pk,
                "name": cfg.name,
                "protocol": cfg.protocol,
                "model": cfg.model,
                "prompt_version": cfg.prompt_version,
                "n_items": sum(len(v) for v in by_kind.values()),
                "n_failed": len(failed.get(cfg.pk, ())),
                # A section per kind of item the judge judged; None where it judged none.
                "pairs": pair_report(pairs) if (pairs := by_kind[ItemKind.PAIR]) else None,
                "pca": pca_report(pca) if (pca := by_kind[ItemKind.PCA]) else None,
                "steps": step_report(steps, per_trajectory) if (steps := by_kind[ItemKind.STEP]) else None,
            }
        )
    return {
        "project": project.slug,
        "stratum_field": stratum_field,
        "buckets": list(m.BUCKETS),
        "judges": judges,
    }
