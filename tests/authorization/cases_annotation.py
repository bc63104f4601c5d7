"""Rows for the foundation: pages, labeling, members, imports, media and their API."""

from __future__ import annotations

from tests.authorization.matrix import (
    API_ANON,
    JSON,
    LOGIN,
    PATCH,
    POST,
    C,
    P,
    edit_body,
    empty,
    foreign,
    free,
    held,
    jsonl_upload,
    labeled,
    media,
    message,
    own_creds,
    pk_of,
    reason,
    submit_body,
)


def checklist_body(w, user):
    """A valid step checklist edit of version 1."""
    return {"title_1": "Find tents", "goal_1": "", "reason": "the list was wrong", "parent_version": "1"}


def trace_body(w, user):
    """A valid first save of the matrix's trace item: correct as is, every check passed."""
    from annotation.labels import TRACE_CHECKS
    from annotation.traces import trace_steps

    n = len(trace_steps(w.trace_held.trajectory_first.messages))
    checks = [dict.fromkeys(TRACE_CHECKS, "pass") for _ in range(n)]
    return {"verdict": "correct", "checks": checks, "client_id": "3b8e4c1a-2f5d-4e6b-9c7a-1d2e3f4a5b6c"}


def checklist_api_body(w, user):
    return {
        "items": [{"title": "Find tents", "goal": ""}],
        "reason": "the list was wrong",
        "parent_version": 1,
    }


