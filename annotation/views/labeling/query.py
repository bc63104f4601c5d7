"""The query refinement page (Agent-X): keep one candidate query for a visual as is, edit one,
or reject them all with a reason. Candidates are shown in a per-annotator order; labels name
them by their index in the record."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from annotation.rendering import Links
from annotation.rendering.query import (
    DECISIONS,
    REJECT_REASONS,
    QueryForm,
    candidates_of,
    initial_query_form,
    parse_query_form,
    query_order,
    query_service_errors,
    query_summary,
    query_view,
)

from .access import Access
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


def _order(request: HttpRequest, access: Access) -> list[str]:
    saved = access.annotation.display_order if access.annotation is not None else None
    return query_order(item=access.item, annotator_id=None if access.staff else request.user.pk, saved=saved)


def query_context(
    request: HttpRequest,
    access: Access,
    *,
    form: QueryForm | None = None,
    form_error: str = "",
    notice: str = "",
) -> dict:
    project, item = request.project, access.item
    view_order = _order(request, access)
    view = query_view(item=item, order=view_order, links=Links(project.slug, item.pk), staff=access.staff)
    form = form or initial_query_form(access.annotation)
    context = surroundings(request, access)
    return {
        **base_context(request, access, form=form, form_error=form_error, notice=notice),
        "view": view,
        "rows": form.rows(view),
        "decisions": DECISIONS,
        "reject_reasons": REJECT_REASONS.items(),
        # Staff: each label in one line, candidates numbered as in the record (as staff see them).
        "staff_rows": [(a, query_summary(a.label)) for a in context["staff_labels"]],
        "own_summary": query_summary(access.annotation.label, order=view_order)
        if access.annotation is not None
        else "",
        **context,
    }


def post_query(request: HttpRequest, access: Access) -> HttpResponse | Saved:
    editing = is_editing(request, access)
    if editing and "version" not in request.POST:
        form = initial_query_form(access.annotation)
        return form_error(request, access, QUERY_PAGE, form, ALREADY_LABELED, 409)
    candidates = candidates_of(access.item)
    order = _order(request, access)
    previous = initial_query_form(access.annotation).drafts if editing else {}
    form = parse_query_form(
        request.POST, candidates=candidates, order=order, editing=editing, previous=previous
    )
    if not form.valid:
        return form_error(request, access, QUERY_PAGE, form, FIX_FIELDS, 400)
    # The order the annotator saw is kept with the label (blinding audits read it).
    label = form.label(candidates)
    return save(
        request,
        access,
        QUERY_PAGE,
        form,
        label,
        editing=editing,
        display_order=order,
        field_errors=query_service_errors,
    )


QUERY_PAGE = KindPage(template="annotation/label_query.html", context=query_context, post=post_query)
