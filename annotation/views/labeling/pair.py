"""The pair page: preference between two candidates seen as A and B in the annotator's order.

URLs and forms carry the letters the viewer sees, never canonical side names.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse

from annotation.labels import to_letter
from annotation.models import Suggestion
from annotation.rendering import Links
from annotation.rendering.label_form import (
    CONFIDENCE_CHOICES,
    PairForm,
    form_from_label,
    parse_pair_form,
    service_errors,
    tag_groups,
)
from annotation.rendering.pair import pair_view

from .access import Access, machine_suggestion
from .common import (
    ALREADY_LABELED,
    FIX_FIELDS,
    KindPage,
    Saved,
    base_context,
    form_error,
    is_editing,
    save,
    surroundings,
)


def _seen(choice: str, order: list[str]) -> str:
    return choice if choice == "tie" else to_letter(order, choice)


def _initial_form(access: Access, suggestion: Suggestion | None = None) -> PairForm:
    a = access.annotation
    if a is not None:
        return form_from_label(
            a.label, access.order, rationale=a.rationale, flagged=a.flagged, version=a.version
        )
    form = PairForm(client_id=str(uuid.uuid4()))
    if suggestion is not None:
        form.preferred = _seen(suggestion.label["preferred"], access.order)
    return form


def _prefill_record(request: HttpRequest, access: Access, label: dict) -> dict | None:
    """What pre-filled the submitted form and whether the annotator changed it."""
    suggestion = machine_suggestion(request, access)
    if suggestion is None or request.POST.get("suggestion_id") != str(suggestion.pk):
        return None
    proposed = suggestion.label["preferred"]
    return {
        "suggestion": suggestion.pk,
        "source": suggestion.source,
        "proposed": proposed,
        "changed": label["preferred"] != proposed,
    }


def pair_context(
    request: HttpRequest,
    access: Access,
    *,
    form: PairForm | None = None,
    form_error: str = "",
    notice: str = "",
) -> dict:
    project, item = request.project, access.item
    suggestion = machine_suggestion(request, access)
    form = form or _initial_form(access, suggestion)
    return {
        **base_context(request, access, form=form, form_error=form_error, notice=notice),
        "suggestion": suggestion,
        "suggestion_seen": _seen(suggestion.label["preferred"], access.order) if suggestion else "",
        "tag_groups": tag_groups(form, project.critical_tags(item.family)),
        "allow_tie": project.allow_tie,
        "confidence_choices": CONFIDENCE_CHOICES,
        "view": pair_view(
            item=item, order=access.order, links=Links(project.slug, item.pk), staff=access.staff
        ),
        **surroundings(request, access),
    }


def post_pair(request: HttpRequest, access: Access) -> HttpResponse | Saved:
    project, item = request.project, access.item
    editing = is_editing(request, access)
    if editing and "version" not in request.POST:
        return form_error(request, access, PAIR_PAGE, _initial_form(access), ALREADY_LABELED, 409)
    form = parse_pair_form(
        request.POST,
        allowed_tags=project.critical_tags(item.family),
        allow_tie=project.allow_tie,
        editing=editing,
    )
    if not form.valid:
        return form_error(request, access, PAIR_PAGE, form, FIX_FIELDS, 400)
    label = form.label(access.order)
    return save(
        request,
        access,
        PAIR_PAGE,
        form,
        label,
        editing=editing,
        rationale=form.rationale,
        prefill=_prefill_record(request, access, label),
        field_errors=lambda errors: service_errors(errors, access.order),
    )


PAIR_PAGE = KindPage(template="annotation/label_pair.html", context=pair_context, post=post_pair)
