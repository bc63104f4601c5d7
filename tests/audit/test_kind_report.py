"""The per-kind sections in `agreement_report` (text and JSON) and GET …/agreement/."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from audit.api.agreement import AgreementReportSerializer
from tests.audit.kind_worlds import pca_world, query_world, step_world, trace_world

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("agreement_report", *args, stdout=out)
    return out.getvalue()


def test_pca_report_text_and_json():
    world = pca_world()
    text = run(world["project"].slug, "--bootstrap", "0")
    assert "P/C/A agreement per dimension:" in text
    assert "perception" in text and "0.250 fair" in text
    assert "P/C/A error categories" in text and "Avg (mean over domains)" in text
    assert "P/C/A judges, Pearson r vs settled labels:" in text and "0.707" in text
    report = json.loads(run(world["project"].slug, "--json", "--bootstrap", "0"))
    kinds = report["kinds"]
    assert kinds["step"] is None and kinds["trace"] is None and kinds["query"] is None
    assert kinds["pca"]["categories"]["overall"] == {"perception": 2, "cognition": 1, "action": 1, "none": 3}
    assert kinds["pca"]["agreement"]["perception"]["cohen_kappa"]["value"] == pytest.approx(0.25)


def test_step_trace_query_report_text():
    text = run(step_world()["project"].slug, "--bootstrap", "0")
    assert "Step agreement:" in text and "checklist marks (ordinal)" in text
    assert "Lenient best candidate (equivalent counts): 83.3% of label pairs, κ 0.739." in text
    assert "prm-8b" in text and "0.917" in text and "50.0% of 2" in text
    text = run(trace_world()["project"].slug, "--bootstrap", "0")
    assert "Trace agreement" in text and "check tool_choice" in text and "0.571" in text
    text = run(query_world()["project"].slug, "--bootstrap", "0")
    assert "Query agreement:" in text and "0.538" in text and "Decisions: pick 7, edit 2, reject 3." in text


@pytest.mark.parametrize("make", [pca_world, step_world, trace_world, query_world])
def test_api_answers_the_same_report_in_its_schema(make):
    world = make()
    client = APIClient()
    client.force_login(world["reviewer"])
    url = reverse("api:agreement", args=[world["project"].slug])
    response = client.get(url, {"bootstrap": 50, "seed": 2})
    assert response.status_code == 200
    body = response.json()
    assert body == json.loads(run(world["project"].slug, "--json", "--bootstrap", "50", "--seed", "2"))
    # The body fits the documented schema (the serializer reads it back without errors).
    serializer = AgreementReportSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    assert sum(section is not None for section in body["kinds"].values()) == 1
    client.force_login(world["ann1"])
    assert client.get(url).status_code == 404
