"""The step page's template context, less what every labeling page shares."""

from __future__ import annotations

from annotation.services.checklists import checklist_versions

from ..messages import Links
from .checklist import ChecklistEditForm, checklist_panel
from .form import MARKS, StepForm, initial_step_form
from .view import candidate_order, step_view


def _requested_version(request, versions) -> int | None:
    """`?checklist=N`: the annotator switches the marks to version N (after an edit)."""
    try:
        number = int(request.GET.get("checklist", ""))
    except ValueError:
        return None
    return number if any(v.number == number for v in versions) else None


def step_context(
    request,
    access,
    *,
    annotator_id: int | None,
    form: StepForm | None = None,
    form_error: str = "",
    notice: str = "",
    checklist_edit: ChecklistEditForm | None = None,
) -> dict:
    project, item = request.project, access.item
    order = candidate_order(item=item, annotator_id=annotator_id)
    view = step_view(item=item, order=order, links=Links(project.slug, item.pk), staff=annotator_id is None)
    versions = checklist_versions(item=item)
    if form is None:
        form = initial_step_form(access.annotation, checklist_version=versions[-1].number)
        requested = _requested_version(request, versions)
        if requested is not None and requested != form.checklist_version:
            # Other items, other marks: the marks start over for the version switched to.
            form.checklist_version, form.checklist, form.by_candidate = requested, [], None
    checklist = checklist_panel(
        versions=versions,
        form=form,
        scope=project.checklist_scope,
        candidates=view.candidates,
        viewer_id=request.user.pk,
        staff=access.staff,
        edit_form=checklist_edit,
    )
    return {
        "project": project,
        "item": item,
        "role": request.project_role,
        "staff": access.staff,
        "mode": access.mode,
        "access": access,
        "view": view,
        "order": order,
        "form": form,
        "checklist": checklist,
        "marks": MARKS,
        "form_error": form_error,
        "notice": notice,
        "page_loaded_at": request.POST.get("page_loaded_at", "") if form_error else "",
    }
