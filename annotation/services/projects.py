"""Project membership: who holds which role."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.models import Membership, Project, Role
from annotation.models.project import CHECKLIST_SCOPES
from review.lifecycle import audit_log_write


class MembershipError(ValueError):
    pass


@transaction.atomic
def membership_set(*, project: Project, actor, username: str, role: str) -> Membership:
    """Add `username` to the project with `role`, or change their role."""
    if role not in Role.values:
        raise MembershipError(f"Unknown role {role!r}; choose one of {', '.join(Role.values)}.")
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise MembershipError(f"There is no user called {username.strip()!r}.")
    membership = Membership.objects.filter(project=project, user=user).first()
    before = membership.role if membership else ""
    if membership and before == Role.MANAGER and role != Role.MANAGER:
        _keep_a_manager(project, membership)
    membership, _ = Membership.objects.update_or_create(project=project, user=user, defaults={"role": role})
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="membership",
        data={"user": user.username, "from": before, "to": role},
    )
    return membership


@transaction.atomic
def membership_remove(*, project: Project, actor, membership: Membership) -> None:
    if membership.project_id != project.pk:
        raise MembershipError("That membership belongs to another project.")
    if membership.role == Role.MANAGER:
        _keep_a_manager(project, membership)
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="membership",
        data={"user": membership.user.username, "from": membership.role, "to": ""},
    )
    membership.delete()


def _keep_a_manager(project: Project, leaving: Membership) -> None:
    others = Membership.objects.filter(project=project, role=Role.MANAGER).exclude(pk=leaving.pk)
    if not others.select_for_update().exists():
        raise MembershipError("A project needs at least one manager; add another manager first.")


SETTINGS_FIELDS = ("name", "guidelines", "overlap", "show_suggestions")
SCHEMA_FLAGS = ("allow_tie", "show_annotator_names")
# label_schema settings with a fixed set of values: what a step item's checklist marks judge.
SCHEMA_CHOICES = {"checklist_scope": CHECKLIST_SCOPES}


@transaction.atomic
def project_settings_update(*, project: Project, actor, **fields) -> Project:
    """Change what a manager may change about a running project; label-schema flags live in
    `label_schema`. Overlap is the default for items imported later: existing items keep theirs
    (an audit sample sets them per item)."""
    unknown = set(fields) - set(SETTINGS_FIELDS) - set(SCHEMA_FLAGS) - set(SCHEMA_CHOICES)
    if unknown:
        raise MembershipError(f"Unknown setting(s): {', '.join(sorted(unknown))}.")
    for name, allowed in SCHEMA_CHOICES.items():
        if name in fields and fields[name] not in allowed:
            raise MembershipError(f"{name} must be one of {', '.join(allowed)}; got {fields[name]!r}.")
    if "overlap" in fields and not 1 <= int(fields["overlap"]) <= 20:
        raise MembershipError("Overlap is the number of annotations per item: 1 to 20.")
    project = Project.objects.select_for_update().get(pk=project.pk)
    before = {name: getattr(project, name) for name in SETTINGS_FIELDS if name in fields}
    for name in SETTINGS_FIELDS:
        if name in fields:
            setattr(project, name, fields[name])
    schema = dict(project.label_schema)
    for flag in SCHEMA_FLAGS:
        if flag in fields:
            before[flag] = schema.get(flag, True)
            schema[flag] = bool(fields[flag])
    for name in SCHEMA_CHOICES:
        if name in fields:
            before[name] = getattr(project, name)
            schema[name] = fields[name]
    project.label_schema = schema
    project.save()
    audit_log_write(
        project_id=project.pk,
        actor=actor,
        action="project_settings",
        data={"changed": sorted(k for k in fields if before.get(k) != fields[k])}
        | {
            f"{k}_from_to": [before[k], fields[k]]
            for k in SCHEMA_CHOICES
            if k in fields and before[k] != fields[k]
        },
    )
    return project
