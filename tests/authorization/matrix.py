"""The vocabulary of the authorization matrix: roles, expected codes, cases and the helpers
that build URL arguments from the test world. Rows live in the cases_*.py modules, one per
area, so each area adds its own; test_matrix.py walks the URL map against all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.fixtures_path import SHARED_FIXTURES

ROLES = ("anonymous", "outsider", "annotator", "reviewer", "manager")
LOGIN = "login"  # anonymous on an HTML page: 302 to the login page
API_ANON = frozenset({401, 403})  # anonymous on the API: not authenticated
PASSWORD = "pw-for-tests"


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
