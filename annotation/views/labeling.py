"""Labeling pages: take the next item, label a pair, skip, fetch one long message body.

Blinding: annotators see only items they hold, in their own A/B order, and never gold,
trajectory sources, other people's labels, or machine suggestions unless the project turns
them on (then the judge's choice pre-fills the form, clearly marked, and the label records
whether the annotator changed it). Reviewers and managers may
open any item of the project read-only, in canonical order (first/second), without taking a
slot. URLs carry the letters the viewer sees, never canonical side names.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url, reswap, retarget

from annotation import selectors
from annotation.access import STAFF_ROLES, project_role_required
from annotation.labels import display_order, to_canonical_side, to_letter
from annotation.models import Annotation, Assignment, AssignmentStatus, Item, ItemKind, Role, Suggestion
from annotation.models.work import OPEN_STATES
from annotation.rendering import LAZY_FIELDS, Links, message_text
from annotation.rendering.label_form import (
    CONFIDENCE_CHOICES,
    PairForm,
    form_from_label,
    parse_pair_form,
    seconds_spent,
    service_errors,
    tag_groups,
)
from annotation.rendering.other import other_view
from annotation.rendering.pair import pair_view
from annotation.rendering.pca import pca_view
from annotation.rendering.pca_form import PcaForm, initial_form, parse_pca_form, prefill_record
from annotation.rendering.pca_form import service_errors as pca_service_errors
from annotation.rendering.step import (
    StepForm,
    candidate_order,
    initial_step_form,
    parse_step_form,
    step_context,
)
from annotation.rendering.step import step_service_errors as step_errors
from annotation.services.annotations import SubmitError, annotation_edit, annotation_submit
from annotation.services.queue import QueueError, assignment_skip, item_assign

from .projects import render_guidelines

CANONICAL = ["first", "second"]
PAGE = "annotation/label_pair.html"
PCA_PAGE = "annotation/label_pca.html"
STEP_PAGE = "annotation/label_step.html"
PAGES = {ItemKind.PAIR: PAGE, ItemKind.PCA: PCA_PAGE, ItemKind.STEP: STEP_PAGE}


@dataclass
class Access:
    """What the current user may see of one item, and in which order."""

    item: Item
    staff: bool
    assignment: Assignment | None
    annotation: Annotation | None
    order: list[str]

    @property
    def mode(self) -> str:
        """staff: read-only canonical view; submit: a fresh label; edit: change one's own label
        while the item is open; readonly: one's own label on a settled item."""
        if self.staff:
            return "staff"
        if self.annotation is None:
            return "submit"
        return "edit" if self.item.state in OPEN_STATES else "readonly"


def _access(request: HttpRequest, item_id: int) -> Access:
    project = request.project
    try:
        item = selectors.item_for_labeling(project=project, item_id=item_id)
    except Item.DoesNotExist as exc:
        raise Http404("No such item.") from exc
    if request.project_role in STAFF_ROLES:
        return Access(item, staff=True, assignment=None, annotation=None, order=list(CANONICAL))
    assignment = Assignment.objects.filter(item=item, annotator=request.user).first()
    annotation = Annotation.objects.filter(item=item, annotator=request.user).first()
    holds = assignment is not None and assignment.status == AssignmentStatus.ACTIVE
    if annotation is None and not holds:
        raise Http404("This item is not assigned to you.")
    order = (
        (annotation.display_order if annotation else None)
        or (assignment.display_order if assignment else None)
        or display_order(item_id=item.pk, annotator_id=request.user.pk)
    )
    return Access(item, staff=False, assignment=assignment, annotation=annotation, order=list(order))


def _suggestion(request: HttpRequest, access: Access) -> Suggestion | None:
    """The machine suggestion that pre-fills a fresh label, only where the project shows them."""
    if access.mode != "submit" or not request.project.show_suggestions:
        return None
    return selectors.prefill_suggestion(item=access.item)


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
    suggestion = _suggestion(request, access)
    if suggestion is None or request.POST.get("suggestion_id") != str(suggestion.pk):
        return None
    proposed = suggestion.label["preferred"]
    return {
        "suggestion": suggestion.pk,
        "source": suggestion.source,
        "proposed": proposed,
        "changed": label["preferred"] != proposed,
    }


