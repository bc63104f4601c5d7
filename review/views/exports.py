"""Export pages (managers): ask for an export, follow it while a worker writes it, download its
files later. The page never waits on the export."""

from __future__ import annotations

import json
from pathlib import Path

from django import forms
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation.access import MANAGERS, project_role_required
from annotation.models import Project
from review.exports.policy import (
    DEFAULT_SPLITS,
    EXPORTABLE_STATES,
    SOURCE_TYPES,
    ExportRequestError,
    default_formats,
    format_choices,
    parse_splits,
)
from review.exports.selectors import export_for, exports_for, project_strata
from review.models import Export
from review.services.exports import export_create

RECENT_EXPORTS = 20
# What an item's stratum is, per kind (the importer sets it).
STRATUM_NAMES = {
    "pair": "bucket",
    "step": "difficulty",
    "recording": "difficulty",
    "trace": "environment",
    "query": "environment",
    "pca": "domain",
}
CONTENT_TYPES = {
    ".jsonl": "application/x-ndjson; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".parquet": "application/vnd.apache.parquet",
}


class ExportForm(forms.Form):
    strata = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every stratum.",
    )
    states = forms.MultipleChoiceField(
        choices=[(s.value, s.label) for s in EXPORTABLE_STATES],
        initial=[s.value for s in EXPORTABLE_STATES],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Only verified items are exported.",
    )
    settled_from = forms.DateField(
        required=False, label="Settled from", widget=forms.DateInput(attrs={"type": "date"})
    )
    settled_to = forms.DateField(
        required=False, label="Settled to (inclusive)", widget=forms.DateInput(attrs={"type": "date"})
    )
    source = forms.ChoiceField(
        required=False,
        label="Trajectory source",
        choices=[("", "any"), *[(s, s) for s in SOURCE_TYPES]],
        help_text="Items with a candidate of this source type.",
    )
    splits = forms.CharField(
        initial=DEFAULT_SPLITS,
        max_length=500,
        help_text="name=ratio, comma separated; the ratios sum to 1.",
    )
    seed = forms.IntegerField(initial=0, min_value=0, help_text="Same seed, same data → same splits.")
    stratify = forms.BooleanField(
        required=False, label="Stratify by bucket (each stratum split in the same ratios)"
    )
    formats = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["strata"].choices = [(s, s) for s in project_strata(project=project)]
        # Only the files that fit the project's kind (a trace project has SFT, a step project
        # checklists, ...).
        self.fields["formats"].choices = format_choices(project.kind)
        stratum = STRATUM_NAMES.get(project.kind, "stratum")
        self.fields["stratify"].label = f"Stratify by {stratum} (each {stratum} split in the same ratios)"
        self.fields["formats"].initial = default_formats(project)

    def clean_splits(self) -> str:
        # The ratios are checked here too, so that their error shows with the other fields'.
        try:
            parse_splits(self.cleaned_data["splits"])
        except ExportRequestError as exc:
            raise forms.ValidationError(exc.errors["splits"]) from exc
        return self.cleaned_data["splits"]

    def request(self) -> dict:
        data = self.cleaned_data
        return {
            "filters": {
                "strata": data["strata"],
                "states": data["states"],
                "settled_from": data["settled_from"],
                "settled_to": data["settled_to"],
                "source": data["source"],
            },
            "split_policy": {"splits": data["splits"], "seed": data["seed"], "stratify": data["stratify"]},
            "formats": data["formats"],
        }


def _page(request: HttpRequest, form: ExportForm, status: int = 200) -> HttpResponse:
    context = {
        "project": request.project,
        "form": form,
        "exports": exports_for(project=request.project)[:RECENT_EXPORTS],
    }
    return render(request, "review/exports.html", context, status=status)


@require_http_methods(["GET", "POST"])
@project_role_required(MANAGERS)
def export_list(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, ExportForm(project=request.project))
    form = ExportForm(request.POST, project=request.project)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        export = export_create(project=request.project, actor=request.user, **form.request())
    except ExportRequestError as exc:
        for field, reason in exc.errors.items():
            form.add_error(field if field in form.fields else None, reason)
        return _page(request, form, status=400)
    return redirect("export_detail", request.project.slug, export.pk)


def _export_or_404(project: Project, export_id: int) -> Export:
    try:
        return export_for(project=project, export_id=export_id)
    except Export.DoesNotExist:
        raise Http404("No such export.") from None


@require_GET
@project_role_required(MANAGERS)
def export_detail(request: HttpRequest, export_id: int) -> HttpResponse:
    export = _export_or_404(request.project, export_id)
    context = {
        "project": request.project,
        "export": export,
        "manifest_json": json.dumps(export.manifest, indent=2, sort_keys=True, ensure_ascii=False),
    }
    if request.htmx:
        response = render(request, "review/exports.html#export_status", context)
        if export.status in (Export.Status.DONE, Export.Status.FAILED):
            # The poll that sees the end reloads the page once, to show the manifest too.
            response["HX-Refresh"] = "true"
        return response
    return render(request, "review/exports.html", context)


@require_GET
@project_role_required(MANAGERS)
def export_download(request: HttpRequest, export_id: int, filename: str) -> FileResponse:
    export = _export_or_404(request.project, export_id)
    # Only files the export itself listed, inside its own folder: nothing else can be named.
    if export.status != Export.Status.DONE or filename not in {f.get("name") for f in export.files}:
        raise Http404("No such file in this export.")
    folder = Path(export.directory).resolve()
    target = (folder / filename).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        raise Http404("The file is no longer on the server.")
    response = FileResponse(
        target.open("rb"),
        as_attachment=True,
        filename=f"{request.project.slug}-export-{export.pk}-{filename}",
        content_type=CONTENT_TYPES.get(target.suffix, "application/octet-stream"),
    )
    response["Cache-Control"] = "private, no-store"
    return response