# fmt: off
CASES = [
    # --- pages outside projects
    C("home", (LOGIN, 200, 200, 200, 200)),
    C("login", (200, 200, 200, 200, 200)),
    C("logout", (302, 302, 302, 302, 302), method=POST),
    C("healthz", (200, 200, 200, 200, 200)),
    C("api-schema", (200, 200, 200, 200, 200)),
    C("api-docs", (200, 200, 200, 200, 200)),
    # --- project pages            anonymous outsider annotator reviewer manager
    C("project",                  (LOGIN, 404, 200, 200, 200), args=P),
    # Annotators are sent to their item; reviewers and managers to the item list.
    C("queue_next",               (LOGIN, 404, 302, 302, 302), args=P),
    C("item_list",                (LOGIN, 404, 404, 200, 200), args=P),
    C("my_labels",                (LOGIN, 404, 200, 200, 200), args=P),
    C("label_item",               (LOGIN, 404, 200, 200, 200), "held", args=held),
    C("label_item",               (LOGIN, 404, 200, 200, 200), "labeled", args=labeled),
    C("label_item",               (LOGIN, 404, 404, 200, 200), "not assigned", args=free),
    C("label_item",               (LOGIN, 404, 404, 404, 404), "other project", args=foreign),
    # POST with an empty form: the annotator gets the form back with errors; staff read only.
    C("label_item",               (LOGIN, 404, 400, 403, 403), "post", method=POST, args=held, data=empty),
    C("label_item",               (LOGIN, 404, 404, 403, 403), "post not assigned", method=POST, args=free,
      data=empty),
    C("skip_item",                (LOGIN, 404, 302, 404, 404), "held", method=POST, args=held, data=reason),
    C("skip_item",                (LOGIN, 404, 404, 404, 404), "not assigned", method=POST, args=free,
      data=reason),
    C("skip_item",                (LOGIN, 404, 404, 404, 404), "other project", method=POST, args=foreign,
      data=reason),
    C("message_body",             (LOGIN, 404, 200, 200, 200), "held", args=message(held)),
    C("message_body",             (LOGIN, 404, 404, 200, 200), "not assigned", args=message(free)),
    C("message_body",             (LOGIN, 404, 404, 404, 404), "other project", args=message(foreign)),
    C("member_list",              (LOGIN, 404, 404, 404, 200), args=P),
    C("member_list",              (LOGIN, 404, 404, 404, 200), "post", method=POST, args=P, data=empty),
    C("member_remove",            (LOGIN, 404, 404, 404, 302), method=POST,
      args=pk_of("reviewer_membership")),
    C("member_remove",            (LOGIN, 404, 404, 404, 404), "other project", method=POST,
      args=pk_of("foreign_membership")),
    C("project_settings",         (LOGIN, 404, 404, 404, 200), args=P),
    C("project_settings",         (LOGIN, 404, 404, 404, 200), "post", method=POST, args=P, data=empty),
    C("import_upload",            (LOGIN, 404, 404, 404, 200), args=P),
    C("import_upload",            (LOGIN, 404, 404, 404, {200, 302, 400}), "post", method=POST, args=P,
      data=empty),
    C("import_status",            (LOGIN, 404, 404, 404, 200), args=pk_of("job")),
    C("import_status",            (LOGIN, 404, 404, 404, 404), "other project", args=pk_of("foreign_job")),
    C("media_file",               (LOGIN, 404, 200, 200, 200), args=media("media/shot.png")),
    C("media_file",               (LOGIN, 404, 404, 404, 404), "other project",
      args=media("media/only-beta.png")),
    # --- API
    C("api:token",                (400, 200, 200, 200, 200), method=POST, data=own_creds, fmt=JSON),
    C("api:project-list",         (API_ANON, 200, 200, 200, 200)),
    C("api:project-detail",       (API_ANON, 404, 200, 200, 200), args=P),
    C("api:item-list",            (API_ANON, 404, 404, 200, 200), args=P),
    C("api:item-detail",          (API_ANON, 404, 200, 200, 200), "held", args=held),
    C("api:item-detail",          (API_ANON, 404, 404, 200, 200), "not assigned", args=free),
    C("api:item-detail",          (API_ANON, 404, 404, 404, 404), "other project", args=foreign),
    C("api:import-create",        (API_ANON, 404, 404, 404, 202), method=POST, args=P, data=jsonl_upload),
    C("api:import-detail",        (API_ANON, 404, 404, 404, 200), args=pk_of("job")),
    C("api:import-detail",        (API_ANON, 404, 404, 404, 404), "other project", args=pk_of("foreign_job")),
    C("api:annotation-list",      (API_ANON, 404, 200, 200, 200), args=P),
    C("api:annotation-list",      (API_ANON, 404, 201, 404, 404), "submit", method=POST, args=P,
      data=submit_body("held"), fmt=JSON),
    C("api:annotation-list",      (API_ANON, 404, 409, 404, 404), "submit not assigned", method=POST, args=P,
      data=submit_body("free"), fmt=JSON),
    C("api:annotation-list",      (API_ANON, 404, 404, 404, 404), "submit other project", method=POST,
      args=P, data=submit_body("foreign"), fmt=JSON),
    C("api:annotation-detail",    (API_ANON, 404, 200, 200, 200), "own", args=pk_of("annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 404, 200, 200), "peer's",
      args=pk_of("peer_annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 200, 404, 404), "edit own", method=PATCH,
      args=pk_of("annotation"), data=edit_body, fmt=JSON),
    C("api:annotation-detail",    (API_ANON, 404, 404, 404, 404), "edit peer's", method=PATCH,
      args=pk_of("peer_annotation"), data=edit_body, fmt=JSON),
    C("api:queue-next",           (API_ANON, 404, 200, 404, 404), method=POST, args=P),
    C("api:queue-skip",           (API_ANON, 404, 200, 404, 404), "held", method=POST, args=held,
      data=reason, fmt=JSON),
    C("api:queue-skip",           (API_ANON, 404, 404, 404, 404), "not assigned", method=POST, args=free,
      data=reason, fmt=JSON),
    C("api:queue-skip",           (API_ANON, 404, 404, 404, 404), "other project", method=POST,
      args=foreign, data=reason, fmt=JSON),
    # --- step checklist edits: the annotator holding a step item; staff read only
    C("step_checklist_edit",      (LOGIN, 404, 302, 403, 403), "held step", method=POST,
      args=pk_of("step_held"), data=checklist_body),
    C("step_checklist_edit",      (LOGIN, 404, 404, 403, 403), "step not assigned", method=POST,
      args=pk_of("step_free"), data=checklist_body),
    C("step_checklist_edit",      (LOGIN, 404, 404, 404, 404), "pair item", method=POST, args=held,
      data=checklist_body),
    C("step_checklist_edit",      (LOGIN, 404, 404, 404, 404), "other project", method=POST, args=foreign,
      data=checklist_body),
    C("step_checklist_edit",      (405, 405, 405, 405, 405), "get", args=pk_of("step_held")),
    # --- API: trace corrections and step checklists (the pages' rules: staff read only)
    C("api:item-trace",           (API_ANON, 404, 200, 200, 200), "held trace", args=pk_of("trace_held")),
    C("api:item-trace",           (API_ANON, 404, 404, 200, 200), "trace not assigned",
      args=pk_of("trace_free")),
    C("api:item-trace",           (API_ANON, 404, 404, 404, 404), "pair item", args=held),
    C("api:item-trace",           (API_ANON, 404, 404, 404, 404), "other project", args=foreign),
    C("api:item-trace",           (API_ANON, 404, 201, 403, 403), "save held trace", method=POST,
      args=pk_of("trace_held"), data=trace_body, fmt=JSON),
    C("api:item-trace",           (API_ANON, 404, 404, 403, 403), "save trace not assigned", method=POST,
      args=pk_of("trace_free"), data=trace_body, fmt=JSON),
    C("api:item-trace",           (API_ANON, 404, 404, 404, 404), "save other project", method=POST,
      args=foreign, data=trace_body, fmt=JSON),
    C("api:item-checklist",       (API_ANON, 404, 200, 200, 200), "held step", args=pk_of("step_held")),
    C("api:item-checklist",       (API_ANON, 404, 404, 200, 200), "step not assigned",
      args=pk_of("step_free")),
    C("api:item-checklist",       (API_ANON, 404, 404, 404, 404), "pair item", args=held),
    C("api:item-checklist",       (API_ANON, 404, 404, 404, 404), "other project", args=foreign),
    C("api:item-checklist",       (API_ANON, 404, 201, 403, 403), "edit held step", method=POST,
      args=pk_of("step_held"), data=checklist_api_body, fmt=JSON),
    C("api:item-checklist",       (API_ANON, 404, 404, 403, 403), "edit step not assigned", method=POST,
      args=pk_of("step_free"), data=checklist_api_body, fmt=JSON),
    C("api:item-checklist",       (API_ANON, 404, 404, 404, 404), "edit other project", method=POST,
      args=foreign, data=checklist_api_body, fmt=JSON),
]
# fmt: on


def extend_world(w) -> None:
    """`step_held` / `trace_held`: items of those kinds the matrix's annotator holds;
    `step_free` / `trace_free`: ones nobody holds."""
    from annotation.models import ItemKind
    from tests.api.factories import AssignmentFactory
    from tests.factories import PairItemFactory

    payload = {
        "checklist": [{"title": "Open tents", "goal": ""}],
        "candidates": [{"id": "c0", "action": {"name": "click", "arguments": {"bid": "13"}}}],
    }
    w.step_held, w.step_free = (
        PairItemFactory(project=w.project, kind=ItemKind.STEP, payload=payload, gold={"chosen": "c0"})
        for _ in range(2)
    )
    AssignmentFactory(item=w.step_held, annotator=w.users["annotator"])
    # `trace_held` / `trace_free`: trace items (one tool step each), held by the annotator or not.
    w.trace_held, w.trace_free = (
        PairItemFactory(
            project=w.project, kind=ItemKind.TRACE, trajectory_second=None, gold={"reference_answer": "42"}
        )
        for _ in range(2)
    )
    AssignmentFactory(item=w.trace_held, annotator=w.users["annotator"])
