"""Agreement statistics on pre-adjudication labels (issue 3, item 1).

Entry points (all keyword-only, all return plain JSON-ready dicts and lists):
    rating_table(project=, stratum_field=)          → RatingTable (units × raters)
    agreement_stats(table, level=, bootstrap=, seed=) → counts, % agreement, κ, α with CIs
    agreement_by_stratum(project=, stratum_field=)    → {"overall": stats, "strata": {...}}
    annotator_matrix(project=)                        → pairwise κ and shared-item counts
    annotator_quality(project=)                       → per-annotator quality numbers
    family_kappa_table(project=)                      → κ per family (protocols.md, section A)
    agreement_report(project=, by=)                   → all of the above (CLI and API)
"""

from .annotators import annotator_matrix, annotator_quality
from .coefficients import LEVELS, landis_koch
from .report import agreement_report, family_kappa_table
from .stats import agreement_by_stratum, agreement_stats
from .table import STRATUM_LOOKUPS, RatingTable, rating_table, value_key

__all__ = [
    "LEVELS",
    "STRATUM_LOOKUPS",
    "RatingTable",
    "agreement_by_stratum",
    "agreement_report",
    "agreement_stats",
    "annotator_matrix",
    "annotator_quality",
    "family_kappa_table",
    "landis_koch",
    "rating_table",
    "value_key",
]
