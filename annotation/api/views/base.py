"""What every project-scoped endpoint shares."""

from __future__ import annotations

from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.permissions import SAFE_METHODS

from annotation.access import ANY_ROLE, ProjectRolePermission
from annotation.models import Project, Role


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


# Mixins carry comments, not docstrings: the schema would show a docstring as every view's text.
class ProjectScoped:
    # For views under /api/projects/<slug>/. ProjectRolePermission sets `project` and
    # `project_role` (404 for non-members and for roles outside `project_roles`).

    permission_classes = [ProjectRolePermission]
    project_roles: tuple[str, ...] = ANY_ROLE
    project: Project
    project_role: str


class ReadAnyWriteAnnotator(ProjectScoped):
    # Any member reads; only annotators write (their own labels).

    @property
    def project_roles(self) -> tuple[str, ...]:
        if self.request.method in SAFE_METHODS:
            return ANY_ROLE
        return (Role.ANNOTATOR,)
