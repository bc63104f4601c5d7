"""A reviewer's decision on an item in adjudication: the final label, or a discard.

Two reviewers may open the same item. The page carries a state token (the item's state and
the id of its last audit-log row); the decision locks the item row and compares the token, so
the second reviewer gets a conflict naming who decided first, and nothing is overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from annotation.access import STAFF_ROLES, role_in
from annotation.labels import PAIR_SIDES, LabelError, validate_label
from annotation.models import Item, ItemKind, ItemState
from review.lifecycle import (
    PERSONAL_FIELDS,
    IllegalTransition,
    consensus_label,
    item_reopen,
    item_transition,
)
from review.models import Adjudication, AuditLog

MAX_SECONDS = 24 * 3600


class AdjudicationError(ValueError):
    """Bad input; nothing was changed. `errors` maps field → reason."""

    status = 400

    def __init__(self, message: str, *, errors: dict[str, str] | None = None, status: int | None = None):
        super().__init__(message)
        self.errors = errors or {}
        if status is not None:
            self.status = status


@dataclass(frozen=True)
class ChangeSeen:
    """The change that made a reviewer's view stale."""

    actor: str
    at: datetime | None
    action: str
    to_state: str


class AdjudicationConflict(AdjudicationError):
    """The item was settled or changed since the reviewer opened it; nothing was changed."""

    status = 409

    def __init__(self, message: str, *, state: str, change: ChangeSeen | None):
        super().__init__(message)
        self.state = state
        self.change = change


def item_state_token(item: Item) -> str:
    """Opaque marker of everything that happened to the item so far. Every write to an item
    goes through a service that logs it, so a new audit-log row means a changed item."""
    last = AuditLog.objects.filter(item_id=item.pk).order_by("-id").values_list("id", flat=True).first()
    return f"{item.state}.{last or 0}"


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC") if at else "an unknown time"


def _latest_change(item: Item, *, states_only: bool = False) -> ChangeSeen | None:
    rows = AuditLog.objects.filter(item_id=item.pk)
    if states_only:
        rows = rows.filter(action="state")
    row = (
        rows.select_related("actor")
        .order_by("-id")
        .only("action", "to_state", "created_at", "actor__username")
        .first()
    )
    if row is None:
        return None
    return ChangeSeen(
        actor=row.actor.username if row.actor else "the system",
        at=row.created_at,
        action=row.action,
        to_state=row.to_state,
    )


def _check_fresh(item: Item, token: str, *, expect_state: str | tuple[str, ...]) -> None:
    """Refuse when the item is not where the reviewer saw it. Call with the row locked."""
    states = (expect_state,) if isinstance(expect_state, str) else expect_state
    current = item_state_token(item)
    if item.state in states and token == current:
        return
    # Who moved the item out of the reviewer's reach, or else who touched it last.
    change = _latest_change(item, states_only=item.state not in states) or _latest_change(item)
    who = change.actor if change else "someone"
    when = _when(change.at if change else None)
    if item.state not in states:
        message = (
            f"This item was already settled by {who} at {when}: it is now "
            f"{item.get_state_display().lower()}. Nothing was changed."
            if item.state in (ItemState.VERIFIED, ItemState.DISCARDED)
            else f"This item is {item.get_state_display().lower()} now (changed by {who} at {when}). "
            "Nothing was changed."
        )
    else:
        message = (
            f"This item was changed by {who} at {when} since you opened it. Nothing was changed; "
            "reload it to see its current state."
        )
    raise AdjudicationConflict(message, state=item.state, change=change)


def _lock(item: Item, reviewer) -> Item:
    locked = Item.objects.select_related("project").select_for_update(of=("self",)).get(pk=item.pk)
    if role_in(reviewer, locked.project) not in STAFF_ROLES:
        raise AdjudicationError("Only reviewers and managers of the project can adjudicate.", status=403)
    return locked


def _final_label(item: Item, label) -> dict:
    """The reviewer's label, validated, in the shape settled labels have (pairs always carry
    both tag lists; no confidence: it is the annotators' self-report, not part of the label)."""
    if not isinstance(label, dict) or not label:
        raise AdjudicationError("A final label is needed.", errors={"label": "Give the final label."})
    try:
        validate_label(project=item.project, item=item, label=label)
    except LabelError as exc:
        raise AdjudicationError(f"The label is not valid: {exc}", errors=exc.errors) from exc
    settled = consensus_label(label)
    if item.kind == ItemKind.PAIR:
        tags = label.get("tags") or {}
        settled["tags"] = {side: list(tags.get(side) or []) for side in PAIR_SIDES}
    return settled


def _notes(label: dict) -> dict:
    return {key: label[key] for key in PERSONAL_FIELDS if key in label and key != "confidence"}


@transaction.atomic
def adjudication_decide(
    *,
    item: Item,
    reviewer,
    decision: str,
    label: dict | None,
    reason: str,
    expected_state_token: str,
    seconds_spent: int = 0,
) -> Adjudication:
    """Settle an item in adjudication: `decision` "label" verifies it with `label` (canonical
    terms, any kind: validated with annotation.labels.validate_label, which also checks it
    against the item, e.g. a trace's corrected trajectory is a version of its trace),
    "discard" discards it. Raises AdjudicationError (400, 403) or AdjudicationConflict
    (409); either way nothing was written."""
    reason = (reason or "").strip()
    errors = {}
    if decision not in Adjudication.Decision.values:
        errors["decision"] = "Choose a final label or discard the item."
    if not reason:
        errors["reason"] = "Say why: the reason is kept with the decision."
    if not (expected_state_token or "").strip():
        errors["state_token"] = "The form lost its state token; open the item again."  # noqa: S105 - not a secret
    if errors:
        raise AdjudicationError("Nothing was changed: " + " ".join(errors.values()), errors=errors)
    item = _lock(item, reviewer)
    _check_fresh(item, expected_state_token.strip(), expect_state=ItemState.ADJUDICATION)
    settled = _final_label(item, label) if decision == Adjudication.Decision.LABEL else None
    adjudication = Adjudication.objects.create(
        item=item,
        reviewer=reviewer,
        decision=decision,
        # The decision keeps the reviewer's own notes (P/C/A evidence); the item settles on the
        # label without them, like a label the annotators agreed on.
        label={**settled, **_notes(label)} if settled is not None else {},
        reason=reason,
        seconds_spent=max(0, min(int(seconds_spent or 0), MAX_SECONDS)),
    )
    to_state = ItemState.VERIFIED if settled is not None else ItemState.DISCARDED
    item_transition(
        item=item,
        to_state=to_state,
        actor=reviewer,
        reason=reason,
        data={"adjudication": adjudication.pk, "decision": decision},
        settled_label=settled,
    )
    return adjudication


@transaction.atomic
def adjudication_reopen(*, item: Item, reviewer, reason: str, expected_state_token: str) -> Item:
    """Send a verified or discarded item back to the adjudication queue, with a reason."""
    reason = (reason or "").strip()
    if not reason:
        raise AdjudicationError(
            "Nothing was changed: say why the item is re-opened.",
            errors={"reason": "Say why the item is re-opened."},
        )
    item = _lock(item, reviewer)
    _check_fresh(
        item, (expected_state_token or "").strip(), expect_state=(ItemState.VERIFIED, ItemState.DISCARDED)
    )
    try:
        return item_reopen(item=item, actor=reviewer, reason=reason)
    except IllegalTransition as exc:  # pragma: no cover - _check_fresh already saw the state
        raise AdjudicationError(str(exc), status=409) from exc
