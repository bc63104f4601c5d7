"""Rows for audit: dashboard, CSV tables, audit sampling (HTML and API).

Reviewers and managers read the dashboard and its tables; only managers draw audit samples
(reviewers get 404 there, like every role mismatch); annotators reach none of it.
"""

from __future__ import annotations

from tests.authorization.matrix import API_ANON, JSON, LOGIN, POST, C, P, empty


def table(name):
    return lambda w: [w.project.slug, name]


def sample_body(w, user):
    return {"stratum_field": "family", "mode": "cap", "cap": 80, "seed": 7, "audit_overlap": 2}


# fmt: off
CASES = [
    #                                  anonymous outsider annotator reviewer manager
    C("audit_dashboard",              (LOGIN, 404, 404, 200, 200), args=P),
    *[C("audit_table_csv",            (LOGIN, 404, 404, 200, 200), name, args=table(name))
      for name in ("strata", "annotators", "states", "family_kappa", "matrix", "quality", "kind_agreement",
                   "pca_categories", "pca_items", "pca_domains", "pca_judges", "step_machines",
                   "query_decisions")],
    C("audit_table_csv",              (LOGIN, 404, 404, 404, 404), "unknown table", args=table("secrets")),
    C("audit_sample",                 (LOGIN, 404, 404, 404, 200), args=P),
    C("audit_sample",                 (LOGIN, 404, 404, 404, 302), "post", method=POST, args=P,
      data=sample_body),
    C("audit_sample",                 (LOGIN, 404, 404, 404, 400), "post empty", method=POST, args=P,
      data=empty),
    # --- API
    C("api:audit-sample-list",        (API_ANON, 404, 404, 200, 200), args=P),
    C("api:audit-sample-list",        (API_ANON, 404, 404, 404, 201), "draw", method=POST, args=P,
      data=sample_body, fmt=JSON),
]
# fmt: on


def extend_world(w) -> None:
    """The shared world's items (held, labeled, free) are enough to draw a sample from."""
