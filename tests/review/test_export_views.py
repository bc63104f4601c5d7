"""Export pages and API: managers ask for an export, follow it, download its files; nobody else
reaches them."""

from __future__ import annotations

import hashlib

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Role
from review.models import Export
from tests.factories import MembershipFactory, ProjectFactory
from tests.review.test_export_helpers import (  # noqa: F401 - exports_root is an autouse fixture
    export_dir,
    exports_root,
    manager_of,
    run_export,
    verified_pair,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory(slug="exp", name="Exports")
    for n in range(20):
        verified_pair(project, stratum="safety" if n % 2 else "robust")
    return project


@pytest.fixture
def manager(project):
    return manager_of(project)


@pytest.fixture
def client(manager):
    client = APIClient()
    client.force_login(manager)
    return client


def form(**overrides):
    data = {
        "splits": "train=0.8,dev=0.1,test=0.1",
        "seed": "4",
        "formats": ["preference", "interchange"],
        "states": ["verified"],
    }
    return {**data, **overrides}


def test_the_form_offers_the_project_strata_and_formats(client, project):
    response = client.get(reverse("export_list", args=[project.slug]))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'value="robust"' in page and 'value="safety"' in page
    assert 'value="preference"' in page and 'value="parquet"' in page
    assert "train=0.8,dev=0.1,test=0.1" in page
    assert "No exports yet." in page


def test_posting_queues_an_export_and_the_detail_page_follows_it(
    client, project, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(reverse("export_list", args=[project.slug]), form(stratify="on"))
    export = Export.objects.get(project=project)
    assert response.status_code == 302
    assert response["Location"] == reverse("export_detail", args=[project.slug, export.pk])
    assert len(queued) == 1  # the worker is asked only once the request's transaction commits
    assert export.status == Export.Status.QUEUED and export.items_total == 20

    # While queued, the status polls itself (and the page shows it without waiting).
    partial = client.get(export_url(export), HTTP_HX_REQUEST="true")
    assert 'hx-trigger="every 1s"' in partial.content.decode()
    assert "<html" not in partial.content.decode()
    assert "HX-Refresh" not in partial

    queued[0]()  # the task runs (eagerly here; tests/…/test_export_command.py runs a real worker)
    export.refresh_from_db()
    assert export.status == Export.Status.DONE
    assert export.split_policy == {
        "splits": [
            {"name": "train", "ratio": 0.8},
            {"name": "dev", "ratio": 0.1},
            {"name": "test", "ratio": 0.1},
        ],
        "seed": 4,
        "stratify": True,
    }
    finished = client.get(export_url(export), HTTP_HX_REQUEST="true")
    assert "hx-trigger" not in finished.content.decode()
    assert finished["HX-Refresh"] == "true"  # once, to show the manifest beside the files
    page = client.get(export_url(export)).content.decode()
    for entry in export.files:
        assert entry["sha256"] in page
        assert reverse("export_download", args=[project.slug, export.pk, entry["name"]]) in page
    assert "Manifest" in page and "&quot;seed&quot;: 4" in page
    listing = client.get(reverse("export_list", args=[project.slug])).content.decode()
    assert f"Export {export.pk}" in listing and "Done" in listing


def export_url(export):
    return reverse("export_detail", args=[export.project.slug, export.pk])


def test_bad_splits_come_back_with_the_reason_and_create_nothing(client, project):
    response = client.post(reverse("export_list", args=[project.slug]), form(splits="train=0.9,test=0.2"))
    assert response.status_code == 400
    assert "the ratios must sum to 1, but 0.9 + 0.2 = 1.1" in response.content.decode()
    assert not Export.objects.exists()


def test_every_bad_field_is_named_at_once(client, project):
    response = client.post(
        reverse("export_list", args=[project.slug]), form(splits="train=0.5", seed="many", formats=[])
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "the ratios must sum to 1, but 0.5 = 0.5" in page
    assert "Enter a whole number." in page
    assert "This field is required." in page


def test_download_streams_the_listed_file(client, project, manager):
    export = run_export(project, manager)
    url = reverse("export_download", args=[project.slug, export.pk, "train.preference.jsonl"])
    response = client.get(url)
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert body == (export_dir(export) / "train.preference.jsonl").read_bytes()
    listed = next(f for f in export.files if f["name"] == "train.preference.jsonl")
    assert hashlib.sha256(body).hexdigest() == listed["sha256"]
    assert "attachment" in response["Content-Disposition"]
    manifest = client.get(reverse("export_download", args=[project.slug, export.pk, "manifest.json"]))
    assert manifest.status_code == 200


@pytest.mark.parametrize(
    "name", ["..", "...", "manifest.json.bak", ".preference.spool", "%2e%2e", "secret.txt"]
)
def test_download_refuses_names_the_export_did_not_list(client, project, manager, name):
    export = run_export(project, manager)
    (export_dir(export) / "secret.txt").write_text("not part of the export")
    response = client.get(reverse("export_download", args=[project.slug, export.pk, name]))
    assert response.status_code == 404


def test_download_of_a_traversal_path_is_404(client, project, manager):
    export = run_export(project, manager)
    url = reverse("export_download", args=[project.slug, export.pk, "x"]).replace(
        "/x", "/..%2F..%2Fsettings.py"
    )
    assert client.get(url).status_code == 404


def test_a_listed_file_outside_the_folder_is_still_refused(client, project, manager):
    export = run_export(project, manager)
    Export.objects.filter(pk=export.pk).update(files=[*export.files, {"name": "..", "format": "x"}])
    assert client.get(reverse("export_download", args=[project.slug, export.pk, ".."])).status_code == 404


def test_an_unfinished_export_has_nothing_to_download(client, project, manager):
    export = run_export(project, manager)
    Export.objects.filter(pk=export.pk).update(status=Export.Status.RUNNING)
    url = reverse("export_download", args=[project.slug, export.pk, "manifest.json"])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.REVIEWER])
def test_only_managers_reach_exports(project, manager, role):
    export = run_export(project, manager)
    user = MembershipFactory(project=project, role=role).user
    client = APIClient()
    client.force_login(user)
    urls = [
        reverse("export_list", args=[project.slug]),
        reverse("export_detail", args=[project.slug, export.pk]),
        reverse("export_download", args=[project.slug, export.pk, "manifest.json"]),
        reverse("api:export-list", args=[project.slug]),
        reverse("api:export-detail", args=[project.slug, export.pk]),
    ]
    for url in urls:
        assert client.get(url).status_code == 404, url
    assert client.post(urls[0], form()).status_code == 404
    assert client.post(urls[3], {"splits": "all=1"}, format="json").status_code == 404
    assert Export.objects.count() == 1


# --- API --------------------------------------------------------------------------------------


def test_api_creates_an_export_and_reports_it(client, project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("api:export-list", args=[project.slug]),
            {
                "splits": "train=0.5,test=0.5",
                "seed": 9,
                "filters": {"strata": ["safety"]},
                "formats": ["interchange"],
            },
            format="json",
        )
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["status"] == "queued"
    detail = client.get(body["status_url"]).json()
    assert detail["status"] == "done"
    assert detail["items_total"] == detail["items_done"] == 10
    assert detail["filters"] == {"strata": ["safety"], "states": ["verified"]}
    assert {f["name"] for f in detail["files"]} == {
        "train.interchange.jsonl",
        "test.interchange.jsonl",
        "manifest.json",
    }
    download = client.get(detail["files"][0]["url"])
    assert download.status_code == 200
    assert detail["manifest"]["counts"]["items"] == 10
    listing = client.get(reverse("api:export-list", args=[project.slug])).json()
    assert [e["id"] for e in listing["results"]] == [body["id"]]


def test_api_names_every_bad_field(client, project):
    response = client.post(
        reverse("api:export-list", args=[project.slug]),
        {"splits": "train=0.8", "filters": {"strata": ["nope"]}},
        format="json",
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "the ratios must sum to 1, but 0.8 = 0.8" in errors["splits"]
    assert "not a stratum of this project: nope" in errors["strata"]
    assert not Export.objects.exists()


def test_api_detail_of_another_projects_export_is_404(client, project):
    other = ProjectFactory(slug="other-exp")
    export = run_export(other, manager_of(other))
    assert client.get(reverse("api:export-detail", args=[project.slug, export.pk])).status_code == 404
