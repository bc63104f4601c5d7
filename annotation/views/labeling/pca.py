"""The P/C/A page: perception, cognition and action scores for a model's answer (PCA-Bench)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from annotation.rendering import Links
from annotation.rendering.pca import pca_view
from annotation.rendering.pca_form import (
    PcaForm,
    initial_form,
    parse_pca_form,
    prefill_record,
    service_errors,
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


def pca_context(
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
        **base_context(request, access, form=form, form_error=form_error, notice=notice),
        "view": view,
        **surroundings(request, access),
    }


def post_pca(request: HttpRequest, access: Access) -> HttpResponse | Saved:
    item, annotation = access.item, access.annotation
    editing = is_editing(request, access)
    if editing and "version" not in request.POST:
        form = initial_form(annotation, proposed_action=None)
        return form_error(request, access, PCA_PAGE, form, ALREADY_LABELED, 409)
    form = parse_pca_form(request.POST, editing=editing)
    if not form.valid:
        return form_error(request, access, PCA_PAGE, form, FIX_FIELDS, 400)
    view = pca_view(item=item, links=Links(request.project.slug, item.pk))
    label, rationale = form.label(), annotation.rationale if editing else ""
    return save(
        request,
        access,
        PCA_PAGE,
        form,
        label,
        editing=editing,
        rationale=rationale,
        prefill=prefill_record(view=view, label=label),
        field_errors=service_errors,
    )


PCA_PAGE = KindPage(template="annotation/label_pca.html", context=pca_context, post=post_pca)
