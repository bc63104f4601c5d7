"""Every URL of the project x every role, with the status code each must get.

The rows are in cases_*.py; this module builds the world they run in and checks them against
the URL resolver: a URL pattern (or an API method) that has no row fails
`test_every_url_is_in_the_matrix`, so nothing new ships without its rules. Roles: anonymous;
outsider (a manager of another project only); annotator, reviewer and manager of the project
under test. Outsiders get 404, never 403, so slugs and ids do not leak; so does anyone asking
for an object of another project through this one.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from annotation.importers.media import project_media_root
from annotation.models import Membership, Role
from tests.api.factories import AnnotationFactory, AssignmentFactory, ImportJobFactory
from tests.authorization import (
    cases_agreement,
    cases_annotation,
    cases_audit,
    cases_exports,
    cases_judges,
    cases_review,
)
from tests.authorization.matrix import LOGIN, ROLES, Case
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory

AREAS = (cases_annotation, cases_review, cases_exports, cases_agreement, cases_audit, cases_judges)
CASES: list[Case] = [case for area in AREAS for case in area.CASES]

# Parts of the URL map that are not the platform's and carry their own rules.
EXCLUDED_NAMESPACES = {
    "admin": "Django admin: staff-only by Django's own checks, holds no per-project views",
}


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


@pytest.fixture
def world(db):
    project = ProjectFactory(slug="alpha", name="Alpha")
    other = ProjectFactory(slug="beta", name="Beta")
    users = {
        role: MembershipFactory(project=project, role=role, user__username=role).user
        for role in (Role.ANNOTATOR, Role.REVIEWER, Role.MANAGER)
    }
    users["outsider"] = MembershipFactory(project=other, role=Role.MANAGER, user__username="outsider").user
    users["anonymous"] = None
    peer = MembershipFactory(project=project, role=Role.ANNOTATOR, user__username="peer").user
    annotator = users[Role.ANNOTATOR]

    w = SimpleNamespace(project=project, other=other, users=users)
    w.held = PairItemFactory(project=project, priority=10)  # the queue hands this one out first
    AssignmentFactory(item=w.held, annotator=annotator)
    w.labeled = PairItemFactory(project=project)
    w.annotation = AnnotationFactory(item=w.labeled, annotator=annotator)
    w.peer_annotation = AnnotationFactory(item=w.labeled, annotator=peer)
    w.free = PairItemFactory(project=project)
    w.foreign = PairItemFactory(project=other)
    AssignmentFactory(item=w.foreign, annotator=annotator)  # must still not open it through alpha
    w.foreign_annotation = AnnotationFactory(item=w.foreign, annotator=users["outsider"])
    w.job = ImportJobFactory(project=project, created_by=users[Role.MANAGER])
    w.foreign_job = ImportJobFactory(project=other, created_by=users["outsider"])
    w.reviewer_membership = Membership.objects.get(project=project, user=users[Role.REVIEWER])
    w.foreign_membership = Membership.objects.get(project=other, user=users["outsider"])
    for slug, rel in (("alpha", "media/shot.png"), ("beta", "media/only-beta.png")):
        path = project_media_root(slug) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(PNG)
    for area in AREAS:
        extend = getattr(area, "extend_world", None)
        if extend is not None:
            extend(w)
    return w


def _expected(case: Case, role: str):
    return case.expect[ROLES.index(role)]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_status_code(world, case: Case, role: str):
    user = world.users[role]
    client = APIClient()
    if user is not None:
        client.force_login(user)
    url = reverse(case.name, args=case.args(world))
    data = case.data(world, user) if case.data else None
    kwargs = {"format": case.fmt} if case.method != "get" else {}
    response = getattr(client, case.method)(url, data, **kwargs)

    expected = _expected(case, role)
    got = response.status_code
    where = f"{case.method.upper()} {url} as {role}"
    if expected == LOGIN:
        assert got == 302, f"{where}: expected a redirect to log in, got {got}"
        assert response["Location"].startswith(reverse(settings.LOGIN_URL)), (
            f"{where}: {response['Location']}"
        )
    elif isinstance(expected, (set, frozenset)):
        assert got in expected, f"{where}: expected one of {sorted(expected)}, got {got}"
    else:
        assert got == expected, f"{where}: expected {expected}, got {got}"


# --- the URL map ---------------------------------------------------------------------------


def walk(patterns, prefix: str = "", namespace: str = "") -> Iterator[tuple[str | None, str, object]]:
    """(namespaced name, route, callback) for every leaf pattern, outside excluded namespaces."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if pattern.namespace in EXCLUDED_NAMESPACES:
                continue
            ns = ":".join(filter(None, [namespace, pattern.namespace]))
            yield from walk(pattern.url_patterns, route, ns)
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name}" if namespace and pattern.name else pattern.name
            yield name, route, pattern.callback


def api_methods(callback) -> set[str]:
    """The HTTP methods a DRF view answers (other than HEAD/OPTIONS)."""
    cls = getattr(callback, "cls", None)
    if cls is None:
        return set()
    return {m for m in cls.http_method_names if m not in ("head", "options") and hasattr(cls, m)}


def test_every_url_is_in_the_matrix():
    in_matrix = {case.name for case in CASES}
    problems = []
    for name, route, callback in walk(get_resolver().url_patterns):
        if name is None:
            problems.append(f"unnamed URL pattern {route!r}: give it a name and add rows for it here")
        elif name not in in_matrix:
            problems.append(f"URL {name!r} ({route}) has no row in the authorization matrix")
        else:
            covered = {case.method for case in CASES if case.name == name}
            for method in sorted(api_methods(callback) - covered):
                problems.append(f"API {name!r} answers {method.upper()} but the matrix never tries it")
    assert not problems, "\n".join(problems)


def test_matrix_has_no_stale_rows():
    names = {name for name, _, _ in walk(get_resolver().url_patterns)}
    stale = sorted({case.name for case in CASES} - names)
    assert not stale, f"rows for URL names that no longer exist: {stale}"