def _form_context(request: HttpRequest, access: Access, form: PairForm | None, form_error: str = "") -> dict:
    project, item = request.project, access.item
    suggestion = _suggestion(request, access)
    form = form or _initial_form(access, suggestion)
    return {
        "suggestion": suggestion,
        "suggestion_seen": _seen(suggestion.label["preferred"], access.order) if suggestion else "",
        "project": project,
        "item": item,
        "role": request.project_role,
        "staff": access.staff,
        "mode": access.mode,
        "access": access,
        "form": form,
        "form_error": form_error,
        "tag_groups": tag_groups(form, project.critical_tags(item.family)),
        "allow_tie": project.allow_tie,
        "confidence_choices": CONFIDENCE_CHOICES,
        # Re-shown after an error: keep the time the item was first shown, so time on item holds.
        "page_loaded_at": request.POST.get("page_loaded_at", "") if form_error else "",
    }


def _page_context(
    request: HttpRequest,
    access: Access,
    *,
    form: PairForm | None = None,
    form_error: str = "",
    notice: str = "",
) -> dict:
    project, item = request.project, access.item
    context = _form_context(request, access, form, form_error)
    context.update(
        view=pair_view(item=item, order=access.order, links=Links(project.slug, item.pk), staff=access.staff),
        notice=notice,
        **_surroundings(request, access),
    )
    return context


def _surroundings(request: HttpRequest, access: Access) -> dict:
    project = request.project
    return {
        "progress": selectors.progress(project=project, annotator=request.user),
        "guidelines_html": render_guidelines(project.guidelines) if project.guidelines.strip() else "",
        # Staff only: everyone's labels on this item. Annotators never get this list.
        "staff_labels": list(access.item.annotations.select_related("annotator").order_by("created_at"))
        if access.staff
        else [],
    }


def _render_other(request: HttpRequest, access: Access) -> HttpResponse:
    project = request.project
    context = {
        "project": project,
        "item": access.item,
        "role": request.project_role,
        "staff": access.staff,
        "access": access,
        "view": other_view(item=access.item, links=Links(project.slug, access.item.pk), staff=access.staff),
        "progress": selectors.progress(project=project, annotator=request.user),
    }
    return render(request, "annotation/label_other.html", context)


def _pca_context(
    request: HttpRequest,
    access: Access,
    *,
    form: PcaForm | None = None,
    form_error: str = "",
    notice: str = "",
) -> dict:
    project, item = request.project, access.item
    view = pca_view(item=item, links=Links(project.slug, item.pk))
    form = form or initial_form(access.annotation, proposed_action=view.proposed_action)
    return {
        "project": project,
        "item": item,
        "role": request.project_role,
        "staff": access.staff,
        "mode": access.mode,
        "access": access,
        "view": view,
        "form": form,
        "form_error": form_error,
        "notice": notice,
        "page_loaded_at": request.POST.get("page_loaded_at", "") if form_error else "",
        **_surroundings(request, access),
    }


def _step_context(request: HttpRequest, access: Access, **kwargs) -> dict:
    annotator = None if access.staff else request.user.pk
    context = step_context(request, access, annotator_id=annotator, **kwargs)
    return context | _surroundings(request, access)


BUILDERS = {ItemKind.PCA: _pca_context, ItemKind.STEP: _step_context}  # the pair page: _page_context


def _page(request: HttpRequest, access: Access, *, partial: str = "", **kwargs) -> HttpResponse:
    """The labeling page of the item's kind (pair, P/C/A or step), whole or one named partial."""
    context = BUILDERS.get(access.item.kind, _page_context)(request, access, **kwargs)
    page = PAGES[access.item.kind]
    return render(request, f"{page}#{partial}" if partial else page, context)


def _form_error(
    request: HttpRequest, access: Access, form: PairForm | PcaForm | StepForm, message: str, status: int
) -> HttpResponse:
    page = PAGES[access.item.kind]
    if request.htmx:
        # htmx does not swap 4xx answers: send 200 and put the form, with its errors, in place.
        build = BUILDERS.get(access.item.kind)
        context = build(request, access, form=form, form_error=message) if build else None
        context = context or _form_context(request, access, form, message)
        response = render(request, f"{page}#form", context)
        return reswap(retarget(response, "#label-form"), "outerHTML")
    response = _page(request, access, form=form, form_error=message)
    response.status_code = status
    return response


