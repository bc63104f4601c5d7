"""Managers run their project: who is in it with which role, and its settings."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.access import MANAGERS, project_role_required
from annotation.models import ItemKind, Membership, Project, Role
from annotation.services.projects import (
    MembershipError,
    membership_remove,
    membership_set,
    project_settings_update,
)


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices)


@require_http_methods(["GET", "POST"])
@project_role_required(MANAGERS)
def member_list(request: HttpRequest) -> HttpResponse:
    project = request.project
    form = MemberForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            membership_set(project=project, actor=request.user, **form.cleaned_data)
        except MembershipError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{form.cleaned_data['username']} is now {form.cleaned_data['role']}.")
            return redirect("member_list", project.slug)
    members = (
        Membership.objects.filter(project=project).select_related("user").order_by("role", "user__username")
    )
    return render(request, "annotation/members.html", {"project": project, "members": members, "form": form})


@require_POST
@project_role_required(MANAGERS)
def member_remove(request: HttpRequest, membership_id: int) -> HttpResponse:
    membership = get_object_or_404(
        Membership.objects.select_related("user"), pk=membership_id, project=request.project
    )
    try:
        membership_remove(project=request.project, actor=request.user, membership=membership)
    except MembershipError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{membership.user.username} was removed from the project.")
    return redirect("member_list", request.project.slug)


CHECKLIST_SCOPE_CHOICES = [
    ("chosen", "the state after the best candidate (one list of marks)"),
    ("per_candidate", "the state after each candidate (a candidates × items grid)"),
    ("trajectory", "the trajectory so far, before any candidate (one list of marks)"),
]


class SettingsForm(forms.Form):
    name = forms.CharField(max_length=200)
    guidelines = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 12}))
    overlap = forms.IntegerField(
        min_value=1, max_value=20, help_text="Annotations wanted per item, for items imported from now on."
    )
    allow_tie = forms.BooleanField(required=False, label="Annotators may call a pair a tie")
    show_suggestions = forms.BooleanField(
        required=False, label="Pre-fill labels with machine suggestions (annotators see the judge's choice)"
    )
    show_annotator_names = forms.BooleanField(required=False, label="Show annotator names to reviewers")
    checklist_scope = forms.ChoiceField(
        choices=CHECKLIST_SCOPE_CHOICES,
        label="Step checklist marks judge",
        help_text="Labels already given keep their marks; a label that is edited takes the new scope.",
    )

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        # Only step items have a checklist.
        if project.kind != ItemKind.STEP:
            del self.fields["checklist_scope"]


@require_http_methods(["GET", "POST"])
@project_role_required(MANAGERS)
def project_settings(request: HttpRequest) -> HttpResponse:
    project = request.project
    initial = {
        "name": project.name,
        "guidelines": project.guidelines,
        "overlap": project.overlap,
        "allow_tie": project.allow_tie,
        "show_suggestions": project.show_suggestions,
        "show_annotator_names": project.label_schema.get("show_annotator_names", True),
        "checklist_scope": project.checklist_scope,
    }
    form = SettingsForm(request.POST or None, initial=initial, project=project)
    if request.method == "POST" and form.is_valid():
        try:
            project_settings_update(project=project, actor=request.user, **form.cleaned_data)
        except MembershipError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Settings saved.")
            return redirect("project_settings", project.slug)
    return render(request, "annotation/settings.html", {"project": project, "form": form})
