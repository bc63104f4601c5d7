"""Hand-built P/C/A, step, trace and query projects whose numbers are worked out in the tests."""

from __future__ import annotations

from annotation.models import Item, ItemKind, ItemState, Role, Suggestion
from tests.api.factories import AnnotationFactory
from tests.factories import MembershipFactory, ProjectFactory, TaskFactory

DIMS = ("perception", "cognition", "action")


def make_item(project, kind, *, settled: dict | None = None, state=None, task=None, **fields) -> Item:
    """Verified with `settled` as its settled label, else still being annotated."""
    fields.setdefault("external_id", f"{kind}-{Item.objects.filter(project=project).count():03d}")
    return Item.objects.create(
        project=project,
        kind=kind,
        state=state or (ItemState.VERIFIED if settled else ItemState.ANNOTATING),
        task=task,
        settled_label=settled or {},
        **fields,
    )


def label_item(item: Item, labels: dict) -> None:
    """labels: {user: label}."""
    for user, label in labels.items():
        AnnotationFactory(item=item, annotator=user, label=label)


def suggest(
    target: Item, source: str, label: dict, scores: dict | None = None, error: str = ""
) -> Suggestion:
    return Suggestion.objects.create(
        item=target, source=source, label=label, scores=scores or {}, error=error, prompt_version="1"
    )


def staff(project) -> dict:
    return {
        name: MembershipFactory(project=project, role=role, user__username=f"{project.slug}-{name}").user
        for name, role in (
            ("manager", Role.MANAGER),
            ("reviewer", Role.REVIEWER),
            ("ann1", Role.ANNOTATOR),
            ("ann2", Role.ANNOTATOR),
        )
    }


def pca(*dims: int) -> dict:
    return dict(zip(DIMS, dims, strict=True))


# P/C/A world. Items in order (domain, settled P C A, category):
#   traffic (1,1,1) none · traffic (0,1,1) perception · traffic (1,0,0) cognition
#   domestic (1,1,0) action · domestic (1,1,1) none · game (0,0,0) perception
PCA_SETTLED = [
    ("traffic", (1, 1, 1)),
    ("traffic", (0, 1, 1)),
    ("traffic", (1, 0, 0)),
    ("domestic", (1, 1, 0)),
    ("domestic", (1, 1, 1)),
    ("game", (0, 0, 0)),
]
# Annotators' labels per dimension over the six items.
PCA_ANN1 = {"perception": (1, 1, 1, 0, 0, 1), "cognition": (1, 1, 1, 1, 1, 0), "action": (1, 0, 1, 0, 1, 0)}
PCA_ANN2 = {"perception": (1, 1, 0, 0, 1, 1), "cognition": (1, 1, 1, 1, 1, 0), "action": (0, 1, 0, 1, 0, 1)}
# The judge: P as a 0/1 label, C equal to the humans', A as numeric scores.
JUDGE_P = (1, 0, 0, 1, 1, 0)
JUDGE_A = (0.9, 0.8, 0.1, 0.2, 0.7, 0.3)


def pca_world(slug: str = "pcaw") -> dict:
    project = ProjectFactory(slug=slug, name="PCA audit", kind=ItemKind.PCA)
    users = staff(project)
    items = []
    for k, (domain, settled) in enumerate(PCA_SETTLED):
        task = TaskFactory(project=project, domain=domain)
        item = make_item(project, ItemKind.PCA, settled=pca(*settled), task=task, stratum=domain)
        label_item(
            item,
            {
                users["ann1"]: {d: PCA_ANN1[d][k] for d in DIMS},
                users["ann2"]: {d: PCA_ANN2[d][k] for d in DIMS},
            },
        )
        label = {"perception": JUDGE_P[k], "cognition": settled[1], "action": 1}
        suggest(item, "judge:pca-dev", label, {**label, "action": JUDGE_A[k]})
        items.append(item)
    # Not counted: an item nobody settled yet (its suggestion neither), a failed suggestion.
    open_item = make_item(project, ItemKind.PCA, task=TaskFactory(project=project, domain="game"))
    suggest(open_item, "judge:pca-dev", pca(1, 1, 1))
    failed = make_item(
        project,
        ItemKind.PCA,
        settled=pca(1, 1, 1),
        task=TaskFactory(project=project, domain="game"),
        stratum="game",
    )
    suggest(failed, "judge:pca-dev", {}, error="six lines expected")
    return {"project": project, "items": items, "failed": failed, **users}


# Step world: six items, candidates c0–c3. (ann1 chosen, ann1 equivalent, ann2 chosen, ann2
# equivalent); strict agreement on 1, 2, 4; lenient also on 3 (c0 ∈ ann2's equivalent) and 6
# (c0 ∈ ann1's equivalent).
STEP_LABELS = [
    ("c0", [], "c0", []),
    ("c1", [], "c1", []),
    ("c0", [], "c2", ["c0"]),
    ("c2", [], "c2", []),
    ("c0", [], "c1", []),
    ("c1", ["c0"], "c0", []),
]
# Checklist marks (two checklist items each) on items 1, 2 and 4, where both chose the same
# candidate (project scope "chosen": marks judge the state after it): ann1, ann2. Item 5's marks
# judge different states (c0 vs c1) and are not compared.
STEP_MARKS = {
    0: (["yes", "no"], ["yes", "no"]),
    1: (["yes", "in_progress"], ["in_progress", "in_progress"]),
    3: (["no", "no"], ["no", "yes"]),
    4: (["yes", "yes"], ["no", "no"]),
}
# Settled (chosen, equivalent), trajectory, and a machine's rewards (or its chosen label only).
STEP_SETTLED = [
    ("c0", [], "T1", {"c0": 0.9, "c1": 0.2}),  # rank 1
    ("c1", [], "T1", {"c0": 0.8, "c1": 0.6, "c2": 0.1}),  # rank 2
    ("c0", ["c2"], "T1", {"c0": 0.3, "c1": 0.5, "c2": 0.7}),  # c2 is equivalent: rank 1
    ("c2", [], "T2", {"c2": 0.6, "c0": 0.5}),  # rank 1
    ("c0", [], "T2", {"c0": 1.0, "c1": 0.0}),  # rank 1
    ("c1", [], None, None),  # no rewards, label chosen c1: rank 1
]


