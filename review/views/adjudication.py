"""The adjudication queue and the page where a reviewer settles one item.

The item is shown with the labeling page's own rendering, candidates in stored order
(first/second), next to every annotation (who saw which candidate as A, their choice, tags,
confidence, rationale, time, flag) and any machine suggestions. Reviewers see everything,
gold included; annotators never reach these pages (404). Plain forms: the page works without
JS; static/js/adjudication.js adds the keyboard shortcuts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation.access import STAFF_ROLES, project_role_required
from annotation.labels import PAIR_SIDES
from annotation.models import Item, ItemKind, ItemState
from annotation.rendering import Links, pair_view, pretty_json
from annotation.rendering.label_form import seconds_spent
from annotation.rendering.other import other_view
from review import selectors
from review.lifecycle import agreement_share, consensus_label, label_groups
from review.models import Adjudication
from review.services import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
    adjudication_reopen,
    item_state_token,
)

from .history import label_summary, names_for

PAGE = "review/adjudicate.html"
QUEUE_PAGE_SIZE = 50
SETTLED = (ItemState.VERIFIED, ItemState.DISCARDED)


@require_GET
@project_role_required(STAFF_ROLES)
def adjudication_queue(request: HttpRequest) -> HttpResponse:
    project = request.project
    page = Paginator(selectors.adjudication_queue(project=project), QUEUE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {"project": project, "role": request.project_role, "page": page}
    template = "review/queue.html#queue_table" if request.htmx else "review/queue.html"
    return render(request, template, context)


# --- the reviewer's form --------------------------------------------------------------------


@dataclass
class FinalForm:
    """The final pair label as posted: canonical sides, never A/B."""

    preferred: str = ""
    tags: dict[str, list[str]] = field(default_factory=lambda: {side: [] for side in PAIR_SIDES})
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    def label(self) -> dict:
        return {"preferred": self.preferred, "tags": self.tags}


def parse_final_form(data: QueryDict, *, allowed_tags: list[str], allow_tie: bool) -> FinalForm:
    form = FinalForm(preferred=data.get("preferred", "").strip(), reason=data.get("reason", "").strip())
    choices = [*PAIR_SIDES, "tie"] if allow_tie else list(PAIR_SIDES)
    if form.preferred not in choices:
        form.errors["preferred"] = "Choose the better candidate: first or second" + (
            " (or tie)." if allow_tie else "."
        )
        form.preferred = ""
    for side in PAIR_SIDES:
        chosen = [t.strip() for t in data.getlist(f"tags_{side}") if t.strip()]
        unknown = sorted(set(chosen) - set(allowed_tags))
        if unknown:
            allowed = ", ".join(allowed_tags) or "none"
            form.errors[f"tags_{side}"] = (
                f"Unknown critical tag for {side}: {', '.join(unknown)}. Allowed: {allowed}."
            )
        form.tags[side] = [t for t in allowed_tags if t in chosen]
    if not form.reason:
        form.errors["reason"] = "Say why: the reason is kept with the decision."
    return form


def _tag_groups(form: FinalForm, allowed_tags: list[str]) -> list[dict]:
    return [
        {
            "side": side,
            "field": f"tags_{side}",
            "error": form.errors.get(f"tags_{side}", ""),
            "choices": [
                {"value": t, "label": t.replace("_", " "), "checked": t in form.tags[side]}
                for t in allowed_tags
            ],
        }
        for side in PAIR_SIDES
    ]


# --- what the page shows --------------------------------------------------------------------


def _load(request: HttpRequest, item_id: int) -> Item:
    try:
        return selectors.item_for_adjudication(project=request.project, item_id=item_id)
    except Item.DoesNotExist as exc:
        raise Http404("No such item.") from exc


def _cards(item: Item, aliases: dict[int, str] | None) -> list[dict]:
    cards = []
    for a in item.annotations.all():
        label = a.label if isinstance(a.label, dict) else {}
        order = a.display_order if a.display_order and len(a.display_order) == 2 else list(PAIR_SIDES)
        cards.append(
            {
                "annotation": a,
                "name": selectors.display_name(a.annotator, aliases),
                "preferred": label.get("preferred", ""),
                "tags": [(side, (label.get("tags") or {}).get(side) or []) for side in PAIR_SIDES],
                "confidence": label.get("confidence"),
                "saw": f"A = {order[0]}, B = {order[1]}",
                "label_text": label_summary(item.kind, label),
                "label_json": pretty_json(label),
            }
        )
    return cards


def _groups(item: Item, cards: list[dict]) -> list[dict]:
    """Other kinds: the distinct answers, the most given first, each acceptable as it is."""
    labels = [c["annotation"].label for c in cards]
    indexes_by_answer = label_groups(item.kind, labels)
    sizes = [len(indexes) for indexes in indexes_by_answer]
    groups = []
    for rank, indexes in enumerate(indexes_by_answer):
        first = cards[indexes[0]]["annotation"]
        groups.append(
            {
                "annotation_id": first.pk,
                "votes": len(indexes),
                "names": [cards[i]["name"] for i in indexes],
                # The majority is the one answer given more often than any other.
                "majority": rank == 0 and (len(sizes) == 1 or sizes[0] > sizes[1]),
                "label_json": pretty_json(consensus_label(first.label)),
            }
        )
    return groups


def _context(
    request: HttpRequest,
    item: Item,
    *,
    form: FinalForm | None = None,
    error: str = "",
    conflict: str = "",
    discard_reason: str = "",
) -> dict:
    project = request.project
    aliases = names_for(request, item, for_decision=True)
    cards = _cards(item, aliases)
    form = form or FinalForm()
    links = Links(project.slug, item.pk)
    pair = item.kind == ItemKind.PAIR
    entry = selectors.queue_entry(item=item)
    return {
        "project": project,
        "item": item,
        "role": request.project_role,
        "pair": pair,
        "view": pair_view(item=item, order=list(PAIR_SIDES), links=links, staff=True)
        if pair
        else other_view(item=item, links=links, staff=True),
        "cards": cards,
        "groups": [] if pair else _groups(item, cards),
        "names_hidden": aliases is not None,
        "agreement": agreement_share(item.kind, [c["annotation"].label for c in cards]),
        "entry": entry,
        "entry_reasons": (entry.data.get("reasons") if entry and isinstance(entry.data, dict) else None)
        or ([entry.reason] if entry and entry.reason else []),
        "suggestions": [
            {
                "s": s,
                "label_text": label_summary(item.kind, s.label),
                "scores": pretty_json(s.scores) if s.scores else "",
            }
            for s in item.suggestions.all()
        ],
        "adjudications": [
            {"j": j, "label_text": label_summary(item.kind, j.label)} for j in item.adjudications.all()
        ],
        "decidable": item.state == ItemState.ADJUDICATION,
        "reopenable": item.state in SETTLED,
        "token": item_state_token(item),
        "form": form,
        "tag_groups": _tag_groups(form, project.critical_tags(item.family)),
        "allow_tie": project.allow_tie,
        "error": error,
        "conflict": conflict,
        "discard_reason": discard_reason,
        "page_loaded_at": request.POST.get("page_loaded_at", "") if (error or conflict) else "",
        "settled_label_text": label_summary(item.kind, item.settled_label),
    }


# --- the page -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@project_role_required(STAFF_ROLES)
def adjudicate_item(request: HttpRequest, item_id: int) -> HttpResponse:
    item = _load(request, item_id)
    if request.method == "GET":
        return render(request, PAGE, _context(request, item))
    return _post(request, item)


def _post(request: HttpRequest, item: Item) -> HttpResponse:
    data = request.POST
    decision = data.get("decision", "")
    token = data.get("state_token", "")
    reason = data.get("reason", "")
    form = None
    try:
        if decision == "reopen":
            adjudication_reopen(item=item, reviewer=request.user, reason=reason, expected_state_token=token)
            messages.success(request, "Re-opened: the item is back in the adjudication queue.")
            return redirect("adjudicate_item", request.project.slug, item.pk)
        label = None
        if decision == Adjudication.Decision.LABEL:
            label, form = _posted_label(request, item)
            if form is not None and form.errors:
                return _refused(
                    request, item, form=form, error="Nothing was changed: please fix the marked fields."
                )
        adjudication = adjudication_decide(
            item=item,
            reviewer=request.user,
            decision=decision,
            label=label,
            reason=reason,
            expected_state_token=token,
            seconds_spent=seconds_spent(data, leased_at=None),
        )
    except AdjudicationConflict as exc:
        # Show the item as it is now, with what happened; the reviewer's input is not applied.
        fresh = _load(request, item.pk)
        return render(request, PAGE, _context(request, fresh, conflict=str(exc)), status=409)
    except AdjudicationError as exc:
        form = form or FinalForm(reason=reason.strip())
        form.errors.update({k: str(v) for k, v in exc.errors.items()})
        discard = reason if decision == Adjudication.Decision.DISCARD else ""
        return _refused(request, item, form=form, error=str(exc), status=exc.status, discard_reason=discard)
    done = "verified with the final label" if adjudication.decision == "label" else "discarded"
    messages.success(request, f"{item.external_id} {done}.")
    following = selectors.next_in_queue(project=request.project, after=item)
    if following is None:
        messages.info(request, "The adjudication queue is empty.")
        return redirect("adjudication_queue", request.project.slug)
    return redirect("adjudicate_item", request.project.slug, following.pk)


def _posted_label(request: HttpRequest, item: Item) -> tuple[dict | None, FinalForm | None]:
    """Pairs: the composed final label. Other kinds: one annotator's label, accepted as is."""
    project = request.project
    if item.kind == ItemKind.PAIR:
        form = parse_final_form(
            request.POST, allowed_tags=project.critical_tags(item.family), allow_tie=project.allow_tie
        )
        return form.label(), form
    accepted = request.POST.get("accept", "")
    chosen = next((a for a in item.annotations.all() if str(a.pk) == accepted), None)
    if chosen is None:
        raise AdjudicationError(
            "Choose one of the annotators' labels to accept.", errors={"accept": "Choose a label to accept."}
        )
    return consensus_label(chosen.label), None


def _refused(
    request: HttpRequest,
    item: Item,
    *,
    form: FinalForm,
    error: str,
    status: int = 400,
    discard_reason: str = "",
) -> HttpResponse:
    context = _context(request, item, form=form, error=error, discard_reason=discard_reason)
    return render(request, PAGE, context, status=status)
