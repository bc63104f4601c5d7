"""Token authentication, anonymous access, and the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from tests.api.factories import token_for


def test_token_from_username_and_password_then_token_auth(project, annotator):
    client = APIClient()
    response = client.post(
        reverse("api:token"), {"username": "ann", "password": "pw-for-tests"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert token == token_for(annotator)

    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    projects = client.get(reverse("api:project-list"))
    assert projects.status_code == 200
    assert [row["slug"] for row in projects.json()["results"]] == [project.slug]


def test_wrong_password_gets_no_token(annotator):
    response = APIClient().post(reverse("api:token"), {"username": "ann", "password": "wrong"}, format="json")
    assert response.status_code == 400
    assert "token" not in response.json()


def test_bad_token_is_refused(project):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert client.get(reverse("api:project-list")).status_code in (401, 403)


@pytest.mark.django_db
def test_anonymous_gets_no_data():
    response = APIClient().get(reverse("api:project-list"))
    assert response.status_code in (401, 403)


@pytest.mark.django_db
def test_schema_is_valid_openapi_and_lists_every_endpoint():
    response = APIClient().get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    validate_schema(schema)  # raises on anything that is not OpenAPI 3
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    expected = {
        "/api/auth/token/": {"post"},
        "/api/projects/": {"get"},
        "/api/projects/{slug}/": {"get"},
        "/api/projects/{slug}/items/": {"get"},
        "/api/projects/{slug}/items/{item_id}/": {"get"},
        "/api/projects/{slug}/import/": {"post"},
        "/api/projects/{slug}/import/{job_id}/": {"get"},
        "/api/projects/{slug}/annotations/": {"get", "post"},
        "/api/projects/{slug}/annotations/{annotation_id}/": {"get", "patch"},
        "/api/projects/{slug}/queue/next/": {"post"},
        "/api/projects/{slug}/queue/{item_id}/skip/": {"post"},
    }
    for path, methods in expected.items():
        assert path in paths, path
        assert methods <= set(paths[path]), (path, set(paths[path]))
    submit = paths["/api/projects/{slug}/annotations/"]["post"]
    assert {"200", "201", "400", "409"} <= set(submit["responses"])
    assert "tokenAuth" in schema["components"]["securitySchemes"]


@pytest.mark.django_db
def test_schema_generates_without_warnings(tmp_path):
    """The same check as `manage.py spectacular --validate --fail-on-warn`: every endpoint has
    serializers the generator understands."""
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/projects/{slug}/queue/next/" in (tmp_path / "schema.yaml").read_text()
