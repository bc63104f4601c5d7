"""The item lifecycle: the one place where an item's state changes, and the rules that decide
where an item goes once it has its annotations.

new ──► annotating ──► verified ◄──┐
             │     └─► adjudication ┤ (reviewer: final label)
             │                      └─► discarded (reviewer: with a reason)
(any) ──► discarded          verified / discarded ──► adjudication (re-open, with a reason)
Every change writes an AuditLog row in the same transaction.
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from annotation.models import Item, ItemState
from review.models import AuditLog

ALLOWED: dict[str, set[str]] = {
    ItemState.NEW: {ItemState.ANNOTATING, ItemState.VERIFIED, ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.ANNOTATING: {ItemState.VERIFIED, ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.ADJUDICATION: {ItemState.VERIFIED, ItemState.DISCARDED, ItemState.ANNOTATING},
    ItemState.VERIFIED: {ItemState.ADJUDICATION, ItemState.DISCARDED},
    ItemState.DISCARDED: {ItemState.NEW, ItemState.ADJUDICATION},
}
# Leaving these states undoes a decision someone made, so it must say why.
SETTLED_STATES = (ItemState.VERIFIED, ItemState.DISCARDED)

REASON_DISAGREE = "annotators disagree"
REASON_TAGS = "critical tags conflict"
REASON_FLIP = "consensus contradicts the source gold (label flip)"
REASON_FLAG = "flagged by an annotator"


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
    if from_state in SETTLED_STATES and not reason.strip():
        raise IllegalTransition(f"Re-opening a {from_state} item needs a reason.")
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
    elif from_state == ItemState.DISCARDED:
        item.discard_reason = ""
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


# --- the rules ------------------------------------------------------------------------------


PERSONAL_FIELDS = ("confidence", "evidence")


def consensus_label(label: dict) -> dict:
    """What agreeing annotators settled on: their shared label without personal fields (one
    annotator's confidence or evidence notes are not the consensus)."""
    return {key: value for key, value in label.items() if key not in PERSONAL_FIELDS}


def agreement_share(kind: str, labels: list[dict]) -> float | None:
    """Share of labels that agree with the most common answer (1.0 = unanimous); None without
    labels. The adjudication queue puts the lowest first (review.selectors computes the same
    number in SQL)."""
    from annotation.labels import comparable

    if not labels:
        return None
    counts = Counter(repr(comparable(kind, label)) for label in labels)
    return max(counts.values()) / len(labels)


def label_groups(kind: str, labels: list[dict]) -> list[list[int]]:
    """Indexes of `labels` grouped by the answer they give, the most common group first (ties in
    the order the answers first appear)."""
    from annotation.labels import comparable

    groups: dict[str, list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(repr(comparable(kind, label)), []).append(index)
    return sorted(groups.values(), key=len, reverse=True)


def majority_label(kind: str, labels: list[dict]) -> dict | None:
    """The label most annotators gave, without personal fields; None when no answer has more
    votes than every other (a 1–1 split has no majority)."""
    groups = label_groups(kind, labels)
    if not groups or (len(groups) > 1 and len(groups[0]) == len(groups[1])):
        return None
    return consensus_label(labels[groups[0][0]])


def settle_reasons(item: Item, labels: list[dict], flagged: bool) -> list[str]:
    """Why an item with all its annotations needs a reviewer; empty means it is verified."""
    from annotation.labels import comparable, critical_tag_sets

    reasons = []
    values = [comparable(item.kind, label) for label in labels]
    if len(set(map(repr, values))) > 1:
        reasons.append(REASON_DISAGREE)
    tag_sets = [critical_tag_sets(item.kind, label) for label in labels]
    if tag_sets and any(t != tag_sets[0] for t in tag_sets[1:]):
        reasons.append(REASON_TAGS)
    gold = item.gold.get("preferred") if item.kind == "pair" and isinstance(item.gold, dict) else None
    if gold and values and len(set(values)) == 1 and values[0] != gold:
        reasons.append(REASON_FLIP)
    if flagged:
        reasons.append(REASON_FLAG)
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
    rows = list(item.annotations.order_by("created_at", "id").values_list("label", "flagged"))
    labels = [label for label, _ in rows]
    reasons = settle_reasons(item, labels, any(flag for _, flag in rows))
    if reasons:
        return item_transition(
            item=item,
            to_state=ItemState.ADJUDICATION,
            actor=actor,
            reason="; ".join(reasons),
            # Kept for the queue and the history page: the rules that fired, and how split it was.
            data={"reasons": reasons, "agreement": agreement_share(item.kind, labels)},
        )
    return item_transition(
        item=item,
        to_state=ItemState.VERIFIED,
        actor=actor,
        reason="annotators agree",
        settled_label=consensus_label(labels[0]),
    )


@transaction.atomic
def item_reopen(*, item: Item, actor, reason: str) -> Item:
    """Send a verified or discarded item back to the adjudication queue (e.g. an audit found the
    settled label wrong). Its settled label is cleared until a reviewer decides again."""
    item = Item.objects.select_for_update().get(pk=item.pk)
    if item.state not in SETTLED_STATES:
        state = item.get_state_display().lower()
        raise IllegalTransition(f"Only verified or discarded items can be re-opened; this one is {state}.")
    return item_transition(
        item=item,
        to_state=ItemState.ADJUDICATION,
        actor=actor,
        reason=reason.strip(),
        data={"reasons": ["re-opened by a reviewer"]},
    )