def step_label(chosen: str, equivalent: list, marks: list | None = None) -> dict:
    label = {"chosen": chosen, "equivalent": equivalent, "invalid": []}
    if marks is not None:
        label["checklist"] = marks
    return label


def step_world(slug: str = "stepw") -> dict:
    project = ProjectFactory(slug=slug, name="Step audit", kind=ItemKind.STEP)
    users = staff(project)
    task_six = TaskFactory(project=project)
    items = []
    for k, ((c1, e1, c2, e2), (chosen, equivalent, trajectory, rewards)) in enumerate(
        zip(STEP_LABELS, STEP_SETTLED, strict=True)
    ):
        marks = STEP_MARKS.get(k, (None, None))
        item = make_item(
            project,
            ItemKind.STEP,
            settled=step_label(chosen, equivalent),
            task=task_six if trajectory is None else TaskFactory(project=project),
            meta={"trajectory_id": trajectory} if trajectory else {},
            payload={"candidates": [{"id": f"c{n}"} for n in range(4)], "checklist": [{}, {}]},
        )
        label_item(
            item, {users["ann1"]: step_label(c1, e1, marks[0]), users["ann2"]: step_label(c2, e2, marks[1])}
        )
        if rewards is None:
            suggest(item, "prm-8b", {"chosen": "c1"})
        else:
            suggest(item, "prm-8b", {"chosen": max(rewards, key=rewards.get)}, {"rewards": rewards})
        items.append(item)
    # The sixth item's task has a second step nobody settled: that trajectory is incomplete.
    make_item(project, ItemKind.STEP, task=task_six)
    suggest(items[0], "checklist-judge", {}, error="answered 2 items, the checklist has 3")
    return {"project": project, "items": items, **users}


# Trace world: verdicts of ann1 / ann2 on six items; checks on the first two (three steps each).
TRACE_LABELS = [
    ("correct", "correct"),
    ("correct", "corrected"),
    ("corrected", "corrected"),
    ("discard", "discard"),
    ("corrected", "correct"),
    ("correct", "correct"),
]
TOOL_CHOICE = [
    (("pass", "pass", "fail"), ("pass", "pass", "fail")),
    (("pass", "pass", "pass"), ("pass", "fail", "pass")),
]


def trace_label(verdict: str, tool_choice=None) -> dict:
    label: dict = {"verdict": verdict}
    if verdict == "discard":
        label["discard_reason"] = "unsolvable"
    if verdict == "corrected":
        label |= {"corrected_trajectory": 1, "edit_reasons": ["wrong tool"]}
    if tool_choice is not None:
        label["checks"] = [
            {"tool_choice": t, "argument_format": "pass", "step_order": "pass", "output_alignment": "pass"}
            for t in tool_choice
        ]
    return label


def trace_world(slug: str = "tracew") -> dict:
    project = ProjectFactory(slug=slug, name="Trace audit", kind=ItemKind.TRACE)
    users = staff(project)
    for k, (v1, v2) in enumerate(TRACE_LABELS):
        checks = TOOL_CHOICE[k] if k < len(TOOL_CHOICE) else (None, None)
        item = make_item(project, ItemKind.TRACE)
        label_item(
            item, {users["ann1"]: trace_label(v1, checks[0]), users["ann2"]: trace_label(v2, checks[1])}
        )
    return {"project": project, **users}


# Query world: (ann1, ann2) labels; compared values 0 1 reject 2 0 reject / 0 1 reject 0 0 1.
QUERY_LABELS = [
    ({"decision": "pick", "chosen": 0, "query": "q"}, {"decision": "edit", "chosen": 0, "query": "q!"}),
    ({"decision": "edit", "chosen": 1, "query": "q"}, {"decision": "pick", "chosen": 1, "query": "q"}),
    (
        {"decision": "reject", "reject_reason": "tool_hinting"},
        {"decision": "reject", "reject_reason": "ambiguous"},
    ),
    ({"decision": "pick", "chosen": 2, "query": "q"}, {"decision": "pick", "chosen": 0, "query": "q"}),
    ({"decision": "pick", "chosen": 0, "query": "q"}, {"decision": "pick", "chosen": 0, "query": "q"}),
    (
        {"decision": "reject", "reject_reason": "tool_hinting"},
        {"decision": "pick", "chosen": 1, "query": "q"},
    ),
]


def query_world(slug: str = "queryw") -> dict:
    project = ProjectFactory(slug=slug, name="Query audit", kind=ItemKind.QUERY)
    users = staff(project)
    for a, b in QUERY_LABELS:
        item = make_item(project, ItemKind.QUERY, payload={"candidates": ["q0", "q1", "q2"]})
        label_item(item, {users["ann1"]: a, users["ann2"]: b})
    return {"project": project, **users}
