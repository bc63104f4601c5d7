"""The κ table of the audit (protocols.md, section A) and the whole agreement report."""

from __future__ import annotations

from annotation.models import Item, Project

from .annotators import annotator_matrix, annotator_quality
from .stats import DEFAULT_RESAMPLES, agreement_by_stratum, agreement_stats
from .table import RatingTable, rating_table


def family_kappa_table(
    *,
    project: Project,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: str = "nominal",
    table: RatingTable | None = None,
) -> list[dict]:
    """Pre-adjudication Cohen's κ per task family, as Plan-RewardBench reports its audit.

    One row per family: {"family", "audited": items with ≥ 2 labels counted, "sample":
    "audit sample" | "all items", "kappa": {value, ci_low, ci_high, band, method, n_pairs},
    "percent_agreement"}. The items are those of the audit sample (Item.audited); a project
    that has drawn no sample gets every item with at least two labels instead. `table`: a
    family table already read, reused when there is no sample.
    """
    sampled = Item.objects.filter(project=project, audited=True).exists()
    if sampled or table is None or table.stratum_field != "family":
        table = rating_table(project=project, stratum_field="family", audited_only=sampled)
    rows = []
    for family, sub in table.by_stratum().items():
        stats = agreement_stats(sub, bootstrap=bootstrap, seed=seed, level=level)
        if not stats["n_units"]:
            continue
        rows.append(
            {
                "family": family,
                "audited": stats["n_units"],
                "sample": "audit sample" if sampled else "all items",
                "kappa": stats["cohen_kappa"],
                "percent_agreement": stats["percent_agreement"],
            }
        )
    return rows


def agreement_report(
    *,
    project: Project,
    by: str = "family",
    level: str = "nominal",
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict:
    """Everything `agreement_report SLUG --json` prints and GET …/agreement/ answers. `kinds`:
    the P/C/A, step, trace and query sections (audit.kinds), None for kinds the project lacks."""
    # audit.kinds builds on this package's modules, so it is imported only once they exist.
    from audit.kinds import kind_metrics

    table = rating_table(project=project, stratum_field=by)
    strata = agreement_by_stratum(
        project=project, stratum_field=by, table=table, level=level, bootstrap=bootstrap, seed=seed
    )
    # The matrix needs no stratum; reuse the table read above rather than reading it again.
    return {
        "project": project.slug,
        "kind": project.kind,
        "by": by,
        "overall": strata["overall"],
        "strata": strata["strata"],
        "annotator_matrix": annotator_matrix(project=project, table=table),
        "annotator_quality": annotator_quality(project=project),
        "family_kappa": family_kappa_table(
            project=project, bootstrap=bootstrap, seed=seed, level=level, table=table
        ),
        "kinds": kind_metrics(project=project, bootstrap=bootstrap, seed=seed),
    }
