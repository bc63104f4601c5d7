"""Authorization, in one place.

Every HTML view and API endpoint that touches a project goes through `project_for_user`
(or the `project_role_required` decorator / `ProjectRolePermission` built on it). Outsiders
get 404, not 403, so that project slugs and item ids do not leak. Staff are not implicitly
members: access comes from Membership alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission

from .models import Membership, Project, Role

ANY_ROLE = (Role.ANNOTATOR, Role.REVIEWER, Role.MANAGER)
STAFF_ROLES = (Role.REVIEWER, Role.MANAGER)  # may see every item and label of the project
MANAGERS = (Role.MANAGER,)


def role_in(user, project: Project) -> str | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, project=project).values_list("role", flat=True).first()


def projects_for(user) -> QuerySet[Project]:
    if not user.is_authenticated:
        return Project.objects.none()
    return Project.objects.filter(memberships__user=user)


def project_for_user(user, slug: str, roles: Iterable[str] = ANY_ROLE) -> tuple[Project, str]:
    """The project and the user's role in it; Http404 unless the role is one of `roles`."""
    project = get_object_or_404(Project, slug=slug)
    role = role_in(user, project)
    if role is None or role not in roles:
        raise Http404("No such project.")
    return project, role


def project_role_required(roles: Iterable[str] = ANY_ROLE) -> Callable:
    """View decorator: login, then membership with one of `roles` in the project named by the
    `slug` URL argument. Sets request.project and request.project_role."""
    allowed = tuple(roles)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, slug: str, *args, **kwargs) -> HttpResponse:
            request.project, request.project_role = project_for_user(request.user, slug, allowed)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


class ProjectRolePermission(BasePermission):
    """DRF permission for views under /api/projects/<slug>/. A view lists `project_roles`;
    the default is any member. Non-members get 404."""

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        slug = view.kwargs.get("slug")
        if slug is None:
            return True
        roles = getattr(view, "project_roles", ANY_ROLE)
        try:
            view.project, view.project_role = project_for_user(request.user, slug, roles)
        except Http404 as exc:
            raise NotFound("No such project.") from exc
        return True
