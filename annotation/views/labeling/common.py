"""What every kind's labeling page shares: its registration, the page frame, storing a label."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import reswap, retarget

from annotation import selectors
from annotation.rendering.label_form import SubmissionFields, seconds_spent
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit

from ..projects import render_guidelines
from .access import Access

FIX_FIELDS = "Nothing was saved: please fix the marked fields."
ALREADY_LABELED = "You already labeled this item; your saved label is shown — change it and save."


@dataclass(frozen=True)
class Saved:
    """A kind's POST handler stored the label; the shared page decides what comes next."""

    editing: bool


@dataclass(frozen=True)
class KindPage:
    """One item kind's labeling page: its template (with `page` and `form` partials), its
    context builder (keyword args form, form_error, notice) and its POST handler."""

    template: str
    context: Callable[..., dict]
    post: Callable[[HttpRequest, Access], HttpResponse | Saved]


def surroundings(request: HttpRequest, access: Access) -> dict:
    """Progress, guidelines and (staff only) everyone's labels: the frame of every page."""
    project = request.project
    return {
        "progress": selectors.progress(project=project, annotator=request.user),
        "guidelines_html": render_guidelines(project.guidelines) if project.guidelines.strip() else "",
        # Staff only: everyone's labels on this item. Annotators never get this list.
        "staff_labels": list(access.item.annotations.select_related("annotator").order_by("created_at"))
        if access.staff
        else [],
    }


def base_context(request: HttpRequest, access: Access, *, form: Any, form_error: str, notice: str) -> dict:
    """The keys every kind's template reads."""
    return {
        "project": request.project,
        "item": access.item,
        "role": request.project_role,
        "staff": access.staff,
        "mode": access.mode,
        "access": access,
        "form": form,
        "form_error": form_error,
        "notice": notice,
        # Re-shown after an error: keep the time the item was first shown, so time on item holds.
        "page_loaded_at": request.POST.get("page_loaded_at", "") if form_error else "",
    }


def render_page(
    request: HttpRequest, access: Access, page: KindPage, *, partial: str = "", **kwargs
) -> HttpResponse:
    context = page.context(request, access, **kwargs)
    return render(request, f"{page.template}#{partial}" if partial else page.template, context)


def form_error(
    request: HttpRequest, access: Access, page: KindPage, form: Any, message: str, status: int
) -> HttpResponse:
    """Nothing saved: the form comes back with its errors and what the annotator entered."""
    if request.htmx:
        # htmx does not swap 4xx answers: send 200 and put the form, with its errors, in place.
        response = render_page(request, access, page, partial="form", form=form, form_error=message)
        return reswap(retarget(response, "#label-form"), "outerHTML")
    response = render_page(request, access, page, form=form, form_error=message)
    response.status_code = status
    return response


def is_editing(request: HttpRequest, access: Access) -> bool:
    """True when this POST changes a saved label; a repeat of the submit that created the label
    (double click, retry) is not an edit and answers as before."""
    annotation = access.annotation
    repeat = annotation is not None and request.POST.get("client_id", "").strip() == str(annotation.client_id)
    return annotation is not None and not repeat


def store(
    request: HttpRequest,
    access: Access,
    form: SubmissionFields,
    label: dict,
    rationale: str,
    prefill: dict | None,
    *,
    display_order: list[str] | None = None,
) -> None:
    """Edit one's label (optimistic lock on form.version) or submit a new one (idempotent by
    form.client_id); raises SubmitError."""
    if form.version is not None:
        annotation_edit(
            annotation=access.annotation,
            editor=request.user,
            label=label,
            rationale=rationale,
            expected_version=form.version,
            flagged=form.flagged,
        )
        return
    annotation_submit(
        item=access.item,
        annotator=request.user,
        label=label,
        client_id=uuid.UUID(form.client_id),
        rationale=rationale,
        flagged=form.flagged,
        prefill=prefill,
        display_order=display_order,
        seconds_spent=seconds_spent(request.POST, leased_at=getattr(access.assignment, "leased_at", None)),
    )


def save(
    request: HttpRequest,
    access: Access,
    page: KindPage,
    form: Any,
    label: dict,
    *,
    editing: bool,
    rationale: str = "",
    prefill: dict | None = None,
    display_order: list[str] | None = None,
    field_errors: Callable[[dict], dict[str, str]] = dict,
) -> HttpResponse | Saved:
    """`store` the label; a refusal comes back as the form with the service's errors put on the
    fields they concern (`field_errors` maps the label's terms to the form's)."""
    try:
        store(request, access, form, label, rationale, prefill, display_order=display_order)
    except SubmitError as exc:
        form.errors.update(field_errors(exc.errors))
        return form_error(request, access, page, form, FIX_FIELDS if exc.errors else str(exc), exc.status)
    return Saved(editing=editing)
