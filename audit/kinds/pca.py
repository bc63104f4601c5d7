"""P/C/A items (PCA-Bench, protocols.md D): agreement per dimension, derived error categories,
domain averages, and judge scores against settled labels (Pearson per dimension).

Error category of an item, from its settled label — the first dimension that failed, in the
order a decision is made (see, reason, act):
    perception failure  P = 0                 (whatever C and A are)
    cognition failure   P = 1, C = 0          (whatever A is)
    action-only failure P = 1, C = 1, A = 0
    no failure          P = C = A = 1
"""

from __future__ import annotations

from collections import defaultdict

from annotation.models import ItemKind, Project
from audit.judges.metrics import PCA_DIMENSIONS, pearson

from .common import (
    annotations,
    as_number,
    build_table,
    machine_suggestions,
    mean_or_none,
    settled_items,
    stats_of,
)

# (key, display name) in the order of the rule above.
ERROR_CATEGORIES = (
    ("perception", "Perception failure"),
    ("cognition", "Cognition failure"),
    ("action", "Action-only failure"),
    ("none", "No failure"),
)
CATEGORY_NAMES = dict(ERROR_CATEGORIES)
NO_DOMAIN = "(none)"


def error_category(label: dict) -> str | None:
    """The derived category of a P/C/A label (module doc); None when a score is missing."""
    p, c, a = (label.get(d) for d in PCA_DIMENSIONS)
    if any(v not in (0, 1) or isinstance(v, bool) for v in (p, c, a)):
        return None
    if p == 0:
        return "perception"
    if c == 0:
        return "cognition"
    if a == 0:
        return "action"
    return "none"


def domain_means(rows: list[tuple[str, dict[str, float]]]) -> tuple[list[dict], dict]:
    """(domain, {dimension: score}) rows → per-domain means of each dimension, and the domain
    average: the plain mean over domains of those means (protocols.md D), not over items."""
    by_domain: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for domain, scores in rows:
        for d in PCA_DIMENSIONS:
            if scores.get(d) is not None:
                by_domain[domain][d].append(scores[d])
    domains = [
        {
            "name": name,
            "n": max(len(dims[d]) for d in PCA_DIMENSIONS),
            **{d: mean_or_none(dims[d]) for d in PCA_DIMENSIONS},
        }
        for name, dims in sorted(by_domain.items())
    ]
    average = {d: mean_or_none([row[d] for row in domains if row[d] is not None]) for d in PCA_DIMENSIONS}
    return domains, {"n_domains": len(domains), **average}


def _judge_score(label: dict, scores: dict, dimension: str) -> float | None:
    """The judge's score on a dimension: `scores[d]` when it is a number (e.g. a mean over
    samples), else its label's 0/1."""
    value = as_number(scores.get(dimension))
    return value if value is not None else as_number(label.get(dimension))


def pca_agreement(*, project: Project, bootstrap: int, seed: int) -> dict:
    """agreement_stats per dimension on the 0/1 scores (Cohen's κ for two annotators, the mean
    of pairwise κ, Fleiss' κ and Krippendorff's α for more)."""
    rated = annotations(project=project, kind=ItemKind.PCA)
    out = {}
    for d in PCA_DIMENSIONS:
        rows = (
            (r.item_id, r.rater_id, r.rater, str(r.label.get(d)))
            for r in rated
            if r.label.get(d) in (0, 1) and not isinstance(r.label.get(d), bool)
        )
        out[d] = stats_of(build_table(rows, ("0", "1"), kind=f"pca.{d}"), bootstrap=bootstrap, seed=seed)
    return out


def pca_settled(*, project: Project) -> list[dict]:
    """One row per verified P/C/A item: id, external_id, domain, the three scores, category."""
    rows = []
    for item in settled_items(project=project, kind=ItemKind.PCA, fields=("stratum", "task__domain")):
        label = item["settled_label"]
        category = error_category(label)
        if category is None:
            continue
        rows.append(
            {
                "id": item["id"],
                "external_id": item["external_id"],
                "domain": item["task__domain"] or item["stratum"] or NO_DOMAIN,
                **{d: label[d] for d in PCA_DIMENSIONS},
                "category": category,
            }
        )
    return rows


def category_counts(items: list[dict]) -> dict:
    """{"overall": {category: n}, "domains": [{"name", "n", category: n ...}]}."""
    overall = dict.fromkeys(CATEGORY_NAMES, 0)
    per: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CATEGORY_NAMES, 0))
    for row in items:
        overall[row["category"]] += 1
        per[row["domain"]][row["category"]] += 1
    domains = [{"name": name, "n": sum(c.values()), **c} for name, c in sorted(per.items())]
    return {"n": len(items), "overall": overall, "domains": domains}


def pca_judges(*, project: Project, items: list[dict]) -> list[dict]:
    """Per machine source: Pearson r per dimension between its scores and the settled 0/1
    labels (scipy), and its own domain averages next to the humans'."""
    truth = {row["id"]: row for row in items}
    suggestions, failed = machine_suggestions(project=project, kind=ItemKind.PCA)
    out = []
    for name, per_item in suggestions.items():
        judge: dict[str, list[float]] = defaultdict(list)
        human: dict[str, list[float]] = defaultdict(list)
        mine: list[tuple[str, dict[str, float]]] = []
        n = 0
        for item_id, (label, scores) in per_item.items():
            row = truth.get(item_id)
            if row is None:
                continue
            said = {d: _judge_score(label, scores, d) for d in PCA_DIMENSIONS}
            if all(v is None for v in said.values()):
                continue
            n += 1
            mine.append((row["domain"], said))
            for d in PCA_DIMENSIONS:
                if said[d] is not None:
                    judge[d].append(said[d])
                    human[d].append(float(row[d]))
        domains, average = domain_means(mine)
        out.append(
            {
                "name": name,
                "n": n,
                "n_failed": failed.get(name, 0),
                "pearson": {d: pearson(judge[d], human[d]) for d in PCA_DIMENSIONS},
                "domains": domains,
                "domain_average": average,
            }
        )
    return out


def pca_metrics(*, project: Project, bootstrap: int, seed: int) -> dict:
    items = pca_settled(project=project)
    domains, average = domain_means(
        [(row["domain"], {d: float(row[d]) for d in PCA_DIMENSIONS}) for row in items]
    )
    return {
        "agreement": pca_agreement(project=project, bootstrap=bootstrap, seed=seed),
        "categories": category_counts(items),
        "domains": domains,
        "domain_average": average,
        "items": items,
        "judges": pca_judges(project=project, items=items),
    }
