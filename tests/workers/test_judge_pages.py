"""Judge pages: a manager creates a judge with the default template, previews it on a real item
(escaped), starts a run and follows it; the key never shows; reviewers only look."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Role
from tests.factories import MembershipFactory, PairItemFactory, TrajectoryFactory
from tests.workers.test_judge_config import SECRET, make_config
from workers.judging.protocols import DEFAULT_TEMPLATES
from workers.models import JudgeConfig, JudgeRun
from workers.services.judges import judge_run_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager(client):
    membership = MembershipFactory(role=Role.MANAGER)
    client.force_login(membership.user)
    return membership


def form(**overrides) -> dict:
    return {
        "name": "page judge",
        "protocol": "pointwise",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "dev-judge",
        "api_key_env": "ARBITER_TEST_JUDGE_KEY",
        "temperature": "0",
        "samples": "1",
        "max_concurrency": "4",
        "requests_per_minute": "60",
        "tokens_per_minute": "0",
        "timeout_seconds": "30",
        "price_in_per_mtok": "1.5",
        "price_out_per_mtok": "2",
        "prompt_template": "",
        **overrides,
    }


def test_create_form_is_prefilled_and_blank_template_takes_the_protocols_default(
    client, manager, monkeypatch
):
    monkeypatch.setenv("ARBITER_TEST_JUDGE_KEY", SECRET)
    slug = manager.project.slug
    page = client.get(reverse("judge_list", args=[slug]))
    assert page.status_code == 200
    assert "Candidate A" in page.content.decode()  # the pairwise default template, prefilled
    response = client.post(reverse("judge_list", args=[slug]), form())
    config = JudgeConfig.objects.get(name="page judge")
    assert response.status_code == 302 and response["Location"] == reverse(
        "judge_detail", args=[slug, config.pk]
    )
    assert config.prompt_template == DEFAULT_TEMPLATES["pointwise"]
    detail = client.get(reverse("judge_detail", args=[slug, config.pk])).content.decode()
    assert "ARBITER_TEST_JUDGE_KEY" in detail and "set on this server" in detail
    assert SECRET not in detail
    bad = client.post(reverse("judge_list", args=[slug]), form(name="x", api_key_env="sk live key"))
    assert bad.status_code == 400 and "NAME of an environment variable" in bad.content.decode()


def test_edit_prompt_shows_history(client, manager):
    config = make_config(manager.project, manager.user)
    slug = manager.project.slug
    response = client.post(
        reverse("judge_detail", args=[slug, config.pk]),
        form(name=config.name, protocol="pairwise", prompt_template="Judge $candidate_a or $candidate_b"),
    )
    assert response.status_code == 302
    config.refresh_from_db()
    assert config.prompt_version == 2
    page = client.get(reverse("judge_detail", args=[slug, config.pk])).content.decode()
    assert "v2" in page and "Judge $candidate_a or $candidate_b" in page


def test_preview_renders_a_real_item_escaped(client, manager):
    project = manager.project
    evil = TrajectoryFactory(
        project=project, messages=[{"role": "assistant", "content": "<script>alert(1)</script>"}]
    )
    item = PairItemFactory(project=project, trajectory_first=evil)
    config = make_config(project, manager.user)
    url = reverse("judge_preview", args=[project.slug, config.pk])
    page = client.get(url, {"item": item.pk}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    assert "Request 2" in page  # pairwise: both orders
    partial = client.get(url, {"item": item.pk}, HTTP_HX_REQUEST="true")
    assert partial.status_code == 200 and "<html" not in partial.content.decode()
    missing = client.get(url, {"item": 999999})
    assert missing.status_code == 400 and "not an item of this project" in missing.content.decode()


def test_start_follow_and_cancel_a_run(client, manager, django_capture_on_commit_callbacks):
    project = manager.project
    PairItemFactory(project=project, stratum="easy")
    config = make_config(project, manager.user)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            reverse("judge_run_list", args=[project.slug]),
            {"config": config.pk, "strata": ["easy"], "force": "on"},
        )
    run = JudgeRun.objects.get()
    assert response.status_code == 302
    assert run.filters == {"strata": ["easy"]} and run.force
    url = reverse("judge_run_detail", args=[project.slug, run.pk])
    partial = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 1s"' in partial and "Cancel run" in partial and "<html" not in partial
    cancel = client.post(reverse("judge_run_cancel", args=[project.slug, run.pk]))
    assert cancel.status_code == 302
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.CANCELLED
    assert "every 1s" not in client.get(url).content.decode()
    bad = client.post(
        reverse("judge_run_list", args=[project.slug]), {"config": config.pk, "item_ids": "1, x"}
    )
    assert bad.status_code == 400 and "whole numbers" in bad.content.decode()


def test_reviewer_sees_no_manager_controls(client):
    reviewer = MembershipFactory(role=Role.REVIEWER)
    manager = MembershipFactory(project=reviewer.project, role=Role.MANAGER)
    config = make_config(reviewer.project, manager.user)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("workers.services.judges._enqueue", lambda run_id: None)
        run = judge_run_start(config=config, actor=manager.user, filters={})
    client.force_login(reviewer.user)
    slug = reviewer.project.slug
    assert "New judge" not in client.get(reverse("judge_list", args=[slug])).content.decode()
    assert "Cancel run" not in client.get(reverse("judge_run_detail", args=[slug, run.pk])).content.decode()
    assert "Start a run" not in client.get(reverse("judge_run_list", args=[slug])).content.decode()
