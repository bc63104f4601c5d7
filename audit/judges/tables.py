"""The judge-vs-human report as dashboard rows and CSV tables (plain values, no HTML)."""

from __future__ import annotations

from annotation.models import Project
from audit.charts import Bar, accuracy_chart

from .metrics import PCA_DIMENSIONS
from .report import judge_vs_human

JUDGE_TABLES = ("judges", "judge_buckets", "judge_bins", "judge_pca")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def judges_context(*, project: Project) -> dict:
    """What the "Judges vs humans" section shows, already formatted."""
    report = judge_vs_human(project=project)
    judges = []
    for row in report["judges"]:
        pairs, pca, steps = row["pairs"], row["pca"], row["steps"]
        entry = {
            "name": row["name"],
            "protocol": row["protocol"],
            "model": row["model"],
            "n_items": row["n_items"],
            "n_failed": row["n_failed"],
            "pairs": None,
            "pca": None,
            "steps": None,
        }
        if pairs:
            cells = [{"n": b["n"], "text": _pct(b["accuracy"])} for b in pairs["buckets"]]
            entry["pairs"] = {
                "n": pairs["n"],
                "accuracy": _pct(pairs["accuracy"]),
                "kappa": _num(pairs["kappa"]),
                "consistency": _pct(pairs["consistency"]),
                "avg": _pct(pairs["avg"]),
                "avg_complete": pairs["avg_complete"],
                "buckets": cells,
                "length_bins": [{**b, "text": _pct(b["accuracy"])} for b in pairs["length_bins"]],
                "turn_bins": [{**b, "text": _pct(b["accuracy"])} for b in pairs["turn_bins"]],
            }
        if pca:
            entry["pca"] = {
                "n": pca["n"],
                "dimensions": [
                    {
                        "name": d,
                        "pearson": _num(pca["dimensions"][d]["pearson"]),
                        "kappa": _num(pca["dimensions"][d]["kappa"]),
                        "accuracy": _pct(pca["dimensions"][d]["accuracy"]),
                        "domain_average": _pct(pca["domain_average"][d]),
                    }
                    for d in PCA_DIMENSIONS
                ],
            }
        if steps:
            entry["steps"] = {
                "n": steps["n"],
                "mrr": _pct(steps["mrr"]),
                "step_accuracy": _pct(steps["step_accuracy"]),
                "trajectory_accuracy": _pct(steps["trajectory_accuracy"]),
                "n_tasks": steps["n_tasks"],
            }
        judges.append(entry)
    bars = [
        Bar(
            f"{row['name']} · {b['name']}",
            b["accuracy"],
            note=f"{_pct(b['accuracy'])} (n={b['n']})" if b["n"] else "no pairs",
        )
        for row in report["judges"]
        if row["pairs"]
        for b in row["pairs"]["buckets"]
    ]
    chart = accuracy_chart(bars, title="Judge accuracy per bucket (pairs)", chart_id="judge-bucket-chart")
    return {"buckets": report["buckets"], "rows": judges, "chart": chart if bars else None}


def judge_csv_table(*, project: Project, table: str) -> tuple[list[str], list[list]]:
    """(header, rows) of one judge table; `table` must be in JUDGE_TABLES."""
    report = judge_vs_human(project=project)
    judges = report["judges"]
    if table == "judges":
        head = ["name", "protocol", "model", "prompt_version", "n_items", "n_failed"]
        parts = (
            ("pairs", "pair_", ["n", "accuracy", "kappa", "consistency", "avg", "avg_complete"]),
            ("pca", "pca_", ["n"]),
            ("steps", "step_", ["n", "mrr", "step_accuracy", "n_tasks", "trajectory_accuracy"]),
        )
        header = ["judge", *head[1:]] + [prefix + key for _, prefix, keys in parts for key in keys]
        rows = [
            [j[k] for k in head] + [(j[part] or {}).get(key) for part, _, keys in parts for key in keys]
            for j in judges
        ]
        return header, rows
    if table == "judge_buckets":
        rows = []
        for j in judges:
            if not j["pairs"]:
                continue
            rows += [[j["name"], b["name"], b["n"], b["accuracy"]] for b in j["pairs"]["buckets"]]
            rows.append([j["name"], "Avg", j["pairs"]["n"], j["pairs"]["avg"]])
        return ["judge", "bucket", "pairs", "accuracy"], rows
    if table == "judge_bins":
        rows = [
            [j["name"], kind, b["name"], b["n"], b["accuracy"]]
            for j in judges
            if j["pairs"]
            for kind, key in (("length", "length_bins"), ("turns", "turn_bins"))
            for b in j["pairs"][key]
        ]
        return ["judge", "binned_by", "bin", "pairs", "accuracy"], rows
    if table == "judge_pca":
        rows = [
            [j["name"], d, j["pca"]["n"], *j["pca"]["dimensions"][d].values(), j["pca"]["domain_average"][d]]
            for j in judges
            if j["pca"]
            for d in PCA_DIMENSIONS
        ]
        return ["judge", "dimension", "items", "pearson", "kappa", "accuracy", "domain_average"], rows
    raise KeyError(table)