def _next_item(request: HttpRequest) -> HttpResponse:
    """After a submit: the next item, swapped in place under htmx; else the queue decides."""
    project = request.project
    if not request.htmx:
        messages.success(request, "Label saved.")
        return redirect("queue_next", project.slug)
    assignment = item_assign(project=project, annotator=request.user)
    if assignment is None or assignment.item.kind not in PAGES:
        messages.success(request, "Label saved.")
        return HttpResponseClientRedirect(reverse("queue_next", args=[project.slug]))
    access = _access(request, assignment.item_id)
    response = _page(request, access, partial="page", notice="Label saved. Here is the next item.")
    return push_url(response, reverse("label_item", args=[project.slug, assignment.item_id]))


@require_GET
@project_role_required()
def queue_next(request: HttpRequest) -> HttpResponse:
    project = request.project
    if request.project_role != Role.ANNOTATOR:
        messages.info(request, "Reviewers and managers take no queue slots; open any item from the list.")
        return redirect("item_list", project.slug)
    assignment = item_assign(project=project, annotator=request.user)
    if assignment is None:
        progress = selectors.progress(project=project, annotator=request.user)
        return render(request, "annotation/queue_empty.html", {"project": project, "progress": progress})
    return redirect("label_item", project.slug, assignment.item_id)


@require_http_methods(["GET", "POST"])
@project_role_required()
def label_item(request: HttpRequest, item_id: int) -> HttpResponse:
    access = _access(request, item_id)
    if request.method == "GET":
        if access.item.kind not in PAGES:
            return _render_other(request, access)
        return _page(request, access)
    if access.staff:
        return HttpResponseForbidden("Reviewers and managers view items read-only here.")
    if access.item.kind == ItemKind.PCA:
        return _post_pca(request, access)
    if access.item.kind == ItemKind.STEP:
        return _post_step(request, access)
    if access.item.kind != ItemKind.PAIR:
        return HttpResponseBadRequest("Labels for this kind of item are not taken on this page yet.")
    return _post_pair(request, access)


def _post_pair(request: HttpRequest, access: Access) -> HttpResponse:
    project, item, annotation = request.project, access.item, access.annotation
    # A repeat of the submit that created the label (double click, retry) answers as before.
    repeat = annotation is not None and request.POST.get("client_id", "").strip() == str(annotation.client_id)
    editing = annotation is not None and not repeat
    if editing and "version" not in request.POST:
        return _form_error(
            request,
            access,
            _initial_form(access),
            "You already labeled this item; your saved label is shown — change it and save.",
            409,
        )
    form = parse_pair_form(
        request.POST,
        allowed_tags=project.critical_tags(item.family),
        allow_tie=project.allow_tie,
        editing=editing,
    )
    if not form.valid:
        return _form_error(request, access, form, "Nothing was saved: please fix the marked fields.", 400)
    label = form.label(access.order)
    try:
        _store(request, access, form, label, form.rationale, _prefill_record(request, access, label))
    except SubmitError as exc:
        form.errors.update(service_errors(exc.errors, access.order))
        message = "Nothing was saved: please fix the marked fields." if exc.errors else str(exc)
        return _form_error(request, access, form, message, exc.status)
    return _saved(request, item, editing=editing)


def _store(
    request: HttpRequest,
    access: Access,
    form: PairForm | PcaForm | StepForm,
    label: dict,
    rationale: str,
    prefill: dict | None,
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
        display_order=candidate_order(item=access.item, annotator_id=request.user.pk)
        if access.item.kind == ItemKind.STEP
        else None,
        seconds_spent=seconds_spent(request.POST, leased_at=getattr(access.assignment, "leased_at", None)),
    )


def _saved(request: HttpRequest, item: Item, *, editing: bool) -> HttpResponse:
    if not editing:
        return _next_item(request)
    notice = "Your label was updated."
    if request.htmx:
        return _page(request, _access(request, item.pk), partial="page", notice=notice)
    messages.success(request, notice)
    return redirect("label_item", request.project.slug, item.pk)


