"""Rows for agreement statistics (API and JSON report) (HTML and API).

Add `C(...)` rows to CASES; objects the rows need go on the world in `extend_world(w)`.
"""

from __future__ import annotations

from tests.authorization.matrix import API_ANON, C, Case, P


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
]
# fmt: on


def extend_world(w) -> None:
    """Add this area's objects to the shared test world `w` (see test_matrix.world).
    The shared world's `labeled` item, with two annotators' labels, is all the rows need."""
