"""Rows for review: adjudication queue and page, item history (HTML and API).

Reviewers and managers adjudicate and read histories; annotators reach none of it (404, like
outsiders), so they never see other people's labels or the gold through these pages.
"""

from __future__ import annotations

from annotation.models import Role
from review.services import item_state_token
from tests.authorization.matrix import API_ANON, JSON, LOGIN, POST, C, P, empty, pk_of
from tests.factories import PairItemFactory
from tests.review.factories import annotator, pair_label, settled_by_rules


def discard_body(w, user):
    return {
        "decision": "discard",
        "reason": "duplicate of another pair",
        "state_token": item_state_token(w.disputed),
    }


def stale_body(w, user):
    return {"decision": "discard", "reason": "duplicate", "state_token": "adjudication.0"}


disputed = pk_of("disputed")
foreign_disputed = pk_of("foreign_disputed")

# fmt: off
CASES = [
    #                                  anonymous outsider annotator reviewer manager
    C("adjudication_queue",           (LOGIN, 404, 404, 200, 200), args=P),
    C("adjudicate_item",              (LOGIN, 404, 404, 200, 200), args=disputed),
    C("adjudicate_item",              (LOGIN, 404, 404, 404, 404), "other project", args=foreign_disputed),
    # A decision sends the reviewer on to the next item (or back to the queue).
    C("adjudicate_item",              (LOGIN, 404, 404, 302, 302), "post discard", method=POST, args=disputed,
      data=discard_body),
    C("adjudicate_item",              (LOGIN, 404, 404, 400, 400), "post empty", method=POST, args=disputed,
      data=empty),
    C("adjudicate_item",              (LOGIN, 404, 404, 409, 409), "post stale", method=POST, args=disputed,
      data=stale_body),
    C("adjudicate_item",              (LOGIN, 404, 404, 404, 404), "post other project", method=POST,
      args=foreign_disputed, data=discard_body),
    C("item_history",                 (LOGIN, 404, 404, 200, 200), args=disputed),
    C("item_history",                 (LOGIN, 404, 404, 404, 404), "other project", args=foreign_disputed),
    # --- API
    C("api:adjudication-list",        (API_ANON, 404, 404, 200, 200), args=P),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 200, 200), args=disputed),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 404, 404), "other project", args=foreign_disputed),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 201, 201), "discard", method=POST, args=disputed,
      data=discard_body, fmt=JSON),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 409, 409), "stale", method=POST, args=disputed,
      data=stale_body, fmt=JSON),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 400, 400), "empty", method=POST, args=disputed,
      data=empty, fmt=JSON),
    C("api:adjudication-decide",      (API_ANON, 404, 404, 404, 404), "other project post", method=POST,
      args=foreign_disputed, data=discard_body, fmt=JSON),
    C("api:item-history",             (API_ANON, 404, 404, 200, 200), args=disputed),
    C("api:item-history",             (API_ANON, 404, 404, 404, 404), "other project", args=foreign_disputed),
]
# fmt: on


def extend_world(w) -> None:
    """`disputed`: an item of the project in adjudication, labeled by the matrix's annotator
    and a peer who disagree; `foreign_disputed`: the same in the other project."""
    w.disputed = PairItemFactory(project=w.project, external_id="disputed")
    settled_by_rules(
        w.disputed,
        [pair_label("first"), pair_label("second")],
        users=[w.users[Role.ANNOTATOR], annotator(w.project, "disputing-peer")],
    )
    w.disputed.refresh_from_db()
    w.foreign_disputed = PairItemFactory(project=w.other, external_id="foreign-disputed")
    settled_by_rules(w.foreign_disputed, [pair_label("first"), pair_label("second")])
    w.foreign_disputed.refresh_from_db()
