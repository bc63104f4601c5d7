"""Judge runs against the dev LLM server over real HTTP: faults are retried or recorded, every
item is judged exactly once, re-runs skip, force re-judges, cancel stops."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Role, Suggestion
from tests.factories import MembershipFactory, PairItemFactory, TrajectoryFactory
from tests.workers.test_judge_config import make_config
from workers.devllm import DevLLMServer
from workers.judging import client as judge_client
from workers.judging import runner
from workers.judging.runner import run_judge
from workers.models import JudgeRun
from workers.services.judges import JudgeError, judge_config_update, judge_run_cancel, judge_run_start

pytestmark = pytest.mark.django_db

KEY_ENV = "ARBITER_TEST_JUDGE_KEY"


def pair_items(project, n: int) -> list:
    """Pairs with distinct contents, so the dev server's faults fall on some of them."""
    items = []
    for i in range(n):
        first = TrajectoryFactory(
            project=project, messages=[{"role": "assistant", "content": f"Booked #{i}."}]
        )
        second = TrajectoryFactory(
            project=project,
            messages=[
                {"role": "assistant", "content": f"Tried {i} times; error: the search failed " + "x" * i}
            ],
        )
        items.append(PairItemFactory(project=project, trajectory_first=first, trajectory_second=second))
    return items


@pytest.fixture(autouse=True)
def _key_and_fast_backoff(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "dev-key")
    monkeypatch.setattr(judge_client, "BACKOFF_BASE", 0.01)


@pytest.fixture
def manager():
    return MembershipFactory(role=Role.MANAGER)


@pytest.fixture
def server():
    with DevLLMServer(port=0) as running:
        yield running


def start(config, manager, **kwargs) -> JudgeRun:
    return judge_run_start(config=config, actor=manager.user, filters=kwargs.pop("filters", {}), **kwargs)


def test_faults_are_retried_malformed_answers_recorded_every_item_once(manager, server):
    items = pair_items(manager.project, 24)
    config = make_config(
        manager.project,
        manager.user,
        base_url=server.url,
        model="dev-judge?rate_429=0.2&rate_500=0.15&rate_timeout=0.1&malformed=0.3&timeout_s=3&retry_after=0.05",
        max_concurrency=6,
        requests_per_minute=10_000,
    )
    config.timeout_seconds = 1.0  # the service's floor is 1 s; a timeout fault holds 3 s
    config.save()
    run = run_judge(start(config, manager).pk)
    assert run.status == JudgeRun.Status.DONE, run.error
    suggestions = Suggestion.objects.filter(judge_config=config)
    assert suggestions.count() == len(items)
    assert sorted(suggestions.values_list("item_id", flat=True)) == sorted(i.pk for i in items)
    failed = suggestions.exclude(error="")
    assert run.items_done + run.items_failed == len(items)
    assert run.items_failed == failed.count()
    stats = server.stats.snapshot()
    assert (
        stats["by_status"].get("429") and stats["by_status"].get("500") and stats["by_status"].get("timeout")
    )
    # Malformed answers are repaired once (the dev server cures a repair turn): none fail here.
    assert stats["malformed"] > 0
    assert failed.count() == 0, list(failed.values_list("error", flat=True))
    good = suggestions.first()
    assert good.label["preferred"] in ("first", "second", "tie", "inconsistent")
    assert good.tokens_in > 0 and good.raw_output
    assert run.requests_made >= 2 * len(items) and run.tokens_in > 0


def test_a_malformed_answer_that_stays_malformed_is_a_failed_suggestion(manager, server, monkeypatch):
    items = pair_items(manager.project, 3)
    config = make_config(manager.project, manager.user, base_url=server.url, model="dev-judge?malformed=1")
    # The repair turn is not recognised: the second answer is malformed too.
    monkeypatch.setattr("workers.judging.protocols.repair_messages", lambda m, bad, err: m)
    run = run_judge(start(config, manager).pk)
    assert run.status == JudgeRun.Status.DONE
    assert run.items_failed == len(items) and run.items_done == 0
    for suggestion in Suggestion.objects.filter(judge_config=config):
        assert "Malformed answer, also after one repair" in suggestion.error
        assert "Sure! I think A is better." in suggestion.raw_output
        assert suggestion.label == {}
    # Two answers per order, each repaired at most once: 2 orders × (1 + 1) requests per item.
    assert run.requests_made == 4 * len(items)


def test_rerun_skips_force_rejudges_new_prompt_version_judges_again(manager, server):
    items = pair_items(manager.project, 5)
    config = make_config(manager.project, manager.user, base_url=server.url)
    first = run_judge(start(config, manager).pk)
    assert (first.items_done, first.items_skipped) == (5, 0)
    created = dict(Suggestion.objects.values_list("item_id", "pk"))
    again = run_judge(start(config, manager).pk)
    assert (again.items_total, again.items_done, again.items_skipped, again.requests_made) == (5, 0, 5, 0)
    forced = run_judge(start(config, manager, force=True, filters={"item_ids": [items[0].pk]}).pk)
    assert (forced.items_total, forced.items_done, forced.items_skipped) == (1, 1, 0)
    assert Suggestion.objects.count() == 5
    assert dict(Suggestion.objects.values_list("item_id", "pk")) == created  # replaced in place
    assert Suggestion.objects.get(item=items[0]).run_id == forced.pk
    config = judge_config_update(
        config=config, actor=manager.user, prompt_template="$candidate_a vs $candidate_b"
    )
    newer = run_judge(start(config, manager).pk)
    assert newer.items_done == 5 and Suggestion.objects.count() == 10


