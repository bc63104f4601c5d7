"""The step page: rank candidate next actions of a web agent against a checklist (Web-Shepherd)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from annotation.rendering.step import (
    StepForm,
    candidate_order,
    initial_step_form,
    parse_step_form,
    step_service_errors,
)
from annotation.rendering.step import step_context as step_view_context
from annotation.services.annotations import SubmitError

from .access import Access
from .common import ALREADY_LABELED, FIX_FIELDS, KindPage, Saved, form_error, is_editing, store, surroundings


def step_context(request: HttpRequest, access: Access, **kwargs) -> dict:
    annotator = None if access.staff else request.user.pk
    return step_view_context(request, access, annotator_id=annotator, **kwargs) | surroundings(
        request, access
    )


def post_step(request: HttpRequest, access: Access) -> HttpResponse | Saved:
    editing = is_editing(request, access)
    if editing and "version" not in request.POST:
        return form_error(
            request, access, STEP_PAGE, initial_step_form(access.annotation), ALREADY_LABELED, 409
        )
    n_checklist = len((access.item.payload or {}).get("checklist") or ())
    form: StepForm = parse_step_form(request.POST, n_checklist=n_checklist, editing=editing)
    if not form.valid:
        return form_error(request, access, STEP_PAGE, form, FIX_FIELDS, 400)
    # The candidate order the annotator saw is kept with the label (blinding audits read it).
    order = candidate_order(item=access.item, annotator_id=request.user.pk)
    try:
        store(request, access, form, form.label(), form.rationale, None, display_order=order)
    except SubmitError as exc:
        form.errors.update(step_service_errors(exc.errors))
        return form_error(
            request, access, STEP_PAGE, form, FIX_FIELDS if exc.errors else str(exc), exc.status
        )
    return Saved(editing=editing)


STEP_PAGE = KindPage(template="annotation/label_step.html", context=step_context, post=post_step)
