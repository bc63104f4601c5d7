"""The agreement report from the command line and the API."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from tests.audit.agreement_world import build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return build_world()


def run(*args) -> str:
    out = io.StringIO()
    call_command("agreement_report", *args, stdout=out)
    return out.getvalue()


def test_json_report_has_every_part(world):
    report = json.loads(run("agree", "--json", "--bootstrap", "100"))
    assert report["project"] == "agree" and report["by"] == "family"
    assert set(report) == {
        "project",
        "kind",
        "by",
        "overall",
        "strata",
        "annotator_matrix",
        "annotator_quality",
        "family_kappa",
        "kinds",
    }
    assert report["kinds"] == {"pca": None, "step": None, "trace": None, "query": None}
    assert report["strata"]["planning"]["cohen_kappa"]["value"] == pytest.approx(0.5)
    assert report["annotator_matrix"]["annotators"] == ["alice", "bob", "carol"]
    assert [q["username"] for q in report["annotator_quality"]] == ["alice", "bob", "carol", "dave"]
    assert [row["family"] for row in report["family_kappa"]] == ["planning", "safety"]
    assert report["overall"]["bootstrap"] == {"resamples": 100, "seed": 0, "confidence": 0.95}


def test_json_report_by_another_stratum_and_level(world):
    report = json.loads(run("agree", "--json", "--by", "domain", "--level", "ordinal", "--seed", "3"))
    assert report["by"] == "domain" and set(report["strata"]) == {"", "travel"}
    assert "weighted_kappa_quadratic" in report["overall"]
    assert report["overall"]["krippendorff_alpha"]["level"] == "ordinal"
    assert report["overall"]["bootstrap"]["seed"] == 3


def test_same_seed_same_report(world):
    assert run("agree", "--json", "--seed", "9") == run("agree", "--json", "--seed", "9")


def test_readable_report(world):
    text = run("agree", "--bootstrap", "50")
    assert "Per family:" in text
    assert "planning" in text and "safety" in text
    assert "0.500 [" in text and "moderate" in text
    assert "Annotator × annotator κ" in text and "alice" in text and "dave" in text
    assert "κ per family" in text


def test_unknown_project_is_a_clear_error(world):
    with pytest.raises(CommandError, match="No project with slug 'nope'. Known projects: agree"):
        run("nope", "--json")


def test_bad_options_are_clear_errors(world):
    with pytest.raises(CommandError, match="--seed must be 0 or more"):
        run("agree", "--seed", "-1")
    with pytest.raises(CommandError, match="--bootstrap must be between 0 and"):
        run("agree", "--bootstrap", "-5")


def test_api_answers_staff_with_the_report(world):
    client = APIClient()
    client.force_login(world.manager)
    url = reverse("api:agreement", args=["agree"])
    response = client.get(url, {"by": "family", "bootstrap": 100, "seed": 1})
    assert response.status_code == 200
    body = response.json()
    cli = json.loads(run("agree", "--json", "--bootstrap", "100", "--seed", "1"))
    assert body == cli


def test_api_refuses_annotators_and_bad_parameters(world):
    client = APIClient()
    client.force_login(world.users["alice"])
    url = reverse("api:agreement", args=["agree"])
    assert client.get(url).status_code == 404
    client.force_login(world.manager)
    response = client.get(url, {"by": "colour"})
    assert response.status_code == 400
    assert "by" in response.json()
    assert client.get(url, {"level": "ratio"}).status_code == 400
    assert client.get(url, {"bootstrap": -1}).status_code == 400
