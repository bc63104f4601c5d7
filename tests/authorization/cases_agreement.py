"""Rows for agreement statistics (API and JSON report) (HTML and API).

Add `C(...)` rows to CASES; objects the rows need go on the world in `extend_world(w)`.
"""

from __future__ import annotations

from tests.authorization.matrix import API_ANON, LOGIN, C, Case, P
from workers.models import JudgeConfig


def csv_table(name):
    return lambda w: [w.project.slug, name]


def query(**params):
    """GET query parameters (the matrix sends `data` of a GET as the query string)."""
    return lambda w, user: params


# Agreement shows how each annotator agrees with the others: reviewers and managers only;
# annotators get 404 like outsiders, so the endpoint's existence does not leak either.
# fmt: off
CASES: list[Case] = [
    #                                  anonymous outsider annotator reviewer manager
    C("api:agreement",                 (API_ANON, 404, 404, 200, 200), args=P),
    C("api:agreement",                 (API_ANON, 404, 404, 200, 200), "by domain, ordinal", args=P,
      data=query(by="domain", level="ordinal", bootstrap=50, seed=7)),
    C("api:agreement",                 (API_ANON, 404, 404, 400, 400), "unknown stratum", args=P,
      data=query(by="colour")),
    C("api:agreement",                 (API_ANON, 404, 404, 400, 400), "too many resamples", args=P,
      data=query(bootstrap=10**6)),
    # Judge-vs-human report: the same audience as agreement (it shows how judges agree with people).
    C("api:judge-report",              (API_ANON, 404, 404, 200, 200), args=P),
    C("api:judge-report",              (API_ANON, 404, 404, 200, 200), "one judge, by family", args=P,
      data=lambda w, user: {"judge": w.report_judge.pk, "by": "family"}),
    C("api:judge-report",              (API_ANON, 404, 404, 404, 404), "another project's judge", args=P,
      data=lambda w, user: {"judge": w.foreign_report_judge.pk}),
    C("api:judge-report",              (API_ANON, 404, 404, 400, 400), "unknown stratum", args=P,
      data=query(by="colour")),
    # The dashboard's judge tables as CSV (audit_table_csv; its other tables are in cases_audit).
    *[C("audit_table_csv",             (LOGIN, 404, 404, 200, 200), name, args=csv_table(name))
      for name in ("judges", "judge_buckets", "judge_bins", "judge_pca")],
]
# fmt: on


def extend_world(w) -> None:
    """Add this area's objects to the shared test world `w` (see test_matrix.world).
    The shared world's `labeled` item, with two annotators' labels, is all the agreement rows
    need; the judge report rows need a judge config here and one in another project."""

    def config(project, name):
        return JudgeConfig.objects.create(
            project=project,
            name=name,
            protocol="pairwise",
            base_url="http://127.0.0.1:9/v1",
            model="dev",
            prompt_template="Which trajectory is better?",
            created_by=w.users["manager"],
        )

    w.report_judge = config(w.project, "agreement-report-judge")
    w.foreign_report_judge = config(w.other, "agreement-report-judge")