def test_restart_after_a_crash_continues_without_duplicates(manager, server):
    pair_items(manager.project, 6)
    config = make_config(manager.project, manager.user, base_url=server.url)
    run = start(config, manager)
    run_judge(run.pk)
    # As if the worker died before marking the run done (its heartbeat stopped long ago):
    # the next delivery runs it again.
    Suggestion.objects.filter(item__in=list(Suggestion.objects.values_list("item", flat=True))[:3]).delete()
    JudgeRun.objects.filter(pk=run.pk).update(
        status=JudgeRun.Status.RUNNING, heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    requests_before = server.stats.snapshot()["total"]
    run = run_judge(run.pk)
    assert run.status == JudgeRun.Status.DONE
    assert Suggestion.objects.filter(judge_config=config).count() == 6
    assert run.items_done == 6 and run.items_skipped == 0
    assert server.stats.snapshot()["total"] - requests_before == 3 * 2


def test_cancel(manager, server):
    pair_items(manager.project, 4)
    config = make_config(manager.project, manager.user, base_url=server.url)
    queued = start(config, manager)
    cancelled = judge_run_cancel(run=queued, actor=manager.user)
    assert cancelled.status == JudgeRun.Status.CANCELLED
    assert run_judge(queued.pk).status == JudgeRun.Status.CANCELLED
    assert not Suggestion.objects.exists()
    with pytest.raises(JudgeError, match="nothing to cancel"):
        judge_run_cancel(run=cancelled, actor=manager.user)


def test_cancel_while_running_stops_between_items(manager, server, monkeypatch):
    pair_items(manager.project, 40)
    config = make_config(
        manager.project,
        manager.user,
        base_url=server.url,
        model="dev-judge?latency_ms=100",
        max_concurrency=2,
    )
    run = start(config, manager)
    write = runner._write

    def write_then_cancel(*args, **kwargs):
        # A manager presses cancel after the third item (same connection: the test's transaction).
        write(*args, **kwargs)
        if Suggestion.objects.filter(judge_config=config).count() == 3:
            judge_run_cancel(run=run, actor=manager.user)

    monkeypatch.setattr(runner, "_write", write_then_cancel)
    ended = run_judge(run.pk)
    assert ended.status == JudgeRun.Status.CANCELLED
    written = Suggestion.objects.filter(judge_config=config).count()
    # Items already in flight finish; nothing new starts.
    assert 3 <= written <= 3 + 2
    assert ended.items_done + ended.items_failed == written


def test_missing_key_fails_the_run_clearly(manager, server, monkeypatch):
    pair_items(manager.project, 1)
    monkeypatch.delenv(KEY_ENV)
    config = make_config(manager.project, manager.user, base_url=server.url)
    run = run_judge(start(config, manager).pk)
    assert run.status == JudgeRun.Status.FAILED
    assert KEY_ENV in run.error and "not set" in run.error
    assert not Suggestion.objects.exists()


def test_one_run_of_a_judge_at_a_time_and_filters_are_checked(manager, server):
    config = make_config(manager.project, manager.user, base_url=server.url)
    start(config, manager)
    with pytest.raises(JudgeError, match="still going"):
        start(config, manager)
    other = make_config(manager.project, manager.user, name="other", base_url=server.url)
    with pytest.raises(JudgeError) as caught:
        start(other, manager, filters={"states": ["nope"], "item_ids": [999999]})
    assert set(caught.value.errors) == {"states", "item_ids"}


def test_a_run_with_a_live_heartbeat_is_not_started_twice_and_stale_ones_are_recovered(
    manager, server, monkeypatch
):
    from workers.tasks import judges as judge_tasks

    pair_items(manager.project, 2)
    config = make_config(manager.project, manager.user, base_url=server.url)
    live = start(config, manager)
    JudgeRun.objects.filter(pk=live.pk).update(status=JudgeRun.Status.RUNNING, heartbeat_at=timezone.now())
    requests_before = server.stats.snapshot()["total"]
    assert run_judge(live.pk).status == JudgeRun.Status.RUNNING  # another worker holds it
    assert server.stats.snapshot()["total"] == requests_before
    queued = []
    monkeypatch.setattr(judge_tasks.judge_run_task, "delay", queued.append)
    assert judge_tasks.judge_runs_recover() == []
    JudgeRun.objects.filter(pk=live.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert judge_tasks.judge_runs_recover() == [live.pk] and queued == [live.pk]
