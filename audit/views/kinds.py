"""The per-kind sections of the audit dashboard (P/C/A, steps, traces, queries), formatted."""

from __future__ import annotations

from annotation.labels import TRACE_CHECKS
from audit.judges.metrics import PCA_DIMENSIONS
from audit.kinds.pca import ERROR_CATEGORIES
from audit.services.dashboard import band_class, finite, kappa_text

# The per-item list on the page stops here; the CSV has every item.
ITEM_LIST_LIMIT = 200


def percent(value) -> str:
    number = finite(value)
    return "–" if number is None else f"{number * 100:.1f}%"


def number(value, digits: int = 2) -> str:
    value = finite(value)
    return "–" if value is None else f"{value:.{digits}f}"


def _cell(stat: dict | None) -> dict:
    stat = stat or {}
    return {"text": kappa_text(stat), "band": stat.get("band") or "", "css": band_class(stat.get("value"))}


def agreement_row(name: str, stats: dict) -> dict:
    """One row of an agreement table: what was compared, counts, % agreement, κ, Fleiss, α."""
    return {
        "name": name,
        "n_units": stats.get("n_units", 0),
        "n_raters": stats.get("n_raters", 0),
        "n_ratings": stats.get("n_ratings", 0),
        "percent": percent(stats.get("percent_agreement")),
        "stats": [
            _cell(stats.get("cohen_kappa")),
            _cell(stats.get("fleiss_kappa")),
            _cell(stats.get("krippendorff_alpha")),
        ],
    }


def _pca(pca: dict) -> dict:
    counts = pca["categories"]

    def category_row(name: str, n: int, per: dict, overall: bool = False) -> dict:
        return {
            "name": name,
            "n": n,
            "overall": overall,
            "cells": [
                {"n": per[key], "share": percent(per[key] / n if n else None)} for key, _ in ERROR_CATEGORIES
            ],
        }

    def domain_row(row: dict, average: bool = False) -> dict:
        name = "Avg (plain mean over domains)" if average else row["name"]
        n = f"{row['n_domains']} domain{'s' if row['n_domains'] != 1 else ''}" if average else row["n"]
        return {"name": name, "n": n, "average": average, "cells": [percent(row[d]) for d in PCA_DIMENSIONS]}

    def domain_block(name: str, domains: list[dict], average: dict) -> dict:
        rows = [domain_row(d) for d in domains]
        if domains:
            rows.append(domain_row(average, average=True))
        return {"source": name, "rows": rows}

    return {
        "agreement": [agreement_row(d.capitalize(), pca["agreement"][d]) for d in PCA_DIMENSIONS],
        "category_names": [name for _, name in ERROR_CATEGORIES],
        "categories": [category_row("(all)", counts["n"], counts["overall"], True)]
        + [category_row(d["name"], d["n"], d) for d in counts["domains"]],
        "n_settled": counts["n"],
        "domains": [
            domain_block("Humans (settled labels)", pca["domains"], pca["domain_average"]),
            *(domain_block(j["name"], j["domains"], j["domain_average"]) for j in pca["judges"]),
        ],
        "judges": [
            {
                "name": j["name"],
                "n": j["n"],
                "n_failed": j["n_failed"],
                "pearson": [number(j["pearson"][d]) for d in PCA_DIMENSIONS],
            }
            for j in pca["judges"]
        ],
        "items": [
            {**row, "category_name": dict(ERROR_CATEGORIES)[row["category"]]}
            for row in pca["items"][:ITEM_LIST_LIMIT]
        ],
        "items_cut": max(0, len(pca["items"]) - ITEM_LIST_LIMIT),
    }


def _step(step: dict) -> dict:
    lenient = step["best_lenient"]
    return {
        "agreement": [
            agreement_row("Best candidate (strict)", step["best"]),
            agreement_row("Checklist marks", step["checklist"]),
        ],
        "lenient": {
            "n_units": lenient["n_units"],
            "percent": percent(lenient["percent_agreement"]),
            "kappa": number(lenient["kappa"]),
        },
        "checklist_weighted": kappa_text(step["checklist"].get("weighted_kappa_linear")),
        "machines": [
            {
                **m,
                "mrr_text": number(m["mrr"], 3),
                "step_text": percent(m["step_accuracy"]),
                "trajectory_text": percent(m["trajectory_accuracy"]),
            }
            for m in step["machines"]
        ],
    }


def _trace(trace: dict) -> dict:
    rows = [agreement_row("Verdict", trace["verdict"])]
    rows += [agreement_row(f"Check: {c.replace('_', ' ')}", trace["checks"][c]) for c in TRACE_CHECKS]
    return {"agreement": rows}


def _query(query: dict) -> dict:
    return {
        "agreement": [agreement_row("Chosen query (or reject)", query["chosen"])],
        "decisions": list(query["decisions"].items()),
        "reject_reasons": [(k.replace("_", " "), v) for k, v in query["reject_reasons"].items()],
    }


def kinds_context(kinds: dict) -> dict:
    """{"pca", "step", "trace", "query"}: each None when the project has no such items."""
    build = {"pca": _pca, "step": _step, "trace": _trace, "query": _query}
    return {name: build[name](data) if data else None for name, data in kinds.items() if name in build}
