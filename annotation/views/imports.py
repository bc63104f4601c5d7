"""Import pages (managers): upload a JSONL file, watch its job; and project media (members)."""

from __future__ import annotations

import zipfile

from django import forms
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation import selectors
from annotation.access import ANY_ROLE, MANAGERS, project_role_required
from annotation.importers.media import MEDIA_TYPES, stored_media_file
from annotation.models import ImportJob
from annotation.services.imports import import_job_create

RECENT_JOBS = 20


class ImportUploadForm(forms.Form):
    file = forms.FileField(label="JSONL file", help_text="One record per line (.jsonl).")
    media = forms.FileField(
        label="Media (zip)",
        required=False,
        help_text="The images/videos the records name, e.g. media/x.png, as a zip.",
    )
    replace = forms.BooleanField(
        label="Replace records already imported (only those without annotations)", required=False
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".jsonl", ".ndjson")):
            raise forms.ValidationError("Upload a .jsonl file (one JSON record per line).")
        return upload

    def clean_media(self):
        upload = self.cleaned_data.get("media")
        if upload and not zipfile.is_zipfile(upload):
            raise forms.ValidationError("The media file must be a zip archive.")
        if upload:
            upload.seek(0)
        return upload


def _page(request: HttpRequest, form: ImportUploadForm, job: ImportJob | None = None) -> HttpResponse:
    context = {
        "project": request.project,
        "form": form,
        "job": job,
        "jobs": selectors.import_jobs(project=request.project)[:RECENT_JOBS],
    }
    return render(request, "annotation/imports.html", context)


@require_http_methods(["GET", "POST"])
@project_role_required(MANAGERS)
def import_upload(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, ImportUploadForm())
    form = ImportUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, form)
    job = import_job_create(
        project=request.project,
        actor=request.user,
        upload=form.cleaned_data["file"],
        media_zip=form.cleaned_data.get("media"),
        replace=form.cleaned_data["replace"],
    )
    return redirect("import_status", request.project.slug, job.pk)


@require_GET
@project_role_required(MANAGERS)
def import_status(request: HttpRequest, job_id: int) -> HttpResponse:
    job = get_object_or_404(
        ImportJob.objects.select_related("created_by"), pk=job_id, project=request.project
    )
    if request.htmx:
        return render(request, "annotation/imports.html#job_status", {"project": request.project, "job": job})
    return _page(request, ImportUploadForm(), job)


@require_GET
@project_role_required(ANY_ROLE)
def media_file(request: HttpRequest, path: str) -> FileResponse:
    target = stored_media_file(request.project.slug, path)
    if target is None:
        raise Http404("No such media file.")
    response = FileResponse(target.open("rb"), content_type=MEDIA_TYPES[target.suffix.lower()])
    # Members only: never in shared caches.
    response["Cache-Control"] = "private, max-age=3600"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response
