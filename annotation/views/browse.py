"""Browsing a project: its items (reviewers and managers) and its labels (annotators see
only their own, in the A/B letters they saw)."""

from __future__ import annotations

from django import forms
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation import selectors
from annotation.access import ANY_ROLE, STAFF_ROLES, project_role_required
from annotation.labels import comparable, label_to_seen
from annotation.models import Annotation, Item, ItemKind, ItemState, Project
from annotation.rendering.query import query_summary

ITEMS_PER_PAGE = 50
LABELS_PER_PAGE = 50


class ItemFilterForm(forms.Form):
    state = forms.ChoiceField(required=False, choices=[("", "Any state"), *ItemState.choices])
    stratum = forms.ChoiceField(required=False)

    def __init__(self, *args, strata: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stratum"].choices = [("", "Any stratum"), *((s, s) for s in strata)]


def _strata(project: Project) -> list[str]:
    return list(
        Item.objects.filter(project=project)
        .exclude(stratum="")
        .order_by("stratum")
        .values_list("stratum", flat=True)
        .distinct()
    )


def _page(request: HttpRequest, object_list, per_page: int) -> Page:
    # get_page turns a bad or out-of-range ?page= into the nearest real page instead of a 404.
    return Paginator(object_list, per_page).get_page(request.GET.get("page"))


@require_GET
@project_role_required(STAFF_ROLES)
def item_list(request: HttpRequest) -> HttpResponse:
    project = request.project
    form = ItemFilterForm(request.GET, strata=_strata(project))
    if form.is_valid():
        items = selectors.item_list(project=project, **form.cleaned_data)
        status = 200
    else:
        # An unknown filter value shows why and lists nothing rather than guessing.
        items = Item.objects.none()
        status = 400
    context = {
        "project": project,
        "role": request.project_role,
        "form": form,
        "page": _page(request, items, ITEMS_PER_PAGE),
    }
    template = "annotation/item_list.html#item_table" if request.htmx else "annotation/item_list.html"
    return render(request, template, context, status=status)


def _label_row(annotation: Annotation, *, as_seen: bool) -> dict:
    """One table row. Annotators see their choice in the letters they saw (A/B); reviewers and
    managers see the canonical first/second."""
    label = annotation.label if isinstance(annotation.label, dict) else {}
    row = {
        "annotation": annotation,
        "item": annotation.item,
        "tags": {},
        "choice": "",
        "confidence": label.get("confidence"),
    }
    if annotation.item.kind == ItemKind.PAIR:
        shown = label_to_seen(annotation.display_order, label) if as_seen else label
        row["choice"] = shown.get("preferred", "")
        row["tags"] = {side: tags for side, tags in (shown.get("tags") or {}).items() if tags}
    elif annotation.item.kind == ItemKind.QUERY:
        # Annotators: the candidate number they saw; staff: its number in the record.
        row["choice"] = query_summary(label, order=annotation.display_order if as_seen else None)
    else:
        value = comparable(annotation.item.kind, label)
        row["choice"] = "" if value is None else str(value)
    return row


@require_GET
@project_role_required(ANY_ROLE)
def my_labels(request: HttpRequest) -> HttpResponse:
    project, role = request.project, request.project_role
    staff = role in STAFF_ROLES
    page = _page(
        request, selectors.annotation_list(project=project, user=request.user, role=role), LABELS_PER_PAGE
    )
    context = {
        "project": project,
        "role": role,
        "staff": staff,
        "page": page,
        "rows": [_label_row(a, as_seen=not staff) for a in page.object_list],
    }
    template = "annotation/labels.html#labels_table" if request.htmx else "annotation/labels.html"
    return render(request, template, context)
