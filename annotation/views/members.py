"""Managers add people to a project, change their role, or remove them."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.access import MANAGERS, project_role_required
from annotation.models import Membership, Role
from annotation.services.projects import MembershipError, membership_remove, membership_set


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
