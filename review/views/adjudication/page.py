"""The adjudication queue and the page where a reviewer settles one item.

Pairs show both candidates in stored order (first/second) next to every annotation (who saw
which candidate as A, their choice, tags, confidence, rationale, time, flag). Step, P/C/A,
trace and query items have their own side-by-side view (see kinds.py): each annotator's label
is a column, differences are marked, and the reviewer composes the settled label, starting
from the majority or from one annotator's label (?take=N, key N). Other kinds accept one
annotator's label as is. Reviewers see everything, gold included; annotators never reach these
pages (404). Plain forms: the page works without JS; static/js/adjudication.js adds keys.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation.access import STAFF_ROLES, project_role_required
from annotation.labels import PAIR_SIDES
from annotation.models import Item, ItemKind, ItemState
from annotation.rendering import Links, pair_view, pretty_json
from annotation.rendering.label_form import seconds_spent
from annotation.rendering.other import other_view
from review import selectors
from review.lifecycle import agreement_share, consensus_label
from review.models import Adjudication
from review.services import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
    adjudication_reopen,
    item_state_token,
)

from ..history import label_summary, names_for
from .board import Board, build_columns, short_summary, starting_draft
from .kinds import COMPOSERS
from .pair import FinalForm, cards, groups, parse_final_form, tag_groups

PAGE = "review/adjudicate.html"
QUEUE_PAGE_SIZE = 50
SETTLED = (ItemState.VERIFIED, ItemState.DISCARDED)
FIX_FIELDS = "Nothing was changed: please fix the marked fields."
NEED_REASON = "Say why: the reason is kept with the decision."


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


def _load(request: HttpRequest, item_id: int) -> Item:
    try:
        return selectors.item_for_adjudication(project=request.project, item_id=item_id)
    except Item.DoesNotExist as exc:
        raise Http404("No such item.") from exc


def _board(request: HttpRequest, item: Item, aliases: dict[int, str] | None) -> Board:
    return Board(item=item, links=Links(request.project.slug, item.pk), columns=build_columns(item, aliases))


def _context(
    request: HttpRequest,
    item: Item,
    *,
    form: FinalForm | None = None,
    board: Board | None = None,
    error: str = "",
    conflict: str = "",
    discard_reason: str = "",
) -> dict:
    project = request.project
    aliases = names_for(request, item, for_decision=True)
    annotation_cards = cards(item, aliases)
    form = form or FinalForm()
    links = Links(project.slug, item.pk)
    pair = item.kind == ItemKind.PAIR
    composer = COMPOSERS.get(item.kind)
    entry = selectors.queue_entry(item=item)
    context = {
        "project": project,
        "item": item,
        "role": request.project_role,
        "pair": pair,
        "composed": composer is not None,
        "cards": annotation_cards,
        "names_hidden": aliases is not None,
        "agreement": agreement_share(item.kind, [c["annotation"].label for c in annotation_cards]),
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
        "allow_tie": project.allow_tie,
        "error": error,
        "conflict": conflict,
        "discard_reason": discard_reason,
        "page_loaded_at": request.POST.get("page_loaded_at", "") if (error or conflict) else "",
        "settled_label_text": label_summary(item.kind, item.settled_label),
    }
    if pair:
        context["view"] = pair_view(item=item, order=list(PAIR_SIDES), links=links, staff=True)
        context["tag_groups"] = tag_groups(form, project.critical_tags(item.family))
    elif composer is not None:
        for card in annotation_cards:
            card["label_text"] = short_summary(item.kind, card["annotation"].label or {})
        if board is None:
            board = _board(request, item, aliases)
            starting_draft(board, request.GET.get("take"), composer.agreed)
        context |= composer.context(board) | {
            "board": board,
            "kind_board": f"{composer.template}#board",
            "kind_content": f"{composer.template}#content",
            "kind_form": f"{composer.template}#form",
        }
    else:
        context["view"] = other_view(item=item, links=links, staff=True)
        context["groups"] = groups(item, annotation_cards)
    return context


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
    form, board = None, None
    try:
        if decision == "reopen":
            adjudication_reopen(item=item, reviewer=request.user, reason=reason, expected_state_token=token)
            messages.success(request, "Re-opened: the item is back in the adjudication queue.")
            return redirect("adjudicate_item", request.project.slug, item.pk)
        label = None
        if decision == Adjudication.Decision.LABEL:
            label, form, board = _posted_label(request, item)
            if form.errors:
                return _refused(request, item, form=form, board=board, error=FIX_FIELDS)
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
        if board is not None:
            board.errors = form.errors
        discard = reason if decision == Adjudication.Decision.DISCARD else ""
        return _refused(
            request, item, form=form, board=board, error=str(exc), status=exc.status, discard_reason=discard
        )
    done = "verified with the final label" if adjudication.decision == "label" else "discarded"
    messages.success(request, f"{item.external_id} {done}.")
    following = selectors.next_in_queue(project=request.project, after=item)
    if following is None:
        messages.info(request, "The adjudication queue is empty.")
        return redirect("adjudication_queue", request.project.slug)
    return redirect("adjudicate_item", request.project.slug, following.pk)


def _posted_label(request: HttpRequest, item: Item) -> tuple[dict, FinalForm, Board | None]:
    """The label the reviewer settles on: composed on the page for pairs and the kinds with
    their own view, else one annotator's label accepted as is."""
    project, data = request.project, request.POST
    if item.kind == ItemKind.PAIR:
        form = parse_final_form(
            data, allowed_tags=project.critical_tags(item.family), allow_tie=project.allow_tie
        )
        return form.label(), form, None
    form = FinalForm(reason=data.get("reason", "").strip())
    composer = COMPOSERS.get(item.kind)
    if composer is not None:
        board = _board(request, item, names_for(request, item, for_decision=True))
        board.draft, board.errors = composer.parse(data, board)
        if not form.reason:
            board.errors["reason"] = NEED_REASON
        form.errors = board.errors
        return board.draft, form, board
    accepted = data.get("accept", "")
    chosen = next((a for a in item.annotations.all() if str(a.pk) == accepted), None)
    if chosen is None:
        raise AdjudicationError(
            "Choose one of the annotators' labels to accept.", errors={"accept": "Choose a label to accept."}
        )
    return consensus_label(chosen.label), form, None


def _refused(
    request: HttpRequest,
    item: Item,
    *,
    form: FinalForm,
    board: Board | None,
    error: str,
    status: int = 400,
    discard_reason: str = "",
) -> HttpResponse:
    context = _context(request, item, form=form, board=board, error=error, discard_reason=discard_reason)
    return render(request, PAGE, context, status=status)
