"""Every URL of the project × every role, with the status code each must get.

The matrix is checked against the URL resolver: a URL pattern (or an API method) that has no
row here fails `test_every_url_is_in_the_matrix`, so nothing new ships without its rules.
Roles: anonymous; outsider (a manager of another project only); annotator, reviewer and
manager of the project under test. Outsiders get 404, never 403, so slugs and ids do not
leak; so does anyone asking for an object of another project through this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from annotation.importers.media import project_media_root
from annotation.models import Membership, Role
from tests.api.factories import AnnotationFactory, AssignmentFactory, ImportJobFactory
from tests.factories import MembershipFactory, PairItemFactory, ProjectFactory
from tests.fixtures_path import SHARED_FIXTURES

ROLES = ("anonymous", "outsider", "annotator", "reviewer", "manager")
LOGIN = "login"  # anonymous on an HTML page: 302 to the login page
API_ANON = frozenset({401, 403})  # anonymous on the API: not authenticated
PASSWORD = "pw-for-tests"

# Parts of the URL map that are not the platform's and carry their own rules.
EXCLUDED_NAMESPACES = {
    "admin": "Django admin: staff-only by Django's own checks, holds no per-project views",
}


@dataclass(frozen=True)
class Case:
    name: str  # URL name, namespaced
    expect: tuple  # one entry per ROLES: an int, a set of ints, or LOGIN
    variant: str = ""
    method: str = "get"
    args: Callable = lambda w: []
    data: Callable | None = None  # (world, user) -> request body
    fmt: str = "multipart"

    @property
    def id(self) -> str:
        return f"{self.name}[{self.variant}]" if self.variant else self.name


def P(w):  # noqa: N802 - reads as "the project's slug" in the rows below
    return [w.project.slug]


def held(w):
    return [w.project.slug, w.held.pk]


def free(w):
    return [w.project.slug, w.free.pk]


def foreign(w):
    return [w.project.slug, w.foreign.pk]


def own_creds(w, user):
    if user is None:
        return {"username": "nobody", "password": "wrong"}
    return {"username": user.username, "password": PASSWORD}


def jsonl_upload(w, user):
    return {"file": SimpleUploadedFile("pairs.jsonl", (SHARED_FIXTURES / "pairs.jsonl").read_bytes())}


def submit_body(item_attr):
    return lambda w, user: {
        "item": getattr(w, item_attr).pk,
        "label_seen": {"preferred": "A"},
        "client_id": "8f0c6f3e-4d3b-4c69-9a40-0a5f3c7e2b11",
    }


def reason(w, user):
    return {"reason": "unreadable"}


def empty(w, user):
    return {}


def edit_body(w, user):
    return {"version": 1, "label": {"preferred": "second"}}


def labeled(w):
    return [w.project.slug, w.labeled.pk]


def pk_of(attr):
    """URL args: the project under test and the id of `world.<attr>`."""
    return lambda w: [w.project.slug, getattr(w, attr).pk]


def message(item_args):
    return lambda w: [*item_args(w), "A", 2]


def media(rel):
    return lambda w: [w.project.slug, rel]


C = Case
POST, PATCH, JSON = "post", "patch", "json"
# fmt: off
CASES = [
    # --- pages outside projects
    C("home", (LOGIN, 200, 200, 200, 200)),
    C("login", (200, 200, 200, 200, 200)),
    C("logout", (302, 302, 302, 302, 302), method=POST),
    C("healthz", (200, 200, 200, 200, 200)),
    C("api-schema", (200, 200, 200, 200, 200)),
    C("api-docs", (200, 200, 200, 200, 200)),
    # --- project pages            anonymous outsider annotator reviewer manager
    C("project",                  (LOGIN, 404, 200, 200, 200), args=P),
    # Annotators are sent to their item; reviewers and managers to the item list.
    C("queue_next",               (LOGIN, 404, 302, 302, 302), args=P),
    C("item_list",                (LOGIN, 404, 404, 200, 200), args=P),
    C("my_labels",                (LOGIN, 404, 200, 200, 200), args=P),
    C("label_item",               (LOGIN, 404, 200, 200, 200), "held", args=held),
    C("label_item",               (LOGIN, 404, 200, 200, 200), "labeled", args=labeled),
    C("label_item",               (LOGIN, 404, 404, 200, 200), "not assigned", args=free),
    C("label_item",               (LOGIN, 404, 404, 404, 404), "other project", args=foreign),
    # POST with an empty form: the annotator gets the form back with errors; staff read only.
    C("label_item",               (LOGIN, 404, 400, 403, 403), "post", method=POST, args=held, data=empty),
    C("label_item",               (LOGIN, 404, 404, 403, 403), "post not assigned", method=POST, args=free,
      data=empty),
    C("skip_item",                (LOGIN, 404, 302, 404, 404), "held", method=POST, args=held, data=reason),
    C("skip_item",                (LOGIN, 404, 404, 404, 404), "not assigned", method=POST, args=free,
      data=reason),
    C("skip_item",                (LOGIN, 404, 404, 404, 404), "other project", method=POST, args=foreign,
      data=reason),
    C("message_body",             (LOGIN, 404, 200, 200, 200), "held", args=message(held)),
    C("message_body",             (LOGIN, 404, 404, 200, 200), "not assigned", args=message(free)),
    C("message_body",             (LOGIN, 404, 404, 404, 404), "other project", args=message(foreign)),
    C("member_list",              (LOGIN, 404, 404, 404, 200), args=P),
    C("member_list",              (LOGIN, 404, 404, 404, 200), "post", method=POST, args=P, data=empty),
    C("member_remove",            (LOGIN, 404, 404, 404, 302), method=POST,
      args=pk_of("reviewer_membership")),
    C("member_remove",            (LOGIN, 404, 404, 404, 404), "other project", method=POST,
      args=pk_of("foreign_membership")),
    C("import_upload",            (LOGIN, 404, 404, 404, 200), args=P),
    C("import_upload",            (LOGIN, 404, 404, 404, {200, 302, 400}), "post", method=POST, args=P,
      data=empty),
    C("import_status",            (LOGIN, 404, 404, 404, 200), args=pk_of("job")),
    C("import_status",            (LOGIN, 404, 404, 404, 404), "other project", args=pk_of("foreign_job")),
    C("media_file",               (LOGIN, 404, 200, 200, 200), args=media("media/shot.png")),
    C("media_file",               (LOGIN, 404, 404, 404, 404), "other project",
      args=media("media/only-beta.png")),
    # --- API
    C("api:token",                (400, 200, 200, 200, 200), method=POST, data=own_creds, fmt=JSON),
    C("api:project-list",         (API_ANON, 200, 200, 200, 200)),
    C("api:project-detail",       (API_ANON, 404, 200, 200, 200), args=P),
    C("api:item-list",            (API_ANON, 404, 404, 200, 200), args=P),
    C("api:item-detail",          (API_ANON, 404, 200, 200, 200), "held", args=held),
    C("api:item-detail",          (API_ANON, 404, 404, 200, 200), "not assigned", args=free),
    C("api:item-detail",          (API_ANON, 404, 404, 404, 404), "other project", args=foreign),
    C("api:import-create",        (API_ANON, 404, 404, 404, 202), method=POST, args=P, data=jsonl_upload),
    C("api:import-detail",        (API_ANON, 404, 404, 404, 200), args=pk_of("job")),
    C("api:import-detail",        (API_ANON, 404, 404, 404, 404), "other project", args=pk_of("foreign_job")),
    C("api:annotation-list",      (API_ANON, 404, 200, 200, 200), args=P),
    C("api:annotation-list",      (API_ANON, 404, 201, 404, 404), "submit", method=POST, args=P,
      data=submit_body("held"), fmt=JSON),
    C("api:annotation-list",      (API_ANON, 404, 409, 404, 404), "submit not assigned", method=POST, args=P,
      data=submit_body("free"), fmt=JSON),
    C("api:annotation-list",      (API_ANON, 404, 404, 404, 404), "submit other project", method=POST,
      args=P, data=submit_body("foreign"), fmt=JSON),
    C("api:annotation-detail",    (API_ANON, 404, 200, 200, 200), "own", args=pk_of("annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 404, 200, 200), "peer's",
      args=pk_of("peer_annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 404, 404, 404), "other project",
      args=pk_of("foreign_annotation")),
    C("api:annotation-detail",    (API_ANON, 404, 200, 404, 404), "edit own", method=PATCH,
      args=pk_of("annotation"), data=edit_body, fmt=JSON),
    C("api:annotation-detail",    (API_ANON, 404, 404, 404, 404), "edit peer's", method=PATCH,
      args=pk_of("peer_annotation"), data=edit_body, fmt=JSON),
    C("api:queue-next",           (API_ANON, 404, 200, 404, 404), method=POST, args=P),
    C("api:queue-skip",           (API_ANON, 404, 200, 404, 404), "held", method=POST, args=held,
      data=reason, fmt=JSON),
    C("api:queue-skip",           (API_ANON, 404, 404, 404, 404), "not assigned", method=POST, args=free,
      data=reason, fmt=JSON),
    C("api:queue-skip",           (API_ANON, 404, 404, 404, 404), "other project", method=POST,
      args=foreign, data=reason, fmt=JSON),
]
# fmt: on


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


# --- the data --------------------------------------------------------------------------------


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
