"""The history of one item: every annotation, edit, machine suggestion, adjudication and
audit-log row, in time order. Reviewers and managers only."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.access import STAFF_ROLES, project_role_required
from annotation.models import Annotation, Item, ItemKind, ItemState, Role
from annotation.rendering import pretty_json
from review import selectors
from review.selectors import HistoryEvent

ACTIONS = {
    "annotate": "Annotation submitted",
    "edit": "Annotation edited",
    "assign": "Leased to an annotator",
    "skip": "Skipped",
    "import": "Imported",
}


def label_summary(kind: str, label: dict | None) -> str:
    """A label in one line of plain text (escaped by the template like any other text)."""
    if not isinstance(label, dict) or not label:
        return ""
    if kind != ItemKind.PAIR:
        return ", ".join(f"{key}: {value}" for key, value in label.items() if key != "corrected_messages")
    parts = [f"preferred {label.get('preferred', '?')}"]
    for side, tags in (label.get("tags") or {}).items():
        if tags:
            parts.append(f"{side}: {', '.join(map(str, tags))}")
    if label.get("confidence"):
        parts.append(f"confidence {label['confidence']}")
    return " · ".join(parts)


def names_for(request: HttpRequest, item: Item, *, for_decision: bool) -> dict[int, str] | None:
    """Aliases for annotators when the project hides their names; None shows real names. On the
    decision page the setting holds for everyone; in the history managers always see names,
    since it is the audit trail."""
    if selectors.show_annotator_names(request.project):
        return None
    if not for_decision and request.project_role == Role.MANAGER:
        return None
    annotations = list(Annotation.objects.filter(item=item).order_by("created_at", "id").only("annotator_id"))
    return selectors.annotator_aliases(item=item, annotations=annotations)


def event_title(event: HistoryEvent) -> str:
    if event.kind == "annotation":
        return f"Annotation #{event.ref} (current label, version {event.detail.get('version', 1)})"
    if event.kind == "revision":
        return (
            f"Annotation #{event.detail['annotation']} edited: "
            f"version {event.detail['replaced_version']} replaced"
        )
    if event.kind == "suggestion":
        return f"Machine suggestion from {event.source}"
    if event.kind == "adjudication":
        return "Adjudication: final label" if event.action == "label" else "Adjudication: discard"
    if event.action == "state":
        names = dict(ItemState.choices)
        before, after = (
            names.get(event.from_state, event.from_state),
            names.get(event.to_state, event.to_state),
        )
        return f"State: {before} → {after}"
    return ACTIONS.get(event.action, event.action.replace("_", " ").capitalize() or "Log entry")


def event_rows(events: list[HistoryEvent], *, kind: str, aliases: dict[int, str] | None) -> list[dict]:
    rows = []
    for event in events:
        detail = {k: v for k, v in event.detail.items() if v not in ("", None, {}, [])}
        rows.append(
            {
                "event": event,
                "title": event_title(event),
                "who": event.source
                if event.kind == "suggestion"
                else selectors.display_name(event.actor, aliases),
                "label": label_summary(kind, event.label),
                "detail": pretty_json(detail) if detail else "",
            }
        )
    return rows


@require_GET
@project_role_required(STAFF_ROLES)
def item_history(request: HttpRequest, item_id: int) -> HttpResponse:
    project = request.project
    item = Item.objects.filter(project=project, pk=item_id).select_related("task").first()
    if item is None:
        raise Http404("No such item.")
    aliases = names_for(request, item, for_decision=False)
    context = {
        "project": project,
        "item": item,
        "role": request.project_role,
        "rows": event_rows(selectors.item_history(item=item), kind=item.kind, aliases=aliases),
        "names_hidden": aliases is not None,
    }
    return render(request, "review/history.html", context)
