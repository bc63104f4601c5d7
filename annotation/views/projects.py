"""The home page and a project's overview."""

from __future__ import annotations

import markdown
import nh3
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation import selectors
from annotation.access import project_role_required
from annotation.services.queue import current_assignment


def render_guidelines(text: str) -> str:
    """Guidelines are markdown written by managers; sanitised, never trusted."""
    return nh3.clean(markdown.markdown(text, extensions=["tables", "fenced_code"]))


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation/home.html", {"projects": selectors.project_list(user=request.user)})


@require_GET
@project_role_required()
def project_overview(request: HttpRequest) -> HttpResponse:
    project = request.project
    context = {
        "project": project,
        "role": request.project_role,
        "progress": selectors.progress(project=project, annotator=request.user),
        "held": current_assignment(project=project, annotator=request.user),
        "guidelines_html": render_guidelines(project.guidelines),
    }
    return render(request, "annotation/project.html", context)
