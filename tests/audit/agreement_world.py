"""A hand-built project whose agreement numbers are worked out by hand below.

Items (family, labels by alice / bob / carol, what happened):
    i1 planning  first  / first  / –       verified, settled "first"
    i2 planning  second / second / –       sent to adjudication (label flip), still there
    i3 planning  first  / second / –       sent to adjudication, then verified as "first"
    i4 planning  first  / first  / –       verified, settled "first"
    i5 safety    second / (skip) / second  verified, settled "second"
    i6 safety    tie    / –      / first   sent to adjudication, still there
    i7 planning  first  / second / –       discarded: left out of every agreement number
    i8 planning  first  / –      / –       still annotating (one label)
dave skipped i6 and labeled nothing. alice takes 10, 20, … 80 s; bob 5, 5, 5, 100, 7; carol 7, 9.

alice–bob share i1–i4: alice f s f f, bob f s s f → p_o = 3/4, p_e = 1/2, κ = 1/2.
alice–carol share i5, i6: (s, s), (t, f) → p_o = 1/2, p_e = 1/4, κ = 1/3.
"""

from __future__ import annotations

from types import SimpleNamespace

from annotation.models import AssignmentStatus, ItemState, Role
from review.lifecycle import item_transition
from tests.api.factories import AnnotationFactory, AssignmentFactory
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

F, S, T = "first", "second", "tie"
SECONDS = {"alice": [10, 20, 30, 40, 50, 60, 70, 80], "bob": [5, 5, 5, 100, 7], "carol": [7, 9]}


def pair_label(preferred: str) -> dict:
    return {"preferred": preferred, "tags": {"first": [], "second": []}, "confidence": 3}


def build_world() -> SimpleNamespace:
    project = ProjectFactory(slug="agree", name="Agreement")
    manager = MembershipFactory(project=project, role=Role.MANAGER, user__username="manny").user
    users = {
        name: MembershipFactory(project=project, role=Role.ANNOTATOR, user__username=name).user
        for name in ("alice", "bob", "carol", "dave")
    }
    plan = [
        ("i1", "planning", "travel", F, {"alice": F, "bob": F}),
        ("i2", "planning", "travel", F, {"alice": S, "bob": S}),
        ("i3", "planning", "travel", F, {"alice": F, "bob": S}),
        ("i4", "planning", "travel", F, {"alice": F, "bob": F}),
        ("i5", "safety", "", S, {"alice": S, "carol": S}),
        ("i6", "safety", "", F, {"alice": T, "carol": F}),
        ("i7", "planning", "", F, {"alice": F, "bob": S}),
        ("i8", "planning", "", F, {"alice": F}),
    ]
    seconds = {name: iter(values) for name, values in SECONDS.items()}
    items = {}
    for ext, family, domain, gold, labels in plan:
        item = PairItemFactory(
            project=project,
            external_id=ext,
            family=family,
            stratum=f"{family}_bucket",
            difficulty="hard" if ext in ("i1", "i2") else "easy",
            task__domain=domain,
            gold={"preferred": gold},
        )
        items[ext] = item
        for name, preferred in labels.items():
            AnnotationFactory(
                item=item,
                annotator=users[name],
                label=pair_label(preferred),
                seconds_spent=next(seconds[name]),
            )
    AssignmentFactory(item=items["i5"], annotator=users["bob"], status=AssignmentStatus.SKIPPED)
    AssignmentFactory(item=items["i6"], annotator=users["dave"], status=AssignmentStatus.SKIPPED)

    def move(ext, state, settled=None, reason="test"):
        item_transition(
            item=items[ext],
            to_state=state,
            actor=manager,
            reason=reason,
            settled_label=pair_label(settled) if settled else None,
        )

    move("i1", ItemState.VERIFIED, F)
    move("i2", ItemState.ADJUDICATION)
    move("i3", ItemState.ADJUDICATION)
    move("i3", ItemState.VERIFIED, F)
    move("i4", ItemState.VERIFIED, F)
    move("i5", ItemState.VERIFIED, S)
    move("i6", ItemState.ADJUDICATION)
    move("i7", ItemState.DISCARDED, reason="both trajectories are broken")
    move("i8", ItemState.ANNOTATING)
    return SimpleNamespace(project=project, manager=manager, users=users, items=items)
