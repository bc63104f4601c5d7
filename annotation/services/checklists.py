"""Step checklists are versioned: version 1 is the imported checklist (item.payload["checklist"],
implicit, no row); each edit by an annotator is a new ChecklistVersion row numbered from 2, with
the version it was edited from and a required reason. Nothing is ever overwritten.

Edits are optimistic: the editor names the version they edited (`parent_version`); if someone
saved another version meanwhile, the edit is refused with a conflict and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotation.models import MAX_CHECKLIST_ITEMS, ChecklistVersion, Item, ItemKind
from review.lifecycle import audit_log_write

MAX_TITLE = 200
MAX_GOAL = 1000
MAX_REASON = 2000


class ChecklistError(ValueError):
    """An edit that was not saved; `errors` maps field → reason, `status` is the HTTP answer."""

    status = 400

    def __init__(self, message: str, errors: dict[str, str] | None = None):
        self.errors = errors or {}
        super().__init__(message)


class ChecklistConflict(ChecklistError):
    status = 409

    def __init__(self, message: str, latest: int):
        self.latest = latest
        super().__init__(message, {"parent_version": message})


@dataclass(frozen=True)
class Version:
    """One checklist version as pages and labels see it; version 1 has no row (author None)."""

    number: int
    items: list[dict]
    parent: int | None = None
    reason: str = ""
    author_id: int | None = None
    author_name: str = ""
    created_at: Any = None


def _imported(item: Item) -> list[dict]:
    payload = item.payload if isinstance(item.payload, dict) else {}
    return [
        {"title": str(c.get("title") or ""), "goal": str(c.get("goal") or c.get("description") or "")}
        for c in payload.get("checklist") or ()
        if isinstance(c, dict)
    ]


def checklist_versions(*, item: Item) -> list[Version]:
    """Every version of the item's checklist, oldest first (1 = imported)."""
    rows = ChecklistVersion.objects.filter(item=item).select_related("author").order_by("version")
    versions = [Version(number=1, items=_imported(item))]
    versions += [
        Version(
            number=row.version,
            items=[dict(c) for c in row.items],
            parent=row.parent_version,
            reason=row.reason,
            author_id=row.author_id,
            author_name=row.author.get_username(),
            created_at=row.created_at,
        )
        for row in rows
    ]
    return versions


def checklist_items(*, item: Item, version: int) -> list[dict] | None:
    """The items of one version, or None when the item has no such version."""
    if version == 1:
        return _imported(item)
    row = ChecklistVersion.objects.filter(item=item, version=version).values_list("items", flat=True).first()
    return None if row is None else [dict(c) for c in row]


def clean_items(items: Any) -> list[dict]:
    """[{title, goal}] stripped, blank rows dropped; ChecklistError saying what is wrong."""
    if not isinstance(items, list):
        raise ChecklistError("The checklist must be a list of items.", {"items": "Not a list."})
    cleaned: list[dict] = []
    for n, raw in enumerate(items, start=1):
        if not isinstance(raw, dict):
            raise ChecklistError(f"Item {n} is not an item.", {"items": f"Item {n} is not an item."})
        title, goal = str(raw.get("title") or "").strip(), str(raw.get("goal") or "").strip()
        if not title and not goal:
            continue
        if not title:
            raise ChecklistError(f"Item {n} has a goal but no title.", {"items": f"Item {n} needs a title."})
        if len(title) > MAX_TITLE or len(goal) > MAX_GOAL:
            message = f"Item {n} is too long (title ≤ {MAX_TITLE}, goal ≤ {MAX_GOAL} characters)."
            raise ChecklistError(message, {"items": message})
        cleaned.append({"title": title, "goal": goal})
    if not cleaned:
        raise ChecklistError("A checklist needs at least one item.", {"items": "Give at least one item."})
    if len(cleaned) > MAX_CHECKLIST_ITEMS:
        message = f"A checklist has at most {MAX_CHECKLIST_ITEMS} items; this one has {len(cleaned)}."
        raise ChecklistError(message, {"items": message})
    return cleaned


@transaction.atomic
def checklist_edit(
    *, item: Item, author, items: list[dict], reason: str, parent_version: int
) -> ChecklistVersion:
    """Save `items` as the next version of the item's checklist, edited from `parent_version`."""
    if item.kind != ItemKind.STEP:
        raise ChecklistError("Only step items have a checklist.")
    reason = (reason or "").strip()
    if not reason:
        raise ChecklistError(
            "Say why the checklist needs this change; the reason is kept with the version.",
            {"reason": "A reason is required."},
        )
    if len(reason) > MAX_REASON:
        raise ChecklistError(f"Keep the reason under {MAX_REASON} characters.", {"reason": "Too long."})
    cleaned = clean_items(items)
    # The item row is the lock: two edits of one checklist are numbered one after the other.
    item = Item.objects.select_for_update().get(pk=item.pk)
    latest = ChecklistVersion.objects.filter(item=item).order_by("-version").first()
    latest_number = latest.version if latest else 1
    if parent_version != latest_number:
        why = f" (reason given: {latest.reason})" if latest else ""
        raise ChecklistConflict(
            f"The checklist was changed to version {latest_number} since you opened version "
            f"{parent_version}{why}. Your edit was not saved: look at version {latest_number}; "
            "save again to put your edit on top of it.",
            latest=latest_number,
        )
    if cleaned == (latest.items if latest else _imported(item)):
        raise ChecklistError(
            f"Nothing changed: the items are the same as version {latest_number}.",
            {"items": "No change."},
        )
    version = ChecklistVersion.objects.create(
        item=item,
        version=latest_number + 1,
        parent_version=parent_version,
        items=cleaned,
        reason=reason,
        author=author,
    )
    audit_log_write(
        project_id=item.project_id,
        actor=author,
        action="checklist_edit",
        item=item,
        reason=reason,
        data={"version": version.version, "parent_version": parent_version, "items": len(cleaned)},
    )
    return version
