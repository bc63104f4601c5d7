"""The labeling URLs every kind shares: take the next item, label it, skip it, fetch one long
message body. Each kind's page lives in its own module and is listed in `kinds`."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url

from annotation import selectors
from annotation.access import project_role_required
from annotation.labels import to_canonical_side
from annotation.models import Assignment, ItemKind, Role
from annotation.rendering import LAZY_FIELDS, Links, message_text
from annotation.rendering.other import other_view
from annotation.services.queue import QueueError, assignment_skip, item_assign

from .access import Access, item_access
from .common import Saved, render_page
from .kinds import KIND_PAGES

BODY_PAGE = "annotation/label_pair.html"


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


def _next_item(request: HttpRequest) -> HttpResponse:
    """After a submit: the next item, swapped in place under htmx; else the queue decides."""
    project = request.project
    if not request.htmx:
        messages.success(request, "Label saved.")
        return redirect("queue_next", project.slug)
    assignment = item_assign(project=project, annotator=request.user)
    if assignment is None or assignment.item.kind not in KIND_PAGES:
        messages.success(request, "Label saved.")
        return HttpResponseClientRedirect(reverse("queue_next", args=[project.slug]))
    access = item_access(request, assignment.item_id)
    page = KIND_PAGES[access.item.kind]
    response = render_page(
        request, access, page, partial="page", notice="Label saved. Here is the next item."
    )
    return push_url(response, reverse("label_item", args=[project.slug, assignment.item_id]))


def _saved(request: HttpRequest, access: Access, saved: Saved) -> HttpResponse:
    if not saved.editing:
        return _next_item(request)
    notice = "Your label was updated."
    if request.htmx:
        fresh = item_access(request, access.item.pk)
        return render_page(request, fresh, KIND_PAGES[fresh.item.kind], partial="page", notice=notice)
    messages.success(request, notice)
    return redirect("label_item", request.project.slug, access.item.pk)


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
    access = item_access(request, item_id)
    page = KIND_PAGES.get(access.item.kind)
    if request.method == "GET":
        return render_page(request, access, page) if page else _render_other(request, access)
    if access.staff:
        return HttpResponseForbidden("Reviewers and managers view items read-only here.")
    if page is None:
        return HttpResponseBadRequest("Labels for this kind of item are not taken on this page yet.")
    outcome = page.post(request, access)
    return _saved(request, access, outcome) if isinstance(outcome, Saved) else outcome


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
    access = item_access(request, item_id)
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
    response = render(request, f"{BODY_PAGE}#body" if request.htmx else BODY_PAGE, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
