"""CSV tables of the per-kind audit sections (P/C/A, steps, traces, queries): plain values."""

from __future__ import annotations

from annotation.labels import TRACE_CHECKS
from annotation.models import Project
from audit.judges.metrics import PCA_DIMENSIONS
from audit.kinds.pca import CATEGORY_NAMES

from .dashboard import STAT_KEYS, Agreement, _stat_columns, finite

AGREEMENT_HEAD = ["kind", "measure", "level", "units", "raters", "ratings", "percent_agreement"]


def agreement_rows(kinds: dict) -> list[tuple[str, str, dict]]:
    """(kind, measure, agreement stats) of every per-kind agreement the report holds, in the
    order the dashboard shows them."""
    rows: list[tuple[str, str, dict]] = []
    if kinds.get("pca"):
        rows += [("pca", d, kinds["pca"]["agreement"][d]) for d in PCA_DIMENSIONS]
    if kinds.get("step"):
        rows += [
            ("step", "best candidate", kinds["step"]["best"]),
            ("step", "checklist marks", kinds["step"]["checklist"]),
        ]
    if kinds.get("trace"):
        rows.append(("trace", "verdict", kinds["trace"]["verdict"]))
        rows += [("trace", f"check: {c}", kinds["trace"]["checks"][c]) for c in TRACE_CHECKS]
    if kinds.get("query"):
        rows.append(("query", "chosen query or reject", kinds["query"]["chosen"]))
    return rows


def _agreement_table(kinds: dict) -> tuple[list[str], list[list]]:
    header = list(AGREEMENT_HEAD)
    for prefix, _ in STAT_KEYS:
        header += [prefix, f"{prefix}_ci_low", f"{prefix}_ci_high", f"{prefix}_band"]
    rows = []
    for kind, measure, stats in agreement_rows(kinds):
        values = [kind, measure, stats.get("level"), stats.get("n_units"), stats.get("n_raters")]
        values += [stats.get("n_ratings"), finite(stats.get("percent_agreement"))]
        for _, key in STAT_KEYS:
            values += _stat_columns(stats.get(key))
        rows.append(values)
        if measure == "best candidate":
            lenient = kinds["step"]["best_lenient"]
            rows.append(
                [
                    "step",
                    "best candidate (lenient: equivalent counts)",
                    "nominal",
                    lenient["n_units"],
                    None,
                    None,
                ]
                + [finite(lenient["percent_agreement"]), finite(lenient["kappa"])]
                + [None] * (len(header) - len(AGREEMENT_HEAD) - 1)
            )
    return header, rows


def kind_csv_table(*, project: Project, table: str) -> tuple[list[str], list[list]]:
    """(header, rows) of one per-kind table; `table` must be in audit.kinds.KIND_TABLES."""
    kinds = Agreement(project).kinds()
    if table == "kind_agreement":
        return _agreement_table(kinds)
    pca, step, query = kinds.get("pca") or {}, kinds.get("step") or {}, kinds.get("query") or {}
    if table == "pca_categories":
        header = ["domain", "items", *CATEGORY_NAMES]
        if not pca:
            return header, []
        counts = pca["categories"]
        rows = [["(all)", counts["n"], *counts["overall"].values()]]
        rows += [[d["name"], d["n"], *(d[c] for c in CATEGORY_NAMES)] for d in counts["domains"]]
        return header, rows
    if table == "pca_items":
        header = ["item_id", "external_id", "domain", *PCA_DIMENSIONS, "category"]
        return header, [
            [r["id"], r["external_id"], r["domain"], *(r[d] for d in PCA_DIMENSIONS), r["category"]]
            for r in pca.get("items", [])
        ]
    if table == "pca_domains":
        header = ["source", "domain", "items", *PCA_DIMENSIONS]
        sources = [("humans (settled)", pca.get("domains", []), pca.get("domain_average"))]
        sources += [(j["name"], j["domains"], j["domain_average"]) for j in pca.get("judges", [])]
        rows = []
        for name, domains, average in sources:
            rows += [[name, d["name"], d["n"], *(d[k] for k in PCA_DIMENSIONS)] for d in domains]
            if domains:
                rows.append(
                    [
                        name,
                        "Avg (plain mean over domains)",
                        average["n_domains"],
                        *(average[k] for k in PCA_DIMENSIONS),
                    ]
                )
        return header, rows
    if table == "pca_judges":
        header = ["source", "items", "failed", *(f"pearson_{d}" for d in PCA_DIMENSIONS)]
        return header, [
            [j["name"], j["n"], j["n_failed"], *(j["pearson"][d] for d in PCA_DIMENSIONS)]
            for j in pca.get("judges", [])
        ]
    if table == "step_machines":
        keys = [
            "n",
            "n_failed",
            "mrr",
            "step_accuracy",
            "n_trajectories",
            "n_trajectories_incomplete",
            "trajectory_accuracy",
        ]
        header = [
            "source",
            "steps",
            "failed",
            "mrr",
            "step_accuracy",
            "trajectories",
            "trajectories_incomplete",
            "trajectory_accuracy",
        ]
        return header, [[m["name"], *(m[k] for k in keys)] for m in step.get("machines", [])]
    if table == "query_decisions":
        rows = [["decision", k, v] for k, v in (query.get("decisions") or {}).items()]
        rows += [["reject_reason", k, v] for k, v in (query.get("reject_reasons") or {}).items()]
        return ["count_of", "value", "labels"], rows
    raise KeyError(table)