def _post_pca(request: HttpRequest, access: Access) -> HttpResponse:
    item, annotation = access.item, access.annotation
    repeat = annotation is not None and request.POST.get("client_id", "").strip() == str(annotation.client_id)
    editing = annotation is not None and not repeat
    if editing and "version" not in request.POST:
        message = "You already labeled this item; your saved label is shown — change it and save."
        return _form_error(request, access, initial_form(annotation, proposed_action=None), message, 409)
    form = parse_pca_form(request.POST, editing=editing)
    if not form.valid:
        return _form_error(request, access, form, "Nothing was saved: please fix the marked fields.", 400)
    view = pca_view(item=item, links=Links(request.project.slug, item.pk))
    label, rationale = form.label(), annotation.rationale if editing else ""
    try:
        _store(request, access, form, label, rationale, prefill_record(view=view, label=label))
    except SubmitError as exc:
        form.errors.update(pca_service_errors(exc.errors))
        message = "Nothing was saved: please fix the marked fields." if exc.errors else str(exc)
        return _form_error(request, access, form, message, exc.status)
    return _saved(request, item, editing=editing)


def _post_step(request: HttpRequest, access: Access) -> HttpResponse:
    annotation = access.annotation
    repeat = annotation is not None and request.POST.get("client_id", "").strip() == str(annotation.client_id)
    editing = annotation is not None and not repeat
    if editing and "version" not in request.POST:
        message = "You already labeled this item; your saved label is shown — change it and save."
        return _form_error(request, access, initial_step_form(annotation), message, 409)
    n_checklist = len((access.item.payload or {}).get("checklist") or ())
    form = parse_step_form(request.POST, n_checklist=n_checklist, editing=editing)
    if not form.valid:
        return _form_error(request, access, form, "Nothing was saved: please fix the marked fields.", 400)
    try:
        _store(request, access, form, form.label(), form.rationale, None)
    except SubmitError as exc:
        form.errors.update(step_errors(exc.errors))
        message = "Nothing was saved: please fix the marked fields." if exc.errors else str(exc)
        return _form_error(request, access, form, message, exc.status)
    return _saved(request, access.item, editing=editing)


@require_POST
@project_role_required()
def skip_item(request: HttpRequest, item_id: int) -> HttpResponse:
    project = request.project
    assignment = (
        Assignment.objects.filter(item__project=project, item_id=item_id, annotator=request.user)
        .select_related("item")
        .first()
    )
    if assignment is None:
        raise Http404("This item is not assigned to you.")
    try:
        assignment_skip(assignment=assignment, actor=request.user, reason=request.POST.get("reason", ""))
    except QueueError as exc:
        messages.error(request, f"Not skipped: {exc}")
        target = reverse("label_item", args=[project.slug, item_id])
    else:
        messages.info(request, "Skipped. Here is the next item.")
        target = reverse("queue_next", args=[project.slug])
    return HttpResponseClientRedirect(target) if request.htmx else redirect(target)


def _part_messages(access: Access, part: str) -> list:
    item = access.item
    if part == "context":
        messages_ = item.task.context if item.task is not None else []
    elif part in ("A", "B") and item.kind == ItemKind.PAIR:
        side = to_canonical_side(access.order, part)
        trajectory = item.trajectory_first if side == "first" else item.trajectory_second
        messages_ = trajectory.messages if trajectory is not None else []
    elif part == "A":
        messages_ = item.trajectory_first.messages if item.trajectory_first is not None else []
    else:
        raise Http404("No such part.")
    return messages_ if isinstance(messages_, list) else []


@require_GET
@project_role_required()
def message_body(request: HttpRequest, item_id: int, part: str, index: int) -> HttpResponse:
    """One long field of one message, left out of the page; `part` is what the viewer sees."""
    access = _access(request, item_id)
    messages_ = _part_messages(access, part)
    field_name = request.GET.get("field", "content")
    if (
        field_name not in LAZY_FIELDS
        or not 0 <= index < len(messages_)
        or not isinstance(messages_[index], dict)
    ):
        raise Http404("No such message.")
    context = {
        "project": request.project,
        "item": access.item,
        "part": part,
        "index": index,
        "field_name": field_name,
        "text": message_text(messages_[index], field_name),
        "body_page": True,
    }
    response = render(request, f"{PAGE}#body" if request.htmx else PAGE, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
