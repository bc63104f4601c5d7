"""Audit numbers specific to the item kinds beyond pairs (issue 5): P/C/A, steps, traces, queries.

kind_metrics(project=, bootstrap=, seed=) → {"pca": … | None, "step": …, "trace": …, "query": …},
a section for each of these kinds the project has items of (None otherwise). Each module's doc
states its rules (error categories, lenient agreement, MRR and trajectory accuracy, …).
"""

from __future__ import annotations

from annotation.models import ItemKind, Project
from audit.agreement.stats import DEFAULT_RESAMPLES

from .common import has_items
from .pca import ERROR_CATEGORIES, error_category, pca_metrics
from .step import lenient_match, step_metrics
from .trace import query_metrics, trace_metrics

# CSV tables of these sections (the dashboard's audit_table_csv names).
KIND_TABLES = (
    "kind_agreement",
    "pca_categories",
    "pca_items",
    "pca_domains",
    "pca_judges",
    "step_machines",
    "query_decisions",
)
SECTIONS = (
    ("pca", ItemKind.PCA, pca_metrics),
    ("step", ItemKind.STEP, step_metrics),
    ("trace", ItemKind.TRACE, trace_metrics),
    ("query", ItemKind.QUERY, query_metrics),
)


def kind_metrics(*, project: Project, bootstrap: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict:
    return {
        name: compute(project=project, bootstrap=bootstrap, seed=seed)
        if has_items(project=project, kind=kind)
        else None
        for name, kind, compute in SECTIONS
    }


__all__ = ["ERROR_CATEGORIES", "KIND_TABLES", "SECTIONS", "error_category", "kind_metrics", "lenient_match"]
