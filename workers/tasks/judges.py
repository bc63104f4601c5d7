"""Judge runs on the `judge` queue: the page or API queues a run, a worker judges its items."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

from workers.judging.runner import heartbeat_is_stale, run_judge, stale_after
from workers.models import JudgeRun


# acks_late: a worker killed mid-run leaves the message for the next worker, which continues
# the run (items already judged are skipped). Autoretry only when the database or broker
# connection failed: the run itself is safe to repeat, a judge's own errors are recorded.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=(OperationalError, InterfaceError, BrokerError),
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=5,
    soft_time_limit=6 * 3600,
    time_limit=6 * 3600 + 300,
)
def judge_run_task(run_id: int) -> None:
    run_judge(run_id)


@shared_task(ignore_result=True)
def judge_runs_recover() -> list[int]:
    """Queue again every running run whose worker stopped beating (killed, machine lost)."""
    resumed = []
    for run in JudgeRun.objects.filter(status=JudgeRun.Status.RUNNING):
        if heartbeat_is_stale(run):
            judge_run_task.delay(run.pk)
            resumed.append(run.pk)
    return resumed


@worker_ready.connect
def _recover_after_start(sender=None, **kwargs) -> None:
    # A worker that was killed mid-run left its run "running". Once that run's heartbeat is
    # old enough to be sure no other worker still judges it, this worker picks it up.
    judge_runs_recover.apply_async(countdown=stale_after().total_seconds() + 1)
