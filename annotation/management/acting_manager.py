"""Who a manager command acts as: the named manager, or the project's first manager. The
audit log records a person for every change, also from the command line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotation.models import Membership, Project, Role


def acting_manager(project: Project, username: str | None, *, what: str):
    """The user to record; `what` names the action in the error when there is nobody."""
    if username:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--user: no user named {username!r}.")
        if not Membership.objects.filter(project=project, user=user, role=Role.MANAGER).exists():
            raise CommandError(f"--user: {username!r} is not a manager of {project.slug!r}.")
        return user
    membership = (
        Membership.objects.filter(project=project, role=Role.MANAGER)
        .select_related("user")
        .order_by("user__username")
        .first()
    )
    if membership is None:
        raise CommandError(f"{project.slug!r} has no manager to record as {what}; pass --user.")
    return membership.user
