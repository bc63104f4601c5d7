"""The item lifecycle: the one place where an item's state changes.

new ──► annotating ──► verified
             │     └─► adjudication ──► verified
(any) ──► discarded
Every change writes an AuditLog row in the same transaction.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotation.models import Item, ItemState
from review.models import AuditLog

ALLOWED: dict[str, set[str]] = {
    ItemState.NEW: {ItemState.ANNOTATING, ItemState.VERIFIED, ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.ANNOTATING: {ItemState.VERIFIED, ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.ADJUDICATION: {ItemState.VERIFIED, ItemState.DISCARDED, ItemState.ANNOTATING},
    ItemState.VERIFIED: {ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.DISCARDED: {ItemState.NEW},
}


class IllegalTransition(ValueError):
    pass


def audit_log_write(
    *,
    project_id: int,
    actor,
    action: str,
    item: Item | None = None,
    from_state: str = "",
    to_state: str = "",
    reason: str = "",
    data: dict | None = None,
) -> AuditLog:
    return AuditLog.objects.create(
        project_id=project_id,
        item=item,
        actor=actor if actor is not None and actor.is_authenticated else None,
        action=action,
        from_state=from_state,
        to_state=to_state,
        reason=reason,
        data=data or {},
    )


@transaction.atomic
def item_transition(
    *,
    item: Item,
    to_state: str,
    actor,
    reason: str,
    data: dict | None = None,
    settled_label: dict | None = None,
) -> Item:
    """Move `item` to `to_state`, or raise IllegalTransition. Verifying needs the label the item
    settles on. The caller should hold the row lock (select_for_update) when the decision
    depends on the current state."""
    from_state = item.state
    if to_state == from_state:
        return item
    if to_state not in ALLOWED.get(from_state, set()):
        raise IllegalTransition(f"An item cannot go from {from_state} to {to_state}.")
    if to_state == ItemState.DISCARDED and not reason.strip():
        raise IllegalTransition("Discarding an item needs a reason.")
    if to_state == ItemState.VERIFIED and not settled_label:
        raise IllegalTransition("Verifying an item needs the label it settles on.")
    item.state = to_state
    update_fields = ["state", "updated_at"]
    if to_state == ItemState.VERIFIED:
        item.settled_label = settled_label
        item.settled_at = timezone.now()
        update_fields += ["settled_label", "settled_at"]
    elif from_state == ItemState.VERIFIED:
        item.settled_label = {}
        item.settled_at = None
        update_fields += ["settled_label", "settled_at"]
    if to_state == ItemState.DISCARDED:
        item.discard_reason = reason
        update_fields.append("discard_reason")
    item.save(update_fields=update_fields)
    audit_log_write(
        project_id=item.project_id,
        item=item,
        actor=actor,
        action="state",
        from_state=from_state,
        to_state=to_state,
        reason=reason,
        data=data,
    )
    return item


def consensus_label(label: dict) -> dict:
    """What agreeing annotators settled on: their shared label without personal fields."""
    return {key: value for key, value in label.items() if key != "confidence"}


def settle_reasons(item: Item, labels: list[dict], flagged: bool) -> list[str]:
    """Why an item with all its annotations needs a reviewer; empty means it is verified."""
    from annotation.labels import comparable, critical_tag_sets

    reasons = []
    values = [comparable(item.kind, label) for label in labels]
    if len(set(map(repr, values))) > 1:
        reasons.append("annotators disagree")
    tag_sets = [critical_tag_sets(item.kind, label) for label in labels]
    if tag_sets and any(t != tag_sets[0] for t in tag_sets[1:]):
        reasons.append("critical tags conflict")
    gold = item.gold.get("preferred") if item.kind == "pair" else None
    if gold and values and len(set(values)) == 1 and values[0] != gold:
        reasons.append("consensus contradicts the source gold (label flip)")
    if flagged:
        reasons.append("flagged by an annotator")
    return reasons


@transaction.atomic
def item_settle(*, item: Item, actor) -> Item:
    """Called after each submitted annotation: opens the item, and once it has `overlap`
    annotations verifies it or sends it to adjudication."""
    item = Item.objects.select_for_update().get(pk=item.pk)
    if item.state == ItemState.NEW:
        item_transition(item=item, to_state=ItemState.ANNOTATING, actor=actor, reason="first annotation")
    if item.state != ItemState.ANNOTATING or item.n_annotations < item.overlap:
        return item
    rows = list(item.annotations.values_list("label", "flagged"))
    reasons = settle_reasons(item, [label for label, _ in rows], any(flag for _, flag in rows))
    if reasons:
        return item_transition(
            item=item, to_state=ItemState.ADJUDICATION, actor=actor, reason="; ".join(reasons)
        )
    return item_transition(
        item=item,
        to_state=ItemState.VERIFIED,
        actor=actor,
        reason="annotators agree",
        settled_label=consensus_label(rows[0][0]),
    )
