"""A real Celery worker on the `judge` queue runs a judge run against the dev LLM server; killed
in the middle (SIGKILL) and started again, it finishes the run without duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from annotation.models import Role, Suggestion
from tests.factories import MembershipFactory
from tests.workers.celery_worker import start_worker, stop_worker, wait_until
from tests.workers.test_judge_config import make_config
from tests.workers.test_judge_runs import pair_items
from workers.devllm import DevLLMServer
from workers.models import JudgeRun
from workers.services.judges import judge_run_start

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 90
KEY_ENV = "ARBITER_TEST_JUDGE_KEY"


def start_judge_worker(log: Path) -> subprocess.Popen:
    env = {
        KEY_ENV: "dev-key",
        # A killed worker's run is resumed once its heartbeat is this old (default 120 s).
        "ARBITER_JUDGE_STALE_SECONDS": "3",
    }
    return start_worker(log, queues="judge", env=env)


def wait_for(condition, log: Path, what: str) -> None:
    wait_until(condition, log, what, seconds=WAIT_SECONDS)


def finished(run: JudgeRun) -> bool:
    run.refresh_from_db()
    return run.status in (JudgeRun.Status.DONE, JudgeRun.Status.FAILED, JudgeRun.Status.CANCELLED)


def test_worker_runs_a_judge_run_and_survives_sigkill(tmp_path, not_eager):
    manager = MembershipFactory(role=Role.MANAGER)
    items = pair_items(manager.project, 30)
    log = tmp_path / "worker.log"
    with DevLLMServer(port=0) as server:
        config = make_config(
            manager.project,
            manager.user,
            base_url=server.url,
            model="dev-judge?latency_ms=150&rate_429=0.1&malformed=0.1&retry_after=0.05",
            max_concurrency=2,
        )
        worker = start_judge_worker(log)
        try:
            run = judge_run_start(config=config, actor=manager.user, filters={})
            done = lambda: Suggestion.objects.filter(judge_config=config).count()  # noqa: E731
            wait_for(lambda: done() >= 5, log, "five items judged")
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
            killed_at = done()
            assert killed_at < len(items), "the run finished before the worker was killed"
            # Nothing is sent again by hand: the new worker finds the run's heartbeat stale
            # and resumes it (workers.tasks.judges.judge_runs_recover).
            worker = start_judge_worker(log)
            wait_for(lambda: finished(run), log, "run finished")
        finally:
            stop_worker(worker)
    assert run.status == JudgeRun.Status.DONE, run.error
    suggestions = Suggestion.objects.filter(judge_config=config)
    assert suggestions.count() == len(items)
    assert sorted(suggestions.values_list("item_id", flat=True)) == sorted(i.pk for i in items)
    assert run.items_done + run.items_failed == len(items)
