"""Judge configurations: create, edit (a new prompt is a new version), the API key never shown."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Role
from review.models import AuditLog
from tests.factories import MembershipFactory, ProjectFactory
from workers.judging.protocols import DEFAULT_TEMPLATES
from workers.models import JudgeConfig, PromptRevision
from workers.services.judges import JudgeError, judge_config_create, judge_config_update

pytestmark = pytest.mark.django_db

SECRET = "sk-test-abcdef-never-shown"


def make_config(project, actor, **overrides) -> JudgeConfig:
    fields = {
        "name": "dev judge",
        "protocol": "pairwise",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "dev-judge",
        "api_key_env": "ARBITER_TEST_JUDGE_KEY",
        "prompt_template": DEFAULT_TEMPLATES["pairwise"],
        **overrides,
    }
    return judge_config_create(project=project, actor=actor, **fields)


@pytest.fixture
def manager():
    return MembershipFactory(role=Role.MANAGER)


def test_create_writes_version_one_and_an_audit_row(manager):
    config = make_config(manager.project, manager.user)
    assert config.prompt_version == 1
    assert list(PromptRevision.objects.filter(config=config).values_list("version", flat=True)) == [1]
    assert AuditLog.objects.filter(project=manager.project, action="judge_created").count() == 1


def test_bad_fields_are_explained_and_nothing_is_written(manager):
    with pytest.raises(JudgeError) as caught:
        make_config(
            manager.project,
            manager.user,
            protocol="vibes",
            base_url="ftp://x",
            api_key_env="sk-live key",
            requests_per_minute=0,
        )
    assert set(caught.value.errors) == {"protocol", "base_url", "api_key_env", "requests_per_minute"}
    assert "NAME of an environment variable" in caught.value.errors["api_key_env"]
    assert not JudgeConfig.objects.exists()
    make_config(manager.project, manager.user)
    with pytest.raises(JudgeError, match="already has a judge"):
        make_config(manager.project, manager.user)


def test_changed_prompt_is_a_new_version_other_edits_are_not(manager):
    config = make_config(manager.project, manager.user)
    config = judge_config_update(config=config, actor=manager.user, temperature=0.7, requests_per_minute=120)
    assert (config.prompt_version, config.temperature, config.requests_per_minute) == (1, 0.7, 120)
    config = judge_config_update(
        config=config, actor=manager.user, prompt_template="Judge: $candidate_a / $candidate_b"
    )
    assert config.prompt_version == 2
    revisions = dict(PromptRevision.objects.filter(config=config).values_list("version", "template"))
    assert revisions == {1: DEFAULT_TEMPLATES["pairwise"], 2: "Judge: $candidate_a / $candidate_b"}
    # The same template again changes nothing.
    config = judge_config_update(
        config=config, actor=manager.user, prompt_template="Judge: $candidate_a / $candidate_b"
    )
    assert config.prompt_version == 2
    assert AuditLog.objects.filter(action="judge_updated").count() == 2


def test_api_creates_edits_and_never_returns_the_key(manager, monkeypatch):
    monkeypatch.setenv("ARBITER_TEST_JUDGE_KEY", SECRET)
    client = APIClient()
    client.force_authenticate(manager.user)
    slug = manager.project.slug
    body = {
        "name": "gpt judge",
        "protocol": "pairwise",
        "base_url": "https://api.example.com/v1",
        "model": "gpt-test",
        "api_key_env": "ARBITER_TEST_JUDGE_KEY",
        "prompt_template": DEFAULT_TEMPLATES["pairwise"],
        "requests_per_minute": 300,
    }
    created = client.post(reverse("api:judge-list", args=[slug]), body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["api_key_set"] is True
    config_id = created.json()["id"]
    url = reverse("api:judge-detail", args=[slug, config_id])
    patched = client.patch(url, {"prompt_template": "New $candidate_a $candidate_b"}, format="json")
    assert patched.status_code == 200 and patched.json()["prompt_version"] == 2
    listed = client.get(reverse("api:judge-list", args=[slug]))
    for response in (created, patched, listed, client.get(url)):
        assert SECRET not in response.content.decode()
    # The key is not in the database either.
    assert SECRET not in str(list(JudgeConfig.objects.values()))
    bad = client.post(
        reverse("api:judge-list", args=[slug]), {**body, "name": "x", "base_url": "nope"}, format="json"
    )
    assert bad.status_code == 400 and "base_url" in bad.content.decode()


def test_reviewer_reads_but_cannot_create(manager):
    reviewer = MembershipFactory(project=manager.project, role=Role.REVIEWER)
    make_config(manager.project, manager.user)
    client = APIClient()
    client.force_authenticate(reviewer.user)
    assert client.get(reverse("api:judge-list", args=[manager.project.slug])).status_code == 200
    response = client.post(reverse("api:judge-list", args=[manager.project.slug]), {}, format="json")
    assert response.status_code == 404
    other = ProjectFactory()
    assert client.get(reverse("api:judge-list", args=[other.slug])).status_code == 404
