"""The step page: rank candidate next actions of a web agent against a checklist (Web-Shepherd),
and edit that checklist (versioned, with a reason)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.access import project_role_required
from annotation.models import ItemKind
from annotation.rendering.step import (
    StepForm,
    candidate_order,
    initial_step_form,
    parse_edit_form,
    parse_step_form,
    posted_checklist_version,
    shown_rows,
    step_service_errors,
)
from annotation.rendering.step import step_context as step_view_context
from annotation.services.checklists import ChecklistConflict, ChecklistError, checklist_edit, checklist_items

from .access import Access, item_access
from .common import (
    ALREADY_LABELED,
    FIX_FIELDS,
    KindPage,
    Saved,
    form_error,
    is_editing,
    render_page,
    save,
    surroundings,
)

CHECKLIST_NOT_SAVED = "The checklist was not changed: please fix the marked fields."


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
    # The marks refer to the checklist version the form was showing (hidden field).
    version = posted_checklist_version(request.POST)
    items = checklist_items(item=access.item, version=version) if version else None
    # The candidate order the annotator saw: it maps grid rows back to candidates and is kept
    # with the label (blinding audits read it).
    order = candidate_order(item=access.item, annotator_id=request.user.pk)
    form: StepForm = parse_step_form(
        request.POST,
        n_checklist=len(items or ()),
        editing=editing,
        scope=request.project.checklist_scope,
        order=order,
        checklist_version=version or 1,
    )
    if items is None:
        form.errors["checklist"] = (
            "The form names a checklist version this item does not have; reload the page."
        )
    if not form.valid:
        return form_error(request, access, STEP_PAGE, form, FIX_FIELDS, 400)
    return save(
        request,
        access,
        STEP_PAGE,
        form,
        form.label(),
        editing=editing,
        rationale=form.rationale,
        display_order=order,
        field_errors=step_service_errors,
    )


STEP_PAGE = KindPage(template="annotation/label_step.html", context=step_context, post=post_step)


@require_POST
@project_role_required()
def step_checklist_edit(request: HttpRequest, item_id: int) -> HttpResponse:
    """Save an edited checklist as a new version; the page then marks that version. A plain form
    POST (works without JS); errors come back on the page with what was typed."""
    access = item_access(request, item_id)
    if access.item.kind != ItemKind.STEP:
        raise Http404("Only step items have a checklist.")
    if access.staff:
        return HttpResponseForbidden("Reviewers and managers view items read-only here.")
    edit = parse_edit_form(request.POST)
    if access.mode == "readonly":
        edit.message = "This item is settled; its checklist can no longer change."
        return _edit_error(request, access, edit, 409)
    if edit.parent_version < 1:
        edit.message = "The form lost the checklist version it edits; reload the page and edit again."
        return _edit_error(request, access, edit, 400)
    try:
        saved = checklist_edit(
            item=access.item,
            author=request.user,
            items=edit.items,
            reason=edit.reason,
            parent_version=edit.parent_version,
        )
    except ChecklistConflict as exc:
        # What was typed stays; saving it again now deliberately edits the latest version.
        edit.message, edit.parent_version = str(exc), exc.latest
        return _edit_error(request, access, edit, exc.status)
    except ChecklistError as exc:
        edit.message, edit.errors = str(exc), exc.errors
        return _edit_error(request, access, edit, exc.status)
    messages.success(request, f"Checklist version {saved.version} saved; mark its items below.")
    target = reverse("label_item", args=[request.project.slug, item_id])
    return redirect(f"{target}?checklist={saved.version}#checklist")


def _edit_error(request: HttpRequest, access: Access, edit, status: int) -> HttpResponse:
    edit.rows = shown_rows(edit)
    response = render_page(request, access, STEP_PAGE, checklist_edit=edit, form_error="")
    response.status_code = status
    return response
